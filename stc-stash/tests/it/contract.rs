//! The store contract, run against the memory, SQLite and Redis stores.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use stc_stash::{
    Key, Ledger, Lookup, ManualClock, MemoryStore, RedisStore, SqliteStore, StashStore, StoreConfig, StoreError,
    DEFAULT_TTL, MAX_PAYLOAD,
};

/// Opens a fresh store of one kind; `second` opens another handle on the
/// same underlying data (same file, same Redis namespace) when the kind has one.
pub(crate) trait Kind {
    fn open(&mut self, config: StoreConfig) -> Box<dyn StashStore>;
}

struct Memory;
impl Kind for Memory {
    fn open(&mut self, config: StoreConfig) -> Box<dyn StashStore> {
        Box::new(MemoryStore::with_config(config).unwrap())
    }
}

struct Sqlite(tempfile::TempDir, usize);
impl Kind for Sqlite {
    fn open(&mut self, config: StoreConfig) -> Box<dyn StashStore> {
        self.1 += 1;
        Box::new(SqliteStore::open_with(&self.0.path().join(format!("s{}.db", self.1)), config).unwrap())
    }
}

struct Redis(common::RedisServer, usize);
impl Kind for Redis {
    fn open(&mut self, config: StoreConfig) -> Box<dyn StashStore> {
        self.1 += 1;
        Box::new(RedisStore::open_with(&self.0.url, &format!("t{}:", self.1), config).unwrap())
    }
}

fn config(clock: &ManualClock, ttl_ms: u64, capacity: usize) -> StoreConfig {
    StoreConfig { ttl: Duration::from_millis(ttl_ms), capacity, clock: Arc::new(clock.clone()) }
}

fn found(store: &dyn StashStore, key: &Key) -> Option<Vec<u8>> {
    match store.retrieve(key).unwrap() {
        Lookup::Found(p) => Some(p),
        _ => None,
    }
}

pub(crate) fn run_contract(kind: &mut dyn Kind) {
    stash_and_retrieve(kind);
    refresh_reports_previous_generation(kind);
    ttl_expiry_with_injected_clock(kind);
    capacity_is_fifo_by_last_write(kind);
    generations_never_reused(kind);
    rollback_is_compare_and_delete(kind);
    aba_refresh_and_rollback(kind);
    default_ttl_survives_a_long_agent_session(kind);
    oversized_payload_rejected(kind);
}

fn stash_and_retrieve(kind: &mut dyn Kind) {
    let store = kind.open(StoreConfig::default());
    assert!(store.is_empty().unwrap());
    let payload = br#"[{"id":1},{"id":2}]"#;
    let w = store.stash(payload).unwrap();
    assert_eq!(w.key, Key::of(payload), "the store computes the key from the payload");
    assert!(w.created());
    assert_eq!(found(&*store, &w.key).as_deref(), Some(&payload[..]));
    assert_eq!(store.retrieve(&Key::of(b"never stashed")).unwrap(), Lookup::Missing);
    // Binary-safe and exact, including bytes that are not UTF-8.
    let odd = [0u8, 255, 10, 13, b'"'];
    let w2 = store.stash(&odd).unwrap();
    assert_eq!(found(&*store, &w2.key).as_deref(), Some(&odd[..]));
    assert_eq!(store.len().unwrap(), 2);
}

fn refresh_reports_previous_generation(kind: &mut dyn Kind) {
    let store = kind.open(StoreConfig::default());
    let a = store.stash(b"P").unwrap();
    let b = store.stash(b"P").unwrap();
    assert_eq!(a.key, b.key);
    assert!(b.generation > a.generation);
    assert_eq!(b.previous_generation, Some(a.generation));
    assert_eq!(store.len().unwrap(), 1);
}

