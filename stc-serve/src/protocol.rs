//! The actions of seed 003's line protocol (plus `encode` and `decode`):
//! one request object in, one envelope out.
//!
//! [`Service::handle`] is transport-free: the TCP server calls it for each
//! line, and tests can call it directly. Token counting (the expensive part)
//! happens outside the state lock.

use std::sync::{Mutex, MutexGuard};

use base64::Engine as _;
use serde_json::{json, Map, Value};
use stc_core::{Chosen, DecodeOptions, EncodeOptions, GateOptions, Limits, MinSaving, Profile, Tokenizer, Version};

use crate::base54;
use crate::charset::{self, Charset};
use crate::store::{Conversation, Counts, Flags, Role, State, Totals, Turn};

/// Longest accepted `conversation_id`, in bytes.
pub const MAX_CONVERSATION_ID: usize = 128;

/// The actions, in the order the README documents them.
pub const ACTIONS: &[&str] = &["ping", "prompt", "response", "context_get", "context_reset", "encode", "decode"];

const SHOW_SAVINGS: &str = "**show savings**";
const SHOW_TOTAL: &str = "**show total**";

/// Per-request limits of the protocol layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProtocolLimits {
    /// Largest context of one conversation, in bytes of UTF-8 text.
    pub max_context_bytes: usize,
    /// Longest `payload_b54`, in characters (base54 decoding is quadratic).
    pub max_payload_chars: usize,
    /// Most conversations held at once.
    pub max_conversations: usize,
}

impl Default for ProtocolLimits {
    fn default() -> Self {
        ProtocolLimits { max_context_bytes: 512 * 1024, max_payload_chars: 64 * 1024, max_conversations: 1000 }
    }
}

/// A request that failed: the envelope's `error` code and `detail`.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// Stable snake_case error code.
    pub code: &'static str,
    /// A string, or an object for codec errors (`kind`, `line`, `column`, …).
    pub detail: Value,
}

/// Builds a [`Failure`].
pub fn fail(code: &'static str, detail: impl Into<Value>) -> Failure {
    Failure { code, detail: detail.into() }
}

/// The error envelope `{"ok": false, "error": code, "detail": detail}` as one line.
pub fn error_line(code: &'static str, detail: impl Into<Value>) -> Vec<u8> {
    envelope(Err(fail(code, detail)), None)
}

fn envelope(result: Result<Value, Failure>, id: Option<Value>) -> Vec<u8> {
    let mut obj = Map::new();
    match result {
        Ok(v) => {
            obj.insert("ok".into(), Value::Bool(true));
            obj.insert("result".into(), v);
        }
        Err(f) => {
            obj.insert("ok".into(), Value::Bool(false));
            obj.insert("error".into(), Value::String(f.code.to_owned()));
            obj.insert("detail".into(), f.detail);
        }
    }
    if let Some(id) = id {
        obj.insert("id".into(), id);
    }
    let mut line = serde_json::to_vec(&Value::Object(obj)).unwrap_or_else(|_| b"{\"ok\":false}".to_vec());
    line.push(b'\n');
    line
}

/// The service state and the request handler.
pub struct Service {
    state: Mutex<State>,
    tokenizer: Tokenizer,
    limits: ProtocolLimits,
}

impl Service {
    /// A service over `state`, counting tokens with o200k_base.
    pub fn new(state: State, limits: ProtocolLimits) -> Service {
        Service { state: Mutex::new(state), tokenizer: Tokenizer::O200kBase, limits }
    }

    /// Locks the state (a poisoned lock is recovered: every update is
    /// applied in one step, so the state stays consistent).
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts tokens once so the tokenizer's tables are loaded before the first request.
    pub fn warm_up(&self) {
        self.tokenizer.count("warm up");
    }

