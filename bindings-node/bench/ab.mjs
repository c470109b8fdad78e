// A/B of two builds of the addon (not a test): how a change inside the addon
// moves decode and encode, document by document.
//
//   node bench/ab.mjs A.node B.node [--corpus DIR] [--values | --parse | --walker]
//
// With --values, the operations compared are parseValues(text, undefined,
// true) (the value builder behind parse with bigint: true) instead of decode
// and encode; with --parse, JSON.parse(decodeLatin1(text)) (parse's default
// path); with --walker, stringifyValues(value, undefined, undefined, true)
// (the walker behind stringify with bigint: true).
//
// Both builds are loaded into one process; their calls take turns batch by
// batch and are timed in process CPU time (the machine is shared), 9 batches,
// medians. Prints B's time / A's time per document and their geometric means
// (below 1: B is faster).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const i = args.indexOf('--corpus');
const corpus = path.resolve(i >= 0 ? args[i + 1] : path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'shared', 'corpus'));
const [fileA, fileB] = args.filter((a, k) => !a.startsWith('--') && (i < 0 || k !== i + 1));
const values = args.includes('--values');
const parseMode = args.includes('--parse');
const walker = args.includes('--walker');
if (!fileA || !fileB) {
  console.error('usage: node bench/ab.mjs A.node B.node [--corpus DIR]');
  process.exit(2);
}
const A = require(path.resolve(fileA));
const B = require(path.resolve(fileB));
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const ratios = [];
for (const f of fs.readdirSync(corpus).filter((n) => /\.(nd)?json$/.test(n)).sort()) {
  const raw = fs.readFileSync(path.join(corpus, f), 'utf8');
  const value = f.endsWith('.ndjson') ? raw.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l)) : JSON.parse(raw);
  const json = JSON.stringify(value);
  const text = A.encode(json);
  if (B.encode(json) !== text || B.decode(text) !== A.decode(text)) throw new Error(`${f}: the builds disagree`);
  if (values && JSON.stringify(B.parseValues(text, undefined, true), (k, v) => (typeof v === 'bigint' ? `${v}n` : v)) !== JSON.stringify(A.parseValues(text, undefined, true), (k, v) => (typeof v === 'bigint' ? `${v}n` : v))) throw new Error(`${f}: the builds' values disagree`);
  if (parseMode && JSON.stringify(JSON.parse(B.decodeLatin1(text))) !== JSON.stringify(JSON.parse(A.decodeLatin1(text)))) throw new Error(`${f}: the builds' parse disagree`);
  if (walker && B.stringifyValues(value, undefined, undefined, true) !== A.stringifyValues(value, undefined, undefined, true)) throw new Error(`${f}: the builds' walkers disagree`);
  const fns = walker
    ? { decodeA: () => A.stringifyValues(value, undefined, undefined, true), decodeB: () => B.stringifyValues(value, undefined, undefined, true) }
    : parseMode
    ? { decodeA: () => JSON.parse(A.decodeLatin1(text)), decodeB: () => JSON.parse(B.decodeLatin1(text)) }
    : values
    ? { decodeA: () => A.parseValues(text, undefined, true), decodeB: () => B.parseValues(text, undefined, true) }
    : { decodeA: () => A.decode(text), decodeB: () => B.decode(text), encodeA: () => A.encode(json), encodeB: () => B.encode(json) };
  const t0 = performance.now();
  A.decode(text);
  const n = Math.max(1, Math.round(20 / Math.max(0.01, performance.now() - t0)));
  const xs = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  for (let r = 0; r < 9; r++) {
    for (const [k, fn] of Object.entries(fns)) {
      const s = cpu();
      for (let j = 0; j < n; j++) fn();
      xs[k].push((cpu() - s) / n);
    }
  }
  const med = (k) => xs[k].sort((a, b) => a - b)[4];
  const single = values || parseMode || walker;
  const r = single ? [med('decodeB') / med('decodeA'), 1] : [med('decodeB') / med('decodeA'), med('encodeB') / med('encodeA')];
  ratios.push(r);
  const op = walker ? 'walker' : parseMode ? 'parse' : 'parseValues';
  console.log(single ? `${f.padEnd(30)} ${op} B/A ${r[0].toFixed(3)}` : `${f.padEnd(30)} decode B/A ${r[0].toFixed(3)}  encode B/A ${r[1].toFixed(3)}`);
}
const g = (k) => Math.exp(ratios.reduce((s, r) => s + Math.log(r[k]), 0) / ratios.length);
console.log(values || parseMode || walker ? `geometric mean: ${walker ? 'walker' : parseMode ? 'parse' : 'parseValues'} B/A ${g(0).toFixed(3)}` : `geometric mean: decode B/A ${g(0).toFixed(3)}, encode B/A ${g(1).toFixed(3)}`);
