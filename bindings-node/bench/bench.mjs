// Speed benchmark of stc-node against JSON and @toon-format/toon (not a test).
//
//   node bench/bench.mjs [--corpus DIR] [--json OUT.json] [--quick] [--only NAME,...] [--candidates] [--clock cpu|wall]
//
// For each document of the corpus (default: <repo>/../shared/corpus; an
// .ndjson file counts as one JSON array of its lines) it times:
//   parse:      stc.parse(STC)  vs  JSON.parse(minified JSON)  vs  toon.decode(TOON)
//   stringify:  stc.stringify(v) vs JSON.stringify(v)           vs  toon.encode(v)
// plus the alternatives measured to choose stc's default paths:
//   parse via napi values (what `bigint: true` uses), decode() alone,
//   stringify via the napi walker (what `bigint: true` uses), encode() alone,
// and with --candidates the other candidates of bench/CANDIDATES.md.
// Each figure is the median of several timed batches after a warm-up; the
// operations of a document take turns batch by batch, so that a change in the
// machine's load touches them alike. Ratios are geometric means over the
// corpus (issue 12's measure), the sums' ratios kept beside them.

import fs from 'node:fs';
import os from 'node:os';
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
const budgetMs = quick ? 60 : 300;

function load(file) {
  const raw = fs.readFileSync(file, 'utf8');
  if (file.endsWith('.ndjson')) {
    return raw.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
  }
  return JSON.parse(raw);
}

/** Median milliseconds per call of each function of `fns` (null stays null), batches taking turns. */
function timeAll(fns) {
  const live = Object.entries(fns).filter(([, fn]) => fn !== null);
  const perBatch = {};
  for (const [key, fn] of live) {
    fn();
    fn();
    const t0 = performance.now();
    fn();
    const once = Math.max(performance.now() - t0, 0.001);
    perBatch[key] = Math.max(1, Math.round(budgetMs / 7 / once));
  }
  const samples = Object.fromEntries(live.map(([key]) => [key, []]));
  const batches = quick ? 3 : 7;
  for (let b = 0; b < batches; b++) {
    for (const [key, fn] of live) {
      const start = now();
      for (let i = 0; i < perBatch[key]; i++) fn();
      samples[key].push((now() - start) / perBatch[key]);
    }
  }
  const out = Object.fromEntries(Object.keys(fns).map((key) => [key, null]));
  for (const [key, xs] of Object.entries(samples)) {
    xs.sort((a, c) => a - c);
    out[key] = xs[Math.floor(xs.length / 2)];
  }
  return out;
}

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

const results = [];
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
  const row = {
    file,
    json_bytes: Buffer.byteLength(json),
    stc_bytes: Buffer.byteLength(stcText),
    toon_bytes: toonText === null ? null : Buffer.byteLength(toonText),
    toon_error: toonError,
    ms: timeAll(fns),
  };
  results.push(row);
  const r = row.ms;
  console.error(
    `${file.padEnd(30)} parse ${(r.stc_parse / r.json_parse).toFixed(2)}x JSON.parse` +
      `  stringify ${(r.stc_stringify / r.json_stringify).toFixed(2)}x JSON.stringify`,
  );
}

const sum = (key) => results.reduce((s, r) => s + (r.ms[key] ?? 0), 0);
/** Geometric mean over the documents of `a`'s time / `b`'s time. */
const geomean = (a, b) => {
  const rows = results.filter((r) => r.ms[a] !== null && r.ms[b] !== null);
  return Math.exp(rows.reduce((s, r) => s + Math.log(r.ms[a] / r.ms[b]), 0) / rows.length);
};
const totals = Object.fromEntries(ops.map(([key]) => [key, sum(key)]));
const toonFiles = results.filter((r) => r.ms.toon_decode !== null);
const ratio = (a, b) => a / b;
const summary = {
  geomean_parse_vs_json_parse: geomean('stc_parse', 'json_parse'),
  geomean_stringify_vs_json_stringify: geomean('stc_stringify', 'json_stringify'),
  geomean_parse_napi_values_vs_json_parse: geomean('stc_parse_napi_values', 'json_parse'),
  geomean_stringify_walker_vs_json_stringify: geomean('stc_stringify_walker', 'json_stringify'),
  ...Object.fromEntries(
    candidates
      ? candidateOps.map(([key]) => [`geomean_${key}_vs_${key.includes('parse') ? 'json_parse' : 'json_stringify'}`,
        geomean(key, key.includes('parse') ? 'json_parse' : 'json_stringify')])
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
    const xs = results.map((r) => r.ms.stc_parse / r.ms.json_parse).sort((a, b) => a - b);
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

if (jsonOut) {
  const report = {
    tool: 'bindings-node/bench/bench.mjs',
    command: `node bindings-node/bench/bench.mjs ${args.join(' ')}`.trim(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpu: os.cpus()[0]?.model ?? null,
    cpus: os.cpus().length,
    loadavg: os.loadavg(),
    date: new Date().toISOString(),
    corpus,
    unit: clock === 'cpu' ? 'ms of process CPU time per call, median' : 'ms per call, median',
    clock,
    operations: Object.fromEntries(ops),
    documents: results,
    totals,
    summary,
  };
  fs.writeFileSync(jsonOut, JSON.stringify(report, null, 2) + '\n');
  console.error(`wrote ${jsonOut}`);
}
