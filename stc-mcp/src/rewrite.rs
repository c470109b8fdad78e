//! The proxy's message surgery, as pure functions over JSON-RPC message text.
//!
//! A message is never re-serialized: the functions here find the byte span of
//! the one JSON string they change (a text block's `text`, or the
//! `instructions` of an `initialize` result) and splice a new JSON string in.
//! Everything else — key order, number lexemes, whitespace, fields this proxy
//! does not know — stays byte for byte as the server sent it.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;
use stc_core::{Chosen, EncodeOptions, GateOptions, Limits, Profile, Version};
use stc_stash::{references_in, Kept, Key, StashStore, TruncateError, TruncateOptions};

/// When and how a JSON text block is re-encoded.
#[derive(Debug, Clone)]
pub struct RewriteOptions {
    /// Texts shorter than this many bytes stay as they are.
    pub min_bytes: usize,
    /// Texts longer than this many bytes stay as they are (bounds the work per block).
    pub max_bytes: usize,
    /// STC whitespace style.
    pub profile: Profile,
    /// The do-no-harm gate: STC only where it saves enough tokens.
    pub gate: GateOptions,
    /// Limits of the JSON parser.
    pub limits: Limits,
    /// Where the gate keeps JSON, leave the text exactly as the server wrote
    /// it. Off by default: the text becomes the gate's output, minified JSON,
    /// which keeps every value, key order, duplicate key and number lexeme
    /// (spec §9) but not the server's whitespace or string escapes.
    pub keep_json_text: bool,
    /// The STC version written (default [`Version::V1`]). Version 2 text
    /// needs a client that reads version 2: `stc mcp-proxy` then explains
    /// its constructs in the primer ([`crate::primer`]).
    pub version: Version,
}

impl Default for RewriteOptions {
    fn default() -> Self {
        RewriteOptions {
            min_bytes: 64,
            max_bytes: 16 * 1024 * 1024,
            profile: Profile::Compact,
            gate: GateOptions::default(),
            limits: Limits::default(),
            keep_json_text: false,
            version: Version::V1,
        }
    }
}

/// What a rewrite changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RewriteStats {
    /// Text blocks replaced by STC.
    pub blocks: usize,
    /// Bytes of the replaced texts.
    pub bytes_before: usize,
    /// Bytes of the STC that replaced them.
    pub bytes_after: usize,
    /// Text blocks whose arrays or strings were cut (stash markers added).
    pub truncated: usize,
}

/// Truncation with the stash before the gate: what is cut is stashed in
/// `store`, and the output carries markers.
#[derive(Debug, Clone, Copy)]
pub struct Truncation<'a> {
    /// Where what is cut goes.
    pub store: &'a dyn StashStore,
    /// Budgets and the recovery instruction of the markers.
    pub options: &'a TruncateOptions,
}

/// One re-encoded text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// The text to send.
    pub text: String,
    /// True if something was cut.
    pub truncated: bool,
    /// The stash keys of the markers in `text`.
    pub keys: Vec<Key>,
}

/// The gated STC for `text` if it is a JSON object or array within the size
/// bounds: STC where the gate picks it, else minified JSON (unless
/// [`RewriteOptions::keep_json_text`]); `None` when the text should stay as
/// it is.
///
/// ```
/// use stc_mcp::rewrite::{encode_text, RewriteOptions};
/// let rows: Vec<String> = (0..20).map(|i| format!(r#"{{"id":{i},"name":"user{i}"}}"#)).collect();
/// let table = format!("[{}]", rows.join(","));
/// let stc = encode_text(&table, &RewriteOptions::default()).unwrap();
/// assert!(stc.starts_with("([20]{id,name}:"));
/// assert_eq!(stc_core::decode(&stc).unwrap(), table);
/// assert_eq!(encode_text("not JSON at all, but long enough to be looked at by the proxy ......", &RewriteOptions::default()), None);
/// ```
pub fn encode_text(text: &str, options: &RewriteOptions) -> Option<String> {
    encode_text_with(text, options, None).map(|e| e.text)
}

