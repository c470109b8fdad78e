//! STC over HTTP: a tower layer that serves application/stc+json, and the reverse proxy behind `stc proxy`
#![forbid(unsafe_code)]
