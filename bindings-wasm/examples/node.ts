// Type-checked by `npm test` (tsc --strict --noEmit): the Node build's .d.ts in use.
import { decode, encode, encodeGated, type StcErrorCode } from '../pkg/node/stc.mjs';

const stc: string = encode('{"tags": ["a", "b"]}');
const json: string = decode(new TextEncoder().encode(stc));
const chosen: 'stc' | 'json' = encodeGated(json).chosen;
const code: StcErrorCode = 'count_mismatch';
console.log(stc, json, chosen, code);