fn ttl_expiry_with_injected_clock(kind: &mut dyn Kind) {
    let clock = ManualClock::new(1_700_000_000_000);
    let store = kind.open(config(&clock, 1_000, 100));
    let a = store.stash(b"A").unwrap();
    clock.advance_ms(600);
    let b = store.stash(b"B").unwrap();
    clock.advance_ms(399);
    assert!(found(&*store, &a.key).is_some(), "alive 1 ms before its TTL");
    assert_eq!(store.len().unwrap(), 2);
    clock.advance_ms(1);
    assert_eq!(store.retrieve(&a.key).unwrap(), Lookup::Expired, "never returned once expired");
    assert_eq!(store.len().unwrap(), 1, "len counts only live entries");
    // Re-stashing an expired entry creates it anew.
    let a2 = store.stash(b"A").unwrap();
    assert!(a2.created());
    // A refresh restarts the TTL.
    clock.advance_ms(500);
    let b2 = store.stash(b"B").unwrap();
    assert_eq!(b2.previous_generation, Some(b.generation));
    clock.advance_ms(900);
    assert!(found(&*store, &b.key).is_some());
    assert_eq!(store.retrieve(&a.key).unwrap(), Lookup::Expired);
    // A write purges expired entries: then they are gone for good.
    store.stash(b"C").unwrap();
    assert_eq!(store.retrieve(&a.key).unwrap(), Lookup::Missing);
    assert_eq!(store.len().unwrap(), 2);
}

fn capacity_is_fifo_by_last_write(kind: &mut dyn Kind) {
    let clock = ManualClock::new(1_700_000_000_000);
    let store = kind.open(config(&clock, 60_000, 3));
    let [a, b, c] = [b"a", b"b", b"c"].map(|p| store.stash(p).unwrap());
    assert_eq!(store.len().unwrap(), 3);
    let d = store.stash(b"d").unwrap();
    assert_eq!(store.retrieve(&a.key).unwrap(), Lookup::Missing, "the oldest write is evicted first");
    assert_eq!(store.len().unwrap(), 3);
    // Refreshing b makes c the oldest.
    store.stash(b"b").unwrap();
    store.stash(b"e").unwrap();
    assert_eq!(store.retrieve(&c.key).unwrap(), Lookup::Missing);
    assert!(found(&*store, &b.key).is_some());
    assert!(found(&*store, &d.key).is_some());
    assert_eq!(store.len().unwrap(), 3);
}

fn generations_never_reused(kind: &mut dyn Kind) {
    let clock = ManualClock::new(1_700_000_000_000);
    let store = kind.open(config(&clock, 1_000, 2));
    let mut seen = Vec::new();
    for round in 0..5u8 {
        for p in [b"x", b"y", b"z"] {
            seen.push(store.stash(p).unwrap()); // evicts beyond 2
        }
        let last = *seen.last().unwrap();
        assert!(store.rollback(&last.key, last.generation).unwrap());
        clock.advance_ms(2_000 + round as u64); // everything expires
    }
    let gens: Vec<u64> = seen.iter().map(|w| w.generation).collect();
    assert!(gens.windows(2).all(|w| w[0] < w[1]), "strictly increasing, never reused: {gens:?}");
}

fn rollback_is_compare_and_delete(kind: &mut dyn Kind) {
    let store = kind.open(StoreConfig::default());
    let a = store.stash(b"R").unwrap();
    let b = store.stash(b"R").unwrap();
    assert!(!store.rollback(&a.key, a.generation).unwrap(), "a stale generation deletes nothing");
    assert!(found(&*store, &a.key).is_some());
    assert!(store.rollback(&b.key, b.generation).unwrap());
    assert_eq!(store.retrieve(&a.key).unwrap(), Lookup::Missing);
    assert!(!store.rollback(&b.key, b.generation).unwrap());
}

