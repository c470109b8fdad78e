fn main() {
    let json = std::io::read_to_string(std::io::stdin()).unwrap();
    let p = stc_core::Profile::from_name(&std::env::args().nth(1).unwrap_or("compact".into())).unwrap();
    println!("{}", stc_core::encode(&json, &stc_core::EncodeOptions::profile(p)).unwrap());
}