/// [`encode_text`], with truncation first when `truncation` is given: if the
/// stash cuts something, the truncated JSON is gated and always sent (STC or
/// minified JSON, both with the markers). A store failure is reported on
/// stderr and the text is sent without truncation. Content the store marked
/// retrieved is left exactly as it is. The text is written in
/// [`RewriteOptions::version`]; the truncation budget is measured in the
/// version of `truncation`'s options (the proxy sets both alike).
pub fn encode_text_with(text: &str, options: &RewriteOptions, truncation: Option<Truncation>) -> Option<Encoded> {
    if text.len() < options.min_bytes || text.len() > options.max_bytes {
        return None;
    }
    // Only objects and arrays: a bare string or number has nothing STC can shorten.
    match text.trim_start_matches([' ', '\t', '\r', '\n']).as_bytes().first() {
        Some(b'{') | Some(b'[') => {}
        _ => return None,
    }
    let mut cut = None;
    if let Some(t) = truncation {
        match stc_stash::truncate(text, Some(t.store), t.options) {
            Ok(out) if out.kept.is_none() => cut = Some(out.json),
            // Content the store handed out in full (`stc retrieve`, a retrieve
            // tool) passes as it is: neither cut nor re-encoded.
            Ok(out) if out.kept == Some(Kept::Retrieved) => return None,
            Ok(_) => {}
            Err(TruncateError::Input(_)) => return None,
            Err(e) => eprintln!("stc mcp-proxy: not truncated: {e}"),
        }
    }
    let source = cut.as_deref().unwrap_or(text);
    let encode = EncodeOptions::default().profile(options.profile).limits(options.limits).version(options.version);
    let gated = stc_core::encode_gated(source, &encode, &options.gate).ok()?;
    if cut.is_some() {
        let keys = references_in(&gated.text);
        return Some(Encoded { text: gated.text, truncated: true, keys });
    }
    let send = match gated.chosen {
        Chosen::Stc => true,
        Chosen::Json => !options.keep_json_text && gated.text != text,
    };
    send.then(|| Encoded { text: gated.text, truncated: false, keys: Vec::new() })
}

/// Byte offset of `inner` within `outer`; `inner` must borrow from `outer`.
fn offset_in(outer: &str, inner: &str) -> usize {
    inner.as_ptr() as usize - outer.as_ptr() as usize
}

/// Replaces byte ranges of `text`; `splices` are in order and do not overlap.
fn splice(text: &str, splices: &[(usize, usize, String)]) -> String {
    let extra: usize = splices.iter().map(|s| s.2.len()).sum();
    let mut out = String::with_capacity(text.len() + extra);
    let mut at = 0;
    for (start, end, with) in splices {
        out.push_str(&text[at..*start]);
        out.push_str(with);
        at = *end;
    }
    out.push_str(&text[at..]);
    out
}

/// The parts of a JSON-RPC message the proxy looks at.
#[derive(Debug, Deserialize)]
pub struct Envelope<'a> {
    /// Request or response id.
    #[serde(borrow, default)]
    pub id: Option<&'a RawValue>,
    /// Method of a request or notification.
    #[serde(borrow, default)]
    pub method: Option<Cow<'a, str>>,
    /// Parameters of a request or notification.
    #[serde(borrow, default)]
    pub params: Option<&'a RawValue>,
    /// Result of a successful response.
    #[serde(borrow, default)]
    pub result: Option<&'a RawValue>,
    /// Error of a failed response.
    #[serde(borrow, default)]
    pub error: Option<&'a RawValue>,
}

impl Envelope<'_> {
    /// A request from the client expects a response (it has a method and an id).
    pub fn is_request(&self) -> bool {
        self.method.is_some() && self.id.is_some()
    }

    /// A response has an id, no method, and a result or an error.
    pub fn is_response(&self) -> bool {
        self.method.is_none() && self.id.is_some() && (self.result.is_some() || self.error.is_some())
    }
}

