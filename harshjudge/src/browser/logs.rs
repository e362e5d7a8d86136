//! Console and network entries, parsed from chromedriver's `browser` and
//! `performance` logs (`goog:loggingPrefs`).

use std::collections::HashMap;

use serde::Serialize;

/// One console message (or a browser-reported error such as a failed load).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleEntry {
    /// `info`, `warning`, `error`, `debug`.
    pub level: String,
    /// The message text.
    pub text: String,
    /// `console-api`, `javascript`, `network`, … as chromedriver reports it.
    pub source: String,
    /// The script or resource URL, when known.
    pub url: Option<String>,
    /// Its line, when known.
    pub line: Option<u64>,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
}

/// One request of the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkEntry {
    /// GET, POST, …
    pub method: String,
    /// The URL requested.
    pub url: String,
    /// The HTTP status (none when it failed or is still pending).
    pub status: Option<u64>,
    /// Document, Fetch, XHR, Script, Image, …
    #[serde(rename = "type")]
    pub kind: String,
    /// Milliseconds from request to end of loading (or failure).
    pub timing: Option<f64>,
    /// Why it failed (`net::ERR_…`), if it did.
    pub failure: Option<String>,
}

fn level(l: &str) -> String {
    match l {
        "SEVERE" => "error",
        "WARNING" => "warning",
        "DEBUG" | "FINE" => "debug",
        _ => "info",
    }
    .to_string()
}

/// Parses chromedriver's browser log entries (`{level, message, source, timestamp}`).
/// Messages look like `http://host/page 12:15 "text"` for console calls.
pub(crate) fn console(entries: &serde_json::Value) -> Vec<ConsoleEntry> {
    let Some(list) = entries.as_array() else {
        return vec![];
    };
    list.iter()
        .map(|e| {
            let message = e["message"].as_str().unwrap_or_default();
            let source = e["source"].as_str().unwrap_or("").to_string();
            let (mut url, mut line, mut text) = (None, None, message.to_string());
            let mut parts = message.splitn(3, ' ');
            if let (Some(u), Some(pos), Some(rest)) = (parts.next(), parts.next(), parts.next())
                && u.contains("://")
            {
                url = Some(u.to_string());
                if let Some((l, _col)) = pos.split_once(':')
                    && let Ok(l) = l.parse()
                {
                    line = Some(l);
                    text = console_args(rest);
                } else {
                    // `url - Failed to load resource: …`
                    text = format!("{pos} {rest}").trim_start_matches("- ").to_string();
                }
            }
            ConsoleEntry {
                level: level(e["level"].as_str().unwrap_or("INFO")),
                text,
                source,
                url,
                line,
                timestamp: e["timestamp"].as_u64().unwrap_or(0),
            }
        })
        .collect()
}

/// The arguments of a console call as the page printed them: chromedriver
/// writes `console.log('clicked', 1)` as `"clicked" 1` (strings as JSON
/// literals, other values as they print); strings lose their quotes, arguments
/// are joined by one space, as in the browser's console.
fn console_args(rest: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut s = rest.trim_start();
    while !s.is_empty() {
        if s.starts_with('"') {
            let mut stream = serde_json::Deserializer::from_str(s).into_iter::<String>();
            if let Some(Ok(v)) = stream.next() {
                out.push(v);
                s = s[stream.byte_offset()..].trim_start();
                continue;
            }
        }
        // A value that is not a string: up to the next string argument.
        let end = s.find(" \"").unwrap_or(s.len());
        out.push(s[..end].to_string());
        s = s[end..].trim_start();
    }
    out.join(" ")
}

/// Requests being followed across log reads: requestId → (entry, start time in s).
pub(crate) type Pending = HashMap<String, (NetworkEntry, f64)>;

