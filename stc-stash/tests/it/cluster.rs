//! The Redis store against a real Redis Cluster (three masters, three
//! replicas, `common::cluster`): the store contract, MOVED and ASK
//! redirections, and a master killed with SIGKILL in the middle of writes.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use stc_stash::{Key, Lookup, RedisStore, StashStore, StoreConfig, StoreSpec};

use crate::common::cluster::{connect, RedisCluster};
use crate::contract::{run_contract, Kind};

struct Cluster<'a>(&'a RedisCluster, usize);
impl Kind for Cluster<'_> {
    fn open(&mut self, config: StoreConfig) -> Box<dyn StashStore> {
        self.1 += 1;
        // Each namespace is its own hash tag, so the stores land on different masters.
        Box::new(RedisStore::open_with(&self.0.urls(), &format!("c{}:", self.1), config).unwrap())
    }
}

fn found(store: &dyn StashStore, key: &Key) -> bool {
    matches!(store.retrieve(key).unwrap(), Lookup::Found(_))
}

/// The contract suite, then a slot moved to another master under a store
/// that still has the old topology: first with the keys migrated but the
/// slot not yet handed over (the old master answers ASK), then handed over
/// (MOVED). Every read and write still lands.
#[test]
fn cluster_contract_and_redirections() {
    let cluster = RedisCluster::start();
    run_contract(&mut Cluster(&cluster, 0));

    // A list of URLs is a cluster, one URL a single server.
    let spec: StoreSpec = cluster.urls().parse().unwrap();
    let store = spec.open().unwrap();
    assert!(store.describe().starts_with("redis cluster redis://127.0.0.1:"), "{}", store.describe());

    let store = RedisStore::open_with(&cluster.urls(), "moved:", StoreConfig::default()).unwrap();
    let before: Vec<_> = (0..20).map(|i| store.stash(format!("[{i}]").as_bytes()).unwrap()).collect();
    let slot = cluster.slot("{moved:}");
    let from = cluster.master_of(slot);
    let to = cluster.masters().into_iter().find(|p| *p != from).unwrap();
    let (from_id, to_id) = (cluster.id(from), cluster.id(to));
    let mut src = connect(from).unwrap();
    let mut dst = connect(to).unwrap();
    let setslot = |c: &mut redis::Connection, how: &str, id: &str| {
        let _: () = redis::cmd("CLUSTER").arg("SETSLOT").arg(slot).arg(how).arg(id).query(c).unwrap();
    };
    setslot(&mut dst, "IMPORTING", &from_id);
    setslot(&mut src, "MIGRATING", &to_id);
    let keys: Vec<String> = redis::cmd("CLUSTER").arg("GETKEYSINSLOT").arg(slot).arg(1000).query(&mut src).unwrap();
    assert!(keys.len() >= 23, "entries, counter and two sets: {keys:?}");
    let _: () = redis::cmd("MIGRATE")
        .arg("127.0.0.1")
        .arg(to)
        .arg("")
        .arg(0)
        .arg(5000)
        .arg("KEYS")
        .arg(&keys)
        .query(&mut src)
        .unwrap();
    // The old master no longer has the keys and answers ASK: followed.
    for w in &before {
        assert!(found(&store, &w.key), "read through ASK");
    }
    for port in cluster.masters() {
        setslot(&mut connect(port).unwrap(), "NODE", &to_id);
    }
    // Now the old master answers MOVED: followed, and the topology refreshed.
    for w in &before {
        assert!(found(&store, &w.key), "read through MOVED");
    }
    let after = store.stash(b"[\"after the move\"]").unwrap();
    assert!(after.generation > before.last().unwrap().generation, "the counter moved with the slot");
    assert!(found(&store, &after.key));
    assert_eq!(store.len().unwrap(), 21);
    assert_eq!(cluster.master_of(slot), to);
}

/// A master killed with SIGKILL in the middle of writes: its replica is
/// promoted (about two seconds with a 1 s node timeout). Writes during the
/// switch succeed or fail with the retryable kind, none hangs; afterwards
/// every acknowledged write reads back and generations keep increasing.
#[test]
fn master_killed_mid_writes_loses_no_acknowledged_write() {
    let mut cluster = RedisCluster::start();
    let store = Arc::new(RedisStore::open_with(&cluster.urls(), "fo:", StoreConfig::default()).unwrap());
    let master = cluster.master_of(cluster.slot("{fo:}"));
    let stop = Arc::new(AtomicBool::new(false));
    let acked = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (store, stop, acked) = (store.clone(), stop.clone(), acked.clone());
        std::thread::spawn(move || {
            let mut log = Vec::new();
            for i in 0..1_000_000u64 {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let payload = format!("[{i}]");
                let started = Instant::now();
                let result = store.stash(payload.as_bytes());
                let took = started.elapsed();
                assert!(took < Duration::from_secs(20), "a write took {took:?}");
                match &result {
                    Ok(_) => {
                        acked.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(e) => {
                        assert!(e.is_transient() && e.kind() == "unavailable", "not retryable: {e}");
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
                log.push((payload, started, result.map(|w| w.generation)));
            }
            log
        })
    };
    let wait_acked = |n: usize| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while acked.load(Ordering::SeqCst) < n {
            assert!(Instant::now() < deadline, "writes did not resume within 30 s");
            std::thread::sleep(Duration::from_millis(10));
        }
    };
    wait_acked(100);
    let killed = Instant::now();
    cluster.kill(master);
    let at_kill = acked.load(Ordering::SeqCst);
    wait_acked(at_kill + 100);
    stop.store(true, Ordering::SeqCst);
    let log = writer.join().unwrap();

    let failed = log.iter().filter(|(_, _, r)| r.is_err()).count();
    let resumed = log.iter().find(|(_, t, r)| *t > killed && r.is_ok()).map(|(_, t, _)| t.duration_since(killed));
    eprintln!("failover: {failed} writes failed (retryable); writes resumed {resumed:?} after the kill");
    let live = cluster.live_ports();
    cluster.wait("cluster_state:ok after the failover", || {
        live.iter().all(|p| {
            connect(*p)
                .and_then(|mut c| redis::cmd("CLUSTER").arg("INFO").query::<String>(&mut c))
                .is_ok_and(|i| i.contains("cluster_state:ok"))
        })
    });
    assert_ne!(cluster.master_of(cluster.slot("{fo:}")), master, "the replica was promoted");
    // A fresh handle, from the surviving nodes only.
    let urls: Vec<String> = live.iter().map(|p| format!("redis://127.0.0.1:{p}/")).collect();
    let reader = RedisStore::open_with(&urls.join(","), "fo:", StoreConfig::default()).unwrap();
    let mut last = 0;
    for (payload, _, result) in &log {
        if let Ok(generation) = result {
            assert!(*generation > last, "generations keep increasing across the failover");
            last = *generation;
            assert_eq!(
                reader.retrieve(&Key::of(payload.as_bytes())).unwrap(),
                Lookup::Found(payload.as_bytes().to_vec()),
                "an acknowledged write was lost"
            );
        }
    }
    assert!(store.stash(b"after").is_ok(), "the first handle recovers by itself");
}