    /// Handles one request line (without its newline) and returns the
    /// response line (with its newline).
    pub fn handle(&self, line: &[u8]) -> Vec<u8> {
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => return envelope(Err(fail("invalid_json", format!("request is not valid JSON: {e}"))), None),
        };
        let Value::Object(req) = value else {
            return envelope(Err(fail("invalid_request", "a request must be a JSON object")), None);
        };
        let id = req.get("id").cloned();
        envelope(self.dispatch(&req), id)
    }

    fn dispatch(&self, req: &Map<String, Value>) -> Result<Value, Failure> {
        let action = match req.get("action") {
            None | Some(Value::Null) => return Err(fail("missing_action", "the request has no \"action\"")),
            Some(Value::String(s)) => s.as_str(),
            Some(_) => return Err(fail("invalid_field", "\"action\" must be a string")),
        };
        match action {
            "ping" => Ok(json!({ "message": "pong" })),
            "prompt" => self.prompt(req),
            "response" => self.response(req),
            "context_get" => self.context_get(req),
            "context_reset" => self.context_reset(req),
            "encode" => encode(req),
            "decode" => decode(req),
            other => {
                Err(fail("unknown_action", format!("unknown action {other:?}; known actions: {}", ACTIONS.join(", "))))
            }
        }
    }

    fn count(&self, text: &str) -> usize {
        self.tokenizer.count(text)
    }

    fn context_counts(&self, charset: Charset, context: &str) -> (String, Counts) {
        // Every turn was checked against the charset when it was added.
        let bytes = charset.encode(context).unwrap_or_default();
        let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
        let counts = Counts::new(self.count(context), self.count(&b64));
        (b64, counts)
    }

    fn prompt(&self, req: &Map<String, Value>) -> Result<Value, Failure> {
        let text = required_str(req, "text", "missing_text")?;
        let requested_id = conversation_id(req)?;
        let encoding = optional_str(req, "encoding")?;
        let language = optional_str(req, "language")?;
        let requested_charset = match encoding {
            Some(name) => Some(Charset::from_name(name).ok_or_else(|| {
                fail(
                    "unsupported_encoding",
                    format!("encoding {name:?} is not supported; supported: {}", charset::NAMES.join(", ")),
                )
            })?),
            None => None,
        };
        let (text, flags) = strip_flags(text);

        let (id, charset, language, encoded, context) = {
            let mut state = self.lock();
            if state.shutting_down {
                return Err(fail("shutting_down", "the service is stopping; retry after it restarts"));
            }
            let id = requested_id.map(str::to_owned).unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
            let existing = state.conversations.get(&id);
            if existing.is_none() && state.conversations.len() >= self.limits.max_conversations {
                return Err(fail(
                    "too_many_conversations",
                    format!(
                        "the service holds {} conversations, its limit; context_reset some first",
                        self.limits.max_conversations
                    ),
                ));
            }
            let charset = match (existing, requested_charset) {
                (Some(c), Some(r)) if c.charset() != r => {
                    return Err(fail(
                        "encoding_mismatch",
                        format!(
                            "conversation {id:?} uses {}; a conversation keeps the encoding of its first prompt",
                            c.encoding
                        ),
                    ))
                }
                (Some(c), _) => c.charset(),
                (None, r) => r.unwrap_or(Charset::Utf8),
            };
            let encoded = charset.encode(&text).map_err(|e| fail("unencodable_text", format!("text: {e}")))?;
            let current = existing.map_or(0, Conversation::context_len);
            if !text.is_empty() && current + text.len() + 12 > self.limits.max_context_bytes {
                return Err(context_full(&id, current + text.len() + 12, self.limits.max_context_bytes));
            }
            let conv = state
                .conversations
                .entry(id.clone())
                .or_insert_with(|| Conversation::new(charset, language.unwrap_or("en").to_owned()));
            if let Some(l) = language {
                conv.language = l.to_owned();
            }
            if !text.is_empty() {
                conv.turns.push(Turn { role: Role::User, text: text.clone() });
            }
            conv.pending.show_savings |= flags.show_savings;
            conv.pending.show_total |= flags.show_total;
            let out = (id, charset, conv.language.clone(), encoded, conv.context_text());
            state.generation += 1;
            out
        };

        let encoded_b64 = base64::engine::general_purpose::STANDARD.encode(&encoded);
        let prompt_counts = Counts::new(self.count(&text), self.count(&encoded_b64));
        let (context_b64, context_counts) = self.context_counts(charset, &context);
        {
            let mut state = self.lock();
            if let Some(conv) = state.conversations.get_mut(&id) {
                conv.last_prompt = prompt_counts;
                conv.totals.add_prompt(prompt_counts);
                state.totals.add_prompt(prompt_counts);
                state.generation += 1;
            }
        }
        let mut result = json!({
            "conversation_id": id,
            "encoding": charset.name(),
            "language": language,
            "encoded_prompt_b64": encoded_b64,
            "context_b64": context_b64,
            "context_tokens": context_counts,
            "prompt_tokens": prompt_counts,
            "savings_request": flags,
            "tokenizer": self.tokenizer.name(),
        });
        add_note(&mut result, &[("prompt", prompt_counts), ("context", context_counts)]);
        Ok(result)
    }

    fn response(&self, req: &Map<String, Value>) -> Result<Value, Failure> {
        let id =
            conversation_id(req)?.ok_or_else(|| fail("missing_conversation_id", "\"conversation_id\" is required"))?;
        let payload = required_str(req, "payload_b54", "missing_payload_b54")?;
        let chars = payload.chars().count();
        if chars > self.limits.max_payload_chars {
            return Err(fail(
                "payload_too_large",
                format!("payload_b54 has {chars} characters; the limit is {}", self.limits.max_payload_chars),
            ));
        }
        let bytes = base54::decode(payload).map_err(|e| fail("invalid_base54", format!("payload_b54: {e}")))?;
        let charset = self.lock().conversations.get(id).map(Conversation::charset).ok_or_else(|| unknown(id))?;
        let text = charset.decode(&bytes).map_err(|e| {
            fail("undecodable_payload", format!("payload_b54 decoded to bytes that are not {}: {e}", charset.name()))
        })?;

        let (language, flags, prompt_counts, context) = {
            let mut state = self.lock();
            if state.shutting_down {
                return Err(fail("shutting_down", "the service is stopping; retry after it restarts"));
            }
            let max = self.limits.max_context_bytes;
            let conv = state.conversations.get_mut(id).ok_or_else(|| unknown(id))?;
            let needed = conv.context_len() + text.len() + 12;
            if needed > max {
                return Err(context_full(id, needed, max));
            }
            conv.turns.push(Turn { role: Role::Assistant, text: text.clone() });
            let flags = std::mem::take(&mut conv.pending);
            let out = (conv.language.clone(), flags, conv.last_prompt, conv.context_text());
            state.generation += 1;
            out
        };

        let response_counts = Counts::new(self.count(&text), self.count(payload));
        let (context_b64, context_counts) = self.context_counts(charset, &context);
        let (conv_totals, all_totals) = {
            let mut state = self.lock();
            let all = {
                state.totals.add_response(response_counts, context_counts);
                state.totals
            };
            let conv = state.conversations.get_mut(id).map(|c| {
                c.totals.add_response(response_counts, context_counts);
                c.totals
            });
            state.generation += 1;
            (conv.unwrap_or_default(), all)
        };

        let mut result = json!({
            "conversation_id": id,
            "encoding": charset.name(),
            "language": language,
            "response_b54": payload,
            "decoded_text": text,
            "response_tokens": response_counts,
            "context_b64": context_b64,
            "context_tokens": context_counts,
            "tokenizer": self.tokenizer.name(),
        });
        add_note(&mut result, &[("response", response_counts), ("context", context_counts)]);
        if flags.any() {
            let combined = prompt_counts.saved + response_counts.saved + context_counts.saved;
            let tagline = tagline(flags, [prompt_counts, response_counts, context_counts], combined, &conv_totals);
            let mut savings = json!({
                "prompt": prompt_counts,
                "response": response_counts,
                "context": context_counts,
                "combined_saved": combined,
                "totals": conv_totals,
            });
            if flags.show_total {
                savings["all_conversations"] = json!(all_totals);
            }
            result["decoded_text_with_tagline"] = json!(format!("{text}\n{tagline}"));
            result["tagline"] = json!(tagline);
            result["savings"] = savings;
        }
        Ok(result)
    }

    fn context_get(&self, req: &Map<String, Value>) -> Result<Value, Failure> {
        let snapshot: Vec<(String, Charset, String, String, usize)> = {
            let state = self.lock();
            let pick = |(id, c): (&String, &Conversation)| {
                (id.clone(), c.charset(), c.language.clone(), c.context_text(), c.turns.len())
            };
            match conversation_id(req)? {
                Some(id) => vec![state.conversations.get_key_value(id).map(pick).ok_or_else(|| unknown(id))?],
                None => state.conversations.iter().map(pick).collect(),
            }
        };
        let one = conversation_id(req)?.is_some();
        let mut items: Vec<Value> = snapshot
            .into_iter()
            .map(|(id, charset, language, context, turns)| {
                let (b64, counts) = self.context_counts(charset, &context);
                json!({
                    "conversation_id": id,
                    "context_b64": b64,
                    "encoding": charset.name(),
                    "language": language,
                    "context_tokens": counts,
                    "turns": turns,
                    "tokenizer": self.tokenizer.name(),
                })
            })
            .collect();
        if one {
            Ok(items.pop().unwrap_or(Value::Null))
        } else {
            let totals = self.lock().totals;
            Ok(json!({ "count": items.len(), "conversations": items, "totals": totals }))
        }
    }

    fn context_reset(&self, req: &Map<String, Value>) -> Result<Value, Failure> {
        let id =
            conversation_id(req)?.ok_or_else(|| fail("missing_conversation_id", "\"conversation_id\" is required"))?;
        let mut state = self.lock();
        if state.shutting_down {
            return Err(fail("shutting_down", "the service is stopping; retry after it restarts"));
        }
        state.conversations.remove(id).ok_or_else(|| unknown(id))?;
        state.generation += 1;
        Ok(json!({ "conversation_id": id, "reset": true }))
    }
}

