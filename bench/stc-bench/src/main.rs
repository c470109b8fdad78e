//! The measuring tool behind `bench/REPORT.md`. Run by `bench/run.sh`.
//!
//! ```text
//! stc-bench tokens MANIFEST TOON_DIR OUT.json   token counts of every format, the values-only
//!                                               floor and the split of the gap to it (issue 16)
//! stc-bench speed MANIFEST OUT.json [BUDGET_MS] Rust speed: stc vs serde_json vs toon-format
//! stc-bench dump MANIFEST DIR                   texts + o200k counts, for calibrating the estimator
//! stc-bench techniques MANIFEST OUT.json        tokens with every encoder technique on, and with each
//!                                               one off (v1 and v2), for "What each technique saves"
//! stc-bench encode FILE | decode FILE           stc-core on a file, output to stdout (peak RSS fallback)
//! stc-bench nodes FILE                          nodes of the encoder's tape for a JSON file (memory estimate)
//! ```
//!
//! MANIFEST is a JSON array of `{"name", "class", "path"}` written by
//! `bench/gen.py`. TOON_DIR holds `NAME.toon`, written by `bench/toon/toon.mjs`
//! with the reference TypeScript encoder.

mod gap;

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use stc_core::{
    decode, encode_gated, encode_with, parse_json, Abort, EncodeOptions, GateOptions, JsonStr, Limits, Profile, Sink,
    Tokenizer,
};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["tokens", manifest, toon_dir, out] => tokens(manifest, toon_dir, out),
        ["speed", manifest, out] => speed(manifest, out, 300),
        ["speed", manifest, out, budget] => speed(manifest, out, budget.parse().expect("BUDGET_MS")),
        ["dump", manifest, dir] => dump(manifest, dir),
        ["techniques", manifest, out] => techniques(manifest, out),
        ["encode", file] => print!("{}", encode_with(&read(file), &EncodeOptions::default()).unwrap_or_else(|e| die(e))),
        ["decode", file] => print!("{}", decode(&read(file)).unwrap_or_else(|e| die(e))),
        ["nodes", file] => {
            let json = read(file);
            let doc = stc_core::Document::parse_json(&json, &Limits::default()).unwrap_or_else(|e| die(e));
            println!("{}", doc.node_count());
        }
        _ => die("usage: stc-bench tokens MANIFEST TOON_DIR OUT | speed MANIFEST OUT [BUDGET_MS] | techniques MANIFEST OUT | encode FILE | decode FILE | nodes FILE"),
    }
}

fn die(msg: impl std::fmt::Display) -> ! {
    eprintln!("stc-bench: {msg}");
    std::process::exit(1)
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| die(format!("{path}: {e}")))
}

struct Doc {
    name: String,
    class: String,
    path: String,
}

fn manifest(path: &str) -> Vec<Doc> {
    let v: Value = serde_json::from_str(&read(path)).unwrap_or_else(|e| die(e));
    v.as_array()
        .unwrap_or_else(|| die("manifest: not an array"))
        .iter()
        .map(|d| Doc {
            name: d["name"].as_str().unwrap().to_owned(),
            class: d["class"].as_str().unwrap().to_owned(),
            path: d["path"].as_str().unwrap().to_owned(),
        })
        .collect()
}

const TOKENIZERS: [Tokenizer; 3] = [Tokenizer::O200kBase, Tokenizer::Cl100kBase, Tokenizer::Estimate];

fn counts(text: &str) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("bytes".into(), json!(text.len()));
    for t in TOKENIZERS {
        m.insert(t.name().into(), json!(t.count(text)));
    }
    Value::Object(m)
}

/// The encoder with the rules of commit 59b8d1c (before issue 16), compact profile.
fn encode_v1_old_rules(json: &str) -> String {
    use stc_core_v1rules as old;
    old::encode_with(json, &old::EncodeOptions::default().profile(old::Profile::Compact))
        .unwrap_or_else(|e| die(format!("old rules: {e}")))
}

/// STC v2 (compact profile) and its gated output, when stc-core has `Version`.
#[cfg(feature = "v2")]
fn encode_v2(json: &str) -> Option<(String, stc_core::Gated)> {
    let options = EncodeOptions::default().profile(Profile::Compact).version(stc_core::Version::V2);
    let text = encode_with(json, &options).unwrap_or_else(|e| die(format!("v2: {e}")));
    let gated = encode_gated(json, &options, &GateOptions::default()).unwrap_or_else(|e| die(format!("v2 gate: {e}")));
    Some((text, gated))
}

