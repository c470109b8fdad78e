//! No recursion on input depth (issue 12, design D.5): with the depth limit
//! raised to 100,000, 100,000 nested containers decode, validate, build a
//! `Document`, replay and write JSON on a thread with a 256 KiB stack.
//! (Indented JSON of such a value is quadratic in size, so it is not written here.)

use stc_core::{
    decode_with, parse_stc, validate_with, DecodeOptions, Document, DocumentBuilder, ErrorKind, Limits, Version,
};

const DEPTH: usize = 100_000;

/// Runs `f` on a thread with a 256 KiB stack (a recursive reader overflows it
/// after a few thousand levels).
fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new().stack_size(256 * 1024).spawn(f).unwrap().join().unwrap();
}

fn check(stc: String, json: String) {
    on_small_stack(move || {
        let limits = Limits::default().max_depth(DEPTH);
        for options in
            [DecodeOptions::default().limits(limits), DecodeOptions::default().limits(limits).version(Version::V2)]
        {
            assert_eq!(decode_with(&stc, &options).unwrap(), json);
            validate_with(&stc, &options).unwrap();
            let mut builder = DocumentBuilder::with_capacity(16, DEPTH);
            parse_stc(&stc, &options, &mut builder).unwrap();
            let doc = builder.finish().unwrap();
            assert_eq!(doc.to_json(), json);
            let again = Document::parse_json(&json, &limits).unwrap();
            assert_eq!(again, doc);
            // One level less than needed fails at the innermost opening, without recursion either.
            let err = decode_with(&stc, &options.max_depth(DEPTH - 1)).unwrap_err();
            assert_eq!(err.kind(), ErrorKind::DepthLimit);
        }
    });
}

#[test]
fn nested_arrays() {
    let text = format!("{}{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    check(text.clone(), text);
}

#[test]
fn nested_objects_with_identifier_keys() {
    let stc = format!("{}1{}", "{a:".repeat(DEPTH - 1), "}".repeat(DEPTH - 1));
    let json = format!("{}[1]{}", "{\"a\":".repeat(DEPTH - 1), "}".repeat(DEPTH - 1));
    check(stc.replacen('1', "[1]", 1), json);
}

#[test]
fn nested_compact_arrays() {
    // [1]: [1]: ... [0]:   — each compact array holds the next.
    let stc = format!("({}[0]:)", "[1]:".repeat(DEPTH - 1));
    let json = format!("{}[]{}", "[".repeat(DEPTH - 1), "]".repeat(DEPTH - 1));
    check(stc, json);
}

#[test]
fn nested_tables() {
    // [1]{a}: [1]{a}: ... 1 — each table's one cell is the next table: two levels each.
    let levels = DEPTH / 2;
    let stc = format!("({}1)", "[1]{a}:".repeat(levels));
    let json = format!("{}1{}", "[{\"a\":".repeat(levels), "}]".repeat(levels));
    check(stc, json);
}
