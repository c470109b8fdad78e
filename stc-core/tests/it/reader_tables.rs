//! The reader's run of table cells (cells holding scalars are read and their
//! separators checked without a trip through the main loop) and its scan of
//! number lexemes, at their edges: a fault at every cell of a flat table
//! (separator, row separator, quote, escape, number, count, rows cut short,
//! depth), each with the error expected at that place, written out here from
//! the input's layout; the same through every way of reading (`decode_with`,
//! `parse_stc` into `Validate`, `decode_latin1_into`). Valid tables with
//! every kind of cell decode to the value `serde_json` reads from the JSON
//! written here.

use stc_core::{
    decode_latin1_into, decode_with, parse_stc, DecodeOptions, Error, ErrorKind, Limits, Validate, Version,
};

const ROWS: usize = 3;
const COLS: usize = 4;

fn opts(v2: bool) -> DecodeOptions {
    DecodeOptions::default().version(if v2 { Version::V2 } else { Version::V1 })
}

/// The error of `stc`, the same through all three ways of reading.
fn error_of(stc: &str, options: &DecodeOptions) -> Error {
    let e = decode_with(stc, options).expect_err(stc);
    assert_eq!(parse_stc(stc, options, &mut Validate).unwrap_err(), e, "Validate: {stc}");
    let mut out = Vec::new();
    assert_eq!(decode_latin1_into(stc, options, &mut out).unwrap_err(), e, "latin1: {stc}");
    e
}

fn expect(stc: &str, options: &DecodeOptions, kind: ErrorKind, offset: usize, message: &str) {
    let e = error_of(stc, options);
    assert_eq!((e.kind(), e.offset()), (kind, Some(offset)), "{stc}: {e}");
    assert!(e.message().starts_with(message), "{stc}: {:?} does not start with {message:?}", e.message());
    // Line and column follow from the offset (all on line 1 here, ASCII).
    assert_eq!((e.line(), e.column()), (Some(1), Some(offset + 1)), "{stc}");
}

/// A table of `ROWS` rows of `COLS` cells under a member `t`, the cells
/// given by `cell(row, col)`; returns the text and each cell's offset.
fn table(cell: impl Fn(usize, usize) -> String) -> (String, Vec<Vec<usize>>) {
    let mut s = format!("{{t[{ROWS}]{{c0,c1,c2,c3}}: ");
    let mut at = vec![vec![0; COLS]; ROWS];
    for (r, row) in at.iter_mut().enumerate() {
        if r > 0 {
            s.push('/');
        }
        for (c, place) in row.iter_mut().enumerate() {
            if c > 0 {
                s.push(',');
            }
            *place = s.len();
            s.push_str(&cell(r, c));
        }
    }
    s.push('}');
    (s, at)
}

/// Cells of every scalar kind (and a nested array), by position.
fn plain_cell(r: usize, c: usize) -> String {
    match (r + c) % 5 {
        0 => format!("{}", 10 + r * COLS + c),
        1 => format!("\"s{r}{c}\""),
        2 => "true".into(),
        3 => "null".into(),
        _ => format!("[{r},{c}]"),
    }
}

fn plain_json(r: usize, c: usize) -> String {
    plain_cell(r, c)
}

#[test]
fn valid_tables_of_every_cell_kind_decode_to_their_json() {
    let (stc, _) = table(plain_cell);
    let rows: Vec<String> = (0..ROWS)
        .map(|r| {
            let cells: Vec<String> = (0..COLS).map(|c| format!("\"c{c}\":{}", plain_json(r, c))).collect();
            format!("{{{}}}", cells.join(","))
        })
        .collect();
    let json = format!("{{\"t\":[{}]}}", rows.join(","));
    let want: serde_json::Value = serde_json::from_str(&json).unwrap();
    for v2 in [false, true] {
        let got: serde_json::Value = serde_json::from_str(&decode_with(&stc, &opts(v2)).unwrap()).unwrap();
        assert_eq!(got, want, "{stc}");
    }
    // Whitespace around every cell and separator.
    let spaced = stc.replace(',', " , ").replace('/', " / ");
    let got: serde_json::Value = serde_json::from_str(&decode_with(&spaced, &opts(false)).unwrap()).unwrap();
    assert_eq!(got, want, "{spaced}");
    // v2 bare strings in cells.
    let (bare, _) = table(|r, c| if c == 1 { format!("bare {r}") } else { plain_cell(r, c) });
    let got: serde_json::Value = serde_json::from_str(&decode_with(&bare, &opts(true)).unwrap()).unwrap();
    assert_eq!(got["t"][2]["c1"], "bare 2", "{bare}");
    let e = error_of(&bare, &opts(false));
    assert_eq!(e.kind(), ErrorKind::NewerVersion);
}

