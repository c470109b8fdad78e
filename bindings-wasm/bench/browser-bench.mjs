// Decode throughput of the web build in headless Chromium (Debian's), on a
// corpus document (default twitter.json).
// Usage: node bench/browser-bench.mjs [--doc NAME] [--json OUT.json]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { serve } from '../test/server.mjs';
import { launch } from '../test/browser.mjs';
import { table } from './measure.mjs';

const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const doc = arg('--doc') || 'twitter.json';
const server = await serve();
const chromium = await launch();
try {
  const page = await chromium.context.newPage();
  await page.goto(`${server.url}/bench/bench.html`);
  const loadBefore = loadavg()[0];
  const report = await page.evaluate(([d]) => window.runBench(d), [doc]);
  // The 1-minute load average before and after: the machine may be shared.
  report.load = [loadBefore, loadavg()[0]].map((x) => +x.toFixed(2));
  const version = report.runtime.match(/Chrome\/[\d.]+/)?.[0] || report.runtime;
  console.log(`# chromium (${version}), ${report.document}, load ${report.load.join(' -> ')}: ${JSON.stringify(report.sizes)}`);
  console.log(table(report.results));
  if (arg('--json')) writeFileSync(arg('--json'), JSON.stringify(report, null, 2) + '\n');
} finally {
  await chromium.close();
  await server.close();
}
