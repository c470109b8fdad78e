// The stash from TypeScript (ES module entry); `tsc --strict --noEmit` checks it (see test.sh).
import { truncate, retrieve, SqliteStash, MemoryStash, StashError, STASH_ERROR_CODES } from '../index.mjs';
import type { Kept, Omission, StashErrorCode, Truncation, TruncateOptions } from '../index.mjs';

const big = JSON.stringify({ items: Array.from({ length: 500 }, (_, id) => ({ id, name: `user${id}` })) });

const memory = new MemoryStash({ capacity: 100 });
const options: TruncateOptions = { stash: memory, budget: 1000, retrieveTool: 'stc_retrieve' };
const out: Truncation = truncate(big, options);
const why: Kept | null = out.kept;
const parts: Omission[] = out.omissions;
console.log(out.text, out.tokens, out.originalTokens, why, parts.length, memory.size);
for (const key of out.keys) {
  const original: string = retrieve(key, { stash: memory });
  console.log(original.length === memory.retrieve(key).length);
}

const sqlite = new SqliteStash(null, { ttl: 7 * 24 * 3600 });
const path: string = sqlite.path;
try {
  sqlite.retrieve('0123456789abcdef01234567');
} catch (e) {
  if (e instanceof StashError) {
    const code: StashErrorCode = e.code;
    const again: boolean = e.retryable;
    console.log(code, again, e.key ?? 'no key', path, STASH_ERROR_CODES.includes(code));
  }
}
sqlite.close();
const lossy: Truncation = truncate(big, { stash: null, truncateArraysAt: 8, lossy: true });
console.log(lossy.truncated);
