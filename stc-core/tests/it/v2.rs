//! Reading STC version 2 (column groups, `~` absent cells, keyed tables)
//! through every reading path: decode, validate, a `Sink`, `DocumentBuilder`.

use stc_core::{
    decode, decode_with, encode_with, parse_stc, validate_with, DecodeOptions, DocumentBuilder, EncodeOptions,
    ErrorKind, Limits, Profile, Version,
};

fn v2() -> DecodeOptions {
    DecodeOptions::default().version(Version::V2)
}

#[test]
fn every_construct_decodes_validates_and_builds() {
    let cases = [
        (
            r#"([2]{id,user{id,name},text}: 1,5,"bob","hi" / 2,~,~,"yo")"#,
            r#"[{"id":1,"user":{"id":5,"name":"bob"},"text":"hi"},{"id":2,"text":"yo"}]"#,
        ),
        (r#"{events{2}{name,date}: "1":"A",1 / b:~,2}"#, r#"{"events":{"1":{"name":"A","date":1},"b":{"date":2}}}"#),
        ("([1]{a{b{c},d}}: ~,1)", r#"[{"a":{"d":1}}]"#),
        ("({2}{a,g{b}}: k:~,~ / j:[1]{c{d}}: ~, 2)", r#"{"k":{},"j":{"a":[{}],"g":{"b":2}}}"#),
    ];
    for (stc, json) in cases {
        assert_eq!(decode_with(stc, &v2()).unwrap(), json, "{stc}");
        validate_with(stc, &v2()).unwrap();
        let mut b = DocumentBuilder::new();
        parse_stc(stc, &v2(), &mut b).unwrap();
        assert_eq!(b.finish().unwrap().to_json(), json, "{stc}");
        // A version 1 reader never gives a value for it.
        assert_eq!(decode(stc).unwrap_err().kind(), ErrorKind::NewerVersion, "{stc}");
    }
}

#[test]
fn the_v2_encoder_output_needs_a_v2_reader() {
    // Shapes the version 2 encoder writes with its constructs (when cheaper).
    let rows: Vec<String> = (0..12)
        .map(|i| {
            if i % 3 == 0 {
                format!(r#"{{"id":{i},"user":{{"id":{i},"name":"u{i}"}}}}"#)
            } else {
                format!(r#"{{"id":{i},"user":{{"id":{i},"name":"u{i}"}},"text":"t{i}"}}"#)
            }
        })
        .collect();
    let json = format!("[{}]", rows.join(","));
    let expected = decode(&json).unwrap();
    for profile in [Profile::Compact, Profile::Readable] {
        let stc = encode_with(&json, &EncodeOptions::default().profile(profile).version(Version::V2)).unwrap();
        assert_eq!(decode_with(&stc, &v2()).unwrap(), expected, "{stc}");
        let err = decode_with(&stc, &Limits::default()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NewerVersion, "{stc}");
        assert!(err.message().contains("decode with version 2"), "{err}");
    }
}

#[test]
fn group_and_row_depth_count_only_existing_objects() {
    let at = |stc: &str, max_depth: usize| decode_with(stc, &v2().max_depth(max_depth));
    assert!(at("([1]{u{a}}: 1)", 3).is_ok());
    let err = at("([1]{u{a}}: 1)", 2).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (ErrorKind::DepthLimit, Some(12)));
    // The group is absent: no level for it.
    assert_eq!(at("([1]{x,u{a}}: 1,~)", 2).unwrap(), r#"[{"x":1}]"#);
    // No rows: no row objects.
    assert_eq!(at("([0]{u{a}}:)", 1).unwrap(), "[]");
    assert_eq!(at("({0}{a}:)", 1).unwrap(), "{}");
}
