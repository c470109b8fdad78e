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
use stc_core::{Chosen, Document, EncodeOptions, GateOptions, Limits, Profile, Version};
use stc_stash::{references_in, Key, StashStore, TruncateError, TruncateOptions};

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
    /// Results made of several JSON text blocks and nothing else (the Python
    /// SDK sends a `list[dict]` as one block per element) become one text
    /// block holding the array of their values, where that takes fewer
    /// tokens than the blocks one by one ([`merge_blocks`]). On by default.
    pub merge_blocks: bool,
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
            merge_blocks: true,
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
    /// Text blocks sent over the token budget (nothing more could be cut);
    /// each is reported in its block's `_meta` ([`BUDGET_META`]).
    pub over_budget: usize,
    /// Tokens of the replaced texts, in the gate's tokenizer (set by the
    /// block-by-block rewrite; 0 where a result was rebuilt).
    pub tokens_before: usize,
    /// Tokens of the texts that replaced them.
    pub tokens_after: usize,
}

/// The `_meta` member of a text block sent over the token budget:
/// `{"budget":B,"tokenizer":"o200k_base","tokens":T,"over":T-B}`.
pub const BUDGET_META: &str = "dev.stc/budget";

/// Truncation with the stash before the gate: what is cut is stashed in
/// `store`, and the output carries markers.
#[derive(Debug, Clone, Copy)]
pub struct Truncation<'a> {
    /// Where what is cut goes.
    pub store: &'a dyn StashStore,
    /// Budgets and the recovery instruction of the markers.
    pub options: &'a TruncateOptions,
    /// With a token budget: a text whose whole encoding already fits is not
    /// cut at all (`--budget auto`: cut only what the host would cut).
    pub whole_if_fits: bool,
}

/// The `_meta` member of a content block the proxy rewrote as STC: its
/// value names the format and version, as a media type with parameters
/// (see [`format_name`]). Blocks the gate left as JSON carry no marker.
pub const FORMAT_META: &str = "dev.stc/format";

/// The value of [`FORMAT_META`] for text of `version`:
/// `application/stc+json; version=N`, the media type `stc-http` uses.
///
/// ```
/// assert_eq!(stc_mcp::rewrite::format_name(stc_core::Version::V2), "application/stc+json; version=2");
/// ```
pub fn format_name(version: Version) -> String {
    format!("{}; version={version}", stc_core::MEDIA_TYPE)
}

/// One re-encoded text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// The text to send.
    pub text: String,
    /// True if `text` is STC (the gate chose it), false if it is JSON.
    pub stc: bool,
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
/// minified JSON, both with the markers; with a token budget, whichever has
/// fewer tokens in the budget's tokenizer when the gate's choice has more). A
/// store failure is reported as a `tracing` warning and the text is sent without
/// truncation. The text is written in
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
    if let Some((t, budget)) = truncation.filter(|t| t.whole_if_fits).and_then(|t| Some((t, t.options.token_budget?))) {
        let whole = encode_text_with(text, options, None);
        if t.options.tokenizer.count(whole.as_ref().map_or(text, |w| &w.text)) <= budget {
            return whole;
        }
    }
    let mut cut = None;
    if let Some(t) = truncation {
        match stc_stash::truncate(text, Some(t.store), t.options) {
            Ok(out) if out.kept.is_none() => cut = Some(out.json),
            Ok(_) => {}
            Err(TruncateError::Input(_)) => return None,
            Err(e) => tracing::warn!("not truncated: {e}"),
        }
    }
    let source = cut.as_deref().unwrap_or(text);
    let encode = EncodeOptions::default().profile(options.profile).limits(options.limits).version(options.version);
    let gated = Document::parse_json(source, &options.limits).ok()?.encode_gated_with(&encode, &options.gate);
    if cut.is_some() {
        let (mut text, mut stc) = (gated.text, gated.chosen == Chosen::Stc);
        if let (false, Some(t)) = (stc, truncation.filter(|t| t.options.token_budget.is_some())) {
            // The gate's minified JSON may cost more than the STC the budget was met in.
            if let Ok(encoded) = stc_core::encode_with(source, &encode) {
                if t.options.tokenizer.count(&encoded) < t.options.tokenizer.count(&text) {
                    (text, stc) = (encoded, true);
                }
            }
        }
        let keys = references_in(&text);
        return Some(Encoded { text, stc, truncated: true, keys });
    }
    let send = match gated.chosen {
        Chosen::Stc => true,
        Chosen::Json => !options.keep_json_text && gated.text != text,
    };
    send.then(|| Encoded { stc: gated.chosen == Chosen::Stc, text: gated.text, truncated: false, keys: Vec::new() })
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

    /// A notification has a method and no id.
    pub fn is_notification(&self) -> bool {
        self.method.is_some() && self.id.is_none()
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

/// A content block, as far as the rewrite looks at it.
#[derive(Deserialize)]
pub(crate) struct BlockView<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    text: Option<&'a RawValue>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<&'a RawValue>,
}

