//! The Redis store, for gateways with several worker processes: one Redis
//! server, or a Redis Cluster.

use std::sync::Mutex;
use std::time::Duration;

use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr};

use crate::key::Key;
use crate::spec::RedisTarget;
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
/// [`DEFAULT_NAMESPACE`]), so several stores can share one Redis database.
///
/// **Redis Cluster** ([`RedisTarget::Cluster`], a comma-separated list of
/// node URLs): the namespace becomes a hash tag (`{stc:stash:}e:KEY`, …), so
/// every key of one store lies in one hash slot and each script stays atomic
/// on the master that owns it; the cluster client follows MOVED and ASK
/// redirections. A write is acknowledged only once a replica of that master
/// has it too (`WAIT 1`): a failover (the master killed, its replica
/// promoted) then loses no acknowledged write. (A master left without
/// replicas, as the promoted one is until a replica attaches, acknowledges
/// alone: there is no replica a failover could promote.) A write no replica
/// took within [`REPLICA_WAIT`], and every call while the cluster switches over, fails
/// with [`StoreError::Unavailable`] (retryable); the next call reconnects
/// and learns the new topology. One store lives on one shard: more shards
/// add room for more namespaces, not throughput for one.
pub struct RedisStore {
    target: RedisTarget,
    prefix: String,
    config: StoreConfig,
    client: Client,
    /// `None` after a failure: the next call connects anew.
    conn: Mutex<Option<Conn>>,
    stash_script: redis::Script,
    rollback_script: redis::Script,
}

enum Client {
    Node(redis::Client),
    Cluster { client: redis::cluster::ClusterClient, slot: u16 },
}

enum Conn {
    Node(redis::Connection),
    Cluster {
        conn: Box<redis::cluster::ClusterConnection>,
        /// The slot's master had no replica at the last look: writes are
        /// acknowledged by the master alone until one attaches.
        alone: bool,
    },
}

impl Conn {
    fn like(&mut self) -> &mut dyn redis::ConnectionLike {
        match self {
            Conn::Node(c) => c,
            Conn::Cluster { conn, .. } => conn,
        }
    }
}

/// The namespace of a store opened without one.
pub const DEFAULT_NAMESPACE: &str = "stc:stash:";

/// How long a cluster write waits for a replica to acknowledge it.
pub const REPLICA_WAIT: Duration = Duration::from_secs(1);

/// How many times the cluster client retries one command after a
/// redirection, a refused connection or `CLUSTERDOWN`, and how long it waits
/// in between (at most): bounded, so a call during a failover fails in
/// seconds with a retryable error instead of hanging.
const CLUSTER_RETRIES: u32 = 3;
const CLUSTER_MAX_RETRY_WAIT_MS: u64 = 400;
const CLUSTER_IO_TIMEOUT: Duration = Duration::from_secs(3);

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore").field("target", &self.describe()).field("prefix", &self.prefix).finish()
    }
}

fn unavailable(e: redis::RedisError) -> StoreError {
    StoreError::Unavailable(e.to_string())
}

impl RedisStore {
    /// Connects to `url` with the default TTL and capacity: one URL
    /// (`redis://host:port/db`) is a server, a comma-separated list the
    /// nodes of a Redis Cluster ([`RedisTarget`]).
    pub fn open(url: &str) -> Result<RedisStore, StoreError> {
        Self::open_with(url, DEFAULT_NAMESPACE, StoreConfig::default())
    }

    /// Connects with the given namespace (prefix of every Redis key) and configuration.
    pub fn open_with(url: &str, namespace: &str, config: StoreConfig) -> Result<RedisStore, StoreError> {
        Self::open_target(&url.parse()?, namespace, config)
    }