#[cfg(not(feature = "v2"))]
fn encode_v2(_json: &str) -> Option<(String, stc_core::Gated)> {
    None
}

/// STC v2 (compact profile) by stc-core as of commit 7a534d7, before issue
/// 25's safety rules (enclosed top-level tables, the bare-string allow-list)
/// and planner rules (related rows only, the width rule), and by the current
/// stc-core with the width rule off; each with its own decoder's round trip.
#[cfg(feature = "v2")]
fn encode_v2_variants(json: &str, minified: &str) -> Vec<(&'static str, String, bool)> {
    use stc_core_v2before as before;
    use stc_core_v2nowidth as nowidth;
    let b = before::encode_with(
        json,
        &before::EncodeOptions::default().profile(before::Profile::Compact).version(before::Version::V2),
    )
    .unwrap_or_else(|e| die(format!("v2 before: {e}")));
    let b_ok = before::decode_with(&b, &before::DecodeOptions::default().version(before::Version::V2))
        .is_ok_and(|back| back == minified);
    let n = nowidth::encode_with(
        json,
        &nowidth::EncodeOptions::default().profile(nowidth::Profile::Compact).version(nowidth::Version::V2),
    )
    .unwrap_or_else(|e| die(format!("v2 without the width rule: {e}")));
    let n_ok = nowidth::decode_with(&n, &nowidth::DecodeOptions::default().version(nowidth::Version::V2))
        .is_ok_and(|back| back == minified);
    vec![("stc_v2_before", b, b_ok), ("stc_v2_nowidth", n, n_ok)]
}

#[cfg(not(feature = "v2"))]
fn encode_v2_variants(_json: &str, _minified: &str) -> Vec<(&'static str, String, bool)> {
    Vec::new()
}

/// Decodes a v2 text with a version-2 decoder (an error is a failed round
/// trip, recorded and reported, not the end of the run).
#[cfg(feature = "v2")]
fn decode_v2(stc: &str) -> Option<Result<String, String>> {
    let options = stc_core::DecodeOptions::default().version(stc_core::Version::V2);
    Some(stc_core::decode_with(stc, &options).map_err(|e| e.to_string()))
}

#[cfg(not(feature = "v2"))]
fn decode_v2(_stc: &str) -> Option<Result<String, String>> {
    None
}

