// js-shared/test/options.mjs (the version and truncate options, one table for both JavaScript packages) against stc-wasm's Node build.
import { optionTests } from '../../js-shared/test/options.mjs';
import { stc } from './load.mjs';

optionTests({ name: 'stc-wasm', stc, store: () => new stc.MemoryStash(), stores: 'a MemoryStash' });