/// The seed's scenario: A creates P, B refreshes P and sends a marker, A
/// stashes P again and then rolls back: B's entry must survive.
fn aba_refresh_and_rollback(kind: &mut dyn Kind) {
    let store = kind.open(StoreConfig::default());
    let mut ledger_a = Ledger::new();
    let mut ledger_b = Ledger::new();
    ledger_a.record(store.stash(b"P").unwrap());
    let wb = store.stash(b"P").unwrap();
    ledger_b.record(wb);
    assert_eq!(ledger_b.owned().count(), 0, "a refresh of a key B never created is not B's to roll back");
    ledger_a.record(store.stash(b"P").unwrap());
    assert_eq!(ledger_a.owned().count(), 0, "the chain broke: A drops P");
    let settled = ledger_a.rollback(&*store).unwrap();
    assert!(settled.rolled_back.is_empty());
    assert!(found(&*store, &wb.key).is_some(), "B's marker still resolves");
    ledger_b.settle(&*store, &[wb.key]).unwrap();
    // Without interference, the chain holds and the rollback removes the entry.
    let mut ledger = Ledger::new();
    ledger.record(store.stash(b"Q").unwrap());
    let again = store.stash(b"Q").unwrap();
    ledger.record(again);
    assert_eq!(ledger.owned().next(), Some((&again.key, &again.generation)));
    assert_eq!(ledger.rollback(&*store).unwrap().rolled_back, vec![again.key]);
    assert_eq!(store.retrieve(&again.key).unwrap(), Lookup::Missing, "no orphan row is left");
}

/// Headroom CCR bug: a 5-minute TTL broke long agent jobs.
fn default_ttl_survives_a_long_agent_session(kind: &mut dyn Kind) {
    assert!(DEFAULT_TTL >= Duration::from_secs(24 * 3600));
    let clock = ManualClock::new(1_700_000_000_000);
    let store = kind.open(StoreConfig { clock: Arc::new(clock.clone()), ..StoreConfig::default() });
    let w = store.stash(b"long job").unwrap();
    clock.advance_ms(30 * 3600 * 1000); // a job resumed the next day
    assert!(found(&*store, &w.key).is_some());
}

fn oversized_payload_rejected(kind: &mut dyn Kind) {
    let store = kind.open(StoreConfig::default());
    let big = vec![b'x'; MAX_PAYLOAD + 1];
    assert!(matches!(store.stash(&big), Err(StoreError::TooLarge(_))));
    assert!(store.is_empty().unwrap());
}

#[test]
fn memory_store_contract() {
    run_contract(&mut Memory);
}

#[test]
fn sqlite_store_contract() {
    run_contract(&mut Sqlite(tempfile::tempdir().unwrap(), 0));
}

#[test]
fn redis_store_contract() {
    run_contract(&mut Redis(common::RedisServer::start(), 0));
}

/// Writers on separate handles (two SQLite connections on one file, two
/// Redis connections) stash the same payloads at once: every generation is
/// distinct, every key resolves, len is right.
fn concurrent_writers(a: Arc<dyn StashStore>, b: Arc<dyn StashStore>) {
    let payloads: Vec<Vec<u8>> = (0..20).map(|i| format!("[{i}]").into_bytes()).collect();
    let run = |store: Arc<dyn StashStore>, payloads: Vec<Vec<u8>>| {
        std::thread::spawn(move || {
            let mut gens = Vec::new();
            for _ in 0..5 {
                for p in &payloads {
                    gens.push(store.stash(p).unwrap().generation);
                }
            }
            gens
        })
    };
    let t1 = run(a.clone(), payloads.clone());
    let t2 = run(b.clone(), payloads.clone());
    let mut gens = t1.join().unwrap();
    gens.extend(t2.join().unwrap());
    let n = gens.len();
    gens.sort();
    gens.dedup();
    assert_eq!(gens.len(), n, "no generation handed out twice");
    for p in &payloads {
        assert_eq!(b.retrieve(&Key::of(p)).unwrap(), Lookup::Found(p.clone()));
    }
    assert_eq!(a.len().unwrap(), payloads.len());
}

#[test]
fn sqlite_concurrent_writers_on_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.db");
    let a = Arc::new(SqliteStore::open(&path).unwrap());
    let b = Arc::new(SqliteStore::open(&path).unwrap());
    concurrent_writers(a, b);
}

#[test]
fn redis_concurrent_writers() {
    let server = common::RedisServer::start();
    let a = Arc::new(RedisStore::open(&server.url).unwrap());
    let b = Arc::new(RedisStore::open(&server.url).unwrap());
    concurrent_writers(a, b);
}

