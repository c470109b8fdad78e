//! Quick throughput check: `cargo run --release -p stc-core --example speed -- FILES`
//! (the real benchmarks are `cargo bench -p stc-core`).
use std::time::Instant;
fn main() {
    let mut tot = [0f64; 4];
    let mut bytes = 0usize;
    for path in std::env::args().skip(1) {
        let json = std::fs::read_to_string(&path).unwrap();
        let stc = stc_core::encode_with(&json, &Default::default()).unwrap();
        bytes += json.len();
        let reps = 20;
        let t = Instant::now();
        for _ in 0..reps {
            std::hint::black_box(stc_core::decode(&stc).unwrap());
        }
        let d = t.elapsed().as_secs_f64() / reps as f64;
        let t = Instant::now();
        for _ in 0..reps {
            std::hint::black_box(stc_core::encode_with(&json, &Default::default()).unwrap());
        }
        let e = t.elapsed().as_secs_f64() / reps as f64;
        let t = Instant::now();
        for _ in 0..reps {
            stc_core::validate(std::hint::black_box(&stc)).unwrap();
        }
        let v = t.elapsed().as_secs_f64() / reps as f64;
        let t = Instant::now();
        for _ in 0..reps {
            let x: serde_json::Value = serde_json::from_str(&json).unwrap();
            std::hint::black_box(serde_json::to_string(&x).unwrap());
        }
        let s = t.elapsed().as_secs_f64() / reps as f64;
        println!(
            "{:<40} decode {:7.1} MB/s  encode {:7.1}  validate {:7.1}  serde p+w {:7.1}",
            path.rsplit('/').next().unwrap(),
            json.len() as f64 / d / 1e6,
            json.len() as f64 / e / 1e6,
            json.len() as f64 / v / 1e6,
            json.len() as f64 / s / 1e6
        );
        tot[0] += d;
        tot[1] += e;
        tot[2] += v;
        tot[3] += s;
    }
    println!(
        "total: decode {:.1} MB/s encode {:.1} validate {:.1} serde {:.1}",
        bytes as f64 / tot[0] / 1e6,
        bytes as f64 / tot[1] / 1e6,
        bytes as f64 / tot[2] / 1e6,
        bytes as f64 / tot[3] / 1e6
    );
}
