//! Which store: the one place where a store option (`--store`, `--stash-db`,
//! `--redis-url`, their environment variables, a binding's arguments) becomes
//! a store. Every front end (the CLI, the MCP services, the bindings) parses
//! and opens through [`StoreSpec`], so the names, the defaults, the
//! environment rules and the messages are the same everywhere.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use crate::memory::MemoryStore;
use crate::store::{StashStore, StoreConfig, StoreError, DEFAULT_CAPACITY, DEFAULT_MEMORY_CAPACITY};

/// The environment variable with the Redis URL (below `--redis-url`); a
/// comma-separated list of node URLs names a Redis Cluster.
pub const REDIS_URL_ENV: &str = "STC_REDIS_URL";

/// The Redis URL when neither `--redis-url` nor [`REDIS_URL_ENV`] gives one.
pub const DEFAULT_REDIS_URL: &str = "redis://127.0.0.1:6379/";

/// The kind of store an option names: `memory`, `sqlite` or `redis`.
///
/// ```
/// use stc_stash::StoreKind;
/// assert_eq!("redis".parse::<StoreKind>().unwrap(), StoreKind::Redis);
/// assert_eq!(
///     "mongo".parse::<StoreKind>().unwrap_err().to_string(),
///     "stash configuration: unknown store \"mongo\": expected memory, sqlite or redis; retrying will not help"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoreKind {
    /// In this process's memory ([`MemoryStore`]).
    Memory,
    /// The SQLite file of the stash data directory ([`crate::paths`]).
    Sqlite,
    /// A Redis server, or a Redis Cluster.
    Redis,
}

impl StoreKind {
    /// Every kind, in the order of [`StoreKind::NAMES`].
    pub const ALL: [StoreKind; 3] = [StoreKind::Memory, StoreKind::Sqlite, StoreKind::Redis];
    /// The names the options accept.
    pub const NAMES: [&'static str; 3] = ["memory", "sqlite", "redis"];

    /// The option name of this kind.
    pub fn name(self) -> &'static str {
        match self {
            StoreKind::Memory => "memory",
            StoreKind::Sqlite => "sqlite",
            StoreKind::Redis => "redis",
        }
    }
}

impl fmt::Display for StoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StoreKind {
    type Err = StoreError;

    fn from_str(s: &str) -> Result<StoreKind, StoreError> {
        StoreKind::ALL.into_iter().find(|k| k.name() == s).ok_or_else(|| {
            StoreError::Config(format!("unknown store {}: expected memory, sqlite or redis", crate::shown(s)))
        })
    }
}

/// Where a Redis store is: one server, or the seed nodes of a Redis Cluster.
///
/// Parsed from the text of `--redis-url` or [`REDIS_URL_ENV`]: one URL is a
/// single server, a comma-separated list of URLs is a cluster (the client
/// learns the other nodes from any of them).
///
/// ```
/// use stc_stash::RedisTarget;
/// let one: RedisTarget = "redis://127.0.0.1:6379/".parse().unwrap();
/// assert!(matches!(one, RedisTarget::Node(_)));
/// let cluster: RedisTarget = "redis://10.0.0.1:7000, redis://10.0.0.2:7000".parse().unwrap();
/// assert_eq!(cluster, RedisTarget::Cluster(vec!["redis://10.0.0.1:7000".into(), "redis://10.0.0.2:7000".into()]));
/// assert!("redis://a:1,,redis://b:2".parse::<RedisTarget>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedisTarget {
    /// One Redis server.
    Node(String),
    /// A Redis Cluster, by the URLs of some of its nodes (at least two).
    Cluster(Vec<String>),
}

impl RedisTarget {
    /// `cluster ` and the URLs for a cluster, the URL for a server, with
    /// any password replaced by `***`: safe for messages and logs.
    pub fn describe(&self) -> String {
        match self {
            RedisTarget::Node(_) => self.to_string(),
            RedisTarget::Cluster(_) => format!("cluster {self}"),
        }
    }
}

/// The URLs as [`FromStr`] reads them, with any password replaced by `***`.
impl fmt::Display for RedisTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn masked(url: &str) -> String {
            match url.rsplit_once('@') {
                Some((head, host)) => {
                    let scheme = head.split_once("://").map_or("", |(s, _)| s);
                    format!("{scheme}://***@{host}")
                }
                None => url.to_string(),
            }
        }
        let urls: &[String] = match self {
            RedisTarget::Node(url) => std::slice::from_ref(url),
            RedisTarget::Cluster(urls) => urls,
        };
        f.write_str(&urls.iter().map(|u| masked(u)).collect::<Vec<_>>().join(","))
    }
}

impl FromStr for RedisTarget {
    type Err = StoreError;

    fn from_str(s: &str) -> Result<RedisTarget, StoreError> {
        let urls: Vec<String> = s.split(',').map(|u| u.trim().to_string()).collect();
        for url in &urls {
            if url.is_empty() {
                return Err(StoreError::Config(format!(
                    "empty URL in the Redis URL list {}: give one URL (a server) or several \
                     separated by commas (the nodes of a Redis Cluster)",
                    crate::shown(s)
                )));
            }
            check_redis_url(url)?;
        }
        Ok(match <[String; 1]>::try_from(urls) {
            Ok([url]) => RedisTarget::Node(url),
            Err(urls) => RedisTarget::Cluster(urls),
        })
    }
}

