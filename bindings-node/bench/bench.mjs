// Speed benchmark of stc-node against JSON and @toon-format/toon (not a test).
//
//   node bench/bench.mjs [--corpus DIR] [--json OUT.json] [--quick] [--only NAME,...] [--candidates] [--clock cpu|wall]
//                        [--rounds N] [--batch-ms MS] [--gc before|none]
//
// For each document of the corpus (default: <repo>/../shared/corpus; an
// .ndjson file counts as one JSON array of its lines) it times:
//   parse:      stc.parse(STC)  vs  JSON.parse(minified JSON)  vs  toon.decode(TOON)
//   stringify:  stc.stringify(v) vs JSON.stringify(v)           vs  toon.encode(v)
// plus the alternatives measured to choose stc's default paths:
//   parse via napi values (what `bigint: true` uses), decode() alone,
//   stringify via the napi walker (what `bigint: true` uses), encode() alone,
// and with --candidates the other candidates of bench/CANDIDATES.md.
// Each operation is timed in rounds (see timeAll): per round one batch of each,
// a full GC before each batch, the order reversed every other round. A
// document's ratio is the median of the per-round ratios of an stc operation
// to its JSON counterpart (same round, neighbouring batches), with their
// quartiles; the summary gives the geometric means over the corpus (issue 12's
// measure), their per-round spread, the load average, and the sums' ratios.
//   --rounds N (15; --quick 5)  --batch-ms MS (20; --quick 10)  --gc before|none
import fs from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import * as toon from '@toon-format/toon';
import * as stc from '../index.mjs';

const require = createRequire(import.meta.url);
const native = require('../stc.node');
const here = path.dirname(fileURLToPath(import.meta.url));

const args = process.argv.slice(2);
function flag(name) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}
const corpus = path.resolve(flag('--corpus') ?? path.join(here, '..', '..', '..', 'shared', 'corpus'));
const jsonOut = flag('--json');
const quick = args.includes('--quick');
const only = flag('--only')?.split(',');
const candidates = args.includes('--candidates');
// The clock: this process's CPU time (default; the machine is shared, and time
// spent waiting for a core would land on whichever operation was running) or
// wall time.
const clock = flag('--clock') ?? 'cpu';
if (clock !== 'cpu' && clock !== 'wall') throw new Error(`--clock must be cpu or wall, got ${clock}`);
const now = clock === 'wall' ? () => performance.now() : () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

function load(file) {
  const raw = fs.readFileSync(file, 'utf8');
  if (file.endsWith('.ndjson')) {
    return raw.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
  }
  return JSON.parse(raw);
}

// Each operation runs in batches of calls sized to about `batchMs` of CPU time;
// every round runs one batch of each operation, in the order of `ops` (each
// stc operation next to the JSON one it is compared with) and reversed in
// every other round, so a pair sees the same load and neither always runs
// after the other. Before each batch (untimed) a full garbage collection, so
// no batch pays for the garbage of the one before it; the collections a
// batch's own calls cause during it stay in its time. One untimed round first
// (warm-up). A document's ratio is the median over the rounds of the two
// operations' batch times *of the same round*; its spread is the quartiles of
// those per-round ratios.
const rounds = Number(flag('--rounds') ?? (quick ? 5 : 15));
const batchMs = Number(flag('--batch-ms') ?? (quick ? 10 : 20));
const gcMode = flag('--gc') ?? 'before';
if (gcMode !== 'before' && gcMode !== 'none') throw new Error(`--gc must be before or none, got ${gcMode}`);
v8.setFlagsFromString('--expose-gc');
const gc = gcMode === 'before' ? vm.runInNewContext('gc') : () => {};

