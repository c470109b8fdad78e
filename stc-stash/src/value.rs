//! A JSON value as a tree, for planning: exact number lexemes, canonical
//! string bodies, members in order (duplicates kept).

use std::borrow::Cow;

use stc_core::{Abort, JsonStr, JsonWriter, Limits, Sink};

/// A JSON value. Strings and keys hold their canonical escaped body (what
/// goes between the quotes), numbers their exact lexeme, objects their
/// members in input order, so that writing the tree back gives the input's
/// canonical minified JSON byte for byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value<'a> {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number lexeme.
    Number(Cow<'a, str>),
    /// A canonical string body (escapes included, quotes excluded).
    String(Cow<'a, str>),
    /// Elements in order.
    Array(Vec<Value<'a>>),
    /// Members in order, duplicates kept; keys are canonical bodies.
    Object(Vec<(Cow<'a, str>, Value<'a>)>),
}

impl<'a> Value<'a> {
    /// Reads strict JSON (the same reader and limits as `stc-core`).
    ///
    /// ```
    /// use stc_stash::Value;
    /// let v = Value::parse_json(r#"{"a":[1.0,"\u00e9"],"a":null}"#, &Default::default()).unwrap();
    /// assert_eq!(v.to_json(), r#"{"a":[1.0,"é"],"a":null}"#);
    /// ```
    pub fn parse_json(json: &'a str, limits: &Limits) -> Result<Value<'a>, stc_core::Error> {
        let mut builder = Builder::default();
        stc_core::parse_json(json, limits, &mut builder)?;
        Ok(builder.done.unwrap_or(Value::Null))
    }

    /// Reads STC (or JSON), e.g. a truncated output to find its markers.
    /// `options` is a `&`[`DecodeOptions`](stc_core::DecodeOptions) (limits
    /// and the STC version to read) or just `&Limits` (version 1).
    ///
    /// ```
    /// use stc_core::{DecodeOptions, Limits, Version};
    /// use stc_stash::Value;
    /// let v = Value::parse_stc("([2]{a}: 1 / 2)", &Limits::default()).unwrap();
    /// assert_eq!(v.to_json(), r#"[{"a":1},{"a":2}]"#);
    /// let v2 = Value::parse_stc("([2]{a}: 1 / 2)", &DecodeOptions::default().version(Version::V2)).unwrap();
    /// assert_eq!(v2, v);
    /// ```
    pub fn parse_stc(
        stc: &'a str,
        options: &(impl stc_core::AsDecodeOptions + ?Sized),
    ) -> Result<Value<'a>, stc_core::Error> {
        let mut builder = Builder::default();
        stc_core::parse_stc(stc, options, &mut builder)?;
        Ok(builder.done.unwrap_or(Value::Null))
    }

    /// A string value from plain text (escaped canonically).
    pub fn text(s: &str) -> Value<'static> {
        Value::String(Cow::Owned(JsonStr::escape(s)))
    }

    /// A number value from an integer.
    pub fn int(n: usize) -> Value<'static> {
        Value::Number(Cow::Owned(n.to_string()))
    }

    /// Minified JSON with canonical strings (written by stc-core's [`JsonWriter`]).
    pub fn to_json(&self) -> String {
        let mut writer = JsonWriter::with_capacity(64);
        // The tree holds only what a parser or `text`/`int` put there: every
        // body is a valid canonical string body, so nothing is refused.
        let _ = self.replay(&mut writer);
        writer.into_string()
    }

    /// Appends minified JSON to `out`.
    pub fn write_json(&self, out: &mut String) {
        out.push_str(&self.to_json());
    }

    /// Feeds the tree to a [`Sink`] (a writer of stc-core) in document order.
    ///
    /// A string or key body that is not a valid JSON string body (possible
    /// only for a hand-built tree) aborts with an error.
    pub fn replay<'s>(&'s self, sink: &mut impl Sink<'s>) -> Result<(), Abort> {
        let body = |b: &'s str| JsonStr::from_escaped(b).ok_or(Abort);
        match self {
            Value::Null => sink.null(),
            Value::Bool(b) => sink.boolean(*b),
            Value::Number(n) => sink.number(n),
            Value::String(s) => sink.string(body(s)?),
            Value::Array(items) => {
                sink.begin_array(Some(items.len()))?;
                for v in items {
                    v.replay(sink)?;
                }
                sink.end_array()
            }
            Value::Object(members) => {
                sink.begin_object(Some(members.len()))?;
                for (k, v) in members {
                    sink.key(body(k)?)?;
                    v.replay(sink)?;
                }
                sink.end_object()
            }
        }
    }

    /// The value of the first member named `key` (a canonical body), if an object.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Object(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string body, if a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Number of characters of a canonical body (an escape counts as one).