fn unknown(id: &str) -> Failure {
    fail("unknown_conversation_id", format!("no conversation {id:?}; use the conversation_id returned by prompt"))
}

fn context_full(id: &str, needed: usize, max: usize) -> Failure {
    fail(
        "context_full",
        format!("conversation {id:?} would hold {needed} bytes of context; the limit is {max} (context_reset it)"),
    )
}

/// Adds `savings_note` when any figure is negative: encoding cost tokens.
fn add_note(result: &mut Value, figures: &[(&str, Counts)]) {
    let negative: Vec<String> =
        figures.iter().filter(|(_, c)| c.saved < 0).map(|(n, c)| format!("{n} {} tokens", c.saved)).collect();
    if !negative.is_empty() {
        result["savings_note"] = json!(format!(
            "the encoded form costs more tokens than the raw text ({}; o200k_base): base64 and base54 usually do",
            negative.join(", ")
        ));
    }
}

fn tagline(flags: Flags, [p, r, c]: [Counts; 3], combined: i64, totals: &Totals) -> String {
    let mut parts = Vec::new();
    let mut negative = false;
    if flags.show_savings {
        parts.push(format!(
            "Token savings (prompt/response/context/combined): {}/{}/{}/{}.",
            p.saved, r.saved, c.saved, combined
        ));
        negative |= p.saved < 0 || r.saved < 0 || c.saved < 0 || combined < 0;
    }
    if flags.show_total {
        let t = totals;
        parts.push(format!(
            "Token totals (prompt/response/context/combined): {}/{}/{}/{}.",
            t.prompt.saved, t.response.saved, t.context.saved, t.combined_saved
        ));
        negative |= t.prompt.saved < 0 || t.response.saved < 0 || t.context.saved < 0 || t.combined_saved < 0;
    }
    if negative {
        parts.push("Negative means the encoding cost more tokens than the raw text (o200k_base).".into());
    }
    parts.join(" ")
}

