//! A real Redis Cluster on loopback for one test (or one example run): six
//! `redis-server --cluster-enabled yes` processes (three masters, three
//! replicas) joined by `redis-cli --cluster create`. Every process is killed
//! when the value drops, also when the test fails.

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Milliseconds after which the cluster considers an unreachable master
/// failed and promotes its replica (Redis' default is 15 000).
pub const NODE_TIMEOUT_MS: u64 = 1000;

/// One node of the cluster.
pub struct Node {
    pub port: u16,
    child: Option<Child>,
}

/// Six nodes on free loopback ports in a temporary directory, no persistence.
pub struct RedisCluster {
    pub nodes: Vec<Node>,
    _dir: tempfile::TempDir,
}

/// `n` distinct free ports whose cluster bus port (port + 10000) is free too.
fn free_ports(n: usize) -> Vec<u16> {
    let mut held = Vec::new();
    let mut ports = Vec::new();
    while ports.len() < n {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        held.push(l);
        if port > 55_000 {
            continue;
        }
        if let Ok(bus) = TcpListener::bind(("127.0.0.1", port + 10_000)) {
            held.push(bus);
            ports.push(port);
        }
    }
    ports
}

pub fn connect(port: u16) -> redis::RedisResult<redis::Connection> {
    let c = redis::Client::open(format!("redis://127.0.0.1:{port}/"))?
        .get_connection_with_timeout(Duration::from_millis(500))?;
    c.set_read_timeout(Some(Duration::from_secs(5)))?;
    Ok(c)
}

impl RedisCluster {
    /// Starts the cluster and waits until every node says `cluster_state:ok`
    /// and every master has its replica attached. Panics (the test fails, it
    /// is not skipped) when `redis-server` or `redis-cli` is missing.
    pub fn start() -> RedisCluster {
        for tool in ["redis-server", "redis-cli"] {
            let ok = Command::new(tool).arg("--version").stdout(Stdio::null()).status();
            assert!(
                matches!(ok, Ok(s) if s.success()),
                "{tool} is not installed: run `bash scripts/prereqs/20-redis.sh` (Debian redis-server, redis-tools)"
            );
        }
        let dir = tempfile::tempdir().unwrap();
        let ports = free_ports(6);
        let nodes: Vec<Node> = ports
            .iter()
            .map(|port| {
                let child = Command::new("redis-server")
                    .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--protected-mode", "yes"])
                    .args(["--cluster-enabled", "yes", "--cluster-config-file", &format!("nodes-{port}.conf")])
                    .args(["--cluster-node-timeout", &NODE_TIMEOUT_MS.to_string()])
                    .args(["--save", "", "--appendonly", "no", "--dir", dir.path().to_str().unwrap()])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("spawn redis-server");
                Node { port: *port, child: Some(child) }
            })
            .collect();
        let cluster = RedisCluster { nodes, _dir: dir };
        for node in &cluster.nodes {
            cluster.wait(&format!("node {} answers PING", node.port), || {
                connect(node.port).and_then(|mut c| redis::cmd("PING").query::<String>(&mut c)).is_ok()
            });
        }
        let addrs: Vec<String> = ports.iter().map(|p| format!("127.0.0.1:{p}")).collect();
        let out = Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&addrs)
            .args(["--cluster-replicas", "1", "--cluster-yes"])
            .stdin(Stdio::null())
            .output()
            .expect("run redis-cli --cluster create");
        assert!(
            out.status.success(),
            "redis-cli --cluster create failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        cluster.wait_ok(&ports);
        cluster
    }

    /// Polls `ready` every 50 ms for at most 30 s.
    pub fn wait(&self, what: &str, mut ready: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !ready() {
            assert!(Instant::now() < deadline, "Redis Cluster: {what} not within 30 s");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the nodes on `ports` say `cluster_state:ok`, every master
    /// among them has a replica online and every replica is in sync.
    pub fn wait_ok(&self, ports: &[u16]) {
        self.wait("cluster_state:ok with a replica per master", || {
            ports.iter().all(|p| {
                let Ok(mut c) = connect(*p) else { return false };
                let info: String = redis::cmd("CLUSTER").arg("INFO").query(&mut c).unwrap_or_default();
                let repl: String = redis::cmd("INFO").arg("replication").query(&mut c).unwrap_or_default();
                // A replica counts for WAIT once its link is up and the initial sync is done.
                info.contains("cluster_state:ok")
                    && ((repl.contains("role:slave") && repl.contains("master_link_status:up"))
                        || (repl.contains("role:master") && repl.contains(",state=online,")))
            })
        });
    }

    /// The seed URLs, comma-separated (what `--redis-url` takes for a cluster).
    pub fn urls(&self) -> String {
        self.nodes.iter().map(|n| format!("redis://127.0.0.1:{}/", n.port)).collect::<Vec<_>>().join(",")
    }

    /// The ports of the nodes still running.
    pub fn live_ports(&self) -> Vec<u16> {
        self.nodes.iter().filter(|n| n.child.is_some()).map(|n| n.port).collect()
    }

    /// A connection to a running node.
    pub fn any(&self) -> redis::Connection {
        self.live_ports().into_iter().find_map(|p| connect(p).ok()).expect("a live node")
    }

    /// The hash slot of `key`, as the cluster computes it.
    pub fn slot(&self, key: &str) -> u16 {
        redis::cmd("CLUSTER").arg("KEYSLOT").arg(key).query(&mut self.any()).unwrap()
    }

    /// The port of the master that serves `slot`, by `CLUSTER SLOTS` of a running node.
    pub fn master_of(&self, slot: u16) -> u16 {
        let ranges: Vec<redis::Value> = redis::cmd("CLUSTER").arg("SLOTS").query(&mut self.any()).unwrap();
        for range in ranges {
            let redis::Value::Array(items) = range else { continue };
            let (lo, hi): (u16, u16) =
                (redis::from_redis_value(&items[0]).unwrap(), redis::from_redis_value(&items[1]).unwrap());
            if (lo..=hi).contains(&slot) {
                let redis::Value::Array(master) = &items[2] else { panic!("CLUSTER SLOTS: no master entry") };
                return redis::from_redis_value(&master[1]).unwrap();
            }
        }
        panic!("no master serves slot {slot}");
    }

    /// The node id of the node on `port`.
    pub fn id(&self, port: u16) -> String {
        redis::cmd("CLUSTER").arg("MYID").query(&mut connect(port).unwrap()).unwrap()
    }

    /// The ports of the masters (by `INFO replication` of every running node).
    pub fn masters(&self) -> Vec<u16> {
        self.live_ports()
            .into_iter()
            .filter(|p| {
                let repl: String = redis::cmd("INFO").arg("replication").query(&mut connect(*p).unwrap()).unwrap();
                repl.contains("role:master")
            })
            .collect()
    }

    /// Kills the node on `port` with SIGKILL.
    pub fn kill(&mut self, port: u16) {
        let node = self.nodes.iter_mut().find(|n| n.port == port).expect("a node on that port");
        if let Some(mut child) = node.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            if let Some(mut child) = node.child.take() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}
