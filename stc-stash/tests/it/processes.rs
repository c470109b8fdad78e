//! Several OS processes on one SQLite file, and `kill -9` in the middle of
//! writes. The test binary re-runs itself as the worker processes.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use stc_stash::{Key, Lookup, SqliteStore, StashStore};

const DB: &str = "STC_STASH_WORKER_DB";
const MODE: &str = "STC_STASH_WORKER_MODE";
const OUT: &str = "STC_STASH_WORKER_OUT";

/// The worker: does nothing unless the parent test set the variables.
#[test]
fn worker() {
    let (Some(db), Some(mode), Some(out)) = (std::env::var_os(DB), std::env::var(MODE).ok(), std::env::var_os(OUT))
    else {
        return;
    };
    let store = SqliteStore::open(Path::new(&db)).unwrap();
    let mut out = std::fs::OpenOptions::new().create(true).append(true).open(out).unwrap();
    match mode.as_str() {
        "shared" => {
            for _ in 0..10 {
                for i in 0..20 {
                    let w = store.stash(format!("[{i}]").as_bytes()).unwrap();
                    writeln!(out, "{} {}", w.key, w.generation).unwrap();
                    let Lookup::Found(p) = store.retrieve(&Key::of(format!("[{}]", (i + 7) % 20).as_bytes())).unwrap()
                    else {
                        // Another worker may not have written it yet.
                        continue;
                    };
                    assert_eq!(p, format!("[{}]", (i + 7) % 20).into_bytes());
                }
            }
        }
        "forever" => {
            // Bounded so that it stops by itself even if nobody kills it.
            for i in 0..200_000 {
                let w = store.stash(format!("[{i},\"{}\"]", "x".repeat(2000)).as_bytes()).unwrap();
                writeln!(out, "{} {}", w.key, w.generation).unwrap();
                out.flush().unwrap();
            }
        }
        other => panic!("unknown worker mode {other}"),
    }
}

fn spawn_worker(db: &Path, mode: &str, out: &Path) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args(["processes::worker", "--exact", "--test-threads=1", "--quiet"])
        .env(DB, db)
        .env(MODE, mode)
        .env(OUT, out)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

fn lines(path: &Path) -> Vec<(Key, u64)> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    // Only complete lines: a killed writer may leave half of one.
    let complete = match text.rfind('\n') {
        Some(end) => &text[..end],
        None => "",
    };
    complete
        .lines()
        .map(|l| {
            let (k, g) = l.split_once(' ').unwrap();
            (Key::parse(k).unwrap(), g.parse().unwrap())
        })
        .collect()
}

#[test]
fn processes_share_one_sqlite_file() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shared.db");
    let outs: Vec<_> = (0..4).map(|i| dir.path().join(format!("out{i}"))).collect();
    let children: Vec<Child> = outs.iter().map(|o| spawn_worker(&db, "shared", o)).collect();
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a worker failed");
    }
    let mut gens: Vec<u64> = Vec::new();
    let mut keys = Vec::new();
    for o in &outs {
        let l = lines(o);
        assert_eq!(l.len(), 200);
        gens.extend(l.iter().map(|(_, g)| *g));
        keys.extend(l.iter().map(|(k, _)| *k));
    }
    let n = gens.len();
    gens.sort();
    gens.dedup();
    assert_eq!(gens.len(), n, "no duplicate generations across processes");
    let store = SqliteStore::open(&db).unwrap();
    assert_eq!(store.len().unwrap(), 20, "nothing lost, nothing duplicated");
    for i in 0..20 {
        let p = format!("[{i}]");
        assert_eq!(store.retrieve(&Key::of(p.as_bytes())).unwrap(), Lookup::Found(p.into_bytes()));
    }
    assert!(store.high_water().unwrap() >= *gens.last().unwrap());
}

#[test]
fn kill_9_in_the_middle_of_writes_leaves_a_consistent_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("killed.db");
    let out = dir.path().join("out");
    let mut child = spawn_worker(&db, "forever", &out);
    let deadline = Instant::now() + Duration::from_secs(60);
    while lines(&out).len() < 300 {
        assert!(Instant::now() < deadline, "the worker made no progress");
        assert!(child.try_wait().unwrap().is_none(), "the worker ended early");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let written = lines(&out);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let check: String = conn.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok");
    drop(conn);
    let store = SqliteStore::open(&db).unwrap();
    for (key, _) in &written {
        assert!(matches!(store.retrieve(key).unwrap(), Lookup::Found(_)), "a committed write was lost");
    }
    let max = written.iter().map(|(_, g)| *g).max().unwrap();
    assert!(store.high_water().unwrap() >= max);
    let rows = store.len().unwrap();
    assert!(rows == written.len() || rows == written.len() + 1, "rows {rows}, reported {}", written.len());
    assert!(store.stash(b"after the crash").unwrap().generation > max);
}
