//! The one-byte rewrite of `decode_latin1_into` at its edges: a non-ASCII
//! character at every offset around the 8- and 16-byte steps of the ASCII
//! scan, runs of characters of every UTF-8 width (the boundaries U+007F,
//! U+0080, U+00FF, U+0100, U+07FF, U+0800, U+FFFF, U+10000, U+10FFFF), runs
//! that end the text or a string, and a document whose first non-ASCII byte
//! comes late. The oracle converts `decode_with`'s UTF-8 output with code
//! written here (sharing none with stc-core).

use stc_core::{decode_latin1_into, decode_with, Limits};

use crate::support::latin1 as oracle;

fn check(stc: &str, out: &mut Vec<u8>) {
    let json = decode_with(stc, &Limits::default()).unwrap();
    decode_latin1_into(stc, &Limits::default(), out).unwrap();
    assert!(*out == oracle(&json), "{stc:?}: got {:?}", String::from_utf8_lossy(out));
}

const CHARS: [char; 10] =
    ['\u{7f}', '\u{80}', 'é', '\u{ff}', '\u{100}', '\u{7ff}', '\u{800}', '\u{ffff}', '\u{10000}', '\u{10ffff}'];

#[test]
fn one_character_at_every_offset_of_the_ascii_steps() {
    let mut out = Vec::new();
    for c in CHARS {
        for before in 0..40 {
            for after in [0, 1, 7, 8, 9, 15, 16, 17, 33] {
                let s = format!("{}{c}{}", "a".repeat(before), "b".repeat(after));
                check(&format!("[\"{s}\"]"), &mut out);
                check(&format!("{{\"{s}\": \"{s}\"}}"), &mut out);
            }
        }
    }
}

#[test]
fn runs_of_every_width_and_mixed_runs() {
    let mut out = Vec::new();
    for a in CHARS {
        for b in CHARS {
            for n in [1, 2, 3, 8, 17] {
                let run: String = std::iter::repeat_n([a, b], n).flatten().collect();
                check(&format!("\"{run}\""), &mut out);
                check(&format!("[\"{run}\",\"x{run}y\",{{\"{run}\":1}}]"), &mut out);
            }
        }
    }
}

#[test]
fn a_late_first_non_ascii_byte_and_a_reused_buffer() {
    let mut out = Vec::with_capacity(8);
    let long = "x".repeat(5000);
    for tail in ["é", "😀", "ā", "éa😀bā", "日本語テキスト"] {
        let stc = format!("[\"{long}\",\"{tail}\",\"{long}{tail}{long}\"]");
        check(&stc, &mut out);
        // The same buffer, now with spare room, for a shorter text.
        check(&format!("[\"{tail}\"]"), &mut out);
        check("[1,2]", &mut out);
    }
}
