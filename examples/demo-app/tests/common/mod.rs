//! The tests' HTTP helpers: the crate's client, panicking on transport errors.
#![allow(dead_code)]

use std::net::SocketAddr;

pub use demo_app::client::{Response, request};

pub trait JsonBody {
    fn json(&self) -> serde_json::Value;
}

impl JsonBody for Response {
    fn json(&self) -> serde_json::Value {
        self.parse_json().unwrap()
    }
}

pub async fn get(addr: SocketAddr, path: &str) -> Response {
    request(addr, "GET", path, None)
        .await
        .unwrap_or_else(|err| panic!("GET {path}: {err}"))
}

pub async fn post(addr: SocketAddr, path: &str, body: &str) -> Response {
    request(addr, "POST", path, Some(body))
        .await
        .unwrap_or_else(|err| panic!("POST {path}: {err}"))
}

pub async fn delete(addr: SocketAddr, path: &str) -> Response {
    request(addr, "DELETE", path, None)
        .await
        .unwrap_or_else(|err| panic!("DELETE {path}: {err}"))
}
