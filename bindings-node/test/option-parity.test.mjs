// js-shared/test/options.mjs (the version and truncate options, one table for both JavaScript packages) against stc-node.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { optionTests } from '../../js-shared/test/options.mjs';

const stc = createRequire(import.meta.url)(join(dirname(fileURLToPath(import.meta.url)), '..'));

optionTests({ name: 'stc-node', stc, store: () => new stc.MemoryStash(), stores: 'a SqliteStash, a MemoryStash' });
