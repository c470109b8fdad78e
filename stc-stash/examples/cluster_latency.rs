//! Stash and retrieve latency on a single Redis server against a Redis
//! Cluster (three masters, three replicas, all on loopback), and how long a
//! failover (the store's master killed with SIGKILL) stalls writes. Starts
//! and stops every Redis process itself; prints Markdown tables.
//!
//! ```sh
//! cargo run --release -p stc-stash --example cluster_latency            # 2000 operations per store, 3 failovers
//! cargo run --release -p stc-stash --example cluster_latency -- 500 1   # fewer
//! ```

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::cluster::RedisCluster;
use stc_stash::{Key, Lookup, RedisStore, StashStore, StoreConfig};

/// A payload of about 2 KB: 20 records, distinct per `i`.
fn payload(i: usize) -> Vec<u8> {
    let records: Vec<String> = (0..20)
        .map(|r| {
            format!(
                r#"{{"id":{},"name":"user{r}","status":"ok","latency_ms":{},"tags":["a","b","c"]}}"#,
                i * 20 + r,
                r * 7
            )
        })
        .collect();
    format!("[{}]", records.join(",")).into_bytes()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

/// p50 and p99 of `n` stashes, then of `n` retrieves of what was stashed.
fn measure(store: &dyn StashStore, n: usize) -> [Duration; 4] {
    // Warm up: connection, script cache.
    for i in 0..50 {
        store.stash(&payload(1_000_000 + i)).unwrap();
    }
    let mut stash = Vec::with_capacity(n);
    let mut keys = Vec::with_capacity(n);
    for i in 0..n {
        let p = payload(i);
        let t = Instant::now();
        keys.push(store.stash(&p).unwrap().key);
        stash.push(t.elapsed());
    }
    let mut retrieve = Vec::with_capacity(n);
    for (i, key) in keys.iter().enumerate() {
        let k = keys[(i * 7919) % keys.len()];
        let t = Instant::now();
        let found = store.retrieve(&k).unwrap();
        retrieve.push(t.elapsed());
        assert!(matches!(found, Lookup::Found(_)), "{key}");
    }
    stash.sort();
    retrieve.sort();
    [percentile(&stash, 0.5), percentile(&stash, 0.99), percentile(&retrieve, 0.5), percentile(&retrieve, 0.99)]
}

/// Kills the master of the store's slot while one thread writes; returns the
/// writes that failed and the time from the kill to the first acknowledged
/// write after it.
fn failover() -> (usize, Duration, usize) {
    let mut cluster = RedisCluster::start();
    let store = RedisStore::open_with(&cluster.urls(), "fo:", StoreConfig::default()).unwrap();
    let master = cluster.master_of(cluster.slot("{fo:}"));
    for i in 0..100 {
        store.stash(&payload(i)).unwrap();
    }
    let killed = Instant::now();
    cluster.kill(master);
    let mut failed = 0;
    let mut i = 100;
    loop {
        i += 1;
        match store.stash(&payload(i)) {
            Ok(_) => break,
            Err(e) => {
                assert!(e.is_transient(), "{e}");
                failed += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        assert!(killed.elapsed() < Duration::from_secs(60), "writes did not resume");
    }
    let stall = killed.elapsed();
    // Acknowledged: the 100 before the kill and the first after it.
    let acked = (0..100).chain([i]);
    let lost = acked.filter(|j| !matches!(store.retrieve(&Key::of(&payload(*j))), Ok(Lookup::Found(_)))).count();
    (failed, stall, lost)
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a count")).collect();
    let n = args.first().copied().unwrap_or(2000);
    let runs = args.get(1).copied().unwrap_or(3);
    let server = common::RedisServer::start();
    let single = RedisStore::open_with(&server.url, "bench:", StoreConfig::default()).unwrap();
    let cluster = RedisCluster::start();
    let clustered = RedisStore::open_with(&cluster.urls(), "bench:", StoreConfig::default()).unwrap();
    println!("Stash and retrieve latency, {n} operations each, one client thread, ~2 KB payloads, loopback:\n");
    println!("| store | stash p50 (ms) | stash p99 (ms) | retrieve p50 (ms) | retrieve p99 (ms) |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for (name, store) in [("Redis, one server", &single), ("Redis Cluster, 3 masters + 3 replicas", &clustered)] {
        let [sp50, sp99, rp50, rp99] = measure(store, n);
        println!("| {name} | {} | {} | {} | {} |", ms(sp50), ms(sp99), ms(rp50), ms(rp99));
    }
    drop((single, server, clustered, cluster));
    println!(
        "\nFailover: the store's master killed with SIGKILL (cluster-node-timeout {} ms), one writer:\n",
        common::cluster::NODE_TIMEOUT_MS
    );
    println!("| run | writes failed (retryable) | kill to first acknowledged write (s) | acknowledged writes lost |");
    println!("| ---: | ---: | ---: | ---: |");
    for run in 1..=runs {
        let (failed, stall, lost) = failover();
        println!("| {run} | {failed} | {:.2} | {lost} |", stall.as_secs_f64());
    }
}
