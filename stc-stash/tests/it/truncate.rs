//! `truncate` with real stores: stashing, the ledger, arbitration, and the
//! Headroom CCR bugs, each as a test that fails if the bug comes back.

use crate::common::{self, resolve};

use stc_stash::{
    references_in, restore, truncate, Kept, Key, Lookup, MemoryStore, PlanOptions, RedisStore, SqliteStore, StashStore,
    StashWrite, StoreError, TruncateOptions, Value, KEY_HEX_LEN,
};

fn five_hundred_records(store: &dyn StashStore) {
    let json = common::records(500);
    let out = truncate(&json, Some(store), &TruncateOptions::default()).unwrap();
    assert_eq!(out.kept, None);
    assert!(out.tokens * 5 < out.original_tokens, "{} vs {}", out.tokens, out.original_tokens);
    assert_eq!(stc_core::decode(&out.stc).unwrap(), out.json, "the output is valid STC");
    assert_eq!(resolve(store, &out.json), json, "original == splice(kept, retrieved)");
    assert_eq!(references_in(&out.stc), out.writes.iter().map(|w| w.key).collect::<Vec<_>>());
}

#[test]
fn five_hundred_records_on_every_store() {
    five_hundred_records(&MemoryStore::new());
    let dir = tempfile::tempdir().unwrap();
    five_hundred_records(&SqliteStore::open(&dir.path().join("s.db")).unwrap());
    let server = common::RedisServer::start();
    five_hundred_records(&RedisStore::open(&server.url).unwrap());
}