impl<'a> BlockView<'a> {
    /// The `text` of a text block, as its JSON string (escaped).
    pub(crate) fn text_raw(&self) -> Option<&'a RawValue> {
        (self.kind.as_deref() == Some("text")).then_some(self.text).flatten()
    }
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
    rewrite_blocks(result, view.content?, options, truncation)
}

/// Re-encodes the JSON text blocks among `blocks`, which were read from
/// `outer` (a result or a whole message; their spans borrow from it), and
/// returns `outer` with the new texts spliced in; `None` when nothing
/// changed. The caller has checked `isError` and `_meta`.
pub(crate) fn rewrite_blocks(
    outer: &str,
    blocks: Vec<BlockView<'_>>,
    options: &RewriteOptions,
    truncation: Option<Truncation>,
) -> Option<(String, RewriteStats, Vec<Key>)> {
    let mut keys = Vec::new();
    let mut splices = Vec::new();
    let mut stats = RewriteStats::default();
    for (index, block) in blocks.into_iter().enumerate() {
        let (Some(kind), Some(raw)) = (block.kind, block.text) else { continue };
        if kind != "text" {
            continue;
        }
        // A JSON string without escapes is its own text; others are unescaped first.
        let Ok(text) = serde_json::from_str::<Cow<str>>(raw.get()) else { continue };
        let encoded = encode_text_with(&text, options, truncation);
        // Members for the block's `_meta`: the format of re-encoded STC, an overrun.
        let mut members = Vec::new();
        let mut replacement = None;
        if let Some(encoded) = &encoded {
            let Ok(quoted) = serde_json::to_string(&encoded.text) else { continue };
            if encoded.stc {
                members.push(format_member(options.version));
            }
            stats.blocks += 1;
            stats.bytes_before += text.len();
            stats.bytes_after += encoded.text.len();
            stats.truncated += usize::from(encoded.truncated);
            stats.tokens_before += options.gate.tokenizer.count(&text);
            stats.tokens_after += options.gate.tokenizer.count(&encoded.text);
            keys.extend(encoded.keys.iter().copied());
            replacement = Some(quoted);
        }
        if let Some(member) = budget_report(truncation, encoded.as_ref().map_or(&text, |e| &e.text), index) {
            stats.over_budget += 1;
            members.push(member);
        }
        if !members.is_empty() {
            let member = members.join(",");
            match block.meta {
                None => {
                    let text = replacement.get_or_insert_with(|| raw.get().to_string());
                    text.push_str(&format!(",\"_meta\":{{{member}}}"));
                }
                Some(meta) => {
                    if let Some(splice) = insert_member(outer, meta, &member) {
                        splices.push(splice);
                    }
                }
            }
        }
        if let Some(quoted) = replacement {
            let start = offset_in(outer, raw.get());
            splices.push((start, start + raw.get().len(), quoted));
        }
    }
    if splices.is_empty() {
        return None;
    }
    splices.sort_by_key(|s| s.0);
    Some((splice(outer, &splices), stats, keys))
}

/// The `_meta` member of a text block that [`merge_blocks`] made: how many
/// blocks its array stands for (element `i` is block `i`).
pub const MERGED_META: &str = "dev.stc/mergedBlocks";

