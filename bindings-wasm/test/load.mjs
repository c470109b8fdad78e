// Helpers for the Node tests: the built Node package and the corpus files.
import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CASES_DIR = resolve(ROOT, '../conformance/cases');
/**
 * Real documents, read in place (never copied): $STC_CORPUS, else the shared
 * corpus next to the repository (../shared/corpus from the repository root),
 * else /work/shared/corpus.
 */
export const CORPUS_DIR = process.env.STC_CORPUS
  ? resolve(process.env.STC_CORPUS)
  : [resolve(ROOT, '../../shared/corpus'), resolve(ROOT, '../shared/corpus'), '/work/shared/corpus'].find((d) =>
      existsSync(join(d, 'twitter.json')),
    ) || resolve(ROOT, '../../shared/corpus');

/** The Node build of the package, as users load it (`require('stc-wasm')` in Node). */
export const stc = createRequire(import.meta.url)(join(ROOT, 'pkg/node/stc.mjs'));

/** Every case file of the conformance corpus (at any depth), discovered at run time. */
export function caseFiles() {
  return readdirSync(CASES_DIR, { recursive: true })
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, data: JSON.parse(readFileSync(join(CASES_DIR, file), 'utf8')) }));
}