/// Removes every `**show savings**` and `**show total**` (ASCII
/// case-insensitive) from `text`; trims the text when one was found.
pub fn strip_flags(text: &str) -> (String, Flags) {
    let lower = text.to_ascii_lowercase(); // same byte offsets as `text`
    let mut flags = Flags::default();
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    for (marker, flag) in [(SHOW_SAVINGS, &mut flags.show_savings), (SHOW_TOTAL, &mut flags.show_total)] {
        for (at, _) in lower.match_indices(marker) {
            cuts.push((at, at + marker.len()));
            *flag = true;
        }
    }
    if cuts.is_empty() {
        return (text.to_owned(), flags);
    }
    cuts.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for (start, end) in cuts {
        if start >= pos {
            out.push_str(&text[pos..start]);
            pos = end;
        }
    }
    out.push_str(&text[pos..]);
    (out.trim().to_owned(), flags)
}

fn optional_str<'a>(req: &'a Map<String, Value>, field: &str) -> Result<Option<&'a str>, Failure> {
    match req.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(fail("invalid_field", format!("{field:?} must be a string"))),
    }
}

fn required_str<'a>(req: &'a Map<String, Value>, field: &str, missing: &'static str) -> Result<&'a str, Failure> {
    optional_str(req, field)?.ok_or_else(|| fail(missing, format!("{field:?} is required")))
}

/// The `conversation_id`, if present and not empty; checked for length and
/// control characters.
fn conversation_id(req: &Map<String, Value>) -> Result<Option<&str>, Failure> {
    match optional_str(req, "conversation_id")? {
        None | Some("") => Ok(None),
        Some(id) if id.len() > MAX_CONVERSATION_ID || id.chars().any(char::is_control) => Err(fail(
            "invalid_field",
            format!("\"conversation_id\" must be at most {MAX_CONVERSATION_ID} bytes without control characters"),
        )),
        Some(id) => Ok(Some(id)),
    }
}