/// A canonical form of a JSON-RPC id, for matching responses to requests
/// (`"a"` and `"\u0061"` are written differently but are the same id).
pub fn id_key(id: &RawValue) -> String {
    match serde_json::from_str::<serde_json::Value>(id.get()) {
        Ok(v) => v.to_string(),
        Err(_) => id.get().to_string(),
    }
}

/// The name of the tool a `tools/call` request's params call.
pub fn tool_name(params: Option<&RawValue>) -> Option<String> {
    #[derive(Deserialize)]
    struct Call<'a> {
        #[serde(borrow)]
        name: Option<Cow<'a, str>>,
    }
    let call: Call = serde_json::from_str(params?.get()).ok()?;
    call.name.map(Cow::into_owned)
}

#[derive(Deserialize)]
struct ToolResultView<'a> {
    #[serde(borrow, default)]
    content: Option<Vec<BlockView<'a>>>,
    #[serde(rename = "isError", default)]
    is_error: Option<bool>,
    #[serde(rename = "_meta", default)]
    meta: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Deserialize)]
struct BlockView<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
}

/// Re-encodes the JSON text blocks of a `tools/call` result (the text of the
/// `result` member). Returns the new result text, or `None` when nothing
/// changed. Error results (`isError: true`), retrieved stash content
/// (`_meta` has [`crate::stash::RETRIEVED_META`]), non-text blocks and
/// `structuredContent` are never touched.
///
/// ```
/// use stc_mcp::rewrite::{rewrite_tool_result, RewriteOptions};
/// let rows: Vec<String> = (0..20).map(|i| format!(r#"{{"id":{i},"ok":true}}"#)).collect();
/// let text = serde_json::to_string(&format!("[{}]", rows.join(","))).unwrap();
/// let result = format!(r#"{{"content":[{{"type":"text","text":{text}}}],"structuredContent":{{"n":1.50}}}}"#);
/// let (new, stats) = rewrite_tool_result(&result, &RewriteOptions::default()).unwrap();
/// assert!(new.contains(r#""text":"([20]{id,ok}:0,true/"#));
/// assert!(new.ends_with(r#""structuredContent":{"n":1.50}}"#));
/// assert_eq!(stats.blocks, 1);
/// ```
pub fn rewrite_tool_result(result: &str, options: &RewriteOptions) -> Option<(String, RewriteStats)> {
    rewrite_tool_result_with(result, options, None).map(|(r, s, _)| (r, s))
}

/// [`rewrite_tool_result`] with truncation; also returns the stash keys of
/// the markers in the new result.
pub fn rewrite_tool_result_with(
    result: &str,
    options: &RewriteOptions,
    truncation: Option<Truncation>,
) -> Option<(String, RewriteStats, Vec<Key>)> {
    let view: ToolResultView = serde_json::from_str(result).ok()?;
    if view.is_error == Some(true) {
        return None;
    }
    if view.meta.as_ref().is_some_and(|m| m.contains_key(crate::stash::RETRIEVED_META)) {
        return None;
    }
    let mut keys = Vec::new();
    let mut splices = Vec::new();
    let mut stats = RewriteStats::default();
    for block in view.content.unwrap_or_default() {
        let (Some(kind), Some(raw)) = (block.kind, block.text) else { continue };
        if kind != "text" {
            continue;
        }
        // A JSON string without escapes is its own text; others are unescaped first.
        let Ok(text) = serde_json::from_str::<Cow<str>>(raw.get()) else { continue };
        if let Some(encoded) = encode_text_with(&text, options, truncation) {
            let Ok(quoted) = serde_json::to_string(&encoded.text) else { continue };
            let start = offset_in(result, raw.get());
            stats.blocks += 1;
            stats.bytes_before += text.len();
            stats.bytes_after += encoded.text.len();
            stats.truncated += usize::from(encoded.truncated);
            keys.extend(encoded.keys);
            splices.push((start, start + raw.get().len(), quoted));
        }
    }
    if splices.is_empty() {
        return None;
    }
    Some((splice(result, &splices), stats, keys))
}

