//! The option contract (conformance/options/options.json): every surface
//! that takes an option stc-core defines refuses the table's bad values with
//! the core's message and accepts its good ones. Here: the `stc` command line
//! (the spawned binary), the `stc mcp` tools (the library's handlers) and
//! `stc serve`'s protocol (the library's request handler). The Python, Node
//! and wasm suites read the same file.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use serde_json::{json, Value};
use stc_mcp::server::{ServerOptions, StcServer};
use stc_serve::protocol::{ProtocolLimits, Service};

const STC: &str = env!("CARGO_BIN_EXE_stc");

/// One row of the table: the option, the value, and for a bad value the
/// message every surface must report.
struct Row {
    option: String,
    value: Value,
    /// `unknown_name` (the core's `ParseNameError`) or `out_of_range` (its `OptionError`).
    kind: Option<String>,
    message: Option<String>,
}

fn table() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../conformance/options/options.json");
    let file: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let tokenizers = stc_core::Tokenizer::NAMES.join(", ");
    let mut rows = Vec::new();
    for (option, spec) in file["options"].as_object().unwrap() {
        for bad in spec["bad"].as_array().unwrap() {
            let kind = bad["kind"].as_str().unwrap();
            assert!(["unknown_name", "out_of_range"].contains(&kind), "{option}: kind {kind}");
            let message = bad["message"].as_str().unwrap().replace("{tokenizers}", &tokenizers);
            rows.push(Row {
                option: option.clone(),
                value: bad["value"].clone(),
                kind: Some(kind.to_string()),
                message: Some(message),
            });
        }
        for good in spec["good"].as_array().unwrap() {
            rows.push(Row { option: option.clone(), value: good["value"].clone(), kind: None, message: None });
        }
    }
    assert!(rows.len() >= 20, "the table has {} rows", rows.len());
    rows
}

/// A value as the command line takes it: a string as it is, a number as its JSON text.
fn as_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