#[test]
fn sqlite_generation_high_water_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hw.db");
    let clock = ManualClock::new(1_700_000_000_000);
    let (expired, deleted, evicted) = {
        let store = SqliteStore::open_with(&path, config(&clock, 1_000, 1)).unwrap();
        let evicted = store.stash(b"evicted").unwrap();
        let deleted = store.stash(b"deleted").unwrap(); // evicts "evicted"
        assert!(store.rollback(&deleted.key, deleted.generation).unwrap());
        let expired = store.stash(b"expired").unwrap();
        clock.advance_ms(5_000);
        assert_eq!(store.len().unwrap(), 0);
        assert_eq!(store.evict_expired().unwrap(), 1);
        (expired, deleted, evicted)
    };
    // The file now holds no row at all; the high-water mark alone remembers.
    let store = SqliteStore::open_with(&path, config(&clock, 1_000, 1)).unwrap();
    assert_eq!(store.high_water().unwrap(), expired.generation);
    let next = store.stash(b"evicted").unwrap();
    assert!(next.generation > expired.generation.max(deleted.generation).max(evicted.generation));
    assert!(next.created());
}

#[test]
fn sqlite_high_water_is_repaired_from_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("repair.db");
    let w = SqliteStore::open(&path).unwrap().stash(b"row").unwrap();
    // Simulate an older or damaged file whose metadata lags behind its rows.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE stash_metadata SET generation = 0", []).unwrap();
    drop(conn);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.high_water().unwrap(), w.generation);
    assert!(store.stash(b"other").unwrap().generation > w.generation);
}

#[test]
fn sqlite_is_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wal.db");
    SqliteStore::open(&path).unwrap().stash(b"x").unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn redis_unreachable_is_a_transient_error() {
    // A port nobody listens on: bind, read the port, release it.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let err = RedisStore::open(&format!("redis://127.0.0.1:{port}/")).unwrap_err();
    assert!(err.is_transient(), "{err}");
    assert!(matches!(RedisStore::open("not a url"), Err(StoreError::Config(_))));
}

#[test]
fn redis_scripts_are_atomic_under_contention() {
    // Eight connections hammer the same small store with capacity 5: the
    // capacity holds exactly, and every generation is unique.
    let server = common::RedisServer::start();
    let stores: Vec<Arc<RedisStore>> = (0..8)
        .map(|_| Arc::new(RedisStore::open_with(&server.url, "atomic:", StoreConfig::with_capacity(5)).unwrap()))
        .collect();
    let handles: Vec<_> = stores
        .iter()
        .enumerate()
        .map(|(t, s)| {
            let s = s.clone();
            std::thread::spawn(move || {
                (0..50)
                    .map(|i| s.stash(format!("{}", (t * 7 + i) % 23).as_bytes()).unwrap().generation)
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut gens: Vec<u64> = handles.into_iter().flat_map(|h| h.join().unwrap()).collect();
    let n = gens.len();
    gens.sort();
    gens.dedup();
    assert_eq!(gens.len(), n);
    assert_eq!(stores[0].len().unwrap(), 5);
    let mut conn = redis::Client::open(server.url.as_str()).unwrap().get_connection().unwrap();
    let entries: Vec<String> = redis::cmd("KEYS").arg("atomic:e:*").query(&mut conn).unwrap();
    assert_eq!(entries.len(), 5, "no entry hash outlives its eviction");
}

#[test]
fn sqlite_generation_exhaustion_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("full.db");
    let store = SqliteStore::open(&path).unwrap();
    let w = store.stash(b"before").unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute("UPDATE stash_metadata SET generation = ?1", [i64::MAX]).unwrap();
    drop(conn);
    assert!(matches!(store.stash(b"after"), Err(StoreError::GenerationExhausted)));
    assert!(matches!(store.stash(b"before"), Err(StoreError::GenerationExhausted)));
    assert_eq!(store.len().unwrap(), 1);
    assert_eq!(store.retrieve(&Key::of(b"after")).unwrap(), Lookup::Missing);
    assert!(found(&store, &w.key).is_some());
}
