// Deep input without recursion (issue 12, design D.5): the checks the Node
// worker test (test/deep.test.mjs) and the browser page (test/browser.html)
// both run on a package `stc`. Plain JavaScript: no Node or DOM APIs, and no
// recursion here either (the checks walk the values with loops).

/** `depth` nested empty arrays as a JavaScript value. */
export function nested(depth) {
  let v = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
}

/** How many arrays are nested in `v` (first items only). */
export function depthOf(v) {
  let d = 0;
  while (Array.isArray(v)) {
    d++;
    v = v[0];
  }
  return d;
}

/** How deep a plain recursive JavaScript function gets on this thread's stack before a RangeError. */
export function recursionLimit() {
  let deepest = 0;
  const down = (n) => {
    deepest = n;
    down(n + 1);
  };
  try {
    down(1);
  } catch {
    // RangeError: Maximum call stack size exceeded.
  }
  return deepest;
}

/**
 * Every entry point on `depth` nested arrays with `maxDepth: depth`, and the
 * limit still enforced one level lower. Returns [{ name, ok, detail }].
 */
export function deepChecks(stc, depth) {
  const json = '['.repeat(depth) + ']'.repeat(depth);
  const limits = { maxDepth: depth };
  const tight = { maxDepth: depth - 1 };
  const run = (name, f) => {
    try {
      const r = f();
      return r === true ? { name, ok: true } : { name, ok: false, detail: String(r) };
    } catch (e) {
      return { name, ok: false, detail: `threw ${e && e.name}: ${e && e.message}`.slice(0, 300) };
    }
  };
  const same = (text) => text === json || `got ${String(text).slice(0, 40)}… (${String(text).length} chars), want ${json.length} chars`;
  const depthLimit = (f) => {
    try {
      f();
      return 'no error';
    } catch (e) {
      return (e && e.name === 'StcError' && e.code === 'depth_limit') || `threw ${e && e.name} ${e && e.code}: ${e && e.message}`;
    }
  };
  const value = nested(depth);
  return [
    run('decode', () => same(stc.decode(json, limits))),
    run('encode', () => same(stc.decode(stc.encode(json, limits), limits))),
    run('encodeGated', () => same(stc.decode(stc.encodeGated(json, limits).text, limits))),
    run('parse', () => depthOf(stc.parse(json, limits)) === depth || 'wrong depth'),
    run('parse bigint', () => depthOf(stc.parse(json, { ...limits, bigint: true })) === depth || 'wrong depth'),
    run('stringify', () => same(stc.decode(stc.stringify(value, limits), limits))),
    run('stringify bigint', () => same(stc.decode(stc.stringify(value, { ...limits, bigint: true }), limits))),
    run('depth limit: decode', () => depthLimit(() => stc.decode(json, tight))),
    run('depth limit: parse bigint', () => depthLimit(() => stc.parse(json, { ...tight, bigint: true }))),
    run('depth limit: stringify', () => depthLimit(() => stc.stringify(value, tight))),
  ];
}
