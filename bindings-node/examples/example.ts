// Uses every function of stc-node; `tsc --strict --noEmit` checks it (see test.sh).
import {
  parse, stringify, encode, decode, decodeStc, encodeGated, countTokens, StcError, ERROR_CODES, MEDIA_TYPE, VERSION,
} from '../index.js';
import type { ErrorCode, Gated, ParseOptions, Profile, StringifyOptions, TokenizerName, TokenCounter } from '../index.js';
import stc from '../index.js';
// Exact o200k_base counts, opt-in: the package itself has only the estimate.
import { countTokens as o200k } from 'gpt-tokenizer';

const profile: Profile = 'readable';
const stcText: string = encode('{"tags": ["a", "b"]}', { profile });
const json: string = decode(stcText);
const same: string = decodeStc(Buffer.from(stcText), { maxDepth: 64 });
const value: unknown = parse(stcText);
const options: ParseOptions = { bigint: true, maxDepth: 256 };
const withBig: unknown = parse('{id: 12345678901234567890}', options);
if (typeof withBig === 'object' && withBig !== null && 'id' in withBig) {
  const id: unknown = withBig.id;
  console.log(typeof id === 'bigint' ? id + 1n : id);
}
const sOptions: StringifyOptions = { profile: 'compact', bigint: true };
const out: string = stringify({ rows: [{ id: 1n }, { id: 2n }] }, sOptions);
const nothing: undefined = stringify(undefined);
const tokenizer: TokenizerName = 'estimate';
const gated: Gated = encodeGated(json, { minSaving: 0.1, tokenizer, profile });
const exact: TokenCounter = o200k;
const gatedExactly: Gated = encodeGated(json, { tokenizer: exact });
console.log(gatedExactly.jsonTokens === countTokens(json, o200k));
const chosen: 'stc' | 'json' = gated.chosen;
const n: number = countTokens(gated.text) + countTokens(out, 'estimate') + gated.jsonTokens + gated.stcTokens;
try {
  parse('{a[3]: 1,2}');
} catch (e) {
  if (e instanceof StcError) {
    const code: ErrorCode = e.code;
    const where: [number, number, number, number | undefined] = [e.offset, e.line, e.column, e.index];
    const asSyntax: SyntaxError = e;
    console.log(code, where, asSyntax.message, e.reason);
  }
}
const codes: readonly ErrorCode[] = ERROR_CODES;
const media: 'application/stc+json' = MEDIA_TYPE;
const version: 1 = VERSION;
const viaDefault: string = stc.encode('[1]') + stc.decodeStc('[1]');
console.log(same, value, nothing, chosen, n, codes.length, media, version, viaDefault);
