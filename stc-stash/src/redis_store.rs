//! The Redis store, for gateways with several worker processes.

use std::sync::Mutex;
use std::time::Duration;

use crate::key::Key;
use crate::store::{check_payload, Lookup, StashStore, StashWrite, StoreConfig, StoreError};

/// Connect, read and write timeout of the Redis connection.
const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// Extra lifetime Redis itself gives an entry beyond its TTL: the scripts
/// decide expiry by the store's clock (injectable), Redis' own expiry only
/// reclaims memory of entries nobody touches again.
const REDIS_EXPIRY_SLACK_MS: u64 = 60 * 60 * 1000;

// KEYS: 1 entry hash, 2 generation counter, 3 order zset (score generation),
//       4 expiry zset (score expires_at)
// ARGV: 1 key, 2 payload, 3 now, 4 expires_at, 5 capacity, 6 entry key prefix, 7 redis expiry (ms)
// (times in ms, passed as decimal strings so that Lua never formats a large number)
// Returns {generation, previous generation or -1}.
const STASH_LUA: &str = r#"
local now = tonumber(ARGV[3])
local cap = tonumber(ARGV[5])
local high = tonumber(redis.call('GET', KEYS[2]) or '0')
if high >= 9007199254740991 then
  return redis.error_reply('generation counter exhausted')
end
local gen = redis.call('INCR', KEYS[2])
local prev = -1
local old = redis.call('HMGET', KEYS[1], 'gen', 'exp')
if old[1] and old[2] and tonumber(old[2]) > now then
  prev = tonumber(old[1])
end
redis.call('HSET', KEYS[1], 'payload', ARGV[2], 'gen', gen, 'exp', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('ZADD', KEYS[3], gen, ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[4], ARGV[1])
local dead = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', ARGV[3])
for _, k in ipairs(dead) do
  redis.call('DEL', ARGV[6] .. k)
  redis.call('ZREM', KEYS[3], k)
  redis.call('ZREM', KEYS[4], k)
end
local n = redis.call('ZCARD', KEYS[3])
if n > cap then
  local victims = redis.call('ZRANGE', KEYS[3], 0, n - cap - 1)
  for _, k in ipairs(victims) do
    redis.call('DEL', ARGV[6] .. k)
    redis.call('ZREM', KEYS[3], k)
    redis.call('ZREM', KEYS[4], k)
  end
end
return {gen, prev}
"#;

// KEYS: 1 entry hash, 2 order zset, 3 expiry zset; ARGV: 1 key, 2 generation.
const ROLLBACK_LUA: &str = r#"
local g = redis.call('HGET', KEYS[1], 'gen')
if g and tonumber(g) == tonumber(ARGV[2]) then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  return 1
end
return 0
"#;

/// A store in Redis: one hash per entry plus two sorted sets (write order
/// and expiry), all changed only by Lua scripts so that every operation is
/// atomic across processes. All names start with the namespace (default
/// `stc:stash:`), so several stores can share one Redis database. The
/// scripts touch entry hashes by name, so a Redis Cluster is not supported.
pub struct RedisStore {
    url: String,
    namespace: String,
    config: StoreConfig,
    conn: Mutex<redis::Connection>,
    stash_script: redis::Script,
    rollback_script: redis::Script,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("url", &self.describe()).field("namespace", &self.namespace).finish()
    }
}

fn unavailable(e: redis::RedisError) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

impl RedisStore {
    /// Connects to `url` (`redis://host:port/db`) with the default TTL and capacity.
    pub fn open(url: &str) -> Result<RedisStore, StoreError> {
        Self::open_with(url, "stc:stash:", StoreConfig::default())
    }