/** Times of each function of `fns` (null stays null): per-round ms per call. */
function timeAll(fns) {
  const live = Object.entries(fns).filter(([, fn]) => fn !== null);
  const perBatch = {};
  for (const [key, fn] of live) {
    fn();
    fn();
    const t0 = now();
    let n = 0;
    while (n < 3 || now() - t0 < Math.min(batchMs, 5)) {
      fn();
      n++;
    }
    const once = Math.max((now() - t0) / n, 0.001);
    perBatch[key] = Math.max(1, Math.round(batchMs / once));
  }
  const samples = Object.fromEntries(live.map(([key]) => [key, []]));
  for (let r = -1; r < rounds; r++) {
    const order = r % 2 === 0 ? live : [...live].reverse();
    for (const [key, fn] of order) {
      gc();
      const start = now();
      for (let i = 0; i < perBatch[key]; i++) fn();
      const ms = (now() - start) / perBatch[key];
      if (r >= 0) samples[key].push(ms);
    }
  }
  return samples;
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, c) => a - c);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (pos - lo);
};
const median = (xs) => quantile(xs, 0.5);

const files = fs
  .readdirSync(corpus)
  .filter((f) => /\.(nd)?json$/.test(f))
  .filter((f) => !only || only.some((o) => f.includes(o)))
  .sort();

const ops = [
  ['json_parse', 'JSON.parse(json)'],
  ['stc_parse', 'stc.parse(stc)'],
  ['stc_parse_napi_values', 'parse via napi values (bigint path)'],
  ['stc_decode', 'stc.decode(stc) only'],
  ['toon_decode', 'toon.decode(toon)'],
  ['json_stringify', 'JSON.stringify(v)'],
  ['stc_stringify', 'stc.stringify(v)'],
  ['stc_stringify_walker', 'stringify via napi walker (bigint path)'],
  ['stc_encode', 'stc.encode(json) only'],
  ['toon_encode', 'toon.encode(v)'],
];
// Candidates (bench/CANDIDATES.md), timed with --candidates.
const candidateOps = [
  ['cand_parse_decode_utf16', 'JSON.parse(decode(stc)): the JSON text as Latin-1 or two-byte (the previous default)'],
  ['cand_parse_decode_latin1', 'JSON.parse(decodeLatin1(stc)): one-byte JSON text, \\u escapes beyond U+00FF (the default)'],
  ['cand_parse_bytes_in', 'JSON.parse(decodeLatin1(Buffer.from(stc))): the STC text in as UTF-8 bytes'],
  ['cand_stringify_bytes_in', 'encode(Buffer.from(JSON.stringify(v))): the JSON text in as UTF-8 bytes'],
];
if (candidates) ops.push(...candidateOps);
/** The JSON operation an operation is compared with (null for JSON's own and TOON's). */
function baseOf(key) {
  if (key.startsWith('json_') || key.startsWith('toon_')) return null;
  return /parse|decode/.test(key) ? 'json_parse' : 'json_stringify';
}

