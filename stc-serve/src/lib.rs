//! The local NDJSON TCP service of STC (`stc serve --tcp`) and its native-messaging host
#![forbid(unsafe_code)]
