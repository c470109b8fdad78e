// Real processes for the stcFetch tests: the upstream (test/upstream.mjs) and
// `stc proxy` in front of it. Both bind 127.0.0.1 on a port the OS picks.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT, CORPUS_DIR, stc } from './load.mjs';

const REPO = resolve(ROOT, '..');

/** An invalid STC text (served by test/upstream.mjs at /broken): a missing ',' at line 3 column 16. */
export const BROKEN_STC = '{\n  ok: true,\n  tags[2]: "a" "b"\n}';

/**
 * Spawns `command args`; resolves to { line, proc, stop() } once it prints a
 * first line on stdout; rejects (never hangs) when it exits first or prints
 * nothing within `timeoutMs`.
 */
export function spawnUntilLine(command, args, timeoutMs = 60_000) {
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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

/** Starts test/upstream.mjs; resolves to { url, stop() }. */
export async function startUpstream() {
  const { line, stop } = await spawnUntilLine(process.execPath, [join(ROOT, 'test', 'upstream.mjs')]);
  const m = /^listening (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
  if (!m) throw new Error(`unexpected first line of test/upstream.mjs: ${line}`);
  return { url: m[1], stop };
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
export async function startProxy(upstream) {
  const { line, stop } = await spawnUntilLine(stcBinary(), ['proxy', '--listen', '127.0.0.1:0', '--upstream', upstream]);
  const m = /http:\/\/127\.0\.0\.1:\d+/.exec(line);
  if (!m) throw new Error(`stc proxy printed no address: ${line}`);
  return { url: m[0], stop };
}

/** The upstream document as minified JSON, number lexemes and key order kept. */
export const minified = (name) => stc.decode(readFileSync(join(CORPUS_DIR, name)));
