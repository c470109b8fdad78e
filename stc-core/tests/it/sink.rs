//! A `Sink` with the caller's own error type: the value it refuses with comes
//! back unchanged from `parse_stc_to`, `parse_json_to` and `Document::replay`;
//! the `Abort` sinks keep their `ErrorKind::Aborted` error.

use stc_core::{parse_json_to, parse_stc, parse_stc_to, Abort, Document, ErrorKind, Failure, JsonStr, Limits, Sink};

/// The caller's own error: not `Clone`, not `Copy`, holds data of its own.
#[derive(Debug, PartialEq)]
struct Refusal {
    key: String,
    seen: usize,
}

/// Refuses the first key named "stop", saying how many events it saw before.
#[derive(Default)]
struct StopAtKey {
    seen: usize,
}

impl<'a> Sink<'a, Refusal> for StopAtKey {
    fn null(&mut self) -> Result<(), Refusal> {
        self.seen += 1;
        Ok(())
    }
    fn number(&mut self, _lexeme: &'a str) -> Result<(), Refusal> {
        self.seen += 1;
        Ok(())
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Refusal> {
        let key = key.to_str().unwrap_or_default().into_owned();
        if key == "stop" {
            return Err(Refusal { key, seen: self.seen });
        }
        self.seen += 1;
        Ok(())
    }
}

#[test]
fn the_sinks_own_error_comes_back_unchanged_from_parse_stc_to() {
    let r = parse_stc_to("{a: 1, b[2]: 2,3, stop: null}", &Limits::default(), &mut StopAtKey::default());
    assert_eq!(r, Err(Failure::Sink(Refusal { key: "stop".into(), seen: 5 })));
    // Inside a columnar row too.
    let r = parse_stc_to("([2]{x,stop}: 1,2 / 3,4)", &Limits::default(), &mut StopAtKey::default());
    assert_eq!(r, Err(Failure::Sink(Refusal { key: "stop".into(), seen: 2 })));
}

#[test]
fn the_sinks_own_error_comes_back_unchanged_from_parse_json_to_and_replay() {
    let json = r#"{"a": [1, null], "stop": 2}"#;
    let r = parse_json_to(json, &Limits::default(), &mut StopAtKey::default());
    assert_eq!(r, Err(Failure::Sink(Refusal { key: "stop".into(), seen: 3 })));
    let doc = Document::parse_json(json, &Limits::default()).unwrap();
    assert_eq!(doc.replay(&mut StopAtKey::default()), Err(Refusal { key: "stop".into(), seen: 3 }));
}

#[test]
fn input_errors_come_back_as_failure_input_with_their_position() {
    let r = parse_stc_to("{a: 1, b: }", &Limits::default(), &mut StopAtKey::default());
    let Err(Failure::Input(e)) = r else { panic!("expected an input error, got {r:?}") };
    assert_eq!((e.kind(), e.offset()), (ErrorKind::UnexpectedChar, Some(10)));
    // An input error before the sink would refuse wins; the sink never saw "stop".
    let r = parse_stc_to("{a: 1,, stop: 1}", &Limits::default(), &mut StopAtKey::default());
    assert!(matches!(r, Err(Failure::Input(ref e)) if e.kind() == ErrorKind::UnexpectedChar), "{r:?}");
}

/// An `Abort` sink (the type every existing sink implements) still yields
/// `ErrorKind::Aborted` at the token it refused.
#[test]
fn abort_sinks_still_give_aborted_at_the_token() {
    struct AbortOnTrue;
    impl<'a> Sink<'a> for AbortOnTrue {
        fn boolean(&mut self, value: bool) -> Result<(), Abort> {
            if value {
                Err(Abort)
            } else {
                Ok(())
            }
        }
    }
    let err = parse_stc("[false, true]", &Limits::default(), &mut AbortOnTrue).unwrap_err();
    assert_eq!((err.kind(), err.offset()), (ErrorKind::Aborted, Some(8)));
    let r = parse_stc_to("[false, true]", &Limits::default(), &mut AbortOnTrue);
    assert_eq!(r, Err(Failure::Sink(Abort)));
}
