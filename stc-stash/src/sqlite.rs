//! The SQLite store: one file shared by every `stc` process of a user.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use crate::key::Key;
use crate::store::{check_payload, Lookup, StashStore, StashWrite, StoreConfig, StoreError};

/// How long a connection waits for another process's write transaction.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS stash (
    key TEXT PRIMARY KEY NOT NULL,
    payload BLOB NOT NULL,
    generation INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS stash_by_generation ON stash(generation);
CREATE INDEX IF NOT EXISTS stash_by_expiry ON stash(expires_at);
CREATE TABLE IF NOT EXISTS stash_metadata (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    generation INTEGER NOT NULL
);
INSERT OR IGNORE INTO stash_metadata (id, generation) VALUES (1, 0);
-- Repair the high-water mark from the rows, should it ever lag behind them.
UPDATE stash_metadata SET generation = max(generation, (SELECT coalesce(max(generation), 0) FROM stash)) WHERE id = 1;
";

/// A store in a SQLite file (WAL mode), safe for many processes at once.
///
/// Every write runs in one `BEGIN IMMEDIATE` transaction: allocating the
/// generation from the persisted high-water mark (`stash_metadata`), the
/// created-or-refreshed decision, the upsert, the purge of expired rows and
/// the capacity eviction. A crash in the middle leaves the previous state.
/// Queries are parameterized; keys are validated before they get here.
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    config: StoreConfig,
    conn: Mutex<Connection>,
}

fn unavailable(e: rusqlite::Error) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

impl SqliteStore {
    /// Opens (creating if needed) the store in `path` with the default TTL and capacity.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        Self::open_with(path, StoreConfig::default())
    }

    /// Opens (creating if needed) the store in `path` with the given configuration.
    pub fn open_with(path: &Path, config: StoreConfig) -> Result<SqliteStore, StoreError> {
        config.check()?;
        let at = |e: rusqlite::Error| StoreError::Unavailable(format!("{}: {e}", path.display()));
        let mut conn = Connection::open(path).map_err(at)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(at)?;
        // Switching to WAL takes an exclusive lock, and SQLite may answer
        // SQLITE_BUSY at once (without the busy handler) while another
        // process opens the same new file: retry for up to the busy timeout.
        let started = std::time::Instant::now();
        let mode: String = loop {
            match conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0)) {
                Err(rusqlite::Error::SqliteFailure(e, _))
                    if matches!(e.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                        && started.elapsed() < BUSY_TIMEOUT =>
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
                other => break other.map_err(at)?,
            }
        };
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Unavailable(format!("{}: cannot switch to WAL mode (got {mode})", path.display())));
        }
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(at)?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(at)?;
        tx.execute_batch(SCHEMA).map_err(|e| StoreError::Corrupt(format!("{}: {e}", path.display())))?;
        tx.commit().map_err(at)?;
        Ok(SqliteStore { path: path.to_path_buf(), config, conn: Mutex::new(conn) })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Deletes every expired row (writes do this too); returns how many.
    pub fn evict_expired(&self) -> Result<usize, StoreError> {
        let now = self.now()?;
        self.lock().execute("DELETE FROM stash WHERE expires_at <= ?1", params![now]).map_err(unavailable)
    }

    /// The highest generation ever handed out by this file.
    pub fn high_water(&self) -> Result<u64, StoreError> {
        let g: i64 = self
            .lock()
            .query_row("SELECT generation FROM stash_metadata WHERE id = 1", [], |r| r.get(0))
            .map_err(unavailable)?;
        Ok(g as u64)
    }

    fn now(&self) -> Result<i64, StoreError> {
        i64::try_from(self.config.clock.now_ms()).map_err(|_| StoreError::Config("clock out of range".into()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A connection stays usable after a panic elsewhere: an open
        // transaction is rolled back when its guard drops.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl StashStore for SqliteStore {
    fn stash(&self, payload: &[u8]) -> Result<StashWrite, StoreError> {
        check_payload(payload)?;
        let key = Key::of(payload);
        let now = self.now()?;
        let expires_at = now.saturating_add(i64::try_from(self.config.ttl_ms()).unwrap_or(i64::MAX));
        let capacity = i64::try_from(self.config.capacity).unwrap_or(i64::MAX);
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(unavailable)?;
        let high: i64 = tx
            .query_row("SELECT generation FROM stash_metadata WHERE id = 1", [], |r| r.get(0))
            .map_err(unavailable)?;
        let generation = high.checked_add(1).ok_or(StoreError::GenerationExhausted)?;
        let previous: Option<i64> = tx
            .query_row(
                "SELECT generation FROM stash WHERE key = ?1 AND expires_at > ?2",
                params![key.as_str(), now],
                |r| r.get(0),
            )
            .optional()
            .map_err(unavailable)?;
        tx.execute("UPDATE stash_metadata SET generation = ?1 WHERE id = 1", params![generation])
            .map_err(unavailable)?;
        tx.execute(
            "INSERT INTO stash (key, payload, generation, expires_at) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(key) DO UPDATE SET payload = excluded.payload, generation = excluded.generation,
             expires_at = excluded.expires_at",
            params![key.as_str(), payload, generation, expires_at],
        )
        .map_err(unavailable)?;
        tx.execute("DELETE FROM stash WHERE expires_at <= ?1", params![now]).map_err(unavailable)?;
        tx.execute(
            "DELETE FROM stash WHERE key IN (SELECT key FROM stash ORDER BY generation ASC
             LIMIT max(0, (SELECT count(*) FROM stash) - ?1))",
            params![capacity],
        )
        .map_err(unavailable)?;
        tx.commit().map_err(unavailable)?;
        Ok(StashWrite { key, generation: generation as u64, previous_generation: previous.map(|g| g as u64) })
    }

    fn retrieve(&self, key: &Key) -> Result<Lookup, StoreError> {
        let now = self.now()?;
        let row: Option<(Vec<u8>, i64)> = self
            .lock()
            .query_row("SELECT payload, expires_at FROM stash WHERE key = ?1", params![key.as_str()], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
            .map_err(unavailable)?;
        Ok(match row {
            Some((payload, exp)) if exp > now => Lookup::Found(payload),
            Some(_) => Lookup::Expired,
            None => Lookup::Missing,
        })
    }

    fn rollback(&self, key: &Key, generation: u64) -> Result<bool, StoreError> {
        let Ok(generation) = i64::try_from(generation) else { return Ok(false) };
        let n = self
            .lock()
            .execute("DELETE FROM stash WHERE key = ?1 AND generation = ?2", params![key.as_str(), generation])
            .map_err(unavailable)?;
        Ok(n > 0)
    }

    fn len(&self) -> Result<usize, StoreError> {
        let now = self.now()?;
        let n: i64 = self
            .lock()
            .query_row("SELECT count(*) FROM stash WHERE expires_at > ?1", params![now], |r| r.get(0))
            .map_err(unavailable)?;
        Ok(n as usize)
    }

    fn describe(&self) -> String {
        format!("sqlite {}", self.path.display())
    }
}