/// Folds performance-log events into network entries. Requests finished (or
/// failed) are returned; those still open stay in `pending`.
pub(crate) fn network(entries: &serde_json::Value, pending: &mut Pending) -> Vec<NetworkEntry> {
    let mut done = Vec::new();
    let Some(list) = entries.as_array() else {
        return done;
    };
    for e in list {
        let Some(msg) = e["message"]
            .as_str()
            .and_then(|m| serde_json::from_str::<serde_json::Value>(m).ok())
        else {
            continue;
        };
        let method = msg["message"]["method"].as_str().unwrap_or_default();
        let p = &msg["message"]["params"];
        let id = p["requestId"].as_str().unwrap_or_default().to_string();
        match method {
            "Network.requestWillBeSent" => {
                let url = p["request"]["url"].as_str().unwrap_or_default();
                if url.starts_with("data:") {
                    continue;
                }
                let entry = NetworkEntry {
                    method: p["request"]["method"].as_str().unwrap_or("GET").to_string(),
                    url: url.to_string(),
                    status: None,
                    kind: p["type"].as_str().unwrap_or("Other").to_string(),
                    timing: None,
                    failure: None,
                };
                pending.insert(id, (entry, p["timestamp"].as_f64().unwrap_or(0.0)));
            }
            "Network.responseReceived" => {
                if let Some((entry, _)) = pending.get_mut(&id) {
                    entry.status = p["response"]["status"].as_u64();
                    if let Some(t) = p["type"].as_str() {
                        entry.kind = t.to_string();
                    }
                }
            }
            "Network.loadingFinished" | "Network.loadingFailed" => {
                if let Some((mut entry, start)) = pending.remove(&id) {
                    let end = p["timestamp"].as_f64().unwrap_or(start);
                    entry.timing = Some(((end - start) * 1000.0 * 10.0).round() / 10.0);
                    if method == "Network.loadingFailed" {
                        entry.failure =
                            Some(p["errorText"].as_str().unwrap_or("failed").to_string());
                    }
                    done.push(entry);
                }
            }
            _ => {}
        }
    }
    done
}

/// Takes out of `pending` the requests that already have a response (their body
/// still loading), so they are reported with the step that made them; a later
/// `loadingFinished` for them is then ignored. Unanswered ones stay pending.
pub(crate) fn answered(pending: &mut Pending) -> Vec<NetworkEntry> {
    let ids: Vec<String> = pending
        .iter()
        .filter(|(_, (e, _))| e.status.is_some())
        .map(|(id, _)| id.clone())
        .collect();
    let mut out: Vec<NetworkEntry> = ids
        .into_iter()
        .filter_map(|id| pending.remove(&id).map(|(e, _)| e))
        .collect();
    out.sort_by(|a, b| a.url.cmp(&b.url));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn console_messages_are_split() {
        let v = serde_json::json!([
            {"level": "INFO", "message": "http://127.0.0.1:1/console 12:15 \"demo: page loaded\"", "source": "console-api", "timestamp": 5},
            {"level": "SEVERE", "message": "http://127.0.0.1:1/api/missing - Failed to load resource: the server responded with a status of 404 (Not Found)", "source": "network", "timestamp": 6},
        ]);
        let c = console(&v);
        assert_eq!(c[0].text, "demo: page loaded");
        let args = console(&serde_json::json!([
            {"level": "INFO", "message": "http://127.0.0.1:1/play 3:9 \"clicked\" 1", "source": "console-api", "timestamp": 7},
            {"level": "INFO", "message": "http://127.0.0.1:1/play 3:9 \"a \\\"b\\\"\" true Object \"c\"", "source": "console-api", "timestamp": 7},
        ]));
        assert_eq!(args[0].text, "clicked 1");
        assert_eq!(args[1].text, "a \"b\" true Object c");
        assert_eq!((c[0].level.as_str(), c[0].line), ("info", Some(12)));
        assert_eq!(c[1].level, "error");
        assert!(
            c[1].text.starts_with("Failed to load resource"),
            "{:?}",
            c[1]
        );
    }

    #[test]
    fn network_events_fold_into_entries() {
        let ev = |m: serde_json::Value| serde_json::json!({"message": serde_json::json!({"message": m}).to_string()});
        let v = serde_json::json!([
            ev(
                serde_json::json!({"method": "Network.requestWillBeSent", "params": {"requestId": "1", "timestamp": 1.0, "type": "Fetch", "request": {"url": "http://x/api", "method": "GET"}}})
            ),
            ev(
                serde_json::json!({"method": "Network.responseReceived", "params": {"requestId": "1", "type": "Fetch", "response": {"status": 404}}})
            ),
            ev(
                serde_json::json!({"method": "Network.requestWillBeSent", "params": {"requestId": "2", "timestamp": 1.0, "request": {"url": "http://x/slow", "method": "GET"}}})
            ),
            ev(
                serde_json::json!({"method": "Network.loadingFinished", "params": {"requestId": "1", "timestamp": 1.25}})
            ),
        ]);
        let mut pending = Pending::new();
        let done = network(&v, &mut pending);
        assert_eq!(done.len(), 1);
        assert_eq!((done[0].status, done[0].timing), (Some(404), Some(250.0)));
        assert!(pending.contains_key("2"));
        assert!(
            answered(&mut pending).is_empty(),
            "no response yet: stays pending"
        );
        let got = network(
            &serde_json::json!([ev(
                serde_json::json!({"method": "Network.responseReceived", "params": {"requestId": "2", "type": "XHR", "response": {"status": 200}}})
            )]),
            &mut pending,
        );
        assert!(got.is_empty());
        let answered = answered(&mut pending);
        assert_eq!((answered[0].status, answered[0].timing), (Some(200), None));
        assert!(pending.is_empty());
    }
}
