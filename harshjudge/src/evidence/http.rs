//! A small HTTP client for probes (plain HTTP; the app under test is usually on loopback).

use std::time::Instant;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

use crate::error::Error;

/// GETs `url` and describes the response as JSON evidence:
/// `{url, status, headers, body, durationMs}` (`body` parsed as JSON when it is JSON).
pub(crate) async fn get_json_evidence(url: &str) -> Result<serde_json::Value, Error> {
    let uri: hyper::Uri = url
        .parse()
        .map_err(|e| Error::msg(format!("HTTP probe: {url:?} is not a URL: {e}")))?;
    let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
    let started = Instant::now();
    let res = client
        .get(uri)
        .await
        .map_err(|e| Error::msg(format!("HTTP probe: GET {url}: {e}")))?;
    let status = res.status().as_u16();
    let headers: serde_json::Map<String, serde_json::Value> = res
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned().into(),
            )
        })
        .collect();
    let body = res
        .into_body()
        .collect()
        .await
        .map_err(|e| Error::msg(format!("HTTP probe: GET {url}: reading the body: {e}")))?
        .to_bytes();
    let body: serde_json::Value = serde_json::from_slice(&body)
        .unwrap_or_else(|_| String::from_utf8_lossy(&body).into_owned().into());
    Ok(serde_json::json!({
        "url": url,
        "status": status,
        "headers": headers,
        "body": body,
        "durationMs": started.elapsed().as_millis() as u64,
    }))
}

/// Why a request got no whole response (an API request of a scenario, `s.request()`).
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// The connection or the request failed.
    #[error("{0}")]
    Request(#[source] hyper_util::client::legacy::Error),
    /// The response's body could not be read.
    #[error("reading the body: {0}")]
    Body(#[source] hyper::Error),
    /// No whole response within the time given.
    #[error("no response within {:.1} s", .0.as_secs_f64())]
    Timeout(std::time::Duration),
}

/// Sends `request` (plain HTTP or HTTPS) and reads the whole response, all
/// within `timeout`.
pub(crate) async fn send(
    request: hyper::Request<http_body_util::Full<Bytes>>,
    timeout: std::time::Duration,
) -> Result<hyper::Response<Bytes>, SendError> {
    let https = hyper_rustls::HttpsConnectorBuilder::new()
        .with_webpki_roots()
        .https_or_http()
        .enable_http1()
        .build();
    let client =
        Client::builder(TokioExecutor::new()).build::<_, http_body_util::Full<Bytes>>(https);
    let exchange = async {
        let res = client.request(request).await.map_err(SendError::Request)?;
        let (parts, body) = res.into_parts();
        let body = body.collect().await.map_err(SendError::Body)?.to_bytes();
        Ok(hyper::Response::from_parts(parts, body))
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .unwrap_or(Err(SendError::Timeout(timeout)))
}