const results = [];
const loadStart = os.loadavg();
for (const file of files) {
  const value = load(path.join(corpus, file));
  const json = JSON.stringify(value);
  const stcText = stc.encode(json);
  const expected = JSON.parse(json);
  let toonText = null;
  let toonError = null;
  try {
    toonText = toon.encode(value);
    toon.decode(toonText);
  } catch (e) {
    toonError = String(e.message ?? e);
  }
  // Every path must agree before it is timed.
  if (stc.decode(stcText) !== json) throw new Error(`${file}: decode(encode(json)) differs`);
  if (stc.stringify(value) !== stcText || native.stringifyValues(value, undefined, undefined, false) !== stcText) {
    throw new Error(`${file}: stringify paths differ from encode`);
  }
  const check = JSON.stringify(native.parseValues(stcText, undefined, false));
  if (check !== JSON.stringify(expected)) throw new Error(`${file}: napi value path differs`);

  const fns = {
    json_parse: () => JSON.parse(json),
    stc_parse: () => stc.parse(stcText),
    stc_parse_napi_values: () => native.parseValues(stcText, undefined, false),
    stc_decode: () => stc.decode(stcText),
    toon_decode: toonText === null ? null : () => toon.decode(toonText),
    json_stringify: () => JSON.stringify(value),
    stc_stringify: () => stc.stringify(value),
    stc_stringify_walker: () => native.stringifyValues(value, undefined, undefined, false),
    stc_encode: () => stc.encode(json),
    toon_encode: () => toon.encode(value),
  };
  if (candidates) {
    Object.assign(fns, {
      cand_parse_decode_utf16: () => JSON.parse(native.decode(stcText)),
      cand_parse_decode_latin1: () => JSON.parse(native.decodeLatin1(stcText)),
      cand_parse_bytes_in: () => JSON.parse(native.decodeLatin1(Buffer.from(stcText))),
      cand_stringify_bytes_in: () => native.encode(Buffer.from(JSON.stringify(value))),
    });
    if (JSON.stringify(JSON.parse(native.decodeLatin1(stcText))) !== JSON.stringify(expected)) {
      throw new Error(`${file}: decodeLatin1 differs`);
    }
  }
  const rounds = timeAll(fns);
  const ms = Object.fromEntries(Object.keys(fns).map((key) => [key, rounds[key] ? median(rounds[key]) : null]));
  // Each stc operation against its JSON counterpart, round by round.
  const ratio = {};
  const spread = {};
  for (const [key] of ops) {
    const base = baseOf(key);
    if (base === null || !rounds[key] || !rounds[base]) continue;
    const xs = rounds[key].map((t, i) => t / rounds[base][i]);
    ratio[key] = median(xs);
    spread[key] = `${quantile(xs, 0.25).toFixed(2)}-${quantile(xs, 0.75).toFixed(2)}`;
  }
  const row = {
    file,
    json_bytes: Buffer.byteLength(json),
    stc_bytes: Buffer.byteLength(stcText),
    toon_bytes: toonText === null ? null : Buffer.byteLength(toonText),
    toon_error: toonError,
    ms,
    ratio,
    ratio_quartiles: spread,
    rounds,
  };
  results.push(row);
  console.error(
    `${file.padEnd(30)} parse ${ratio.stc_parse.toFixed(2)}x JSON.parse (${spread.stc_parse})` +
      `  stringify ${ratio.stc_stringify.toFixed(2)}x JSON.stringify (${spread.stc_stringify})`,
  );
}

const sum = (key) => results.reduce((s, r) => s + (r.ms[key] ?? 0), 0);
/** Geometric mean over the documents of `a`'s time / its JSON counterpart's (per document: median of the rounds' ratios). */
const geomean = (a) => {
  const rows = results.filter((r) => r.ratio[a] !== undefined);
  return Math.exp(rows.reduce((s, r) => s + Math.log(r.ratio[a]), 0) / rows.length);
};
/**
 * The spread of that geometric mean: one geometric mean over the documents per
 * round (round i of every document), then their quartiles and extremes.
 */
const roundSpread = (a) => {
  const rows = results.filter((r) => r.ratio[a] !== undefined);
  const base = baseOf(a);
  const gs = [];
  for (let i = 0; i < rounds; i++) {
    gs.push(Math.exp(rows.reduce((s, r) => s + Math.log(r.rounds[a][i] / r.rounds[base][i]), 0) / rows.length));
  }
  const f = (x) => x.toFixed(3);
  return `min ${f(Math.min(...gs))}, quartiles ${f(quantile(gs, 0.25))}-${f(quantile(gs, 0.75))}, max ${f(Math.max(...gs))}`;
};
const totals = Object.fromEntries(ops.map(([key]) => [key, sum(key)]));
const toonFiles = results.filter((r) => r.ms.toon_decode !== null);
const ratio = (a, b) => a / b;
const summary = {
  geomean_parse_vs_json_parse: geomean('stc_parse'),
  geomean_stringify_vs_json_stringify: geomean('stc_stringify'),
  geomean_parse_napi_values_vs_json_parse: geomean('stc_parse_napi_values'),
  geomean_stringify_walker_vs_json_stringify: geomean('stc_stringify_walker'),
  geomean_decode_vs_json_parse: geomean('stc_decode'),
  geomean_encode_vs_json_stringify: geomean('stc_encode'),
  ...Object.fromEntries(
    candidates
      ? candidateOps.map(([key]) => [`geomean_${key}_vs_${key.includes('parse') ? 'json_parse' : 'json_stringify'}`,
        geomean(key)])
      : [],
  ),
  parse_vs_json_parse: ratio(totals.stc_parse, totals.json_parse),
  parse_napi_values_vs_json_parse: ratio(totals.stc_parse_napi_values, totals.json_parse),
  stringify_vs_json_stringify: ratio(totals.stc_stringify, totals.json_stringify),
  stringify_walker_vs_json_stringify: ratio(totals.stc_stringify_walker, totals.json_stringify),
  toon_decode_vs_json_parse: ratio(
    toonFiles.reduce((s, r) => s + r.ms.toon_decode, 0),
    toonFiles.reduce((s, r) => s + r.ms.json_parse, 0),
  ),
  toon_encode_vs_json_stringify: ratio(
    toonFiles.reduce((s, r) => s + r.ms.toon_encode, 0),
    toonFiles.reduce((s, r) => s + r.ms.json_stringify, 0),
  ),
  median_parse_ratio: (() => {
    const xs = results.map((r) => r.ratio.stc_parse).sort((a, b) => a - b);
    return xs[Math.floor(xs.length / 2)];
  })(),
};