/// Merges a result (text of `result`) whose content is two or more text
/// blocks, each a JSON object or array and nothing else (no annotations or
/// `_meta`), into one text block holding the array of their values, encoded
/// like any block (gated STC, truncated when asked), when its tokens (the
/// gate's tokenizer) are fewer than those of the blocks encoded one by one.
/// The block carries [`FORMAT_META`] (when STC) and [`MERGED_META`]. `None`
/// when the result does not qualify or merging does not save.
///
/// ```
/// use stc_mcp::rewrite::{merge_blocks, RewriteOptions};
/// let blocks: Vec<String> = (0..10)
///     .map(|i| format!(r#"{{"type":"text","text":{}}}"#, serde_json::to_string(&format!("{{\n  \"id\": {i},\n  \"name\": \"u{i}\"\n}}")).unwrap()))
///     .collect();
/// let result = format!(r#"{{"content":[{}],"isError":false}}"#, blocks.join(","));
/// let (new, stats, _) = merge_blocks(&result, &RewriteOptions::default(), None).unwrap();
/// assert!(new.starts_with(r#"{"content":[{"type":"text","text":"([10]{id,name}:0,\"u0\"/"#), "{new}");
/// assert!(new.contains(r#""dev.stc/mergedBlocks":10"#) && new.ends_with(r#""isError":false}"#));
/// assert_eq!(stats.blocks, 10);
/// ```
pub fn merge_blocks(
    result: &str,
    options: &RewriteOptions,
    truncation: Option<Truncation>,
) -> Option<(String, RewriteStats, Vec<Key>)> {
    let members = object_members(result)?;
    let content = members.iter().find(|(k, _)| k == "content")?.1;
    let blocks: Vec<&RawValue> = serde_json::from_str(content.get()).ok()?;
    if blocks.len() < 2 {
        return None;
    }
    let mut texts = Vec::with_capacity(blocks.len());
    for b in &blocks {
        let m = object_members(b.get())?;
        if m.len() != 2 || !m.iter().all(|(k, _)| k == "type" || k == "text") {
            return None;
        }
        let view: BlockView = serde_json::from_str(b.get()).ok()?;
        if view.kind.as_deref() != Some("text") {
            return None;
        }
        let text: Cow<str> = serde_json::from_str(view.text?.get()).ok()?;
        match text.trim_start_matches([' ', '\t', '\r', '\n']).as_bytes().first() {
            Some(b'{') | Some(b'[') => {}
            _ => return None,
        }
        texts.push(text);
    }
    let count = |t: &str| options.gate.tokenizer.count(t);
    let mut values = Vec::with_capacity(texts.len());
    let mut one_by_one = 0;
    let mut bytes_before = 0;
    for t in &texts {
        values.push(Document::parse_json(t, &options.limits).ok()?.to_json());
        bytes_before += t.len();
        one_by_one += match encode_text_with(t, options, None) {
            Some(e) => count(&e.text),
            None => count(t),
        };
    }
    let merged = format!("[{}]", values.join(","));
    let (text, stc, truncated, keys) = match encode_text_with(&merged, options, truncation) {
        Some(e) => (e.text, e.stc, e.truncated, e.keys),
        None => (merged, false, false, Vec::new()),
    };
    // A cut is always sent (what the budget asked for); else only a saving.
    if !truncated && count(&text) >= one_by_one {
        return None;
    }
    let mut meta = format!("\"{MERGED_META}\":{}", texts.len());
    if stc {
        meta = format!("{},{meta}", format_member(options.version));
    }
    let over = budget_report(truncation, &text, 0);
    if let Some(member) = &over {
        meta = format!("{meta},{member}");
    }
    let block = format!(r#"{{"type":"text","text":{},"_meta":{{{meta}}}}}"#, serde_json::to_string(&text).ok()?);
    let stats = RewriteStats {
        blocks: texts.len(),
        bytes_before,
        bytes_after: text.len(),
        truncated: usize::from(truncated),
        over_budget: usize::from(over.is_some()),
        ..RewriteStats::default()
    };
    let new = object_text(members.iter().map(|(k, v)| {
        let v = if k == "content" { Cow::Owned(format!("[{block}]")) } else { Cow::Borrowed(v.get()) };
        (k.clone(), v)
    }));
    Some((new, stats, keys))
}

/// The budget holds for the text actually sent, in the budget's tokenizer:
/// never a silent overrun. When `text` (block `index`) is over the budget of
/// `truncation`, a `tracing` warning and the `_meta` member that reports it
/// (`"dev.stc/budget":{"budget":B,"tokenizer":…,"tokens":T,"over":T-B}`).
fn budget_report(truncation: Option<Truncation>, text: &str, index: usize) -> Option<String> {
    let t = truncation?;
    let (limit, tokenizer) = (t.options.token_budget?, t.options.tokenizer);
    let tokens = tokenizer.count(text);
    if tokens <= limit {
        return None;
    }
    tracing::warn!(
        block = index,
        tokens,
        budget = limit,
        tokenizer = tokenizer.name(),
        "text block {index} of a tool result has {tokens} {} tokens, {} over the budget of {limit}: nothing more can \
         be cut (reported in the block's _meta[\"{BUDGET_META}\"])",
        tokenizer.name(),
        tokens - limit
    );
    let report =
        serde_json::json!({"budget": limit, "tokenizer": tokenizer.name(), "tokens": tokens, "over": tokens - limit});
    Some(format!("\"{BUDGET_META}\":{report}"))
}

/// `"dev.stc/format":"application/stc+json; version=N"`.
fn format_member(version: Version) -> String {
    format!("\"{FORMAT_META}\":\"{}\"", format_name(version))
}

/// The splice that adds `member` (`"key":value`) first in the JSON object
/// `object` (a span of `outer`); `None` when `object` is not an object.
fn insert_member(outer: &str, object: &RawValue, member: &str) -> Option<(usize, usize, String)> {
    let text = object.get();
    if !text.starts_with('{') {
        return None;
    }
    let at = offset_in(outer, text) + 1;
    let empty = text[1..].trim_start().starts_with('}');
    Some((at, at, if empty { member.to_string() } else { format!("{member},") }))
}

/// The members of a JSON object text, in order, values as raw spans.
fn object_members(object: &str) -> Option<Vec<(String, &RawValue)>> {
    struct Members;
    impl<'de> serde::de::Visitor<'de> for Members {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(entry) = map.next_entry::<String, &'de RawValue>()? {
                out.push(entry);
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_str(object);
    let out = serde::Deserializer::deserialize_map(&mut de, Members).ok()?;
    de.end().ok()?;
    Some(out)
}

/// Writes members as a JSON object.
fn object_text<'a>(members: impl IntoIterator<Item = (String, Cow<'a, str>)>) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in members.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(&k).unwrap_or_default());
        out.push(':');
        out.push_str(&v);
    }
    out.push('}');
    out
}