#[test]
fn a_wrong_cell_separator_at_every_cell() {
    for r in 0..ROWS {
        for c in 1..COLS {
            for v2 in [false, true] {
                let (stc, at) = table(plain_cell);
                let sep = at[r][c] - 1;
                let mut bad = stc.clone();
                bad.replace_range(sep..sep + 1, ":");
                expect(&bad, &opts(v2), ErrorKind::UnexpectedChar, sep, "expected ',' between row values, found ':'");
                // A row separator where a cell separator belongs: the row is short.
                let mut short = stc.clone();
                short.replace_range(sep..sep + 1, "/");
                expect(
                    &short,
                    &opts(v2),
                    ErrorKind::CountMismatch,
                    sep,
                    &format!("row {} ends before its last cell", r + 1),
                );
            }
        }
    }
}

#[test]
fn a_wrong_row_separator_at_every_row() {
    for r in 1..ROWS {
        for v2 in [false, true] {
            let (stc, at) = table(plain_cell);
            let sep = at[r][0] - 1;
            let mut bad = stc.clone();
            bad.replace_range(sep..sep + 1, ":");
            expect(&bad, &opts(v2), ErrorKind::UnexpectedChar, sep, "expected '/' between rows, found ':'");
            let mut long = stc.clone();
            long.replace_range(sep..sep + 1, ",");
            expect(
                &long,
                &opts(v2),
                ErrorKind::CountMismatch,
                sep,
                &format!("row {r} has more cells than the header's 4 columns"),
            );
        }
    }
}

#[test]
fn a_bad_string_or_number_at_every_cell() {
    for r in 0..ROWS {
        for c in 0..COLS {
            for v2 in [false, true] {
                let o = opts(v2);
                let (stc, at) =
                    table(|rr, cc| if (rr, cc) == (r, c) { "\"a\\qb\"".into() } else { plain_cell(rr, cc) });
                expect(&stc, &o, ErrorKind::InvalidEscape, at[r][c] + 2, "invalid escape '\\q");
                let (stc, at) =
                    table(|rr, cc| if (rr, cc) == (r, c) { "\"a\u{1}\"".into() } else { plain_cell(rr, cc) });
                expect(&stc, &o, ErrorKind::ControlCharacter, at[r][c] + 2, "raw control character U+0001");
                for (lexeme, rel, message) in [
                    ("01", 1, "invalid number: leading zeros are not allowed"),
                    ("-012", 2, "invalid number: leading zeros are not allowed"),
                    ("1.", 2, "invalid number: expected a digit after the decimal point"),
                    ("123456789.x", 10, "invalid number: expected a digit after the decimal point"),
                    ("-", 1, "invalid number: expected a digit, found"),
                    ("-x", 1, "invalid number: expected a digit, found 'x'"),
                    ("1e", 2, "invalid number: expected a digit in the exponent"),
                    ("1E+", 3, "invalid number: expected a digit in the exponent"),
                    ("12345678.12345678e-", 19, "invalid number: expected a digit in the exponent"),
                ] {
                    let (stc, at) = table(|rr, cc| if (rr, cc) == (r, c) { lexeme.into() } else { plain_cell(rr, cc) });
                    expect(&stc, &o, ErrorKind::InvalidNumber, at[r][c] + rel, message);
                }
            }
        }
    }
}

#[test]
fn valid_number_lexemes_in_cells_are_copied_verbatim() {
    let mut lexemes = vec!["0".to_string(), "-0".into(), "0.5e-7".into(), "1E+300".into(), "-1e0".into()];
    for n in 1..=25 {
        let digits: String = (0..n).map(|i| char::from(b'1' + (i % 9) as u8)).collect();
        lexemes.push(digits.clone());
        lexemes.push(format!("-{digits}.{digits}"));
        lexemes.push(format!("{digits}e{n}"));
        lexemes.push(format!("0.{digits}E-{digits}"));
    }
    for lexeme in &lexemes {
        let (stc, _) = table(|r, c| if c == 2 { lexeme.clone() } else { format!("{}", r + c) });
        let json = decode_with(&stc, &Limits::default()).unwrap();
        assert!(json.contains(&format!("\"c2\":{lexeme},")), "{stc} -> {json}");
        // And in arrays and compact bodies, first and later.
        let stc = format!("{{a:[{lexeme},{lexeme}],b[2]: {lexeme},{lexeme}}}");
        let json = decode_with(&stc, &Limits::default()).unwrap();
        assert_eq!(json, format!("{{\"a\":[{lexeme},{lexeme}],\"b\":[{lexeme},{lexeme}]}}"));
    }
}