/// Token counts of every format of every document.
fn tokens(manifest_path: &str, toon_dir: &str, out: &str) {
    let mut docs = Vec::new();
    for doc in manifest(manifest_path) {
        let json = read(&doc.path);
        let compact = encode_with(&json, &EncodeOptions::default().profile(Profile::Compact))
            .unwrap_or_else(|e| die(format!("{}: {e}", doc.name)));
        let readable = encode_with(&json, &EncodeOptions::default().profile(Profile::Readable)).unwrap();
        let minified = decode(&json).unwrap();
        let roundtrip_ok = decode(&compact).unwrap() == minified && decode(&readable).unwrap() == minified;
        let pretty = pretty(&json);
        let mut formats = serde_json::Map::new();
        formats.insert("json_pretty".into(), counts(&pretty));
        formats.insert("json_min".into(), counts(&minified));
        let toon_path = format!("{toon_dir}/{}.toon", doc.name);
        match std::fs::read_to_string(&toon_path) {
            Ok(toon) => {
                formats.insert("toon".into(), counts(&toon));
            }
            Err(e) => eprintln!("stc-bench: {toon_path}: {e} (TOON not counted)"),
        }
        formats.insert("stc_readable".into(), counts(&readable));
        formats.insert("stc_compact".into(), counts(&compact));
        // The gate as shipped (estimator, default margin) and with the exact tokenizer.
        let mut gates = serde_json::Map::new();
        for (key, tokenizer) in [("gated", Tokenizer::Estimate), ("gated_o200k", Tokenizer::O200kBase)] {
            let gate = GateOptions::default().tokenizer(tokenizer);
            let g = encode_gated(&json, &EncodeOptions::default(), &gate).unwrap();
            let mut c = counts(&g.text);
            c["chosen"] = json!(g.chosen.name());
            gates.insert(key.into(), json!(g.chosen.name()));
            formats.insert(key.into(), c);
        }
        // Issue 16: the floor, the old rules, v2, and the split of each STC text.
        let (floor_text, floor_classes, scalars) = gap::floor(&json);
        formats.insert("floor".into(), counts(&floor_text));
        let old = encode_v1_old_rules(&json);
        // Its own decoder: its top-level tables are not enclosed in `( )` (issue 25).
        let old_roundtrip_ok = stc_core_v1rules::decode(&old).is_ok_and(|back| back == minified);
        formats.insert("stc_v1_old".into(), counts(&old));
        let mut split = serde_json::Map::new();
        split.insert("floor".into(), gap::splits(&floor_text, &floor_classes));
        split.insert("stc_v1_old".into(), gap::splits(&old, &gap::classify(&old)));
        split.insert("stc_compact".into(), gap::splits(&compact, &gap::classify(&compact)));
        let mut v2_roundtrip = Value::Null;
        if let Some((v2, gated_v2)) = encode_v2(&json) {
            v2_roundtrip = match decode_v2(&v2) {
                Some(Ok(back)) => json!(back == minified),
                Some(Err(e)) => {
                    eprintln!("stc-bench: {}: the v2 text does not decode with version 2: {e}", doc.name);
                    json!(format!("decode error: {e}"))
                }
                None => json!("not checked"),
            };
            formats.insert("stc_v2".into(), counts(&v2));
            let mut c = counts(&gated_v2.text);
            c["chosen"] = json!(gated_v2.chosen.name());
            formats.insert("gated_v2".into(), c);
            split.insert("stc_v2".into(), gap::splits(&v2, &gap::classify(&v2)));
        }
        let mut variants_roundtrip = serde_json::Map::new();
        for (key, text, ok) in encode_v2_variants(&json, &minified) {
            if !ok {
                eprintln!("stc-bench: {}: {key}: the text does not decode to the document", doc.name);
            }
            variants_roundtrip.insert(key.into(), json!(ok));
            formats.insert(key.into(), counts(&text));
        }
        for (key, s) in &split {
            if s["values_found"] != json!(scalars) {
                eprintln!(
                    "stc-bench: {}: {key}: the classifier found {} values, the document has {scalars}",
                    doc.name, s["values_found"]
                );
            }
        }
        eprintln!("tokens: {}", doc.name);
        docs.push(json!({
            "name": doc.name, "class": doc.class, "path": doc.path,
            "roundtrip_ok": roundtrip_ok, "old_roundtrip_ok": old_roundtrip_ok, "v2_roundtrip_ok": v2_roundtrip,
            "v2_variants_roundtrip_ok": variants_roundtrip,
            "scalars": scalars, "formats": formats, "split": split,
        }));
    }
    let v2 = if cfg!(feature = "v2") {
        json!({ "built": true })
    } else {
        json!({ "built": false, "reason": "not built yet: stc-core at this commit has no `Version` (STC v2)" })
    };
    let result = json!({ "min_saving": GateOptions::default().min_saving, "v2": v2, "docs": docs });
    std::fs::write(out, serde_json::to_string_pretty(&result).unwrap()).unwrap_or_else(|e| die(e));
}

/// Pretty JSON with two-space indentation (the layout of
/// `JSON.stringify(v, null, 2)` and `serde_json::to_string_pretty`), keeping
/// number lexemes and key order exactly.
fn pretty(json: &str) -> String {
    let mut p = Pretty { out: String::with_capacity(json.len() * 2), stack: Vec::new(), after_key: false };
    parse_json(json, &Limits::default().max_depth(1024), &mut p).unwrap_or_else(|e| die(e));
    p.out
}

struct Pretty {
    out: String,
    /// Per open container: has it had an element yet?
    stack: Vec<bool>,
    after_key: bool,
}

impl Pretty {
    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.stack.len() {
            self.out.push_str("  ");
        }
    }
    fn value(&mut self) {
        if self.after_key {
            self.after_key = false;
            return;
        }
        if let Some(seen) = self.stack.last_mut() {
            let first = !*seen;
            *seen = true;
            if !first {
                self.out.push(',');
            }
            self.newline();
        }
    }
    fn close(&mut self, bracket: char) {
        let seen = self.stack.pop().unwrap();
        if seen {
            self.newline();
        }
        self.out.push(bracket);
    }
    fn string(&mut self, s: &JsonStr) {
        self.out.push('"');
        s.write_canonical(&mut self.out);
        self.out.push('"');
    }
}

