//! The `version` field of `encode` and `decode` over real loopback sockets:
//! v1 and v2 round trips (including a corpus document), the version in the
//! result, bad values as `invalid_field`, and v2 text refused by a v1 decode.

use serde_json::json;
use stc_core::{DecodeOptions, Version};
use stc_serve::Server;

use super::samples::optional_records;
use super::{config, Client};

fn table(n: usize) -> String {
    let rows: Vec<String> = (0..n).map(|i| format!(r#"{{"id":{i},"name":"user{i}","active":true}}"#)).collect();
    format!("[{}]", rows.join(","))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn encode_and_decode_round_trip_in_each_version() {
    let server = Server::start(config()).await.unwrap();
    let mut c = Client::connect(server.local_addr()).await;
    let mut documents = vec![table(30), optional_records(40)];
    if let Ok(events) = std::fs::read_to_string("/work/shared/corpus/github_events.json") {
        documents.push(events);
    }
    for json in &documents {
        let minified = stc_core::decode(json).unwrap();
        for (field, version) in [(None, Version::V1), (Some(json!(1)), Version::V1), (Some(json!(2)), Version::V2)] {
            let mut request = json!({"action": "encode", "json": json, "min_saving": 0});
            if let Some(v) = &field {
                request["version"] = v.clone();
            }
            let r = c.ok(request).await;
            assert_eq!(r["version"], json!(version.as_u8()), "{field:?}");
            let stc = r["stc"].as_str().unwrap();
            // The text decodes, in the version the result states, to the input.
            let local = stc_core::decode_with(stc, &DecodeOptions::default().version(version)).unwrap();
            assert_eq!(local, minified, "{field:?}");
            // And the service decodes it back when told that version.
            let mut request = json!({"action": "decode", "stc": stc});
            if let Some(v) = &field {
                request["version"] = v.clone();
            }
            assert_eq!(c.ok(request).await["json"], json!(minified), "{field:?}");
            // A version 2 decode reads version 1 text too.
            if version == Version::V1 {
                let r = c.ok(json!({"action": "decode", "stc": stc, "version": 2})).await;
                assert_eq!(r["json"], json!(minified));
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_versions_are_invalid_field_and_the_connection_stays_usable() {
    let server = Server::start(config()).await.unwrap();
    let mut c = Client::connect(server.local_addr()).await;
    for action in ["encode", "decode"] {
        for bad in [json!(3), json!(0), json!(-1), json!(2.5), json!("2"), json!(true), json!([2]), json!(1e300)] {
            let (code, detail) =
                c.error(json!({"action": action, "json": "[1]", "stc": "[1]", "version": bad.clone()})).await;
            assert_eq!(code, "invalid_field", "{action} {bad}");
            let detail = detail.as_str().unwrap();
            assert!(detail.contains("\"version\""), "{detail}");
            assert!(detail.contains("1") && detail.contains("2"), "names the valid versions: {detail}");
        }
    }
    // The core's own message for a number it does not know.
    let (_, detail) = c.error(json!({"action": "encode", "json": "[1]", "version": 3})).await;
    assert_eq!(detail, json!("\"version\": unknown version \"3\" (expected one of: 1, 2)"));
    // null is the default.
    let r = c.ok(json!({"action": "encode", "json": "[1]", "version": null})).await;
    assert_eq!(r["version"], 1);
    assert_eq!(c.ok(json!({"action": "ping"})).await["message"], "pong");
}

/// The v2 encoder (stc-core 431ba80) uses a version 2 construct where it pays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_2_text_uses_absent_cells_and_a_version_1_decode_refuses_it() {
    let server = Server::start(config()).await.unwrap();
    let mut c = Client::connect(server.local_addr()).await;
    let json = optional_records(40);
    let v1 = c.ok(json!({"action": "encode", "json": json})).await;
    let v2 = c.ok(json!({"action": "encode", "json": json, "version": 2})).await;
    let stc = v2["stc"].as_str().unwrap();
    assert_eq!(v2["chosen"], "stc");
    assert!(stc.contains('~'), "no absent cell: {stc:.200}");
    assert!(v2["stc_tokens"].as_u64() < v1["stc_tokens"].as_u64());
    let (code, detail) = c.error(json!({"action": "decode", "stc": stc})).await;
    assert_eq!(code, "invalid_stc");
    assert_eq!(detail["kind"], "newer_version", "{detail}");
    let r = c.ok(json!({"action": "decode", "stc": stc, "version": 2})).await;
    assert_eq!(r["json"], json!(stc_core::decode(&json).unwrap()));
}
