// Type-checked by `npm test` (tsc --strict --noEmit): the stash types of
// js-shared/stash.d.ts as both builds publish them.
import { MemoryStash, truncate, retrieve } from '../pkg/web/stc.js';
import type { Kept, Omission, StashError, StashErrorCode, StashOptions, TruncateOptions, Truncation } from '../pkg/web/stc.js';
import * as node from '../pkg/node/stc.mjs';

// In a page: `await loadStash()` (from 'stc-wasm') once before the first call below.
export function cut(json: string): string[] {
  const options: StashOptions = { ttl: 60, capacity: 10 };
  const stash = new MemoryStash(options);
  const opts: TruncateOptions = { stash, budget: 200, truncateArraysAt: 4, retrieveTool: 'stc_retrieve', tokenizer: 'estimate', maxDepth: 64 };
  const t: Truncation = truncate(json, opts);
  const kept: Kept | null = t.kept;
  const first: Omission | undefined = t.omissions[0];
  const unit: 'records' | 'items' | 'chars' | undefined = first?.unit;
  try {
    return [t.text, t.json, retrieve(t.keys[0] ?? '', { stash }), String(kept), String(unit), String(t.tokens < t.originalTokens)];
  } catch (e) {
    const err = e as StashError;
    const code: StashErrorCode = err.code;
    const again: boolean = err.retryable;
    const key: string | null = err.key;
    return [err.name, err.message, code, String(again), key ?? '-'];
  } finally {
    stash.close();
  }
}

export function lossy(json: string): number {
  const t: node.Truncation = node.truncate(new TextEncoder().encode(json), { stash: null, lossy: true });
  return t.omissions.filter((o: node.Omission) => o.key === null).length + new node.MemoryStash().size;
}