#[test]
#[allow(clippy::needless_range_loop)] // (row, column) name the cell in the expectations
fn rows_cut_short_after_every_cell() {
    // Long cells so the count guard passes however short the body is.
    let cell = |r: usize, c: usize| format!("\"{}\"", "x".repeat(40 + r * COLS + c));
    let (stc, at) = table(cell);
    for r in 0..ROWS {
        for c in 0..COLS {
            let end = at[r][c] + cell(r, c).len();
            for cut in [end, end - 1] {
                let e = error_of(&stc[..cut], &opts(false));
                if cut == end && (r, c) == (ROWS - 1, COLS - 1) {
                    // The table is complete; the member object is not.
                    assert_eq!((e.kind(), e.offset()), (ErrorKind::UnexpectedEnd, Some(end)), "{}", &stc[..cut]);
                    assert!(e.message().starts_with("expected ',' or '}' after object member"));
                } else if cut == end {
                    assert_eq!((e.kind(), e.offset()), (ErrorKind::CountMismatch, Some(3)), "{}", &stc[..cut]);
                    assert!(e.message().starts_with("the header declares 3 rows but the body ends at end of input"));
                } else {
                    assert_eq!(e.kind(), ErrorKind::UnexpectedEnd, "{}", &stc[..cut]);
                    assert!(e.message().starts_with(&format!("unterminated string (opened at byte {})", at[r][c])));
                }
            }
            // The table closed early by `}` after this cell (after the last
            // one, the input is complete).
            if (r, c) == (ROWS - 1, COLS - 1) {
                continue;
            }
            let closed = format!("{}}}", &stc[..end]);
            let e = error_of(&closed, &opts(false));
            let (kind, offset) = (e.kind(), e.offset());
            if c + 1 < COLS {
                assert_eq!((kind, offset), (ErrorKind::CountMismatch, Some(end)), "{closed}");
            } else {
                assert_eq!((kind, offset), (ErrorKind::CountMismatch, Some(3)), "{closed}");
            }
        }
    }
}

#[test]
fn row_objects_at_the_depth_limit() {
    // The member object is level 1, the table 2, each row 3, a nested cell 4.
    let (stc, at) = table(plain_cell);
    for depth in 0..5 {
        let o = opts(false).max_depth(depth);
        match depth {
            0 => expect(&stc, &o, ErrorKind::DepthLimit, 0, "nesting deeper than the limit of 0"),
            1 => expect(&stc, &o, ErrorKind::DepthLimit, 2, "nesting deeper than the limit of 1"),
            2 => expect(&stc, &o, ErrorKind::DepthLimit, at[0][0], "nesting deeper than the limit of 2"),
            3 => {
                // The first nested array cell: (r + c) % 5 == 4.
                let (r, c) = (1, 3);
                expect(&stc, &o, ErrorKind::DepthLimit, at[r][c], "nesting deeper than the limit of 3");
            }
            _ => assert!(decode_with(&stc, &o).is_ok()),
        }
    }
}

#[test]
fn runs_of_numbers_in_arrays_end_at_anything_else() {
    // Values after a run of numbers read at the bracket, and the errors in it.
    for (stc, json) in [
        ("[1,2,3]", "[1,2,3]"),
        ("[ 1 , -2.5e3 ,3 ]", "[1,-2.5e3,3]"),
        ("[1,2,\"a\",3]", "[1,2,\"a\",3]"),
        ("[1,2,[3,4],5]", "[1,2,[3,4],5]"),
        ("[1,true,null,{a:1}]", "[1,true,null,{\"a\":1}]"),
        ("{a:[0,1],b:[2]}", "{\"a\":[0,1],\"b\":[2]}"),
    ] {
        assert_eq!(decode_with(stc, &Limits::default()).unwrap(), json, "{stc}");
    }
    let o = opts(false);
    expect("[1,2,01]", &o, ErrorKind::InvalidNumber, 6, "invalid number: leading zeros are not allowed");
    expect("[1,2,-]", &o, ErrorKind::InvalidNumber, 6, "invalid number: expected a digit, found ']'");
    expect("[1,2,3.]", &o, ErrorKind::InvalidNumber, 7, "invalid number: expected a digit after the decimal point");
    expect("[1,2 3]", &o, ErrorKind::UnexpectedChar, 5, "expected ',' or ']' after array element");
    expect("[1,2,]", &o, ErrorKind::UnexpectedChar, 5, "expected a value");
    expect("[1,2,", &o, ErrorKind::UnexpectedEnd, 5, "expected a value");
    expect("[1,2", &o, ErrorKind::UnexpectedEnd, 4, "expected ',' or ']' after array element");
    expect("[1,2,:]", &o, ErrorKind::UnexpectedChar, 5, "expected a value");
    expect("[[1,2,3]]", &opts(false).max_depth(1), ErrorKind::DepthLimit, 1, "nesting deeper than the limit of 1");
}