    /// Connects to a server or cluster with the given namespace and configuration.
    pub fn open_target(target: &RedisTarget, namespace: &str, config: StoreConfig) -> Result<RedisStore, StoreError> {
        config.check()?;
        let invalid = |e: redis::RedisError| StoreError::Config(format!("invalid Redis URL {target}: {e}"));
        let (client, prefix) = match target {
            RedisTarget::Node(url) => {
                (Client::Node(redis::Client::open(url.as_str()).map_err(invalid)?), namespace.to_string())
            }
            RedisTarget::Cluster(urls) => {
                let client = redis::cluster::ClusterClient::builder(urls.iter().map(String::as_str))
                    .retries(CLUSTER_RETRIES)
                    .min_retry_wait(CLUSTER_MAX_RETRY_WAIT_MS / 8)
                    .max_retry_wait(CLUSTER_MAX_RETRY_WAIT_MS)
                    .connection_timeout(CLUSTER_IO_TIMEOUT)
                    .response_timeout(CLUSTER_IO_TIMEOUT)
                    .build()
                    .map_err(invalid)?;
                // A placeholder slot until the cluster says which one the tag hashes to.
                (Client::Cluster { client, slot: 0 }, format!("{{{namespace}}}"))
            }
        };
        let mut store = RedisStore {
            target: target.clone(),
            prefix,
            config,
            client,
            conn: Mutex::new(None),
            stash_script: redis::Script::new(STASH_LUA),
            rollback_script: redis::Script::new(ROLLBACK_LUA),
        };
        let mut conn = store.connect()?;
        if let (Client::Cluster { slot, .. }, Conn::Cluster { conn: c, .. }) = (&mut store.client, &mut conn) {
            let ask = redis::cmd("CLUSTER").arg("KEYSLOT").arg(&store.prefix).clone();
            let any = RoutingInfo::SingleNode(SingleNodeRoutingInfo::Random);
            let value = c.route_command(&ask, any).map_err(|e| StoreError::Unavailable(format!("{target}: {e}")))?;
            *slot = redis::from_redis_value(&value).map_err(unavailable)?;
        }
        *store.lock() = Some(conn);
        Ok(store)
    }

    fn connect(&self) -> Result<Conn, StoreError> {
        let down = |e: redis::RedisError| StoreError::Unavailable(format!("{}: {e}", self.target));
        match &self.client {
            Client::Node(client) => {
                let conn = client.get_connection_with_timeout(IO_TIMEOUT).map_err(down)?;
                conn.set_read_timeout(Some(IO_TIMEOUT)).map_err(unavailable)?;
                conn.set_write_timeout(Some(IO_TIMEOUT)).map_err(unavailable)?;
                Ok(Conn::Node(conn))
            }
            Client::Cluster { client, .. } => {
                let conn = client.get_connection().map_err(down)?;
                conn.set_write_timeout(Some(CLUSTER_IO_TIMEOUT)).map_err(unavailable)?;
                Ok(Conn::Cluster { conn: Box::new(conn), alone: false })
            }
        }
    }

    /// Runs `f` on the connection (connecting first if the last call
    /// failed); a failure drops the connection, so that the next call starts
    /// afresh (in a cluster: from the seed nodes, with the new topology).
    fn with_conn<T>(&self, f: impl FnOnce(&mut Conn) -> Result<T, StoreError>) -> Result<T, StoreError> {
        let mut guard = self.lock();
        let conn = match guard.as_mut() {
            Some(c) => c,
            None => guard.insert(self.connect()?),
        };
        let result = f(conn);
        if matches!(result, Err(StoreError::Unavailable(_))) {
            *guard = None;
        }
        result
    }

    fn name(&self, suffix: &str) -> String {
        format!("{}{suffix}", self.prefix)
    }

