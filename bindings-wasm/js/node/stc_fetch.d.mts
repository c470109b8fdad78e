// Types of `stc-wasm/fetch` in browsers (pkg/node/stc_fetch.mjs), shared with stc-node.
import type { StcFetch } from './stc_fetch_core.mjs';
export type { StcFetchOptions, StcRequestInit, StcFetch } from './stc_fetch_core.mjs';
export { DEFAULT_ACCEPT, isStc } from './stc_fetch_core.mjs';
/** `fetch` that asks for STC and resolves to a `Response` whose `.json()` and `.text()` give the JSON (see `StcFetch`). */
export declare const stcFetch: StcFetch;
