// Types of the ES module entry (index.mjs): the same API as index.d.ts.
export * from './index.js';
export { default } from './index.js';
