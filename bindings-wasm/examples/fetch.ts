// stcFetch of the wasm package, type-checked by test/fetch-types.test.mjs
// (`tsc --strict`, lib dom) against pkg/web's stc_fetch.d.ts.
import { stcFetch, DEFAULT_ACCEPT, isStc } from '../pkg/web/stc_fetch.js';
import type { StcFetchOptions, StcRequestInit } from '../pkg/web/stc_fetch.js';

interface User {
  id: number;
  name: string;
}

export async function users(): Promise<User[]> {
  const res: Response = await stcFetch('/api/users');
  return (await res.json()) as User[];
}

export async function withOptions(req: Request): Promise<string> {
  const stc: StcFetchOptions = { accept: DEFAULT_ACCEPT, maxDepth: 64 };
  const v2: StcFetchOptions = { version: 2 };
  console.log(await (await stcFetch('/api/users', { stc: v2 })).json());
  const init: StcRequestInit = { method: 'POST', body: '{}', stc };
  try {
    return await (await stcFetch(req, init)).text();
  } catch (e) {
    if (e instanceof SyntaxError && e.name === 'StcError') return e.message;
    throw e;
  }
}

export const stcBody: boolean = isStc('application/stc+json', null);
