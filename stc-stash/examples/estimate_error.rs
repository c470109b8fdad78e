//! The error of stc-core's token estimator (`Tokenizer::Estimate`, which
//! budgets rely on where exact counts are not available) against exact
//! o200k_base, on text it was not fitted on. Nothing here changes the
//! estimator: it measures it.
//!
//! ```sh
//! cargo run --release -p stc-stash --example estimate_error -- [JSON files...]
//! ```
//!
//! Generated categories (deterministic, seeded): placeholder Latin (comment
//! records as jsonplaceholder serves them, and bare prose), CJK records, URL
//! lists, base64 blobs, number arrays; each as minified JSON and as compact
//! STC (version 1), 40 documents of 1 to 60 KB each. Real API documents: the
//! JSON files given on the command line (for example the `package.json` and
//! schema files under `target/mcp-npm/node_modules`, which are not in the
//! corpus the estimator was fitted on), in both forms. Prints per category
//! the mean signed error (bias), the mean absolute error and the worst
//! absolute error, relative to the exact count, and o200k characters per
//! token.

use std::path::PathBuf;

use stc_core::{EncodeOptions, Profile, Tokenizer};

/// A small deterministic generator (SplitMix64): no dependency, same text on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const LATIN: &[&str] = &[
    "lorem",
    "ipsum",
    "dolor",
    "sit",
    "amet",
    "consectetur",
    "adipiscing",
    "elit",
    "sed",
    "do",
    "eiusmod",
    "tempor",
    "incididunt",
    "ut",
    "labore",
    "et",
    "dolore",
    "magna",
    "aliqua",
    "enim",
    "ad",
    "minim",
    "veniam",
    "quis",
    "nostrud",
    "exercitation",
    "ullamco",
    "laboris",
    "nisi",
    "aliquip",
    "ex",
    "ea",
    "commodo",
    "consequat",
    "duis",
    "aute",
    "irure",
    "in",
    "reprehenderit",
    "voluptate",
    "velit",
    "esse",
    "cillum",
    "fugiat",
    "nulla",
    "pariatur",
    "excepteur",
    "sint",
    "occaecat",
    "cupidatat",
    "non",
    "proident",
    "sunt",
    "culpa",
    "qui",
    "officia",
    "deserunt",
    "mollit",
    "anim",
    "id",
    "est",
    "laborum",
    "quia",
    "voluptas",
    "accusantium",
    "doloremque",
    "laudantium",
    "totam",
    "rem",
    "aperiam",
    "eaque",
    "ipsa",
    "quae",
    "ab",
    "illo",
    "inventore",
    "veritatis",
    "quasi",
    "architecto",
    "beatae",
    "vitae",
    "dicta",
    "explicabo",
    "nemo",
    "ipsam",
    "voluptatem",
    "aspernatur",
    "aut",
    "odit",
    "fugit",
];

fn latin_sentence(rng: &mut Rng) -> String {
    let n = 4 + rng.below(12);
    let mut words: Vec<String> = (0..n).map(|_| rng.pick(LATIN).to_string()).collect();
    if let Some(first) = words.first_mut() {
        let mut c = first.chars();
        if let Some(h) = c.next() {
            *first = h.to_uppercase().chain(c).collect();
        }
    }
    format!("{}.", words.join(" "))
}

fn latin_text(rng: &mut Rng, sentences: usize) -> String {
    let lines: Vec<String> = (0..sentences).map(|_| latin_sentence(rng)).collect();
    lines.join(if rng.below(2) == 0 { " " } else { "\n" })
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn comments(rng: &mut Rng, n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| {
            let name = latin_sentence(rng);
            let email = format!("{}@{}.{}", rng.pick(LATIN), rng.pick(LATIN), rng.pick(&["biz", "net", "org", "tv"]));
            let k = 2 + rng.below(4);
            let body = latin_text(rng, k);
            format!(
                r#"{{"postId":{},"id":{},"name":{},"email":{},"body":{}}}"#,
                i / 5 + 1,
                i + 1,
                json_string(&name),
                json_string(&email),
                json_string(&body)
            )
        })
        .collect();
    format!("[{}]", items.join(","))
}

fn cjk_text(rng: &mut Rng, chars: usize) -> String {
    let punct = ['，', '。', '、', '「', '」', '！', '？'];
    (0..chars)
        .map(|i| {
            if i % 13 == 12 {
                punct[rng.below(punct.len())]
            } else if rng.below(10) < 7 {
                // The commonest block first (most frequent ideographs), then the rest.
                char::from_u32(0x4E00 + rng.below(0x0800) as u32).unwrap_or('中')
            } else if rng.below(2) == 0 {
                char::from_u32(0x3041 + rng.below(0x56) as u32).unwrap_or('あ')
            } else {
                char::from_u32(0x4E00 + rng.below(0x51A5) as u32).unwrap_or('中')
            }
        })
        .collect()
}

fn cjk_records(rng: &mut Rng, n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| {
            let (t, b) = (4 + rng.below(12), 20 + rng.below(200));
            let title = cjk_text(rng, t);
            let body = cjk_text(rng, b);
            format!(r#"{{"id":{i},"title":{},"content":{}}}"#, json_string(&title), json_string(&body))
        })
        .collect();
    format!("[{}]", items.join(","))
}

fn hex(rng: &mut Rng, n: usize) -> String {
    (0..n).map(|_| char::from_digit(rng.below(16) as u32, 16).unwrap_or('0')).collect()
}

