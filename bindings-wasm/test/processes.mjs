// Real processes for the stcFetch tests: the upstream (test/upstream.mjs) and
// `stc proxy` in front of it. Both bind 127.0.0.1 on a port the OS picks.
import { spawnUntilLine } from '../../js-shared/test/processes.mjs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, CORPUS_DIR, stc } from './load.mjs';

/** An invalid STC text (served by test/upstream.mjs at /broken): a missing ',' at line 3 column 16. */
export const BROKEN_STC = '{\n  ok: true,\n  tags[2]: "a" "b"\n}';

/** Starts test/upstream.mjs; resolves to { url, stop() }. */
export async function startUpstream() {
  const { line, stop } = await spawnUntilLine(process.execPath, [join(ROOT, 'test', 'upstream.mjs')]);
  const m = /^listening (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
  if (!m) throw new Error(`unexpected first line of test/upstream.mjs: ${line}`);
  return { url: m[1], stop };
}

/** The upstream document as minified JSON, number lexemes and key order kept. */
export const minified = (name) => stc.decode(readFileSync(join(CORPUS_DIR, name)));

export { spawnUntilLine, stcBinary, startProxy } from '../../js-shared/test/processes.mjs';
