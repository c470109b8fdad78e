// Types of stcFetch (stc_fetch_core.mjs), shared by stc-node and stc-wasm.

/** Options of `stcFetch`, given as `init.stc`. */
export interface StcFetchOptions {
  /**
   * The `Accept` value set when the request has none (or fetch's default `*\/*`);
   * default `DEFAULT_ACCEPT`. `null` leaves `Accept` alone (STC responses are still decoded).
   */
  accept?: string | null;
  /** Nesting limit for decoding the body (default 128). */
  maxDepth?: number;
  /**
   * The STC version to ask for (default 1): `2` sends `Accept: application/stc+json; version=2, application/json;q=0.9`
   * (unless `accept` is given). Whatever was asked, the body is decoded in the version the response states.
   */
  version?: 1 | 2;
}

/** `RequestInit` plus the `stc` options of `stcFetch`. */
export interface StcRequestInit extends RequestInit {
  stc?: StcFetchOptions;
}

/**
 * `fetch` that asks for STC (`Accept: application/stc+json, application/json;q=0.9` unless the
 * request chose an `Accept`) and resolves to a standard `Response` whose `.json()` and `.text()`
 * give the JSON. An STC body (`Content-Type: application/stc+json` or `Content-Encoding: stc`) is
 * read whole, decoded by stc-core and returned as a new `Response` with
 * `Content-Type: application/json`, the JSON's `Content-Length` and no `Content-Encoding`;
 * `X-STC-Version` and `X-STC-Ratio` stay. Any other response is returned as fetched. The body is
 * decoded in the version the response states: the `version` parameter of `Content-Type`
 * (`application/stc+json; version=2`), else `X-STC-Version`, else 1. Rejects with an `StcError`
 * (`code`, `line`, `column`, `offset`, `reason`) for an invalid STC body, with an `Error` named
 * `StcVersionError` (`version`, `url`) for a version the package does not read or two that differ,
 * and with a `TypeError` for a corrupt or unsupported coding on top of `stc`.
 */
export type StcFetch = (input: string | URL | Request, init?: StcRequestInit) => Promise<Response>;

/** What `stcFetch` sends in `Accept` by default: `'application/stc+json, application/json;q=0.9'`. */
export declare const DEFAULT_ACCEPT: string;

/** Whether a response with these `Content-Type` and `Content-Encoding` values carries an STC body. */
export declare function isStc(contentType: string | null, contentEncoding: string | null): boolean;

/** Builds stcFetch for a package (internal to the packages). */
export declare function createStcFetch(parts: {
  decode: (bytes: Uint8Array, options?: { maxDepth?: number; version?: number }) => string;
  isStcError: (e: unknown) => boolean;
  withContext: (e: any, prefix: string) => Error;
  decompress?: (bytes: Uint8Array, coding: string) => Uint8Array | null | Promise<Uint8Array | null>;
  ready?: () => unknown;
  versions?: readonly string[];
}): StcFetch;

/** The default `Accept` asking for STC version `version` (version 1: `DEFAULT_ACCEPT`). */
export declare function acceptFor(version?: number): string;

/** The `version` parameter of a media type (`application/stc+json; version=2`, also quoted), or `null`. */
export declare function versionParameter(contentType: string | null): string | null;

/** Undoes gzip or deflate with DecompressionStream; `null` for another coding. */
export declare function streamDecompress(bytes: Uint8Array, coding: string): Promise<Uint8Array | null>;
