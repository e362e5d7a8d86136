//! A small HTTP client: the probes' GET (plain HTTP; the app under test is
//! usually on loopback), and `send`, the client of `s.request()` (HTTP and
//! HTTPS, a body read up to `RESPONSE_LIMIT`).

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
    Body(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The response's body is larger than a response held in memory may be.
    #[error(
        "the response body is larger than {} MiB, the most a response is read into memory; \
         fetch large files with `s.command(\"curl\")` or stream them yourself",
        .limit >> 20
    )]
    TooLarge {
        /// The limit, in bytes.
        limit: usize,
    },
    /// No whole response within the time given.
    #[error("no response within {:.1} s", .0.as_secs_f64())]
    Timeout(std::time::Duration),
}

/// The most of a response body `send` reads into memory (64 MiB).
pub(crate) const RESPONSE_LIMIT: usize = 64 << 20;

/// Sends `request` (plain HTTP or HTTPS) and reads the whole response, all
/// within `timeout`; a body over `RESPONSE_LIMIT` is an error.
pub(crate) async fn send(
    request: hyper::Request<http_body_util::Full<Bytes>>,
    timeout: std::time::Duration,
) -> Result<hyper::Response<Bytes>, SendError> {
    send_limited(request, timeout, RESPONSE_LIMIT).await
}

async fn send_limited(
    request: hyper::Request<http_body_util::Full<Bytes>>,
    timeout: std::time::Duration,
    limit: usize,
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
        let body = http_body_util::Limited::new(body, limit)
            .collect()
            .await
            .map_err(|e| {
                if e.is::<http_body_util::LengthLimitError>() {
                    SendError::TooLarge { limit }
                } else {
                    SendError::Body(e)
                }
            })?
            .to_bytes();
        Ok(hyper::Response::from_parts(parts, body))
    };
    tokio::time::timeout(timeout, exchange)
        .await
        .unwrap_or(Err(SendError::Timeout(timeout)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A body over the limit is refused while it is read (never held whole),
    /// naming the limit; one at the limit is read.
    #[tokio::test]
    async fn a_body_over_the_limit_is_refused_naming_it() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            loop {
                let (mut conn, _) = listener.accept().await.unwrap();
                let mut buf = [0u8; 1024];
                let _ = conn.read(&mut buf).await;
                let body = vec![b'x'; 2 << 20];
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = conn.write_all(head.as_bytes()).await;
                let _ = conn.write_all(&body).await;
            }
        });
        let request = || {
            hyper::Request::get(format!("http://{addr}/big"))
                .body(http_body_util::Full::new(Bytes::new()))
                .unwrap()
        };
        let timeout = std::time::Duration::from_secs(30);
        let err = send_limited(request(), timeout, 1 << 20).await.unwrap_err();
        assert!(
            matches!(err, SendError::TooLarge { limit } if limit == 1 << 20),
            "{err}"
        );
        assert!(err.to_string().contains("larger than 1 MiB"), "{err}");
        let res = send_limited(request(), timeout, 2 << 20).await.unwrap();
        assert_eq!(res.body().len(), 2 << 20);
    }
}
