//! STC → minified JSON, in one streaming pass.

use crate::parser::{Abort, Sink};
use crate::strings::JsonStr;

/// A [`Sink`] that writes minified JSON text with canonical strings and
/// number lexemes copied verbatim.
///
/// No stack is needed for separators: a comma is due exactly when the last
/// thing written was a complete value and the next is not a closing bracket.
#[derive(Debug, Default)]
pub struct JsonWriter {
    out: String,
    need_comma: bool,
}

impl JsonWriter {
    /// A writer with room for about `capacity` bytes of output.
    pub fn with_capacity(capacity: usize) -> Self {
        JsonWriter { out: String::with_capacity(capacity), need_comma: false }
    }

    /// The JSON text written so far.
    pub fn into_string(self) -> String {
        self.out
    }

    #[inline]
    fn sep(&mut self) {
        if self.need_comma {
            self.out.push(',');
        }
    }

    #[inline]
    fn scalar(&mut self, text: &str) -> Result<(), Abort> {
        self.sep();
        self.out.push_str(text);
        self.need_comma = true;
        Ok(())
    }

    #[inline]
    fn quoted(&mut self, s: JsonStr<'_>) {
        self.out.push('"');
        s.write_canonical(&mut self.out);
        self.out.push('"');
    }
}

impl<'a> Sink<'a> for JsonWriter {
    fn null(&mut self) -> Result<(), Abort> {
        self.scalar("null")
    }
    fn boolean(&mut self, value: bool) -> Result<(), Abort> {
        self.scalar(if value { "true" } else { "false" })
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        self.scalar(lexeme)
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        self.sep();
        self.quoted(value);
        self.need_comma = true;
        Ok(())
    }
    fn begin_array(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.sep();
        self.out.push('[');
        self.need_comma = false;
        Ok(())
    }
    fn end_array(&mut self) -> Result<(), Abort> {
        self.out.push(']');
        self.need_comma = true;
        Ok(())
    }
    fn begin_object(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.sep();
        self.out.push('{');
        self.need_comma = false;
        Ok(())
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
        self.sep();
        self.quoted(key);
        self.out.push(':');
        self.need_comma = false;
        Ok(())
    }
    fn end_object(&mut self) -> Result<(), Abort> {
        self.out.push('}');
        self.need_comma = true;
        Ok(())
    }
}
