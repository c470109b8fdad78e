// The whole conformance corpus against the Node build of the wasm package:
// outputs byte-identical to the Rust reference's blessed `expected`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stc, caseFiles } from './load.mjs';
import { flatten, runCase } from './cases.mjs';

const cases = flatten(caseFiles());

test('the corpus is not empty and names are unique', () => {
  assert.ok(cases.length > 0);
  const names = new Set(cases.map((c) => c.name));
  assert.equal(names.size, cases.length);
});

for (const c of cases) {
  test(`${c.category}: ${c.name}`, () => {
    const failure = runCase(stc, c);
    assert.equal(failure, null, `${c.file} ${c.name}: ${failure}`);
  });
}