    /// Connects with the given namespace (prefix of every Redis key) and configuration.
    pub fn open_with(url: &str, namespace: &str, config: StoreConfig) -> Result<RedisStore, StoreError> {
        config.check()?;
        let client =
            redis::Client::open(url).map_err(|e| StoreError::Config(format!("invalid Redis URL {url:?}: {e}")))?;
        let conn = client
            .get_connection_with_timeout(IO_TIMEOUT)
            .map_err(|e| StoreError::Unavailable(format!("{url}: {e}")))?;
        conn.set_read_timeout(Some(IO_TIMEOUT)).map_err(unavailable)?;
        conn.set_write_timeout(Some(IO_TIMEOUT)).map_err(unavailable)?;
        Ok(RedisStore {
            url: url.to_string(),
            namespace: namespace.to_string(),
            config,
            conn: Mutex::new(conn),
            stash_script: redis::Script::new(STASH_LUA),
            rollback_script: redis::Script::new(ROLLBACK_LUA),
        })
    }

    fn name(&self, suffix: &str) -> String {
        format!("{}{suffix}", self.namespace)
    }

    fn entry(&self, key: &Key) -> String {
        format!("{}e:{}", self.namespace, key)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, redis::Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl StashStore for RedisStore {
    fn stash(&self, payload: &[u8]) -> Result<StashWrite, StoreError> {
        check_payload(payload)?;
        let key = Key::of(payload);
        let now = self.config.clock.now_ms();
        // Below 2^53, so that Lua's doubles hold every time exactly.
        let ttl = self.config.ttl_ms().min(1 << 50);
        let expires_at = now.saturating_add(ttl).min(1 << 52);
        let result: Result<(i64, i64), _> = self
            .stash_script
            .key(self.entry(&key))
            .key(self.name("generation"))
            .key(self.name("order"))
            .key(self.name("expiry"))
            .arg(key.as_str())
            .arg(payload)
            .arg(now.to_string())
            .arg(expires_at.to_string())
            .arg(self.config.capacity)
            .arg(self.name("e:"))
            .arg(ttl.saturating_add(REDIS_EXPIRY_SLACK_MS).to_string())
            .invoke(&mut *self.lock());
        let (generation, previous) = match result {
            Ok(r) => r,
            Err(e) if e.to_string().contains("generation counter exhausted") => {
                return Err(StoreError::GenerationExhausted)
            }
            Err(e) => return Err(unavailable(e)),
        };
        Ok(StashWrite {
            key,
            generation: generation as u64,
            previous_generation: (previous >= 0).then_some(previous as u64),
        })
    }

    fn retrieve(&self, key: &Key) -> Result<Lookup, StoreError> {
        let now = self.config.clock.now_ms();
        let (payload, exp): (Option<Vec<u8>>, Option<u64>) = redis::cmd("HMGET")
            .arg(self.entry(key))
            .arg("payload")
            .arg("exp")
            .query(&mut *self.lock())
            .map_err(unavailable)?;
        Ok(match (payload, exp) {
            (Some(p), Some(e)) if e > now => Lookup::Found(p),
            (Some(_), Some(_)) => Lookup::Expired,
            (None, None) => Lookup::Missing,
            _ => return Err(StoreError::Corrupt(format!("entry {key} lacks its payload or expiry"))),
        })
    }

    fn rollback(&self, key: &Key, generation: u64) -> Result<bool, StoreError> {
        let n: i64 = self
            .rollback_script
            .key(self.entry(key))
            .key(self.name("order"))
            .key(self.name("expiry"))
            .arg(key.as_str())
            .arg(generation)
            .invoke(&mut *self.lock())
            .map_err(unavailable)?;
        Ok(n == 1)
    }

    fn len(&self) -> Result<usize, StoreError> {
        let now = self.config.clock.now_ms();
        // One command, so atomic: members whose expiry lies after now.
        let n: i64 = redis::cmd("ZCOUNT")
            .arg(self.name("expiry"))
            .arg(format!("({now}"))
            .arg("+inf")
            .query(&mut *self.lock())
            .map_err(unavailable)?;
        Ok(n as usize)
    }

    fn describe(&self) -> String {
        // Never show a password that the URL may carry.
        match self.url.split_once('@') {
            Some((_, host)) => format!("redis redis://***@{host}"),
            None => format!("redis {}", self.url),
        }
    }
}