    fn entry(&self, key: &Key) -> String {
        format!("{}e:{}", self.prefix, key)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Conn>> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// In a cluster: waits until a replica of the master that took the
    /// write (on this connection) has it too. A master without any replica
    /// (its replica was promoted when it failed, and none has attached since)
    /// acknowledges alone: no failover could promote a replica that lacks
    /// the write; it checks for a new replica on each write until one comes.
    fn replicated(&self, conn: &mut Conn) -> Result<(), StoreError> {
        let (Client::Cluster { slot, .. }, Conn::Cluster { conn, alone }) = (&self.client, conn) else {
            return Ok(());
        };
        let master =
            || RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(Route::new(*slot, SlotAddr::Master)));
        let replicas_online = |conn: &mut redis::cluster::ClusterConnection| -> Result<bool, StoreError> {
            let info = conn.route_command(redis::cmd("INFO").arg("replication"), master()).map_err(unavailable)?;
            let info: String = redis::from_redis_value(&info).map_err(unavailable)?;
            Ok(info.lines().any(|l| l.starts_with("connected_slaves:") && l.trim_end() != "connected_slaves:0"))
        };
        if *alone {
            *alone = !replicas_online(conn)?;
            if *alone {
                return Ok(());
            }
        }
        let wait = redis::cmd("WAIT").arg(1).arg(REPLICA_WAIT.as_millis() as u64).clone();
        let acked: i64 =
            redis::from_redis_value(&conn.route_command(&wait, master()).map_err(unavailable)?).map_err(unavailable)?;
        if acked >= 1 {
            return Ok(());
        }
        if !replicas_online(conn)? {
            *alone = true;
            return Ok(());
        }
        Err(StoreError::Unavailable(format!(
            "{}: no replica acknowledged the write within {} ms (the master has it)",
            self.target,
            REPLICA_WAIT.as_millis()
        )))
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
        let (generation, previous) = self.with_conn(|conn| {
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
                .invoke(conn.like());
            let written = match result {
                Ok(r) => r,
                Err(e) if e.to_string().contains("generation counter exhausted") => {
                    return Err(StoreError::GenerationExhausted)
                }
                Err(e) => return Err(unavailable(e)),
            };
            self.replicated(conn)?;
            Ok(written)
        })?;
        Ok(StashWrite {
            key,
            generation: generation as u64,
            previous_generation: (previous >= 0).then_some(previous as u64),
        })
    }

    fn retrieve(&self, key: &Key) -> Result<Lookup, StoreError> {
        let now = self.config.clock.now_ms();
        let (payload, exp): (Option<Vec<u8>>, Option<u64>) = self.with_conn(|conn| {
            redis::cmd("HMGET").arg(self.entry(key)).arg("payload").arg("exp").query(conn.like()).map_err(unavailable)
        })?;
        Ok(match (payload, exp) {
            (Some(p), Some(e)) if e > now => Lookup::Found(p),
            (Some(_), Some(_)) => Lookup::Expired,
            (None, None) => Lookup::Missing,
            _ => return Err(StoreError::Corrupt(format!("entry {key} lacks its payload or expiry"))),
        })
    }

    fn rollback(&self, key: &Key, generation: u64) -> Result<bool, StoreError> {
        let n: i64 = self.with_conn(|conn| {
            let n = self
                .rollback_script
                .key(self.entry(key))
                .key(self.name("order"))
                .key(self.name("expiry"))
                .arg(key.as_str())
                .arg(generation)
                .invoke(conn.like())
                .map_err(unavailable)?;
            self.replicated(conn)?;
            Ok(n)
        })?;
        Ok(n == 1)
    }

    fn len(&self) -> Result<usize, StoreError> {
        let now = self.config.clock.now_ms();
        // One command, so atomic: members whose expiry lies after now.
        let n: i64 = self.with_conn(|conn| {
            redis::cmd("ZCOUNT")
                .arg(self.name("expiry"))
                .arg(format!("({now}"))
                .arg("+inf")
                .query(conn.like())
                .map_err(unavailable)
        })?;
        Ok(n as usize)
    }

    fn describe(&self) -> String {
        // Never show a password that a URL may carry.
        format!("redis {}", self.target.describe())
    }
}
