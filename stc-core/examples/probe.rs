//! Prints what decode makes of stdin (result or error kind and offset).
fn main() {
    let input = std::io::read_to_string(std::io::stdin()).unwrap_or_default();
    match stc_core::decode(&input) {
        Ok(json) => println!("ok {json}"),
        Err(e) => println!("err {} @{} {}", e.kind(), e.offset(), e),
    }
}
