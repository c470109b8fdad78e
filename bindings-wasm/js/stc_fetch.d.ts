// Types of `stc-wasm/fetch` (pkg/web/stc_fetch.js and pkg/node/stc_fetch.mjs).

/** Options of `stcFetch`, given as `init.stc`. */
export interface StcFetchOptions {
  /**
   * The `Accept` value set when the request has none (or `*\/*`); default `DEFAULT_ACCEPT`.
   * `null` leaves `Accept` alone (STC responses are still decoded).
   */
  accept?: string | null;
  /** Nesting limit for decoding the body (default 128). */
  maxDepth?: number;
}

/** `RequestInit` plus the `stc` options of `stcFetch`. */
export interface StcRequestInit extends RequestInit {
  stc?: StcFetchOptions;
}

/**
 * `fetch` that asks for STC (`Accept: application/stc+json, application/json;q=0.9` unless the
 * request chose an `Accept`) and resolves to a standard `Response` whose `.json()` and `.text()`
 * give the JSON. An STC body (`Content-Type: application/stc+json` or `Content-Encoding: stc`) is
 * read whole, decoded by the wasm module and returned as a new `Response` with
 * `Content-Type: application/json`, the JSON's `Content-Length` and no `Content-Encoding`;
 * `X-STC-Version` and `X-STC-Ratio` stay. Any other response is returned as fetched. Rejects with a
 * `SyntaxError` named `StcError` (`code`, `line`, `column`, `offset`, `reason`) for an invalid STC
 * body, and with an `Error` named `StcVersionError` for an `X-STC-Version` other than 1. In the web
 * build the first call runs `init()` unless the page already did.
 */
export declare function stcFetch(input: string | URL | Request, init?: StcRequestInit): Promise<Response>;

/** What `stcFetch` sends in `Accept` by default: `'application/stc+json, application/json;q=0.9'`. */
export declare const DEFAULT_ACCEPT: string;

/** Whether a response with these `Content-Type` and `Content-Encoding` values carries an STC body. */
export declare function isStc(contentType: string | null, contentEncoding: string | null): boolean;
