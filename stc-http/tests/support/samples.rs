//! Sample documents shared by the version-2 tests of several crates
//! (stc-http, stc-serve, stc-stash and stc-cli include this file): the same
//! records that `tests/upstream.py` serves at `/optional`.

/// `n` records with an optional key (`email` on every third): a table only
/// in version 2, with its absent cell `~`.
pub fn optional_records(n: usize) -> String {
    let rows: Vec<String> = (0..n)
        .map(|i| {
            let email = if i % 3 == 0 { format!(r#","email":"user{i}@example.com""#) } else { String::new() };
            format!(r#"{{"id":{i},"name":"user{i}","score":{}{email}}}"#, i * 7 % 100)
        })
        .collect();
    format!("[{}]", rows.join(","))
}
