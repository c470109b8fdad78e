//! A bounded load generator for `stc serve` on loopback.
//!
//! ```text
//! cargo run --release -p stc-serve --example loadgen -- ADDR MIX CONNECTIONS REQUESTS [JSON_FILE]
//! ```
//!
//! Opens CONNECTIONS connections, sends REQUESTS requests in total (split
//! evenly, one in flight per connection), checks every reply, and prints one
//! line: `mix=… connections=… requests=… seconds=… rps=… p50_us=… p99_us=… max_us=…`.
//! MIX is `ping`, `chat` (a prompt then a base54 response, alternating, in a
//! conversation per connection that is reset every 50 exchanges) or `encode`
//! (JSON_FILE as the `encode` action's input). Refuses non-loopback addresses.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        eprintln!("usage: loadgen ADDR ping|chat|encode CONNECTIONS REQUESTS [JSON_FILE]");
        std::process::exit(2);
    }
    let addr: SocketAddr = args[1].parse().expect("ADDR must be ip:port");
    assert!(addr.ip().is_loopback(), "loadgen only targets loopback");
    let mix = args[2].clone();
    let connections: usize = args[3].parse().expect("CONNECTIONS");
    let requests: usize = args[4].parse().expect("REQUESTS");
    let json = match mix.as_str() {
        "encode" => std::fs::read_to_string(args.get(5).expect("encode needs JSON_FILE")).expect("JSON_FILE"),
        "ping" | "chat" => String::new(),
        other => panic!("unknown mix {other}"),
    };
    let per = requests.div_ceil(connections);
    let start = Instant::now();
    let workers: Vec<_> = (0..connections)
        .map(|i| {
            let (mix, json) = (mix.clone(), json.clone());
            std::thread::spawn(move || worker(addr, &mix, &json, i, per))
        })
        .collect();
    let mut latencies: Vec<Duration> = workers.into_iter().flat_map(|w| w.join().expect("worker failed")).collect();
    let seconds = start.elapsed().as_secs_f64();
    latencies.sort_unstable();
    let pct = |p: f64| latencies[((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len()) - 1];
    println!(
        "mix={mix} connections={connections} requests={} seconds={seconds:.2} rps={:.0} p50_us={} p99_us={} max_us={}",
        latencies.len(),
        latencies.len() as f64 / seconds,
        pct(0.50).as_micros(),
        pct(0.99).as_micros(),
        latencies.last().map_or(0, |d| d.as_micros()),
    );
}

fn worker(addr: SocketAddr, mix: &str, json: &str, index: usize, count: usize) -> Vec<Duration> {
    let stream = TcpStream::connect(addr).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    stream.set_read_timeout(Some(Duration::from_secs(60))).expect("timeout");
    let mut write = stream.try_clone().expect("clone");
    let mut read = BufReader::new(stream);
    let conversation = format!("load-{index}");
    let mut out = Vec::with_capacity(count);
    let mut reply = String::new();
    for n in 0..count {
        let request = match mix {
            "ping" => "{\"action\":\"ping\"}".to_owned(),
            "encode" => serde_json::json!({"action": "encode", "json": json}).to_string(),
            _ if n % 100 == 99 => format!("{{\"action\":\"context_reset\",\"conversation_id\":\"{conversation}\"}}"),
            _ if n % 2 == 0 => format!(
                "{{\"action\":\"prompt\",\"conversation_id\":\"{conversation}\",\"text\":\"Question {n}: what changed in the build since yesterday?\"}}"
            ),
            _ => {
                let answer = format!("Answer {n}: two tests were fixed and the cache was cleared.");
                format!(
                    "{{\"action\":\"response\",\"conversation_id\":\"{conversation}\",\"payload_b54\":\"{}\"}}",
                    stc_serve::base54::encode(answer.as_bytes())
                )
            }
        };
        let t = Instant::now();
        write.write_all(request.as_bytes()).expect("write");
        write.write_all(b"\n").expect("write");
        reply.clear();
        read.read_line(&mut reply).expect("read");
        out.push(t.elapsed());
        assert!(
            reply.starts_with("{") && reply.contains("\"ok\":true"),
            "bad reply: {}",
            &reply[..reply.len().min(300)]
        );
    }
    out
}
