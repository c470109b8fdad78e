// Test helpers shared by the stc-node and stc-wasm test suites: real
// processes (`stc proxy`, a test upstream) on 127.0.0.1 with a port the OS
// picks, the `stc` binary, and catching an exception. Test-only: not copied
// into either package.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';

/** The repository root. */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The exception `f()` throws; fails the test when it throws none. */
export function thrown(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  return assert.fail('expected an exception');
}

/**
 * Spawns `command args` (spawn `options` added); resolves to
 * { line, proc, stop(), stderr() } once it prints a first line on stdout;
 * rejects (never hangs) when it exits first or prints nothing within
 * `timeoutMs`.
 */
export function spawnUntilLine(command, args, options = {}, timeoutMs = 60_000) {
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  // SIGTERM, then SIGKILL after 10 s; resolves once the process is gone.
  const stop = () => new Promise((done) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return done();
    const kill = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    proc.once('exit', () => { clearTimeout(kill); done(); });
    proc.kill('SIGTERM');
  });
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => { proc.kill('SIGKILL'); fail(new Error(`${command} printed nothing in ${timeoutMs} ms: ${stderr}`)); }, timeoutMs);
    createInterface({ input: proc.stdout }).once('line', (line) => { clearTimeout(timer); ok({ line, proc, stop, stderr: () => stderr }); });
    proc.once('exit', (code) => { clearTimeout(timer); fail(new Error(`${command} exited (${code}) before printing a line: ${stderr}`)); });
    proc.once('error', (e) => { clearTimeout(timer); fail(e); });
  });
}

/**
 * The `stc` binary: $STC_BIN (set by scripts/test-all.sh), else the debug build
 * of this checkout, built now by `cargo build -p stc-cli` if needed. Throws
 * (the tests fail, they do not skip) when there is none.
 */
export function stcBinary() {
  if (process.env.STC_BIN) {
    if (!existsSync(process.env.STC_BIN)) throw new Error(`STC_BIN=${process.env.STC_BIN} does not exist`);
    return process.env.STC_BIN;
  }
  const target = process.env.CARGO_TARGET_DIR ? resolve(process.env.CARGO_TARGET_DIR) : join(REPO, 'target');
  const r = spawnSync('cargo', ['build', '--quiet', '-p', 'stc-cli'], { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'] });
  const bin = join(target, 'debug', 'stc');
  if (r.status !== 0 || !existsSync(bin)) {
    throw new Error(`no stc binary: set STC_BIN, or make \`cargo build -p stc-cli\` work (${r.error?.message ?? `exit ${r.status}`}); looked for ${bin}`);
  }
  return bin;
}

/** Starts `stc proxy --listen 127.0.0.1:0 --upstream URL`; resolves to { url, stop() }. */
export async function startProxy(upstreamUrl) {
  const { line, stop } = await spawnUntilLine(stcBinary(), ['proxy', '--listen', '127.0.0.1:0', '--upstream', upstreamUrl]);
  const m = /http:\/\/127\.0\.0\.1:\d+/.exec(line);
  if (!m) throw new Error(`stc proxy printed no address: ${line}`);
  return { url: m[0], stop };
}
