// Types of `stc-wasm/fetch` in browsers (pkg/web/stc_fetch.js), shared with stc-node.
import type { StcFetch } from './stc_fetch_core.js';
export type { StcFetchOptions, StcRequestInit, StcFetch } from './stc_fetch_core.js';
export { DEFAULT_ACCEPT, isStc } from './stc_fetch_core.js';
/** `fetch` that asks for STC and resolves to a `Response` whose `.json()` and `.text()` give the JSON (see `StcFetch`); the first call runs `init()` unless the page already did. */
export declare const stcFetch: StcFetch;
