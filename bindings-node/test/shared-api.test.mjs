// js-shared/test/api.mjs (the API test both JavaScript packages run) against stc-node.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiTests } from '../../js-shared/test/api.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

apiTests({
  name: 'stc-node',
  stc: require(ROOT),
  native: require(join(ROOT, 'stc.node')),
  installed: join(ROOT, 'shared'),
  ext: '.mjs',
  tokenizers: ['estimate'],
});