const fmt = (x) => (x === null ? 'n/a' : x < 10 ? x.toFixed(3) : x.toFixed(1));
const lines = [];
const heads = ['JSON.parse', 'stc.parse', 'napi values', 'decode', 'toon.decode', 'JSON.stringify', 'stc.stringify', 'napi walker', 'encode', 'toon.encode'];
lines.push(`| document | ${ops.map(([key], i) => heads[i] ?? key.replace(/^cand_/, '')).join(' | ')} |`);
lines.push(`| --- |${' ---: |'.repeat(ops.length)}`);
for (const r of results) {
  lines.push(`| ${r.file} | ${ops.map(([k]) => fmt(r.ms[k])).join(' | ')} |`);
}
lines.push(`| **total** | ${ops.map(([k]) => fmt(totals[k])).join(' | ')} |`);
console.log(`milliseconds per call (median, ${clock === 'cpu' ? 'process CPU time' : 'wall time'}), Node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}, load ${os.loadavg()[0].toFixed(1)}`);
console.log(lines.join('\n'));
console.log();
for (const [k, v] of Object.entries(summary)) console.log(`${k}: ${v.toFixed(2)}x`);
// The geometric means' spread: one geometric mean per round.
const spread = Object.fromEntries(
  ['stc_parse', 'stc_decode', 'stc_stringify', 'stc_encode'].map((k) => [`geomean_${k}_per_round`, roundSpread(k)]),
);
for (const [k, v] of Object.entries(spread)) console.log(`${k}: ${v}`);
const loadEnd = os.loadavg();
console.log(`load average (1 min) at start ${loadStart[0].toFixed(1)}, at end ${loadEnd[0].toFixed(1)}; ${rounds} rounds, batches of about ${batchMs} ms, gc ${gcMode} each batch`);

if (jsonOut) {
  const report = {
    tool: 'bindings-node/bench/bench.mjs',
    command: `node bindings-node/bench/bench.mjs ${args.join(' ')}`.trim(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpu: os.cpus()[0]?.model ?? null,
    cpus: os.cpus().length,
    loadavg: os.loadavg(),
    loadavg_start: loadStart,
    rounds,
    batch_ms: batchMs,
    gc: gcMode,
    date: new Date().toISOString(),
    corpus,
    unit: clock === 'cpu' ? 'ms of process CPU time per call, median over rounds' : 'ms per call, median over rounds',
    ratio: 'per document: median over rounds of (stc operation / its JSON counterpart) in the same round; summary: geometric means of those',
    clock,
    operations: Object.fromEntries(ops),
    documents: results,
    totals,
    summary,
    spread,
  };
  fs.writeFileSync(jsonOut, JSON.stringify(report, null, 2) + '\n');
  console.error(`wrote ${jsonOut}`);
}
