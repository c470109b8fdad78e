'use strict';
// Runs the whole conformance corpus (../conformance/cases/*.json) through the
// text functions `encode` and `decode`, following conformance/README.md:
// outputs must be byte-identical to the Rust reference; failures must have the
// expected kind code and UTF-8 byte offset. Every case runs twice: with the
// input as a JavaScript string and as UTF-8 bytes in a Buffer. Cases given as
// `input_hex` (not valid UTF-8) can only be bytes, so they run once, as a Buffer.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const stc = require('..');

const CASES_DIR = path.join(__dirname, '..', '..', 'conformance', 'cases');
const CATEGORIES = new Set(['encode', 'decode', 'roundtrip', 'invalid', 'json-invalid']);

function inputs(c) {
  if (c.input_hex !== undefined) return [['bytes', Buffer.from(c.input_hex, 'hex')]];
  return [['string', c.input], ['bytes', Buffer.from(c.input, 'utf8')]];
}

function expectError(fn, expected, label) {
  let err;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err, `${label}: expected error ${expected.kind} at ${expected.offset}, but it succeeded`);
  assert.ok(err instanceof stc.StcError, `${label}: not an StcError: ${err}`);
  assert.deepEqual({ kind: err.code, offset: err.offset }, { kind: expected.kind, offset: expected.offset }, `${label}: ${err.message}`);
}

function run(category, c) {
  const options = c.options || {};
  const maxDepth = options.max_depth;
  // The case's STC version (1 or 2; absent: 1), passed to every call (design E).
  const version = options.version;
  for (const [kind, input] of inputs(c)) {
    const label = `${c.name} (${kind} input)`;
    switch (category) {
      case 'encode':
        assert.equal(stc.encode(input, { profile: options.profile, maxDepth, version }), c.expected, label);
        break;
      case 'decode':
        assert.equal(stc.decode(input, { maxDepth, version }), c.expected, label);
        break;
      case 'roundtrip':
        for (const profile of ['compact', 'readable']) {
          const encoded = stc.encode(input, { profile, maxDepth, version });
          assert.equal(stc.decode(encoded, { maxDepth, version }), c.expected, `${label}, ${profile}`);
        }
        break;
      case 'invalid':
        expectError(() => stc.decode(input, { maxDepth, version }), c.error, label);
        break;
      case 'json-invalid':
        expectError(() => stc.encode(input, { profile: 'compact', maxDepth, version }), c.error, label);
        break;
      default:
        throw new Error(`unknown category ${category}`);
    }
  }
}

// Case files at any depth (one directory a category, or flat).
const files = fs.readdirSync(CASES_DIR, { recursive: true }).filter((f) => f.endsWith('.json')).sort();

test('the corpus is there', () => {
  assert.ok(files.length > 0, `no case files in ${CASES_DIR}`);
});

const seen = new Set();
let total = 0;
for (const file of files) {
  let doc;
  try {
    doc = JSON.parse(fs.readFileSync(path.join(CASES_DIR, file), 'utf8'));
  } catch (e) {
    test(`${file}: readable`, () => {
      throw new Error(`cannot read ${file}: ${e.message}`);
    });
    continue;
  }
  for (const c of doc.cases || []) {
    total += 1;
    test(`${file}: ${c.name}`, () => {
      assert.ok(CATEGORIES.has(doc.category), `${file}: unknown category ${JSON.stringify(doc.category)}`);
      assert.ok(!seen.has(c.name), `duplicate case name ${c.name}`);
      seen.add(c.name);
      run(doc.category, c);
    });
  }
  if (!Array.isArray(doc.cases) || doc.cases.length === 0) {
    test(`${file}: has cases`, () => assert.fail(`${file} holds no cases`));
  }
}

test('every case ran', () => {
  assert.ok(total > 0);
  assert.equal(seen.size, total);
});