/// Adds `primer` to the `instructions` of an `initialize` result (the text of
/// the `result` member): appended after a blank line to the server's own, or
/// set when it has none. `None` when the result is not a JSON object.
///
/// ```
/// use stc_mcp::rewrite::add_instructions;
/// assert_eq!(add_instructions(r#"{"a":1}"#, "P").unwrap(), r#"{"instructions":"P","a":1}"#);
/// assert_eq!(add_instructions(r#"{ }"#, "P").unwrap(), r#"{"instructions":"P"}"#);
/// assert_eq!(add_instructions(r#"{"instructions":"Own."}"#, "P").unwrap(), r#"{"instructions":"Own.\n\nP"}"#);
/// ```
pub fn add_instructions(result: &str, primer: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Init<'a> {
        // `null` too comes back as `Some`, so that it is replaced rather than duplicated.
        #[serde(borrow, default, deserialize_with = "present")]
        instructions: Option<&'a RawValue>,
    }
    if !result.trim_start().starts_with('{') {
        return None;
    }
    let init: Init = serde_json::from_str(result).ok()?;
    match init.instructions {
        Some(raw) => {
            let own: Option<String> = serde_json::from_str(raw.get()).ok()?;
            let text = match own {
                Some(own) if !own.trim().is_empty() => format!("{own}\n\n{primer}"),
                _ => primer.to_string(),
            };
            let start = offset_in(result, raw.get());
            Some(splice(result, &[(start, start + raw.get().len(), serde_json::to_string(&text).ok()?)]))
        }
        None => {
            let open = result.len() - result.trim_start().len();
            let rest = &result[open + 1..];
            let quoted = serde_json::to_string(primer).ok()?;
            if rest.trim_start().starts_with('}') {
                let close = open + 1 + (rest.len() - rest.trim_start().len());
                Some(splice(result, &[(open + 1, close, format!("\"instructions\":{quoted}"))]))
            } else {
                Some(splice(result, &[(open + 1, open + 1, format!("\"instructions\":{quoted},"))]))
            }
        }
    }
}

/// What [`add_tool`] found in a `tools/list` result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AddTool {
    /// The tool was appended: the new result text.
    Added(String),
    /// The server already has a tool of that name; the result is left alone.
    Collision,
    /// Not the last page (`nextCursor` is set) or not a tools list; left alone.
    NotHere,
}

/// Appends `tool` (a JSON object text) to the `tools` of a `tools/list`
/// result, on the last page only, unless a tool named `name` is already there.
///
/// ```
/// use stc_mcp::rewrite::{add_tool, AddTool};
/// let t = r#"{"name":"r"}"#;
/// assert_eq!(add_tool(r#"{"tools":[{"name":"a"}]}"#, "r", t), AddTool::Added(r#"{"tools":[{"name":"a"},{"name":"r"}]}"#.into()));
/// assert_eq!(add_tool(r#"{"tools":[ ]}"#, "r", t), AddTool::Added(r#"{"tools":[{"name":"r"}]}"#.into()));
/// assert_eq!(add_tool(r#"{"tools":[{"name":"r"}]}"#, "r", t), AddTool::Collision);
/// assert_eq!(add_tool(r#"{"tools":[],"nextCursor":"2"}"#, "r", t), AddTool::NotHere);
/// ```
pub fn add_tool(result: &str, name: &str, tool: &str) -> AddTool {
    #[derive(Deserialize)]
    struct List<'a> {
        #[serde(borrow)]
        tools: &'a RawValue,
        #[serde(rename = "nextCursor", default)]
        next_cursor: Option<serde_json::Value>,
    }
    #[derive(Deserialize)]
    struct Named<'a> {
        #[serde(borrow, default)]
        name: Option<Cow<'a, str>>,
    }
    let Ok(list) = serde_json::from_str::<List>(result) else { return AddTool::NotHere };
    let Ok(tools) = serde_json::from_str::<Vec<&RawValue>>(list.tools.get()) else { return AddTool::NotHere };
    let collides = tools
        .iter()
        .any(|t| serde_json::from_str::<Named>(t.get()).ok().and_then(|n| n.name).is_some_and(|n| n == name));
    if collides {
        return AddTool::Collision;
    }
    if list.next_cursor.is_some_and(|c| !c.is_null()) {
        return AddTool::NotHere;
    }
    let start = offset_in(result, list.tools.get());
    let end = start + list.tools.get().len();
    let new = if tools.is_empty() {
        format!("[{tool}]")
    } else {
        format!("{},{tool}]", &list.tools.get()[..list.tools.get().len() - 1])
    };
    AddTool::Added(splice(result, &[(start, end, new)]))
}