#[test]
fn no_store_means_nothing_is_truncated_silently() {
    let json = common::records(500);
    let out = truncate(&json, None, &TruncateOptions::default()).unwrap();
    assert_eq!(out.kept, Some(Kept::NoStore));
    assert_eq!(out.json, json);
    // Explicitly lossy: truncated, and the markers say it cannot be recovered.
    let lossy = TruncateOptions {
        plan: PlanOptions { recoverable: false, ..PlanOptions::default() },
        ..TruncateOptions::default()
    };
    let out = truncate(&json, None, &lossy).unwrap();
    assert_eq!(out.kept, None);
    assert!(out.json.contains(r#""recoverable":false"#));
    assert!(out.writes.is_empty());
}

#[test]
fn token_budget_is_met() {
    let json = common::records(500);
    let store = MemoryStore::new();
    let options = TruncateOptions { token_budget: Some(300), ..TruncateOptions::default() };
    let out = truncate(&json, Some(&store), &options).unwrap();
    assert!(out.tokens <= 300, "{} tokens", out.tokens);
    assert_eq!(store.len().unwrap(), 1, "only the final plan is stashed");
}

#[test]
fn no_saving_leaves_no_rows() {
    // 33 tiny records: the marker costs more than the one record it saves.
    let json = format!("[{}]", (0..33).map(|_| "{}").collect::<Vec<_>>().join(","));
    let store = MemoryStore::new();
    // The planner would refuse anyway (min_omitted_bytes); switch that off to
    // reach the final arbitration.
    let plan = PlanOptions { min_omitted_bytes: 0, ..PlanOptions::default() };
    let out = truncate(&json, Some(&store), &TruncateOptions { plan, ..TruncateOptions::default() }).unwrap();
    assert_eq!(out.kept, Some(Kept::NoSaving));
    assert!(store.is_empty().unwrap());
}

/// A store whose writes fail after the first `ok` ones.
#[derive(Debug)]
struct Failing {
    inner: MemoryStore,
    ok: std::sync::atomic::AtomicUsize,
}

impl StashStore for Failing {
    fn stash(&self, payload: &[u8]) -> Result<StashWrite, StoreError> {
        if self.ok.fetch_sub(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            return Err(StoreError::Unavailable("disk full".into()));
        }
        self.inner.stash(payload)
    }
    fn retrieve(&self, key: &Key) -> Result<Lookup, StoreError> {
        self.inner.retrieve(key)
    }
    fn rollback(&self, key: &Key, generation: u64) -> Result<bool, StoreError> {
        self.inner.rollback(key, generation)
    }
    fn len(&self) -> Result<usize, StoreError> {
        self.inner.len()
    }
    fn describe(&self) -> String {
        "failing".into()
    }
}

#[test]
fn a_failed_write_rolls_back_the_others_no_orphans() {
    let json = format!(r#"{{"a":{},"b":{}}}"#, common::records(100), common::records(200));
    let store = Failing { inner: MemoryStore::new(), ok: 1.into() };
    let err = truncate(&json, Some(&store), &TruncateOptions::default()).unwrap_err();
    assert!(err.to_string().contains("disk full"));
    assert!(store.is_empty().unwrap(), "the first write was rolled back");
}

/// CCR bug: markers and the store used hashes of different lengths.
#[test]
fn marker_keys_are_store_keys() {
    let json = format!(r#"{{"rows":{},"log":"{}"}}"#, common::records(100), "y".repeat(10_000));
    let store = MemoryStore::new();
    let out = truncate(&json, Some(&store), &TruncateOptions::default()).unwrap();
    let refs = references_in(&out.stc);
    assert_eq!(refs.len(), 2);
    for key in refs {
        assert_eq!(key.as_str().len(), KEY_HEX_LEN);
        let Lookup::Found(payload) = store.retrieve(&key).unwrap() else { panic!("marker key {key} not in store") };
        assert_eq!(Key::of(&payload), key);
        // The instruction names the same full key.
        assert!(out.stc.contains(&format!("stc retrieve {key}")));
    }
}

/// Issue 24: a retrieve used to mark the content in the store, and `truncate`
/// then never cut it again, for every process sharing the store, for the
/// entry's 7 days. Only the retrieve output itself is exempt (its front end
/// never passes it to `truncate`); the same content read again is cut as usual.
#[test]
fn retrieving_does_not_exempt_the_content_from_later_cuts() {
    let json = common::records(500);
    let store = MemoryStore::new();
    let first = truncate(&json, Some(&store), &TruncateOptions::default()).unwrap();
    let key = first.writes[0].key;
    let payload = stc_stash::retrieve_text(&store, &key).unwrap();
    assert_eq!(payload, first.omissions[0].payload);
    // The same document again, and the retrieved payload itself: both cut as before.
    for input in [json.as_str(), payload.as_str()] {
        let again = truncate(input, Some(&store), &TruncateOptions::default()).unwrap();
        assert_eq!(again.kept, None);
        assert_eq!(again.stc, first.stc);
        assert_eq!(references_in(&again.stc), vec![key]);
    }
}

/// CCR bug: markers were stored in place of the originals.
#[test]
fn payloads_are_originals_never_markers() {
    // Records holding long strings and long arrays: the kept records are
    // themselves cut, but every payload is untouched original data.
    let rows: Vec<String> = (0..60)
        .map(|i| {
            format!(
                r#"{{"id":{i},"body":"{}","tags":[{}]}}"#,
                "z".repeat(5000),
                (0..50).map(|t| t.to_string()).collect::<Vec<_>>().join(",")
            )
        })
        .collect();
    let json = format!(
        r#"{{"items":[{}],"series":[{}]}}"#,
        rows.join(","),
        (0..100).map(|t| format!("[{t},{t}]")).collect::<Vec<_>>().join(",")
    );
    let store = MemoryStore::new();
    let out = truncate(&json, Some(&store), &TruncateOptions::default()).unwrap();
    assert!(out.writes.len() >= 3);
    for w in &out.writes {
        let Lookup::Found(p) = store.retrieve(&w.key).unwrap() else { panic!() };
        let p = String::from_utf8(p).unwrap();
        assert!(!p.contains("stc_stash"), "a stashed payload holds a marker");
        assert!(json.contains(p.trim_start_matches('[').trim_end_matches(']')), "payload is a piece of the original");
    }
    assert_eq!(resolve(&store, &out.json), json);
}

#[test]
fn invalid_json_is_an_input_error_and_writes_nothing() {
    let store = MemoryStore::new();
    let err = truncate("[1,2", Some(&store), &TruncateOptions::default()).unwrap_err();
    assert!(matches!(err, stc_stash::TruncateError::Input(_)));
    assert!(store.is_empty().unwrap());
}

#[test]
fn deep_nesting_at_the_reader_limit_does_not_overflow() {
    let inner = format!("[{}]", (1000..1100).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let nest = |depth: usize| format!("{}{inner}{}", "[".repeat(depth - 1), "]".repeat(depth - 1));
    let limits = stc_core::Limits::default().max_depth(stc_core::MAX_DEPTH_LIMIT);
    let options = TruncateOptions { limits, ..TruncateOptions::default() };
    let store = MemoryStore::new();
    // The deepest document the reader accepts: below MAX_PLAN_DEPTH nothing is cut.
    let json = nest(stc_core::MAX_DEPTH_LIMIT - 1);
    let out = truncate(&json, Some(&store), &options).unwrap();
    assert_eq!(out.kept, Some(Kept::NothingToCut));
    assert_eq!(out.json, json);
    // Within MAX_PLAN_DEPTH the long array is cut and restored.
    let json = nest(stc_stash::MAX_PLAN_DEPTH);
    let out = truncate(&json, Some(&store), &options).unwrap();
    assert_eq!(out.kept, None);
    let output = Value::parse_json(&out.json, &limits).unwrap();
    let back = restore(&output, &mut |k| match store.retrieve(k).unwrap() {
        Lookup::Found(p) => Some(String::from_utf8(p).unwrap()),
        _ => None,
    })
    .unwrap();
    assert_eq!(back, json);
}

#[test]
fn discarding_an_output_rolls_back_only_what_it_created() {
    let json = common::records(200);
    let store = MemoryStore::new();
    let first = truncate(&json, Some(&store), &TruncateOptions::default()).unwrap();
    // A second call (another worker) refreshes the same entry and sends its marker.
    let second = truncate(&json, Some(&store), &TruncateOptions::default()).unwrap();
    assert!(!second.writes[0].created());
    // The first call discards its output: the entry the second marker needs stays.
    assert!(first.rollback(&store).unwrap().rolled_back.is_empty());
    // The second call's own rollback owns nothing it created either.
    assert!(second.rollback(&store).unwrap().rolled_back.is_empty());
    assert_eq!(store.len().unwrap(), 1);
    // A lone call that discards its output leaves no row.
    let other = common::records(300);
    let lone = truncate(&other, Some(&store), &TruncateOptions::default()).unwrap();
    assert_eq!(lone.rollback(&store).unwrap().rolled_back.len(), 1);
    assert_eq!(store.len().unwrap(), 1);
}

fn corpus(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first `n` statuses of twitter.json, as the API's array.
fn statuses(n: usize) -> String {
    let v: serde_json::Value = serde_json::from_str(&corpus("twitter.json")).unwrap();
    serde_json::to_string(&v["statuses"].as_array().unwrap()[..n]).unwrap()
}

/// Issue 24: `--budget 1000` gave 1,753 o200k tokens on 12 statuses, with
/// no word. A budget in o200k is met in o200k, cutting further (bare
/// arrays) where the halving floor is not enough; where it cannot be met,
/// `over_budget` says by how much, and it is exact.
#[test]
fn a_budget_is_met_in_the_tokenizer_it_names_or_the_overrun_is_reported() {
    let o200k = stc_core::Tokenizer::O200kBase;
    let options =
        |budget| TruncateOptions { token_budget: Some(budget), tokenizer: o200k, ..TruncateOptions::default() };
    let store = MemoryStore::new();
    let documents = [
        ("12 statuses", statuses(12)),
        ("github_events", corpus("github_events.json")),
        ("mesh", corpus("mesh.json")),
        ("twitter", corpus("twitter.json")),
    ];
    for (name, json) in &documents {
        let out = truncate(json, Some(&store), &options(1000)).unwrap();
        assert_eq!(out.tokens, o200k.count(&out.stc), "{name}: tokens are exact");
        assert!(out.tokens <= 1000, "{name}: {} o200k tokens", out.tokens);
        assert_eq!(out.over_budget, None, "{name}");
        assert_eq!(resolve(&store, &out.json), Value::parse_json(json, &Default::default()).unwrap().to_json());
    }
    // A budget below what the markers alone cost, and a document of one big
    // object (nothing but arrays and strings is ever cut): reported, exactly.
    let out = truncate(&documents[2].1, Some(&store), &options(20)).unwrap();
    assert_eq!(out.over_budget, Some(out.tokens - 20), "{}", out.tokens);
    let object = format!("{{{}}}", (0..400).map(|i| format!(r#""k{i}":"v{i}""#)).collect::<Vec<_>>().join(","));
    let out = truncate(&object, Some(&store), &options(100)).unwrap();
    assert_eq!(out.kept, Some(Kept::NothingToCut));
    assert_eq!(out.over_budget, Some(o200k.count(&out.stc) - 100));
    // Met budgets report nothing; no budget reports nothing.
    assert_eq!(truncate(&object, Some(&store), &options(100_000)).unwrap().over_budget, None);
    assert_eq!(truncate(&object, Some(&store), &TruncateOptions::default()).unwrap().over_budget, None);
}