fn run(args: &[String], stdin: &[u8]) -> Output {
    let mut child = Command::new(STC)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The process may exit (a bad flag) before it reads: a closed pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

/// The core's own answer for a row's value: its text through `FromStr`, a
/// number through `TryFrom<f64>` as well; `Err((kind, message))` when refused.
fn core_answer(option: &str, value: &Value) -> Vec<Result<(), (&'static str, String)>> {
    fn name<T: std::str::FromStr<Err = stc_core::ParseNameError>>(text: &str) -> Result<(), (&'static str, String)> {
        text.parse::<T>().map(|_| ()).map_err(|e| ("unknown_name", e.to_string()))
    }
    fn range<T: std::str::FromStr<Err = stc_core::OptionError>>(text: &str) -> Result<(), (&'static str, String)> {
        text.parse::<T>().map(|_| ()).map_err(|e| ("out_of_range", e.to_string()))
    }
    let text = as_text(value);
    let number = value.as_f64();
    match option {
        "profile" => vec![name::<stc_core::Profile>(&text)],
        "tokenizer" => vec![name::<stc_core::Tokenizer>(&text)],
        "version" => {
            let mut answers = vec![name::<stc_core::Version>(&text)];
            if let Some(n) = number {
                answers.push(stc_core::Version::try_from(n).map(|_| ()).map_err(|e| ("unknown_name", e.to_string())));
            }
            answers
        }
        "min_saving" => {
            let mut answers = vec![range::<stc_core::MinSaving>(&text)];
            if let Some(n) = number {
                answers.push(stc_core::MinSaving::try_from(n).map(|_| ()).map_err(|e| ("out_of_range", e.to_string())));
            }
            answers
        }
        "seconds" => {
            let mut answers = vec![range::<stc_core::Seconds>(&text)];
            if let Some(n) = number {
                answers.push(stc_core::Seconds::try_from(n).map(|_| ()).map_err(|e| ("out_of_range", e.to_string())));
            }
            answers
        }
        other => panic!("no core type for {other}"),
    }
}

#[test]
fn the_cores_types_give_each_rows_kind_and_message() {
    for row in table() {
        for answer in core_answer(&row.option, &row.value) {
            match (&row.kind, &row.message) {
                (Some(kind), Some(message)) => {
                    assert_eq!(answer, Err((kind.as_str(), message.clone())), "{} {}", row.option, row.value)
                }
                _ => assert_eq!(answer, Ok(()), "{} {}", row.option, row.value),
            }
        }
    }
}

#[test]
fn the_command_line_reports_the_cores_message_for_every_bad_value() {
    for row in table() {
        let value = as_text(&row.value);
        // `--flag=value`, so that a negative number is not read as a flag.
        let args: Vec<String> = match row.option.as_str() {
            "profile" => vec!["encode".into(), format!("--profile={value}")],
            "tokenizer" => vec!["encode".into(), "--gate".into(), format!("--tokenizer={value}")],
            "version" => vec!["encode".into(), format!("--stc-version={value}")],
            "min_saving" => vec!["encode".into(), "--gate".into(), format!("--min-saving={value}")],
            // With stdin closed the host exits at once, after its arguments were checked.
            "seconds" => vec!["native-host".into(), format!("--timeout={value}")],
            other => panic!("no command-line flag for {other}"),
        };
        let stdin: &[u8] = if row.option == "seconds" { b"" } else { b"[1]" };
        let out = run(&args, stdin);
        let stderr = String::from_utf8_lossy(&out.stderr);
        match &row.message {
            Some(message) => {
                assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
                assert!(out.stdout.is_empty(), "{args:?}");
                assert!(stderr.contains(&format!(": {message}\n")), "{args:?}: {stderr}");
            }
            None => assert!(out.status.success(), "{args:?}: {stderr}"),
        }
    }
}

#[test]
fn stc_serve_answers_invalid_field_with_the_cores_message() {
    let service = Service::new(Default::default(), ProtocolLimits::default());
    let mut checked = 0;
    for row in table() {
        let field = row.option.as_str();
        let requests = match field {
            "profile" | "min_saving" => vec![json!({"action": "encode", "json": "[1]", field: row.value})],
            "version" => vec![
                json!({"action": "encode", "json": "[1]", "version": row.value}),
                json!({"action": "decode", "stc": "[1]", "version": row.value}),
            ],
            _ => continue,
        };
        for request in requests {
            let answer: Value = serde_json::from_slice(&service.handle(request.to_string().as_bytes())).unwrap();
            match &row.message {
                Some(message) => {
                    assert_eq!(answer["ok"], false, "{request}: {answer}");
                    assert_eq!(answer["error"], "invalid_field", "{request}: {answer}");
                    assert_eq!(answer["detail"], format!("{field:?}: {message}"), "{request}");
                }
                None => assert_eq!(answer["ok"], true, "{request}: {answer}"),
            }
            checked += 1;
        }
    }
    assert!(checked >= 15, "{checked}");
}

fn tool_text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_mcp_tools_answer_a_tool_error_with_the_cores_message() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let server = StcServer::new(ServerOptions::default());
    let mut checked = 0;
    for row in table() {
        let field = row.option.as_str();
        let mut calls: Vec<(&str, Value)> = Vec::new();
        match field {
            "profile" => {
                calls.push(("stc_encode", json!({"json": "[1]", "profile": row.value})));
                calls.push(("stc_estimate", json!({"json": "[1]", "profile": row.value})));
            }
            "tokenizer" | "min_saving" => calls.push(("stc_encode", json!({"json": "[1]", field: row.value}))),
            "version" => {
                calls.push(("stc_encode", json!({"json": "[1]", "version": row.value})));
                calls.push(("stc_decode", json!({"stc": "[1]", "version": row.value})));
                calls.push(("stc_estimate", json!({"json": "[1]", "version": row.value})));
            }
            _ => continue,
        }
        for (tool, args) in calls {
            let result = runtime.block_on(async {
                match tool {
                    "stc_encode" => server.stc_encode(Parameters(serde_json::from_value(args.clone()).unwrap())).await,
                    "stc_decode" => server.stc_decode(Parameters(serde_json::from_value(args.clone()).unwrap())).await,
                    _ => server.stc_estimate(Parameters(serde_json::from_value(args.clone()).unwrap())).await,
                }
            });
            let result = result.unwrap();
            match &row.message {
                Some(message) => {
                    assert_eq!(result.is_error, Some(true), "{tool} {args}");
                    assert_eq!(&tool_text(&result), message, "{tool} {args}");
                }
                None => assert_ne!(result.is_error, Some(true), "{tool} {args}: {}", tool_text(&result)),
            }
            checked += 1;
        }
    }
    assert!(checked >= 25, "{checked}");
}