/// For a host that shows the model only `structuredContent`: the result
/// (text of the `result` member of a `tools/call` response) without
/// `structuredContent`, its data carried by the text. If a text block
/// already holds the same JSON as `structuredContent` (or, when
/// `structuredContent` is an object of one string member, that string), the
/// text blocks are re-encoded as usual; otherwise the text blocks are replaced by one text
/// block with the gated STC of `structuredContent` (the data the host showed
/// the model), placed where the first text block was. Other blocks stay.
/// `None` when the result has no `structuredContent` (or is malformed).
pub fn text_for_structured(
    result: &str,
    options: &RewriteOptions,
    truncation: Option<Truncation>,
) -> Option<(String, RewriteStats, Vec<Key>)> {
    let members = object_members(result)?;
    let structured = members.iter().find(|(k, _)| k == "structuredContent")?.1;
    let content = members.iter().find(|(k, _)| k == "content").map(|m| m.1);
    let blocks: Vec<&RawValue> = match content {
        Some(c) => serde_json::from_str(c.get()).ok()?,
        None => Vec::new(),
    };
    let minified = |text: &str| Document::parse_json(text, &options.limits).ok().map(|d| d.to_json());
    let wanted = minified(structured.get());
    // `{"content": TEXT}` (e.g. a file server's read): a text block holding TEXT is the same data.
    let only_string: Option<String> = object_members(structured.get()).and_then(|m| match m.as_slice() {
        [(_, v)] => serde_json::from_str::<String>(v.get()).ok(),
        _ => None,
    });
    let mut same = false;
    let mut texts = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        let Ok(view) = serde_json::from_str::<BlockView>(b.get()) else { continue };
        if view.kind.as_deref() != Some("text") {
            continue;
        }
        texts.push(i);
        if let Some(raw) = view.text {
            let Ok(text) = serde_json::from_str::<Cow<str>>(raw.get()) else { continue };
            same |= only_string.as_deref() == Some(&*text) || (wanted.is_some() && minified(&text) == wanted);
        }
    }
    let mut stats = RewriteStats::default();
    let mut keys = Vec::new();
    let new_content = if same {
        // Re-encode the blocks as usual (a copy of the content array, rewritten).
        let array = content?.get();
        let parsed: Vec<BlockView> = serde_json::from_str(array).ok()?;
        match rewrite_blocks(array, parsed, options, truncation) {
            Some((new, s, k)) => {
                // structuredContent goes too: the token counts of the blocks alone do not tell.
                stats = RewriteStats { tokens_before: 0, tokens_after: 0, ..s };
                keys = k;
                new
            }
            None => array.to_string(),
        }
    } else {
        let json = structured.get();
        let (text, stc) = match encode_text_with(json, options, truncation) {
            Some(e) => {
                stats.truncated += usize::from(e.truncated);
                keys = e.keys;
                (e.text, e.stc)
            }
            None => (wanted.clone().unwrap_or_else(|| json.to_string()), false),
        };
        stats.blocks = 1;
        stats.bytes_before = json.len();
        stats.bytes_after = text.len();
        let mut block = format!(r#"{{"type":"text","text":{}"#, serde_json::to_string(&text).ok()?);
        if stc {
            block.push_str(&format!(",\"_meta\":{{{}}}", format_member(options.version)));
        }
        block.push('}');
        let at = texts.first().copied().unwrap_or(0);
        let mut out: Vec<String> = Vec::new();
        for (i, b) in blocks.iter().enumerate() {
            if i == at {
                out.push(block.clone());
            }
            if !texts.contains(&i) {
                out.push(b.get().to_string());
            }
        }
        if at >= blocks.len() {
            out.push(block);
        }
        format!("[{}]", out.join(","))
    };
    let mut had_content = false;
    let mut out: Vec<(String, Cow<str>)> = Vec::new();
    for (k, v) in &members {
        match k.as_str() {
            "structuredContent" => {}
            "content" => {
                had_content = true;
                out.push((k.clone(), Cow::Owned(new_content.clone())));
            }
            _ => out.push((k.clone(), Cow::Borrowed(v.get()))),
        }
    }
    if !had_content {
        out.insert(0, ("content".to_string(), Cow::Owned(new_content)));
    }
    Some((object_text(out), stats, keys))
}

