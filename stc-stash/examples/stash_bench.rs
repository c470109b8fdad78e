//! Figures for the stash: tokens under a budget, stash/retrieve latency per
//! store, and throughput of 8 concurrent processes.
//!
//! ```sh
//! cargo run --release -p stc-stash --example stash_bench -- ../shared/corpus/*.json
//! ```
//!
//! Starts its own `redis-server` on a free loopback port (skipped with a
//! note when it is not installed) and uses a temporary SQLite file.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use stc_core::{Profile, Tokenizer};
use stc_stash::{truncate, Key, Lookup, MemoryStore, RedisStore, SqliteStore, StashStore, TruncateOptions};

const WORKERS: usize = 8;
const OPS_PER_WORKER: usize = 500;

fn records(n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"id":{i},"login":"user{i}","status":"{}","latency_ms":{},"region":"eu-west-{}"}}"#,
                if i % 97 == 13 { "error" } else { "ok" },
                10 + (i * 7919) % 50,
                i % 3
            )
        })
        .collect();
    format!("[{}]", items.join(","))
}

fn tokens_table(files: &[PathBuf]) {
    let tok = Tokenizer::O200kBase;
    let mut docs: Vec<(String, String)> = files
        .iter()
        .filter_map(|p| Some((p.file_name()?.to_string_lossy().into_owned(), std::fs::read_to_string(p).ok()?)))
        .collect();
    docs.push(("generated 500 records".into(), records(500)));
    println!("## Tokens (o200k_base)\n");
    println!("| document | minified JSON | STC lossless | stash 32 (default) | --budget 1000 |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let mut totals = [0usize; 4];
    for (name, json) in &docs {
        let Ok(doc) = stc_core::Document::parse_json(json, &Default::default()) else { continue };
        let minified = tok.count(&doc.to_json());
        let lossless = tok.count(&doc.encode(Profile::Compact));
        let store = MemoryStore::new();
        let run = |budget: Option<usize>| {
            let options = TruncateOptions { token_budget: budget, tokenizer: tok, ..TruncateOptions::default() };
            truncate(json, Some(&store), &options).map(|t| t.tokens).unwrap_or(lossless)
        };
        let (default, budget) = (run(None), run(Some(1000)));
        for (t, v) in totals.iter_mut().zip([minified, lossless, default, budget]) {
            *t += v;
        }
        println!("| {name} | {minified} | {lossless} | {default} | {budget} |");
    }
    let [m, l, d, b] = totals;
    let pct = |x: usize| (x as f64 / m as f64 - 1.0) * 100.0;
    println!("| **total** | {m} | {l} ({:+.1}%) | {d} ({:+.1}%) | {b} ({:+.1}%) |\n", pct(l), pct(d), pct(b));
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1e6
}

fn latency(name: &str, store: &dyn StashStore) {
    // 1000 distinct ~10 KB payloads (40-record arrays).
    let payloads: Vec<String> =
        (0..1000).map(|i| records(40).replacen("[{\"id\":0", &format!("[{{\"id\":{}", 1_000_000 + i), 1)).collect();
    let mut stash = Vec::new();
    for p in &payloads {
        let t = Instant::now();
        store.stash(p.as_bytes()).unwrap();
        stash.push(t.elapsed());
    }
    let mut get = Vec::new();
    for p in &payloads {
        let key = Key::of(p.as_bytes());
        let t = Instant::now();
        let found = store.retrieve(&key).unwrap();
        get.push(t.elapsed());
        assert!(matches!(found, Lookup::Found(_)));
    }
    stash.sort();
    get.sort();
    println!(
        "| {name} | {:.0} | {:.0} | {:.0} | {:.0} |",
        percentile(&stash, 0.5),
        percentile(&stash, 0.99),
        percentile(&get, 0.5),
        percentile(&get, 0.99)
    );
}

/// Worker process: OPS_PER_WORKER stash + retrieve pairs against one store.
fn worker(kind: &str, target: &str) {
    let store: Box<dyn StashStore> = match kind {
        "sqlite" => Box::new(SqliteStore::open(Path::new(target)).unwrap()),
        _ => Box::new(RedisStore::open(target).unwrap()),
    };
    let pid = std::process::id();
    for i in 0..OPS_PER_WORKER {
        // Half the payloads are shared by all workers, half are their own.
        let p = if i % 2 == 0 { format!("[{i},\"shared\"]") } else { format!("[{i},{pid}]") };
        let w = store.stash(p.as_bytes()).unwrap();
        assert!(matches!(store.retrieve(&w.key).unwrap(), Lookup::Found(_)));
    }
}

fn throughput(kind: &str, target: &str) -> f64 {
    let exe = std::env::current_exe().unwrap();
    let t = Instant::now();
    let children: Vec<Child> =
        (0..WORKERS).map(|_| Command::new(&exe).args(["--worker", kind, target]).spawn().unwrap()).collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    (WORKERS * OPS_PER_WORKER) as f64 / t.elapsed().as_secs_f64()
}

struct Redis(Child, String);

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_redis(dir: &Path) -> Option<Redis> {
    let port = std::net::TcpListener::bind("127.0.0.1:0").ok()?.local_addr().ok()?.port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
        .args(["--dir", dir.to_str()?])
        .stdout(Stdio::null())
        .spawn()
        .ok()?;
    let url = format!("redis://127.0.0.1:{port}/");
    let redis = Redis(child, url);
    for _ in 0..250 {
        if RedisStore::open(&redis.1).is_ok() {
            return Some(redis);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--worker") {
        worker(&args[1], &args[2]);
        return;
    }
    let files: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
    tokens_table(&files);
    let dir = tempfile::tempdir().unwrap();
    let redis = start_redis(dir.path());
    println!("## Latency (µs, 1000 payloads of ~10 KB)\n");
    println!("| store | stash p50 | stash p99 | retrieve p50 | retrieve p99 |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    latency("memory", &MemoryStore::new());
    latency("sqlite", &SqliteStore::open(&dir.path().join("lat.db")).unwrap());
    match &redis {
        Some(r) => latency("redis", &RedisStore::open(&r.1).unwrap()),
        None => println!("| redis | (redis-server not available) | | | |"),
    }
    println!("\n## Throughput, {WORKERS} processes x {OPS_PER_WORKER} stash+retrieve pairs\n");
    let db = dir.path().join("tp.db");
    SqliteStore::open(&db).unwrap();
    println!("- sqlite: {:.0} pairs/s", throughput("sqlite", db.to_str().unwrap()));
    if let Some(r) = &redis {
        println!("- redis: {:.0} pairs/s", throughput("redis", &r.1));
    }
}