#[cfg(feature = "redis")]
fn check_redis_url(url: &str) -> Result<(), StoreError> {
    use redis::IntoConnectionInfo as _;
    url.into_connection_info().map(|_| ()).map_err(|e| {
        let shown = RedisTarget::Node(url.to_string()).to_string();
        StoreError::Config(format!("invalid Redis URL {}: {e}", crate::shown(&shown)))
    })
}

#[cfg(not(feature = "redis"))]
fn check_redis_url(_url: &str) -> Result<(), StoreError> {
    Ok(())
}

/// A store, named completely: the kind and where it is.
///
/// Build it from the options of a front end with [`StoreSpec::resolve`]
/// (which applies the environment variables and the SQLite path policy), or
/// parse one string ([`FromStr`]: `memory`, `sqlite`, `sqlite:PATH`, `redis`,
/// or Redis URLs). [`StoreSpec::open`] opens it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreSpec {
    /// An in-memory store that lives as long as the process.
    Memory,
    /// A SQLite file (checked against the path policy).
    Sqlite(PathBuf),
    /// A Redis server or cluster.
    Redis(RedisTarget),
}

impl StoreSpec {
    /// The store the options name, with the process environment:
    /// - `memory`;
    /// - `sqlite`: `stash_db`, else `$STC_STASH_DB`, else `DATA_DIR/stash.db`
    ///   ([`crate::paths::stash_db_path`], which also checks the path);
    /// - `redis`: `redis_url`, else `$STC_REDIS_URL`, else
    ///   [`DEFAULT_REDIS_URL`]; a comma-separated list is a cluster.
    ///
    /// An option that does not belong to the kind (`stash_db` with `redis`)
    /// is ignored, as the CLI has always done.
    pub fn resolve(kind: StoreKind, stash_db: Option<&Path>, redis_url: Option<&str>) -> Result<StoreSpec, StoreError> {
        Self::resolve_in(kind, stash_db, redis_url, |name| std::env::var_os(name))
    }

    /// [`StoreSpec::resolve`] with the environment given by `env` (for tests
    /// and for callers that read a configuration file).
    pub fn resolve_in(
        kind: StoreKind,
        stash_db: Option<&Path>,
        redis_url: Option<&str>,
        env: impl Fn(&str) -> Option<OsString>,
    ) -> Result<StoreSpec, StoreError> {
        Ok(match kind {
            StoreKind::Memory => StoreSpec::Memory,
            StoreKind::Sqlite => StoreSpec::Sqlite(sqlite_path(stash_db, &env)?),
            StoreKind::Redis => {
                let from_env = env(REDIS_URL_ENV);
                let text = match (redis_url, &from_env) {
                    (Some(url), _) => url.to_string(),
                    (None, Some(value)) => value
                        .to_str()
                        .map(str::to_string)
                        .ok_or_else(|| StoreError::Config(format!("${REDIS_URL_ENV} is not UTF-8 text")))?,
                    (None, None) => DEFAULT_REDIS_URL.to_string(),
                };
                StoreSpec::Redis(text.parse()?)
            }
        })
    }

    /// The kind of this store.
    pub fn kind(&self) -> StoreKind {
        match self {
            StoreSpec::Memory => StoreKind::Memory,
            StoreSpec::Sqlite(_) => StoreKind::Sqlite,
            StoreSpec::Redis(_) => StoreKind::Redis,
        }
    }

    /// The database file of a SQLite store.
    pub fn path(&self) -> Option<&Path> {
        match self {
            StoreSpec::Sqlite(path) => Some(path),
            _ => None,
        }
    }

    /// The default capacity of this kind of store.
    pub fn default_capacity(&self) -> usize {
        match self {
            StoreSpec::Memory => DEFAULT_MEMORY_CAPACITY,
            _ => DEFAULT_CAPACITY,
        }
    }

    /// Opens the store with the default TTL and this kind's default capacity.
    pub fn open(&self) -> Result<Arc<dyn StashStore>, StoreError> {
        self.open_with(StoreConfig::with_capacity(self.default_capacity()))
    }

    /// Opens the store with the given configuration.
    pub fn open_with(&self, config: StoreConfig) -> Result<Arc<dyn StashStore>, StoreError> {
        Ok(match self {
            StoreSpec::Memory => Arc::new(MemoryStore::with_config(config)?),
            #[cfg(feature = "sqlite")]
            StoreSpec::Sqlite(path) => Arc::new(crate::sqlite::SqliteStore::open_with(path, config)?),
            #[cfg(feature = "redis")]
            StoreSpec::Redis(target) => {
                Arc::new(crate::redis_store::RedisStore::open_target(target, crate::DEFAULT_NAMESPACE, config)?)
            }
            #[allow(unreachable_patterns)]
            other => {
                return Err(StoreError::Config(format!("this build has no {} store", other.kind())));
            }
        })
    }
}

