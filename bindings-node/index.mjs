// ES module entry: the same functions as index.js.
import stc from './index.js';

export const {
  parse, stringify, encode, decode, decodeStc, encodeGated, countTokens, StcError, ERROR_CODES, MEDIA_TYPE, VERSION,
  stcFetch, DEFAULT_ACCEPT, truncate, retrieve, SqliteStash, MemoryStash, StashError, STASH_ERROR_CODES,
} = stc;
export default stc;