impl<'a> Sink<'a> for Pretty {
    fn null(&mut self) -> Result<(), Abort> {
        self.value();
        self.out.push_str("null");
        Ok(())
    }
    fn boolean(&mut self, value: bool) -> Result<(), Abort> {
        self.value();
        self.out.push_str(if value { "true" } else { "false" });
        Ok(())
    }
    fn number(&mut self, lexeme: &'a str) -> Result<(), Abort> {
        self.value();
        self.out.push_str(lexeme);
        Ok(())
    }
    fn string(&mut self, value: JsonStr<'a>) -> Result<(), Abort> {
        self.value();
        Pretty::string(self, &value);
        Ok(())
    }
    fn begin_array(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.value();
        self.out.push('[');
        self.stack.push(false);
        Ok(())
    }
    fn end_array(&mut self) -> Result<(), Abort> {
        self.close(']');
        Ok(())
    }
    fn begin_object(&mut self, _len: Option<usize>) -> Result<(), Abort> {
        self.value();
        self.out.push('{');
        self.stack.push(false);
        Ok(())
    }
    fn key(&mut self, key: JsonStr<'a>) -> Result<(), Abort> {
        self.value();
        Pretty::string(self, &key);
        self.out.push_str(": ");
        self.after_key = true;
        Ok(())
    }
    fn end_object(&mut self) -> Result<(), Abort> {
        self.close('}');
        Ok(())
    }
}

/// Median time of `f` over repeated runs within `budget` (at least 5 runs).
fn time<R>(budget: Duration, mut f: impl FnMut() -> R) -> f64 {
    std::hint::black_box(f()); // warm-up
    let mut samples = Vec::new();
    let start = Instant::now();
    while samples.len() < 5 || (start.elapsed() < budget && samples.len() < 10_000) {
        let t = Instant::now();
        std::hint::black_box(f());
        samples.push(t.elapsed().as_secs_f64());
    }
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[samples.len() / 2]
}

/// Rust speed, side by side on the same documents. Every function maps text
/// to text, so all pay for parsing and writing.
fn speed(manifest_path: &str, out: &str, budget_ms: u64) {
    let budget = Duration::from_millis(budget_ms);
    let mut docs = Vec::new();
    for doc in manifest(manifest_path) {
        let json = read(&doc.path);
        let options = EncodeOptions::default();
        let stc = encode_with(&json, &options).unwrap();
        let minified = decode(&json).unwrap();
        let serde_rt = |text: &str| {
            let v: Value = serde_json::from_str(text).unwrap();
            serde_json::to_string(&v).unwrap()
        };
        let mut results = serde_json::Map::new();
        let mut put = |key: &str, input: usize, secs: f64| {
            results.insert(
                key.into(),
                json!({ "seconds": secs, "input_bytes": input, "mb_per_s": input as f64 / secs / 1e6 }),
            );
        };
        put("stc_encode", json.len(), time(budget, || encode_with(&json, &options).unwrap()));
        put("serde_json_parse_write", json.len(), time(budget, || serde_rt(&json)));
        put("stc_decode", stc.len(), time(budget, || decode(&stc).unwrap()));
        put("serde_json_parse_write_min", minified.len(), time(budget, || serde_rt(&minified)));
        let value: Value = serde_json::from_str(&json).unwrap();
        let mut note = String::new();
        match toon_format::encode_default(&value) {
            Ok(toon) => {
                put(
                    "toon_encode",
                    json.len(),
                    time(budget, || {
                        let v: Value = serde_json::from_str(&json).unwrap();
                        toon_format::encode_default(&v).unwrap()
                    }),
                );
                match toon_format::decode_default::<Value>(&toon) {
                    Ok(back) => {
                        if back != value {
                            let _ = write!(note, "toon-format round trip differs from the input; ");
                        }
                        put(
                            "toon_decode",
                            toon.len(),
                            time(budget, || {
                                let v: Value = toon_format::decode_default(&toon).unwrap();
                                serde_json::to_string(&v).unwrap()
                            }),
                        );
                    }
                    Err(e) => {
                        let _ = write!(note, "toon-format decode failed: {e}; ");
                    }
                }
            }
            Err(e) => {
                let _ = write!(note, "toon-format encode failed: {e}; ");
            }
        }
        eprintln!("speed: {}", doc.name);
        docs.push(
            json!({ "name": doc.name, "class": doc.class, "bytes": json.len(), "results": results, "note": note }),
        );
    }
    let result = json!({ "budget_ms": budget_ms, "docs": docs });
    std::fs::write(out, serde_json::to_string_pretty(&result).unwrap()).unwrap_or_else(|e| die(e));
}