/// JSON detail of a codec error: what and where.
fn codec_detail(e: &stc_core::Error) -> Value {
    json!({
        "kind": e.kind().code(),
        "line": e.line(),
        "column": e.column(),
        "offset": e.offset(),
        "message": e.to_string(),
    })
}

/// The optional `version` field of `encode` and `decode`: a number, 1 or 2
/// (absent or `null`: 1), checked by the core's `Version::try_from`
/// (`invalid_field` with the core's message otherwise).
fn version_field(req: &Map<String, Value>) -> Result<Version, Failure> {
    let number = number_field(req, "version")
        .map_err(|_| fail("invalid_field", format!("\"version\" must be a number: {}", Version::NAMES.join(" or "))))?;
    match number {
        None => Ok(Version::V1),
        Some(n) => Version::try_from(n).map_err(|e| invalid_field("version", e)),
    }
}

/// An optional number field (absent or `null`: `None`); another type is `invalid_field`.
fn number_field(req: &Map<String, Value>, field: &str) -> Result<Option<f64>, Failure> {
    match req.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64()),
        Some(_) => Err(fail("invalid_field", format!("{field:?} must be a number"))),
    }
}

/// `invalid_field` for an option the core refused: `"field": ` and the core's message.
fn invalid_field(field: &str, e: impl std::fmt::Display) -> Failure {
    fail("invalid_field", format!("{field:?}: {e}"))
}

fn encode(req: &Map<String, Value>) -> Result<Value, Failure> {
    let input = required_str(req, "json", "missing_json")?;
    let version = version_field(req)?;
    let profile = match optional_str(req, "profile")? {
        None => Profile::Compact,
        Some(name) => name.parse::<Profile>().map_err(|e| invalid_field("profile", e))?,
    };
    let min_saving = match number_field(req, "min_saving")? {
        None => MinSaving::default(),
        Some(m) => MinSaving::try_from(m).map_err(|e| invalid_field("min_saving", e))?,
    };
    let gate = GateOptions::default().tokenizer(Tokenizer::O200kBase).min_saving(min_saving);
    let options = EncodeOptions::default().profile(profile).limits(Limits::default()).version(version);
    let gated =
        stc_core::encode_gated(input, &options, &gate).map_err(|e| fail("invalid_json_input", codec_detail(&e)))?;
    let sent = match gated.chosen {
        Chosen::Stc => gated.stc_tokens,
        Chosen::Json => gated.json_tokens,
    };
    Ok(json!({
        "stc": gated.text,
        "chosen": gated.chosen.name(),
        "json_tokens": gated.json_tokens,
        "stc_tokens": gated.stc_tokens,
        "saved": gated.json_tokens as i64 - sent as i64,
        "min_saving": gate.min_saving,
        "tokenizer": gate.tokenizer.name(),
        "version": version.as_u8(),
    }))
}

fn decode(req: &Map<String, Value>) -> Result<Value, Failure> {
    let input = required_str(req, "stc", "missing_stc")?;
    let options = DecodeOptions::default().version(version_field(req)?);
    let json = stc_core::decode_with(input, &options).map_err(|e| fail("invalid_stc", codec_detail(&e)))?;
    Ok(json!({ "json": json }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_stripped_case_insensitively() {
        let (t, f) = strip_flags("Summarize this. **show savings**");
        assert_eq!((t.as_str(), f.show_savings, f.show_total), ("Summarize this.", true, false));
        let (t, f) = strip_flags("**Show Total** a **show savings** b");
        assert_eq!((t.as_str(), f.show_savings, f.show_total), ("a  b", true, true));
        let (t, f) = strip_flags("  no flags  ");
        assert_eq!((t.as_str(), f.any()), ("  no flags  ", false));
        let (t, _) = strip_flags("é**show total**é");
        assert_eq!(t, "éé");
    }

    #[test]
    fn taglines_follow_the_seed_and_flag_negative_figures() {
        let p = Counts::new(2, 2);
        let r = Counts::new(4, 3);
        let c = Counts::new(6, 5);
        let t = tagline(Flags { show_savings: true, show_total: false }, [p, r, c], 2, &Totals::default());
        assert_eq!(t, "Token savings (prompt/response/context/combined): 0/1/1/2.");
        let neg = Counts::new(2, 7);
        let t = tagline(Flags { show_savings: true, show_total: false }, [neg, r, c], -3, &Totals::default());
        assert!(t.starts_with("Token savings (prompt/response/context/combined): -5/1/1/-3."), "{t}");
        assert!(t.contains("Negative"), "{t}");
    }
}