pub(crate) fn body_chars(body: &str) -> usize {
    body_units(body).count()
}

/// The first `n` characters of a canonical body, never cutting an escape.
pub(crate) fn body_prefix(body: &str, n: usize) -> &str {
    match body_units(body).nth(n) {
        Some(end) => &body[..end],
        None => body,
    }
}

/// Byte offsets where each character (or escape) of a body starts.
fn body_units(body: &str) -> impl Iterator<Item = usize> + '_ {
    let bytes = body.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= bytes.len() {
            return None;
        }
        let start = i;
        i += match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'u') => 6,
            b'\\' => 2,
            b if b < 0x80 => 1,
            b if b >= 0xf0 => 4,
            b if b >= 0xe0 => 3,
            _ => 2,
        };
        i = i.min(bytes.len());
        Some(start)
    })
}

#[derive(Default)]
struct Builder<'a> {
    /// Open containers; an object keeps the key awaiting its value.
    stack: Vec<(Value<'a>, Option<Cow<'a, str>>)>,
    done: Option<Value<'a>>,
}

impl<'a> Builder<'a> {
    fn push(&mut self, v: Value<'a>) {
        match self.stack.last_mut() {
            Some((Value::Array(items), _)) => items.push(v),
            Some((Value::Object(members), key)) => {
                let k = key.take().unwrap_or_default();
                members.push((k, v));
            }
            _ => self.done = Some(v),
        }
    }

    fn close(&mut self) {
        if let Some((v, _)) = self.stack.pop() {
            self.push(v);
        }
    }
}

impl<'a> Sink<'a> for Builder<'a> {
    fn null(&mut self) -> Result<(), Abort> {
        self.push(Value::Null);
        Ok(())
    }
    fn boolean(&mut self, value: bool) -> Result<(), Abort> {
        self.push(Value::Bool(value));
        Ok(())
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        self.push(Value::Number(Cow::Borrowed(lexeme)));
        Ok(())
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        self.push(Value::String(value.canonical()));
        Ok(())
    }
    fn begin_array(&mut self, len: Option<usize>) -> Result<(), Abort> {
        // The announced length of an STC array is checked by the parser;
        // cap the reservation anyway so a hostile count allocates nothing.
        self.stack.push((Value::Array(Vec::with_capacity(len.unwrap_or(0).min(1024))), None));
        Ok(())
    }
    fn end_array(&mut self) -> Result<(), Abort> {
        self.close();
        Ok(())
    }
    fn begin_object(&mut self, len: Option<usize>) -> Result<(), Abort> {
        self.stack.push((Value::Object(Vec::with_capacity(len.unwrap_or(0).min(1024))), None));
        Ok(())
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
        if let Some((_, k)) = self.stack.last_mut() {
            *k = Some(key.canonical());
        }
        Ok(())
    }
    fn end_object(&mut self) -> Result<(), Abort> {
        self.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_is_canonical_minified_json() {
        for json in [
            r#"{"a":1,"a":2,"b":[true,false,null,-0,1e3,12345678901234567890123]}"#,
            r#""lone \ud800 and \n tab\t quote\" backslash\\""#,
            r#"[]"#,
            r#"{}"#,
        ] {
            let v = Value::parse_json(json, &Limits::default()).unwrap();
            assert_eq!(v.to_json(), stc_core::decode(json).unwrap());
        }
    }

    #[test]
    fn prefix_never_cuts_an_escape() {
        let body = r"ab\u0001é\n\ud800z";
        assert_eq!(body_chars(body), 7);
        assert_eq!(body_prefix(body, 2), "ab");
        assert_eq!(body_prefix(body, 3), r"ab\u0001");
        assert_eq!(body_prefix(body, 4), r"ab\u0001é");
        assert_eq!(body_prefix(body, 6), r"ab\u0001é\n\ud800");
        assert_eq!(body_prefix(body, 99), body);
    }
}