/// Deserializes a member that is present, even as `null`, to `Some`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// Replaces the `result` member of one response message (not a batch) with
/// what `f` makes of it. `None` when there is no result or `f` changes nothing.
pub fn map_result(message: &str, f: impl FnOnce(&str) -> Option<String>) -> Option<String> {
    let envelope: Envelope = serde_json::from_str(message).ok()?;
    let raw = envelope.result?;
    let new = f(raw.get())?;
    let start = offset_in(message, raw.get());
    Some(splice(message, &[(start, start + raw.get().len(), new)]))
}

/// The elements of a JSON-RPC batch (a JSON array of messages), each as its
/// raw text and byte offset in `batch`.
pub fn batch_elements(batch: &str) -> Option<Vec<(usize, &str)>> {
    let elements: Vec<&RawValue> = serde_json::from_str(batch).ok()?;
    Some(elements.into_iter().map(|e| (offset_in(batch, e.get()), e.get())).collect())
}

/// Applies `f` to every element of a batch; `None` when nothing changed.
pub fn map_batch(batch: &str, mut f: impl FnMut(&str) -> Option<String>) -> Option<String> {
    let mut splices = Vec::new();
    for (start, element) in batch_elements(batch)? {
        if let Some(new) = f(element) {
            splices.push((start, start + element.len(), new));
        }
    }
    (!splices.is_empty()).then(|| splice(batch, &splices))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(n: usize) -> String {
        let rows: Vec<String> =
            (0..n).map(|i| format!(r#"{{"id":{i},"name":"user{i}","score":{i}.50,"active":true}}"#)).collect();
        format!("[{}]", rows.join(","))
    }

    fn text_block(text: &str) -> String {
        format!(r#"{{"type":"text","text":{}}}"#, serde_json::to_string(text).unwrap())
    }

    #[test]
    fn json_table_becomes_stc_that_decodes_to_the_original_text() {
        let t = table(30);
        let result = format!(r#"{{"content":[{}],"isError":false}}"#, text_block(&t));
        let (new, stats) = rewrite_tool_result(&result, &RewriteOptions::default()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&new).unwrap();
        let stc = v["content"][0]["text"].as_str().unwrap();
        assert!(stc.starts_with("([30]{id,name,score,active}:"), "{stc}");
        assert_eq!(stc_core::decode(stc).unwrap(), t);
        assert_eq!(stats.blocks, 1);
        assert!(stats.bytes_after < stats.bytes_before);
        assert!(new.ends_with(r#","isError":false}"#));
    }

    #[test]
    fn escaped_text_is_unescaped_before_encoding() {
        // The server escaped every character it could: the text is still a JSON table.
        let t = table(20);
        let escaped: String = serde_json::to_string(&t).unwrap().replace("id", "\\u0069d");
        let result = format!(r#"{{"content":[{{"type":"text","text":{escaped}}}]}}"#);
        let (new, _) = rewrite_tool_result(&result, &RewriteOptions::default()).unwrap();
        let v: serde_json::Value = serde_json::from_str(&new).unwrap();
        assert_eq!(stc_core::decode(v["content"][0]["text"].as_str().unwrap()).unwrap(), t);
    }

    #[test]
    fn left_alone_non_json_small_big_errors_images_and_structured_content() {
        let opts = RewriteOptions { min_bytes: 10, max_bytes: 2000, ..RewriteOptions::default() };
        let t = table(40);
        assert!(t.len() > 2000);
        let cases = [
            format!(r#"{{"content":[{}]}}"#, text_block("plain words, not JSON, long enough")),
            format!(r#"{{"content":[{}]}}"#, text_block("[1]")),
            format!(r#"{{"content":[{}]}}"#, text_block(&t)),
            format!(r#"{{"content":[{}],"isError":true}}"#, text_block(&table(5))),
            r#"{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}"#.to_string(),
            format!(
                r#"{{"content":[{{"type":"resource","resource":{{"uri":"x:y","text":{}}}}}]}}"#,
                serde_json::to_string(&table(5)).unwrap()
            ),
            format!(r#"{{"content":[],"structuredContent":{}}}"#, table(5)),
            format!(r#"{{"content":[{}]}}"#, text_block("{\"a\": 1, \"broken\": [1, 2")),
            "not an object".to_string(),
        ];
        for c in cases {
            assert_eq!(rewrite_tool_result(&c, &opts), None, "{c}");
        }
    }

    #[test]
    fn gate_keeps_json_where_stc_does_not_save() {
        // A flat array of numbers: STC cannot save anything.
        let nums: Vec<String> = (0..200).map(|i| (i * 7).to_string()).collect();
        let t = format!("[{}]", nums.join(","));
        let result = format!(r#"{{"content":[{}]}}"#, text_block(&t));
        assert_eq!(rewrite_tool_result(&result, &RewriteOptions::default()), None);
    }

    #[test]
    fn keep_json_text_applies_only_where_the_gate_keeps_json() {
        let nums: Vec<String> = (0..200).map(|i| (i * 7).to_string()).collect();
        let pretty = format!("[\n  {}\n]", nums.join(",\n  "));
        let opts = RewriteOptions::default();
        assert_eq!(encode_text(&pretty, &opts).unwrap(), format!("[{}]", nums.join(",")));
        let keep = RewriteOptions { keep_json_text: true, ..RewriteOptions::default() };
        assert_eq!(encode_text(&pretty, &keep), None);
        assert!(encode_text(&table(20), &keep).unwrap().starts_with("([20]{"));
        // Already minified: nothing to gain, left alone.
        assert_eq!(encode_text(&format!("[{}]", nums.join(",")), &opts), None);
        // Where STC wins, STC is sent either way.
        assert!(encode_text(&table(20), &opts).unwrap().starts_with("([20]{"));
    }

    #[test]
    fn only_the_text_changes_in_a_response() {
        let t = table(10);
        let message = format!(
            r#"{{ "jsonrpc" : "2.0", "id" : 7, "result" : {{"content":[{},{}],"_meta":{{"x":1e3}}}} }}"#,
            text_block(&t),
            text_block("hello")
        );
        let new = map_result(&message, |r| rewrite_tool_result(r, &RewriteOptions::default()).map(|x| x.0)).unwrap();
        assert!(
            new.starts_with(r#"{ "jsonrpc" : "2.0", "id" : 7, "result" : {"content":[{"type":"text","text":"([10]"#)
        );
        assert!(new.ends_with(r#"{"type":"text","text":"hello"}],"_meta":{"x":1e3}} }"#), "{new}");
    }

    #[test]
    fn batches_are_rewritten_element_by_element() {
        let t = table(10);
        let batch = format!(
            r#"[{{"jsonrpc":"2.0","id":1,"result":{{"content":[{}]}}}}, {{"jsonrpc":"2.0","id":2,"result":{{}}}}]"#,
            text_block(&t)
        );
        let new =
            map_batch(&batch, |m| map_result(m, |r| rewrite_tool_result(r, &RewriteOptions::default()).map(|x| x.0)))
                .unwrap();
        let v: serde_json::Value = serde_json::from_str(&new).unwrap();
        assert_eq!(stc_core::decode(v[0]["result"]["content"][0]["text"].as_str().unwrap()).unwrap(), t);
        assert!(new.ends_with(r#", {"jsonrpc":"2.0","id":2,"result":{}}]"#));
    }

    #[test]
    fn instructions_null_or_blank_are_set() {
        assert_eq!(add_instructions(r#"{"instructions":null}"#, "P").unwrap(), r#"{"instructions":"P"}"#);
        assert_eq!(add_instructions(r#"{"instructions":" "}"#, "P").unwrap(), r#"{"instructions":"P"}"#);
        assert_eq!(add_instructions(r#"{"instructions":3}"#, "P"), None);
        assert_eq!(add_instructions(r#"[]"#, "P"), None);
    }

    #[test]
    fn truncation_cuts_stashes_and_reports_the_keys_then_gates() {
        let store = stc_stash::MemoryStore::new();
        let options = TruncateOptions { token_budget: Some(300), ..TruncateOptions::default() };
        let t = Truncation { store: &store, options: &options };
        let big = table(500);
        let result = format!(r#"{{"content":[{}]}}"#, text_block(&big));
        let (new, stats, keys) = rewrite_tool_result_with(&result, &RewriteOptions::default(), Some(t)).unwrap();
        assert_eq!((stats.blocks, stats.truncated, keys.len()), (1, 1, 1));
        let v: serde_json::Value = serde_json::from_str(&new).unwrap();
        let text = v["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("{stc_stash:{"), "{text}");
        assert!(stc_core::Tokenizer::Estimate.count(text) <= 300);
        assert_eq!(references_in(text), keys);
        // The payload is the whole original, under the marker's key.
        let stc_stash::Lookup::Found(payload) = store.retrieve(&keys[0]).unwrap() else { panic!("not stashed") };
        assert_eq!(String::from_utf8(payload).unwrap(), stc_core::decode(&big).unwrap());
        // Small texts: no cut, plain gating.
        let small = encode_text_with(&table(5), &RewriteOptions::default(), Some(t)).unwrap();
        assert!(!small.truncated && small.keys.is_empty());
    }

    #[test]
    fn retrieved_results_are_never_rewritten() {
        let store = stc_stash::MemoryStore::new();
        let options = TruncateOptions { token_budget: Some(100), ..TruncateOptions::default() };
        let t = Truncation { store: &store, options: &options };
        let result = format!(r#"{{"content":[{}],"_meta":{{"stc/retrieved":"k"}}}}"#, text_block(&table(500)));
        assert_eq!(rewrite_tool_result_with(&result, &RewriteOptions::default(), Some(t)), None);
        assert!(store.is_empty().unwrap());
        // Content the store marked retrieved (e.g. `stc retrieve` output from a shell tool): left as it is.
        let original = table(500);
        let key = store.stash(stc_core::decode(&original).unwrap().as_bytes()).unwrap().key;
        assert!(store.mark_retrieved(&key).unwrap());
        let plain = format!(r#"{{"content":[{}]}}"#, text_block(&original));
        assert_eq!(rewrite_tool_result_with(&plain, &RewriteOptions::default(), Some(t)), None);
        // Without the mark it would be cut.
        let other = table(400);
        let plain = format!(r#"{{"content":[{}]}}"#, text_block(&other));
        assert_eq!(rewrite_tool_result_with(&plain, &RewriteOptions::default(), Some(t)).unwrap().1.truncated, 1);
    }

    #[test]
    fn ids_match_across_spellings() {
        let a: Box<RawValue> = serde_json::from_str(r#""\u0061""#).unwrap();
        let b: Box<RawValue> = serde_json::from_str(r#""a""#).unwrap();
        assert_eq!(id_key(&a), id_key(&b));
        let n: Box<RawValue> = serde_json::from_str("1").unwrap();
        assert_ne!(id_key(&n), id_key(&b));
    }
}
