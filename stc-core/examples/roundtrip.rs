//! Round-trips every file given on the command line in both profiles and
//! prints sizes: `cargo run --release -p stc-core --example roundtrip -- FILES`.
fn main() {
    for path in std::env::args().skip(1) {
        let json = std::fs::read_to_string(&path).expect("read");
        let min = stc_core::decode(&json).expect("json is stc");
        for p in [stc_core::Profile::Compact, stc_core::Profile::Readable] {
            let stc = stc_core::encode(&json, &stc_core::EncodeOptions::profile(p)).expect("encode");
            let back = stc_core::decode(&stc).expect("decode");
            assert_eq!(back, min, "{path} {p:?}");
            println!("{path} {:?} json={} stc={}", p, min.len(), stc.len());
        }
    }
}
