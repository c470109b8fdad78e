// Throughput measurement shared by Node (bench.mjs) and Chromium (bench.html):
// only `performance.now()`, no runtime-specific APIs.

/**
 * Runs `f` for `rounds` rounds of at least `minMs` each; returns the best and
 * the median ms per call. The best round is the figure least disturbed by
 * other processes on a shared machine.
 */
export function time(f, { rounds = 25, minMs = 100 } = {}) {
  for (let i = 0; i < 3; i++) f(); // warm up (compile, tier up)
  const perCall = [];
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const start = performance.now();
    let elapsed = 0;
    do {
      f();
      n++;
      elapsed = performance.now() - start;
    } while (elapsed < minMs);
    perCall.push(elapsed / n);
  }
  perCall.sort((a, b) => a - b);
  return { best: perCall[0], median: perCall[Math.floor(perCall.length / 2)] };
}

/**
 * Measures the package `stc` on one JSON document `jsonText`.
 * Throughput is megabytes (10^6 bytes) of *input* per second.
 */
export function measure(stc, jsonText, opts) {
  const utf8 = (s) => new TextEncoder().encode(s).length;
  const stcText = stc.encode(jsonText);
  const minified = stc.decode(stcText);
  const sizes = { jsonBytes: utf8(jsonText), minifiedJsonBytes: utf8(minified), stcBytes: utf8(stcText) };
  const row = (name, inputBytes, f) => {
    const { best, median } = time(f, opts);
    const mbps = (ms) => +(inputBytes / 1e6 / (ms / 1e3)).toFixed(1);
    return { name, inputBytes, msBest: +best.toFixed(3), msMedian: +median.toFixed(3), mbPerSecBest: mbps(best), mbPerSecMedian: mbps(median) };
  };
  const results = [
    row('decode (STC -> JSON text)', sizes.stcBytes, () => stc.decode(stcText)),
    row('parse (STC -> JS value)', sizes.stcBytes, () => stc.parse(stcText)),
    row('parse bigint (STC -> JS value)', sizes.stcBytes, () => stc.parse(stcText, { bigint: true })),
    row('encode (JSON text -> STC)', sizes.jsonBytes, () => stc.encode(jsonText)),
    row('baseline: JSON.parse(minified JSON)', sizes.minifiedJsonBytes, () => JSON.parse(minified)),
  ];
  return { sizes, results };
}

export function table(results) {
  const lines = [
    '| operation | input bytes | ms/call best | MB/s best | ms/call median | MB/s median |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of results) {
    lines.push(`| ${r.name} | ${r.inputBytes} | ${r.msBest} | ${r.mbPerSecBest} | ${r.msMedian} | ${r.mbPerSecMedian} |`);
  }
  return lines.join('\n');
}
