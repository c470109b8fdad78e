// The conformance corpus' seed families (conformance/README.md), shared by
// the stc-node and stc-wasm conformance tests (Node and the browser page): no
// Node or DOM APIs here.

/**
 * The case, or for a seed (`prefixes`, conformance/README.md) its family: every
 * proper prefix of the (ASCII) input, named `<name>-<n, 3 digits>`, failing with
 * `prefixes.kind` at offset n unless n is in an `except` range.
 */
export function expand(c) {
  if (c.prefixes === undefined) return [c];
  const { name, input, prefixes, note, ...rest } = c;
  const out = [];
  for (let n = 0; n < input.length; n++) {
    const x = (prefixes.except || []).find((r) => r.from <= n && n <= r.to);
    const error = x ? x.error : { kind: prefixes.kind, offset: n };
    out.push({ ...rest, name: `${name}-${String(n).padStart(3, '0')}`, input: input.slice(0, n), error });
  }
  return out;
}
