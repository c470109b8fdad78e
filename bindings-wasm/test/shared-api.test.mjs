// js-shared/test/api.mjs (the API test both JavaScript packages run) against stc-wasm's Node build.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { apiTests } from '../../js-shared/test/api.mjs';
import { ROOT, stc } from './load.mjs';

apiTests({
  name: 'stc-wasm',
  stc,
  native: createRequire(import.meta.url)(join(ROOT, 'pkg/node/stc_wasm.js')),
  installed: join(ROOT, 'pkg/node'),
  ext: '.mjs',
  tokenizers: ['estimate'],
  pending: {
    // Issue 15's Rust side (bindings-wasm/src: a cycle check in the wasm
    // stringify walk) has not landed in this build: a circular object comes
    // back as StcError depth_limit. Remove this line when it lands.
    'a circular object is a TypeError, as in JSON.stringify':
      'pending fix: wasm stringify has no cycle check yet (issue 15, Rust side, bindings-wasm/src)',
  },
});
