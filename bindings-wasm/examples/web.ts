// Type-checked by `npm test` (tsc --strict --noEmit): the web build's .d.ts in use.
import init, { decode, encode, parse, stringify, encodeGated, countTokens, type StcError, type Gated, type TokenCounter, type StcVersion } from '../pkg/web/stc.js';

export async function demo(): Promise<void> {
  await init();
  const json: string = decode('([2]{id,name}: 1,"a" / 2,"b")', { maxDepth: 16 });
  // STC version 2 (column groups, absent cells, keyed tables), written and read.
  const v2: StcVersion = 2;
  const grouped: string = encode(json, { version: v2 });
  console.log(decode(grouped, { version: 2 }), stringify([{ a: { b: 1 } }], { version: v2 }));
  const stc: string = encode(json, { profile: 'readable' });
  const value: unknown = parse(new TextEncoder().encode(stc), { bigint: true });
  const back: string | undefined = stringify(value, { profile: 'compact', bigint: true });
  const gated: Gated = encodeGated(json, { minSaving: 0.1, tokenizer: 'estimate' });
  const n: number = countTokens(gated.text);
  // Exact counts from your own tokenizer (e.g. gpt-tokenizer's countTokens): any (text) => number.
  const words: TokenCounter = (text) => text.split(/\W+/).length;
  const exact: Gated = encodeGated(json, { tokenizer: words, minSaving: 0 });
  console.log(exact.stcTokens, countTokens('a b', words));
  try {
    decode('([3]: 1,2');
  } catch (e) {
    const err = e as StcError;
    const where: string = `${err.code} at ${err.line}:${err.column} (byte ${err.offset}, index ${err.index ?? '-'}): ${err.reason}`;
    console.log(where, back, n);
  }
}