/// For a host that shows the model only `structuredContent`: a `tools/list`
/// result (text of `result`) without the tools' `outputSchema` (a tool that
/// has one must return `structuredContent`, which such hosts do not get).
/// A `cacheScope` of `public` becomes `private` (the list now depends on
/// who asked). `None` when no tool had an `outputSchema`.
///
/// ```
/// use stc_mcp::rewrite::strip_output_schemas;
/// let r = r#"{"tools":[{"name":"a","outputSchema":{"type":"object"},"inputSchema":{}}],"cacheScope":"public","ttlMs":60000}"#;
/// assert_eq!(strip_output_schemas(r).unwrap(), r#"{"tools":[{"name":"a","inputSchema":{}}],"cacheScope":"private","ttlMs":60000}"#);
/// assert_eq!(strip_output_schemas(r#"{"tools":[{"name":"a"}]}"#), None);
/// ```
pub fn strip_output_schemas(result: &str) -> Option<String> {
    let members = object_members(result)?;
    let tools = members.iter().find(|(k, _)| k == "tools")?.1;
    let list: Vec<&RawValue> = serde_json::from_str(tools.get()).ok()?;
    let mut changed = false;
    let mut new_tools = Vec::with_capacity(list.len());
    for tool in list {
        match object_members(tool.get()) {
            Some(m) if m.iter().any(|(k, _)| k == "outputSchema") => {
                changed = true;
                new_tools.push(object_text(
                    m.into_iter().filter(|(k, _)| k != "outputSchema").map(|(k, v)| (k, Cow::Borrowed(v.get()))),
                ));
            }
            _ => new_tools.push(tool.get().to_string()),
        }
    }
    if !changed {
        return None;
    }
    let new_tools = format!("[{}]", new_tools.join(","));
    Some(object_text(members.iter().map(|(k, v)| {
        let v = match k.as_str() {
            "tools" => Cow::Owned(new_tools.clone()),
            "cacheScope" if v.get() == "\"public\"" => Cow::Borrowed("\"private\""),
            _ => Cow::Borrowed(v.get()),
        };
        (k.clone(), v)
    })))
}