impl fmt::Display for StoreSpec {
    /// The spec as [`FromStr`] reads it back (Redis passwords masked).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreSpec::Memory => f.write_str("memory"),
            StoreSpec::Sqlite(path) => write!(f, "sqlite:{}", path.display()),
            StoreSpec::Redis(target) => write!(f, "{target}"),
        }
    }
}

/// One string names a store: `memory`; `sqlite` (the default file, after the
/// environment) or `sqlite:PATH` (checked against the path policy); `redis`
/// (the URL from the environment, else [`DEFAULT_REDIS_URL`]); or
/// `redis://…`/`rediss://…`/`unix://…`, a comma-separated list meaning a cluster.
///
/// ```
/// use stc_stash::{RedisTarget, StoreSpec};
/// assert_eq!("memory".parse::<StoreSpec>().unwrap(), StoreSpec::Memory);
/// let spec: StoreSpec = "redis://127.0.0.1:7000,redis://127.0.0.1:7001".parse().unwrap();
/// assert!(matches!(spec, StoreSpec::Redis(RedisTarget::Cluster(ref nodes)) if nodes.len() == 2));
/// assert_eq!("sqlite:relative.db".parse::<StoreSpec>().unwrap_err().kind(), "config");
/// ```
impl FromStr for StoreSpec {
    type Err = StoreError;

    fn from_str(s: &str) -> Result<StoreSpec, StoreError> {
        if let Some(path) = s.strip_prefix("sqlite:") {
            return StoreSpec::resolve(StoreKind::Sqlite, Some(Path::new(path)), None);
        }
        if s.contains("://") {
            return Ok(StoreSpec::Redis(s.parse()?));
        }
        let kind = s.parse::<StoreKind>().map_err(|_| {
            StoreError::Config(format!(
                "unknown store {}: expected memory, sqlite, sqlite:PATH, redis or Redis URLs",
                crate::shown(s)
            ))
        })?;
        StoreSpec::resolve(kind, None, None)
    }
}

#[cfg(unix)]
fn sqlite_path(explicit: Option<&Path>, env: &impl Fn(&str) -> Option<OsString>) -> Result<PathBuf, StoreError> {
    use crate::paths::{stash_db_path, DATA_DIR_ENV, STASH_DB_ENV};
    stash_db_path(explicit, env(STASH_DB_ENV).as_deref(), env(DATA_DIR_ENV).as_deref())
}

#[cfg(not(unix))]
fn sqlite_path(_: Option<&Path>, _: &impl Fn(&str) -> Option<OsString>) -> Result<PathBuf, StoreError> {
    Err(StoreError::Config("the SQLite stash path policy needs a Unix system".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |name| pairs.iter().find(|(k, _)| *k == name).map(|(_, v)| OsString::from(v))
    }

    #[test]
    fn redis_url_comes_from_the_flag_then_the_environment_then_the_default() {
        let none = env_of(&[]);
        let set = env_of(&[(REDIS_URL_ENV, "redis://10.0.0.1:7000,redis://10.0.0.2:7000")]);
        let r = |url, env: &dyn Fn(&str) -> Option<OsString>| StoreSpec::resolve_in(StoreKind::Redis, None, url, env);
        assert_eq!(r(None, &none).unwrap(), StoreSpec::Redis(RedisTarget::Node(DEFAULT_REDIS_URL.into())));
        assert!(matches!(r(None, &set).unwrap(), StoreSpec::Redis(RedisTarget::Cluster(n)) if n.len() == 2));
        assert_eq!(r(Some("redis://h:1/"), &set).unwrap(), StoreSpec::Redis(RedisTarget::Node("redis://h:1/".into())));
        let e = r(Some("redis://h:1,"), &none).unwrap_err();
        assert_eq!(e.kind(), "config");
        assert!(e.to_string().contains("empty URL"), "{e}");
        let e = r(Some("http://h:1"), &none).unwrap_err();
        assert!(e.to_string().contains("invalid Redis URL"), "{e}");
    }

    #[test]
    fn passwords_never_shown() {
        let t: RedisTarget = "redis://user:s3cret@h:1/0,redis://:pw@h:2".parse().unwrap();
        let shown = t.describe();
        assert!(!shown.contains("s3cret") && !shown.contains("pw@"), "{shown}");
        assert_eq!(shown, "cluster redis://***@h:1/0,redis://***@h:2");
        let e = "redis://user:s3cret@".parse::<RedisTarget>();
        if let Err(e) = e {
            assert!(!e.to_string().contains("s3cret"), "{e}");
        }
    }

    #[test]
    fn kinds_round_trip_and_unknown_names_are_config_errors() {
        for k in StoreKind::ALL {
            assert_eq!(k.name().parse::<StoreKind>().unwrap(), k);
        }
        assert_eq!(StoreKind::NAMES, StoreKind::ALL.map(StoreKind::name));
        let e = "Redis".parse::<StoreKind>().unwrap_err();
        assert!(!e.is_transient() && e.kind() == "config", "{e}");
    }
}
