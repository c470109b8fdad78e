// The conformance contract (conformance/README.md) as one function, shared by
// the Node test and the browser page: no Node or DOM APIs here.

const CATEGORIES = new Set(['encode', 'decode', 'roundtrip', 'invalid', 'json-invalid']);

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Flattens parsed case files ([{file, data}]) into cases tagged with their category. */
export function flatten(files) {
  const cases = [];
  for (const { file, data } of files) {
    if (!data || !CATEGORIES.has(data.category) || !Array.isArray(data.cases)) {
      throw new Error(`${file}: unknown category ${JSON.stringify(data && data.category)} or no cases`);
    }
    for (const c of data.cases) cases.push({ ...c, category: data.category, file });
  }
  return cases;
}

/**
 * Runs one case against the package `stc` ({encode, decode}).
 * Returns null when it passes, else a description of the difference.
 */
export function runCase(stc, c) {
  const depth = c.options && c.options.max_depth;
  // Case option `version` (1 or 2, absent = 1) goes to every call (design E).
  const version = c.options && c.options.version;
  const limits = { ...(depth === undefined ? {} : { maxDepth: depth }), ...(version === undefined ? {} : { version }) };
  const input = c.input_hex !== undefined ? hexBytes(c.input_hex) : c.input;
  const profile = (c.options && c.options.profile) || 'compact';
  const attempt = (f) => {
    try {
      return { value: f() };
    } catch (e) {
      return { error: e };
    }
  };
  const expectText = (label, r, want) => {
    if (r.error) return `${label}: threw ${r.error.code} at ${r.error.offset}: ${r.error.message}`;
    if (r.value !== want) return `${label}: got ${JSON.stringify(r.value)}, want ${JSON.stringify(want)}`;
    return null;
  };
  const expectError = (label, r) => {
    if (!r.error) return `${label}: no error, got ${JSON.stringify(r.value)}`;
    const { code, offset } = r.error;
    if (code !== c.error.kind || offset !== c.error.offset) {
      return `${label}: error ${code} at ${offset}, want ${c.error.kind} at ${c.error.offset} (${r.error.message})`;
    }
    if (!(r.error instanceof Error) || typeof r.error.line !== 'number' || typeof r.error.column !== 'number') {
      return `${label}: the error lacks Error/line/column`;
    }
    return null;
  };
  switch (c.category) {
    case 'encode':
      return expectText('encode', attempt(() => stc.encode(input, { ...limits, profile })), c.expected);
    case 'decode':
      return expectText('decode', attempt(() => stc.decode(input, limits)), c.expected);
    case 'roundtrip': {
      for (const p of ['compact', 'readable']) {
        const enc = attempt(() => stc.encode(input, { ...limits, profile: p }));
        if (enc.error) return expectText(`encode(${p})`, enc, c.expected);
        const bad = expectText(`decode(encode(${p}))`, attempt(() => stc.decode(enc.value, limits)), c.expected);
        if (bad) return bad;
      }
      return null;
    }
    case 'invalid':
      return expectError('decode', attempt(() => stc.decode(input, limits)));
    case 'json-invalid':
      return expectError('encode', attempt(() => stc.encode(input, limits)));
    default:
      return `unknown category ${c.category}`;
  }
}