/// [`add_instructions`] in the `result` of a whole response message.
pub(crate) fn add_instructions_in(message: &str, primer: &str) -> Option<String> {
    map_result(message, |r| add_instructions(r, primer))
}

/// [`add_tool`] in the `result` of a whole response message.
pub(crate) fn add_tool_in(message: &str, name: &str, tool: &str) -> AddTool {
    let mut found = AddTool::NotHere;
    let new = map_result(message, |r| match add_tool(r, name, tool) {
        AddTool::Added(new) => Some(new),
        other => {
            found = other;
            None
        }
    });
    match new {
        Some(new) => AddTool::Added(new),
        None => found,
    }
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
        let t = Truncation { store: &store, options: &options, whole_if_fits: false };
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
        let t = Truncation { store: &store, options: &options, whole_if_fits: false };
        let result = format!(r#"{{"content":[{}],"_meta":{{"stc/retrieved":"k"}}}}"#, text_block(&table(500)));
        assert_eq!(rewrite_tool_result_with(&result, &RewriteOptions::default(), Some(t)), None);
        assert!(store.is_empty().unwrap());
        // The same content in an ordinary result (e.g. `stc retrieve` output from a
        // shell tool, or another read of the file): cut as usual, every time.
        let original = table(500);
        let plain = format!(r#"{{"content":[{}]}}"#, text_block(&original));
        assert_eq!(rewrite_tool_result_with(&plain, &RewriteOptions::default(), Some(t)).unwrap().1.truncated, 1);
        assert_eq!(rewrite_tool_result_with(&plain, &RewriteOptions::default(), Some(t)).unwrap().1.truncated, 1);
    }

    #[test]
    fn a_block_over_the_budget_is_reported_in_its_meta() {
        let store = stc_stash::MemoryStore::new();
        let tokenizer = stc_core::Tokenizer::O200kBase;
        let options = TruncateOptions { token_budget: Some(50), tokenizer, ..TruncateOptions::default() };
        let t = Truncation { store: &store, options: &options, whole_if_fits: false };
        // An object of many small members (nothing can be cut), and a plain text with a _meta of its own.
        let object = format!("{{{}}}", (0..100).map(|i| format!(r#""k{i}":{i}"#)).collect::<Vec<_>>().join(","));
        let words = "word ".repeat(100);
        let result = format!(
            r#"{{"content":[{},{{"type":"text","text":{},"_meta":{{"x":1}}}}]}}"#,
            text_block(&object),
            serde_json::to_string(&words).unwrap()
        );
        let (new, stats, _) = rewrite_tool_result_with(&result, &RewriteOptions::default(), Some(t)).unwrap();
        assert_eq!(stats.over_budget, 2);
        let v: serde_json::Value = serde_json::from_str(&new).unwrap();
        let sent = v["content"][0]["text"].as_str().unwrap();
        let report = &v["content"][0]["_meta"][BUDGET_META];
        assert_eq!((report["budget"].as_u64(), report["tokenizer"].as_str()), (Some(50), Some("o200k_base")));
        assert_eq!(report["tokens"].as_u64(), Some(tokenizer.count(sent) as u64));
        assert_eq!(report["over"].as_u64(), Some(tokenizer.count(sent) as u64 - 50));
        assert_eq!(v["content"][1]["text"], words.as_str());
        assert_eq!(v["content"][1]["_meta"]["x"], 1);
        assert_eq!(v["content"][1]["_meta"][BUDGET_META]["tokens"].as_u64(), Some(tokenizer.count(&words) as u64));
        // Within the budget: no report.
        let small = format!(r#"{{"content":[{}]}}"#, text_block(&table(500)));
        let options = TruncateOptions { token_budget: Some(400), tokenizer, ..TruncateOptions::default() };
        let t = Truncation { store: &store, options: &options, whole_if_fits: false };
        let (new, stats, _) = rewrite_tool_result_with(&small, &RewriteOptions::default(), Some(t)).unwrap();
        assert_eq!(stats.over_budget, 0);
        assert!(!new.contains(BUDGET_META));
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
