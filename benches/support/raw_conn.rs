//! A minimal JSON message connection for `benches/protocols.rs`: the Chrome
//! DevTools protocol (`{id, method, params, sessionId?}` answered by
//! `{id, result | error}`) and WebDriver BiDi (`{id, method, params}` answered
//! by `{id, type, result | error}`) over Chromium's debugging pipe (each
//! message JSON followed by one NUL byte) or a WebSocket.
//!
//! One reader task parses every message and hands an answer to the caller
//! waiting for its id (a oneshot), events to one channel; the caller writes
//! its command itself, under a lock (no writer task between them). Included
//! with `#[path]`.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use futures_util::stream::SplitSink;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;
use tokio::sync::{Mutex, mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// How long one command may wait for its answer.
const ANSWER_WITHIN: Duration = Duration::from_secs(30);

enum Writer {
    Pipe(pipe::Sender),
    Ws(SplitSink<Ws, Message>),
}

type Waiting = Arc<StdMutex<HashMap<u64, oneshot::Sender<Value>>>>;

/// One connection: commands out, answers and events in.
pub struct Conn {
    writer: Mutex<Writer>,
    next: AtomicU64,
    waiting: Waiting,
    events: Mutex<mpsc::UnboundedReceiver<Value>>,
}

impl Conn {
    /// Over a debugging pipe: `to` is the browser's fd 3, `from` its fd 4.
    pub fn pipe(to: pipe::Sender, mut from: pipe::Receiver) -> Arc<Conn> {
        let (conn, waiting, events) = Conn::new(Writer::Pipe(to));
        tokio::spawn(async move {
            let mut buf: Vec<u8> = Vec::with_capacity(1 << 16);
            let mut chunk = vec![0u8; 1 << 16];
            loop {
                let n = match from.read(&mut chunk).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                buf.extend_from_slice(&chunk[..n]);
                let mut start = 0;
                while let Some(end) = buf[start..].iter().position(|&b| b == 0) {
                    if let Ok(v) = serde_json::from_slice::<Value>(&buf[start..start + end]) {
                        dispatch(&waiting, &events, v);
                    }
                    start += end + 1;
                }
                buf.drain(..start);
            }
            waiting.lock().expect("waiting lock").clear();
        });
        conn
    }

    /// Over a WebSocket at `url`.
    pub async fn ws(url: &str) -> Result<Arc<Conn>, String> {
        let (socket, _) = tokio_tungstenite::connect_async(url)
            .await
            .map_err(|e| format!("connecting to {url}: {e}"))?;
        let (sink, mut stream) = socket.split();
        let (conn, waiting, events) = Conn::new(Writer::Ws(sink));
        tokio::spawn(async move {
            while let Some(Ok(m)) = stream.next().await {
                let Message::Text(text) = m else { continue };
                if let Ok(v) = serde_json::from_str::<Value>(text.as_str()) {
                    dispatch(&waiting, &events, v);
                }
            }
            waiting.lock().expect("waiting lock").clear();
        });
        Ok(conn)
    }

    fn new(writer: Writer) -> (Arc<Conn>, Waiting, mpsc::UnboundedSender<Value>) {
        let waiting: Waiting = Arc::default();
        let (tx, rx) = mpsc::unbounded_channel();
        let conn = Arc::new(Conn {
            writer: Mutex::new(writer),
            next: AtomicU64::new(1),
            waiting: waiting.clone(),
            events: Mutex::new(rx),
        });
        (conn, waiting, tx)
    }

    /// Sends `method` (to a CDP session when `session` is given) and returns
    /// the whole answer (`result` and `error` left for the caller).
    pub async fn call(
        &self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> Result<Value, String> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = s.into();
        }
        let (tx, rx) = oneshot::channel();
        self.waiting.lock().expect("waiting lock").insert(id, tx);
        let written = {
            let mut w = self.writer.lock().await;
            match &mut *w {
                Writer::Pipe(p) => {
                    let mut bytes = msg.to_string().into_bytes();
                    bytes.push(0);
                    p.write_all(&bytes).await.map_err(|e| e.to_string())
                }
                Writer::Ws(s) => s
                    .send(Message::text(msg.to_string()))
                    .await
                    .map_err(|e| e.to_string()),
            }
        };
        if let Err(e) = written {
            self.waiting.lock().expect("waiting lock").remove(&id);
            return Err(format!("{method}: the connection is closed ({e})"));
        }
        match tokio::time::timeout(ANSWER_WITHIN, rx).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(_)) => Err(format!("{method}: the connection closed")),
            Err(_) => Err(format!("{method}: no answer within {ANSWER_WITHIN:?}")),
        }
    }

    /// Sends `method` and returns its `result`, or its error as text.
    pub async fn send(
        &self,
        method: &str,
        params: Value,
        session: Option<&str>,
    ) -> Result<Value, String> {
        let mut v = self.call(method, params, session).await?;
        if v.get("error").is_some_and(|e| !e.is_null()) {
            return Err(format!(
                "{method}: {} {}",
                v["error"],
                v["message"].as_str().unwrap_or_default()
            ));
        }
        Ok(v["result"].take())
    }

    /// Waits for the first event `wanted` accepts (earlier ones are dropped).
    pub async fn event(
        &self,
        within: Duration,
        mut wanted: impl FnMut(&Value) -> bool,
    ) -> Result<Value, String> {
        let mut events = self.events.lock().await;
        let found = async {
            while let Some(v) = events.recv().await {
                if wanted(&v) {
                    return Ok(v);
                }
            }
            Err("the connection closed".to_string())
        };
        tokio::time::timeout(within, found)
            .await
            .map_err(|_| format!("no such event within {within:?}"))?
    }

    /// Drops the events received so far.
    pub async fn drain_events(&self) {
        let mut events = self.events.lock().await;
        while events.try_recv().is_ok() {}
    }
}

fn dispatch(waiting: &Waiting, events: &mpsc::UnboundedSender<Value>, v: Value) {
    if let Some(id) = v.get("id").and_then(Value::as_u64) {
        let waiter = waiting.lock().expect("waiting lock").remove(&id);
        if let Some(w) = waiter {
            let _ = w.send(v);
        }
    } else {
        let _ = events.send(v);
    }
}
