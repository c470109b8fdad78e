// stcFetch, type-checked with `tsc --strict` (npm run typecheck).
import { stcFetch, StcError, DEFAULT_ACCEPT } from '../index.mjs';
import type { StcFetchOptions, StcRequestInit } from '../index.mjs';

interface User {
  id: number;
  name: string;
}

export async function users(base: string): Promise<User[]> {
  const res: Response = await stcFetch(`${base}/api/users`);
  return (await res.json()) as User[];
}

export async function withOptions(base: string): Promise<string> {
  const options: StcFetchOptions = { accept: null, maxDepth: 64 };
  const init: StcRequestInit = { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' }, stc: options };
  try {
    const res = await stcFetch(new URL('/api/echo', base), init);
    return await res.text();
  } catch (e) {
    if (e instanceof StcError) return `${e.code} at line ${e.line} column ${e.column}`;
    throw e;
  }
}

export const fromRequest = (req: Request): Promise<Response> => stcFetch(req, { stc: { accept: DEFAULT_ACCEPT } });
