// Decode throughput of the Node build on a corpus document (default twitter.json).
// Usage: node bench/bench.mjs [--doc FILE] [--json OUT.json]
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { basename, resolve } from 'node:path';
import { stc, CORPUS_DIR } from '../test/load.mjs';
import { measure, table } from './measure.mjs';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const doc = resolve(arg('--doc') || `${CORPUS_DIR}/twitter.json`);
const loadBefore = loadavg()[0];
const { sizes, results } = measure(stc, readFileSync(doc, 'utf8'));
// The 1-minute load average before and after: the machine may be shared.
const load = [loadBefore, loadavg()[0]].map((x) => +x.toFixed(2));
const report = { runtime: `node ${process.version}`, document: basename(doc), load, sizes, results };
console.log(`# ${report.runtime}, ${report.document}, load ${load.join(' -> ')}: ${JSON.stringify(sizes)}`);
console.log(table(results));
if (arg('--json')) writeFileSync(arg('--json'), JSON.stringify(report, null, 2) + '\n');
