//! An axum app serving STC to clients that ask for it: one `.layer` line.
//!
//! ```text
//! cargo run -p stc-http --example axum_app
//! curl -H 'Accept: application/stc+json' http://127.0.0.1:3000/users
//! ```
#![forbid(unsafe_code)]

use axum::{routing::get, Json, Router};
use serde_json::{json, Value};
use tower_http::compression::CompressionLayer;

async fn users() -> Json<Value> {
    let rows: Vec<Value> =
        (1..=20).map(|i| json!({"id": i, "name": format!("user{i}"), "active": i % 2 == 0})).collect();
    Json(Value::Array(rows))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let app = Router::new()
        .route("/users", get(users))
        .layer(stc_http::StcLayer::new()) // STC for clients that ask for it
        .layer(CompressionLayer::new()); // then gzip/br, outside STC
    let addr = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:3000".to_string());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}