/// Writes every document's minified, pretty, STC compact and STC readable
/// text to DIR/NAME.FORMAT with their o200k_base counts in DIR/counts.json:
/// the input of `bench/calibrate.py`, which fits the estimator's constants.
fn dump(manifest_path: &str, dir: &str) {
    std::fs::create_dir_all(dir).unwrap_or_else(|e| die(e));
    let mut counts = serde_json::Map::new();
    for doc in manifest(manifest_path) {
        let json = read(&doc.path);
        let texts = [
            ("json_min", decode(&json).unwrap()),
            ("json_pretty", pretty(&json)),
            ("stc_compact", encode_with(&json, &EncodeOptions::default().profile(Profile::Compact)).unwrap()),
            ("stc_readable", encode_with(&json, &EncodeOptions::default().profile(Profile::Readable)).unwrap()),
        ];
        for (format, text) in texts {
            let file = format!("{}.{format}", doc.name);
            std::fs::write(format!("{dir}/{file}"), &text).unwrap_or_else(|e| die(e));
            counts.insert(file, json!({ "o200k_base": Tokenizer::O200kBase.count(&text), "estimate": Tokenizer::Estimate.count(&text), "class": doc.class }));
        }
    }
    std::fs::write(format!("{dir}/counts.json"), serde_json::to_string_pretty(&counts).unwrap())
        .unwrap_or_else(|e| die(e));
}

/// Tokens of every document's compact STC with every encoder technique on,
/// and with each technique off in turn (`stc_core::Techniques`, a switch for
/// measurement only), in version 1 (its own techniques) and version 2 (all
/// of them), counted with o200k_base and cl100k_base. Every text is decoded
/// back at its version and compared with the minified input (a failure is
/// recorded, not fatal). A text equal to the all-on text is not counted
/// again.
#[cfg(feature = "v2")]
fn techniques(manifest_path: &str, out: &str) {
    use stc_core::{DecodeOptions, Techniques, Version};
    const EXACT: [Tokenizer; 2] = [Tokenizer::O200kBase, Tokenizer::Cl100kBase];
    let count = |text: &str| {
        let mut m = serde_json::Map::new();
        for t in EXACT {
            m.insert(t.name().into(), json!(t.count(text)));
        }
        Value::Object(m)
    };
    let mut docs = Vec::new();
    for doc in manifest(manifest_path) {
        let json = read(&doc.path);
        let minified = decode(&json).unwrap_or_else(|e| die(format!("{}: {e}", doc.name)));
        let mut versions = serde_json::Map::new();
        let mut failures = Vec::new();
        for version in [Version::V1, Version::V2] {
            let base = EncodeOptions::default().profile(Profile::Compact).version(version);
            let decode_options = DecodeOptions::default().version(version);
            let mut check = |label: &str, text: &str| match stc_core::decode_with(text, &decode_options) {
                Ok(back) if back == minified => {}
                Ok(_) => failures.push(format!("v{version} {label}: decodes to a different value")),
                Err(e) => failures.push(format!("v{version} {label}: {e}")),
            };
            let all = encode_with(&json, &base).unwrap_or_else(|e| die(format!("{}: {e}", doc.name)));
            check("all on", &all);
            let all_counts = count(&all);
            let mut off = serde_json::Map::new();
            for &name in Techniques::NAMES {
                if version == Version::V1 && Techniques::is_v2(name) {
                    continue;
                }
                let t = Techniques::default().set(name, false).expect("a known technique");
                let text = encode_with(&json, &base.techniques(t)).unwrap();
                let counts = if text == all {
                    all_counts.clone()
                } else {
                    check(&format!("without {name}"), &text);
                    count(&text)
                };
                off.insert(name.into(), counts);
            }
            versions.insert(format!("v{version}"), json!({ "all": all_counts, "off": off }));
        }
        for f in &failures {
            eprintln!("stc-bench: {}: {f}", doc.name);
        }
        eprintln!("techniques: {}", doc.name);
        docs.push(json!({
            "name": doc.name, "class": doc.class, "json_min": count(&minified),
            "versions": versions, "roundtrip_failures": failures,
        }));
    }
    let result = json!({ "techniques": Techniques::NAMES, "docs": docs });
    std::fs::write(out, serde_json::to_string_pretty(&result).unwrap()).unwrap_or_else(|e| die(e));
}

#[cfg(not(feature = "v2"))]
fn techniques(_manifest_path: &str, out: &str) {
    let result = json!({ "docs": [], "reason": "not built: stc-core at this commit has no technique switches" });
    std::fs::write(out, serde_json::to_string_pretty(&result).unwrap()).unwrap_or_else(|e| die(e));
}
