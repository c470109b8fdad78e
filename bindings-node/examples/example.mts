// The ES module entry, type-checked like example.ts.
import stc, { parse, stringify, decodeStc, StcError } from '../index.mjs';
import type { ErrorCode } from '../index.mjs';

const text: string = stringify({ users: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }] }, { profile: 'readable' });
const back: unknown = parse(text);
const json: string = decodeStc(text);
const err = new StcError('x', { code: 'count_mismatch', offset: 1, line: 1, column: 2 });
const code: ErrorCode = err.code;
console.log(back, json, code, stc.countTokens(text));