fn urls(rng: &mut Rng, n: usize) -> String {
    let hosts = ["api.github.com", "example.org", "cdn.jsdelivr.net", "via.placeholder.com", "s3.amazonaws.com"];
    let items: Vec<String> = (0..n)
        .map(|i| {
            let host = hosts[rng.below(hosts.len())];
            let path: Vec<String> = (0..1 + rng.below(4)).map(|_| rng.pick(LATIN).to_string()).collect();
            let id_len = 6 + rng.below(30);
            let url = format!(
                "https://{host}/{}/{}?page={}&per_page={}&sha={}",
                path.join("/"),
                hex(rng, id_len),
                rng.below(100),
                [10, 30, 100][rng.below(3)],
                hex(rng, 40)
            );
            format!(r#"{{"id":{i},"url":{},"html_url":{}}}"#, json_string(&url), json_string(&url.replace("api.", "")))
        })
        .collect();
    format!("[{}]", items.join(","))
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(A[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn blobs(rng: &mut Rng, n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| {
            let bytes: Vec<u8> = (0..48 + rng.below(1500)).map(|_| rng.next() as u8).collect();
            format!(r#"{{"name":"file{i}.bin","encoding":"base64","content":"{}"}}"#, base64(&bytes))
        })
        .collect();
    format!("[{}]", items.join(","))
}

fn numbers(rng: &mut Rng, n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|_| match rng.below(4) {
            0 => rng.below(1000).to_string(),
            1 => format!("{}.{:02}", rng.below(100_000), rng.below(100)),
            2 => format!("-{}.{}", rng.below(180), rng.next() % 1_000_000_000),
            _ => format!("{}e{}", rng.below(1000), rng.below(30)),
        })
        .collect();
    format!("[{}]", items.join(","))
}

/// Relative errors of the estimate against o200k_base, and characters per o200k token.
#[derive(Default)]
struct Stats {
    errors: Vec<f64>,
    chars: usize,
    tokens: usize,
}

impl Stats {
    fn add(&mut self, text: &str) {
        let exact = Tokenizer::O200kBase.count(text);
        let estimate = Tokenizer::Estimate.count(text);
        if exact > 0 {
            self.errors.push((estimate as f64 - exact as f64) / exact as f64);
            self.chars += text.chars().count();
            self.tokens += exact;
        }
    }

    fn row(&self, name: &str) -> String {
        let n = self.errors.len().max(1) as f64;
        let bias = self.errors.iter().sum::<f64>() / n;
        let mean = self.errors.iter().map(|e| e.abs()).sum::<f64>() / n;
        let worst = self.errors.iter().fold(0.0f64, |w, e| if e.abs() > w.abs() { *e } else { w });
        format!(
            "| {name} | {} | {:+.1}% | {:.1}% | {:+.1}% | {:.2} |",
            self.errors.len(),
            bias * 100.0,
            mean * 100.0,
            worst * 100.0,
            self.chars as f64 / self.tokens.max(1) as f64
        )
    }
}

fn main() {
    let files: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let stc = |json: &str| {
        stc_core::encode_with(json, &EncodeOptions::default().profile(Profile::Compact)).unwrap_or_default()
    };
    let mut rng = Rng(0x5354_4324);
    type Gen = fn(&mut Rng, usize) -> String;
    let categories: [(&str, Gen, usize); 6] = [
        ("placeholder Latin comments", comments, 120),
        ("CJK records", cjk_records, 60),
        ("URL lists", urls, 150),
        ("base64 blobs", blobs, 20),
        ("number arrays", numbers, 2000),
        ("Latin prose (plain text)", |rng, n| latin_text(rng, n), 150),
    ];
    println!("| category | documents | bias | mean abs error | worst | chars/token |");
    println!("| --- | ---: | ---: | ---: | ---: | ---: |");
    let mut all = Stats::default();
    for (name, generate, scale) in categories {
        let (mut json_stats, mut stc_stats) = (Stats::default(), Stats::default());
        for i in 0..40 {
            // Sizes from a few records to about 60 KB.
            let n = 1 + (scale * (1 + i % 10)) / 10 + rng.below(scale / 4 + 1);
            let text = generate(&mut rng, n);
            json_stats.add(&text);
            all.add(&text);
            if text.starts_with('[') {
                let s = stc(&text);
                stc_stats.add(&s);
                all.add(&s);
            }
        }
        println!("{}", json_stats.row(&format!("{name}, JSON")));
        if !stc_stats.errors.is_empty() {
            println!("{}", stc_stats.row(&format!("{name}, STC")));
        }
    }
    if !files.is_empty() {
        // Mostly ASCII documents, and those with more than 5% non-ASCII characters (CJK tables).
        let mut groups: [(Stats, Stats, usize); 2] = Default::default();
        for f in &files {
            let Ok(text) = std::fs::read_to_string(f) else { continue };
            let Ok(minified) = stc_core::decode(&text) else { continue };
            let non_ascii = minified.chars().filter(|c| !c.is_ascii()).count();
            let g = &mut groups[usize::from(non_ascii * 20 > minified.chars().count())];
            let s = stc(&minified);
            g.0.add(&minified);
            g.1.add(&s);
            g.2 += 1;
            all.add(&minified);
            all.add(&s);
        }
        for ((json_stats, stc_stats, n), name) in groups.iter().zip(["mostly ASCII", "over 5% non-ASCII"]) {
            if *n > 0 {
                println!("{}", json_stats.row(&format!("real documents, {name} ({n}), minified JSON")));
                println!("{}", stc_stats.row(&format!("real documents, {name}, STC")));
            }
        }
    }
    println!("{}", all.row("all"));
}
