//! Console and network entries, parsed from chromedriver's `devtools` log: the
//! DevTools events of [`DEVTOOLS_EVENTS`], console and network in one log, so
//! one WebDriver command per step boundary reads both.

use std::collections::HashMap;

use serde::Serialize;

/// One console message (or a browser-reported error such as a failed load).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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
    /// The browser's id of the request: the same for every hop of a redirect.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
    /// Which hop of a redirect this is (1 for the first redirected request);
    /// absent for a request that was not redirected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redirect_count: Option<u64>,
    /// How a route settled it: `fulfilled` (answered without the server),
    /// `aborted`, `continued`; absent when no route touched it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intercepted: Option<String>,
    /// When it was sent, ms since the Unix epoch (`startedAt`): over the
    /// DevTools protocol and WebDriver BiDi; absent over classic WebDriver
    /// (chromedriver's log gives no wall clock).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<f64>,
}

/// The DevTools events chromedriver records in its `devtools` log for us
/// (`devToolsEventsToLog`): console calls, uncaught exceptions, browser log
/// entries (failed loads, …) and the network events a request goes through.
/// One read of that log gives a step's console and network at once.
pub(crate) const DEVTOOLS_EVENTS: [&str; 7] = [
    "Runtime.consoleAPICalled",
    "Runtime.exceptionThrown",
    "Log.entryAdded",
    "Network.requestWillBeSent",
    "Network.responseReceived",
    "Network.loadingFinished",
    "Network.loadingFailed",
];

/// A console call's level as the browser log names it.
fn console_level(kind: &str) -> &'static str {
    match kind {
        "error" | "assert" => "error",
        "warning" => "warning",
        "debug" => "debug",
        _ => "info",
    }
}

/// One argument of a console call as the console prints it: strings as they
/// are, numbers and other primitives by value, objects by description
/// (`Object`, `Array(2)`).
fn console_arg(a: &serde_json::Value) -> String {
    if let Some(s) = a["value"].as_str().filter(|_| a["type"] == "string") {
        return s.to_string();
    }
    if let Some(u) = a["unserializableValue"].as_str() {
        return u.to_string();
    }
    if let Some(d) = a["description"].as_str() {
        return d.to_string();
    }
    match &a["value"] {
        serde_json::Value::Null if a["subtype"] == "null" => "null".to_string(),
        serde_json::Value::Null => a["type"].as_str().unwrap_or("undefined").to_string(),
        v => v.to_string(),
    }
}

/// The console entry of one DevTools event, if it is one.
fn console_entry(method: &str, p: &serde_json::Value) -> Option<ConsoleEntry> {
    let ms = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0) as u64;
    match method {
        "Runtime.consoleAPICalled" => {
            let frame = &p["stackTrace"]["callFrames"][0];
            let text = p["args"]
                .as_array()
                .map(|args| args.iter().map(console_arg).collect::<Vec<_>>().join(" "))
                .unwrap_or_default();
            Some(ConsoleEntry {
                level: console_level(p["type"].as_str().unwrap_or("log")).to_string(),
                text,
                source: "console-api".to_string(),
                url: frame["url"]
                    .as_str()
                    .filter(|u| !u.is_empty())
                    .map(String::from),
                line: frame["lineNumber"].as_u64(),
                timestamp: ms(&p["timestamp"]),
            })
        }
        "Runtime.exceptionThrown" => {
            let d = &p["exceptionDetails"];
            let head = d["text"].as_str().unwrap_or("Uncaught");
            let what = d["exception"]["description"]
                .as_str()
                .and_then(|s| s.lines().next())
                .map(String::from)
                .or_else(|| d["exception"]["value"].as_str().map(String::from));
            Some(ConsoleEntry {
                level: "error".to_string(),
                text: match what {
                    Some(w) => format!("{head} {w}"),
                    None => head.to_string(),
                },
                source: "javascript".to_string(),
                url: d["url"]
                    .as_str()
                    .filter(|u| !u.is_empty())
                    .map(String::from),
                line: d["lineNumber"].as_u64(),
                timestamp: ms(&p["timestamp"]),
            })
        }
        "Log.entryAdded" => {
            let e = &p["entry"];
            Some(ConsoleEntry {
                level: match e["level"].as_str().unwrap_or("info") {
                    "verbose" => "debug",
                    "warning" => "warning",
                    "error" => "error",
                    _ => "info",
                }
                .to_string(),
                text: e["text"].as_str().unwrap_or_default().to_string(),
                source: e["source"].as_str().unwrap_or("other").to_string(),
                url: e["url"]
                    .as_str()
                    .filter(|u| !u.is_empty())
                    .map(String::from),
                line: e["lineNumber"].as_u64(),
                timestamp: ms(&e["timestamp"]),
            })
        }
        _ => None,
    }
}

/// Parses one read of chromedriver's `devtools` log (entries whose `message`
/// is a DevTools event `{method, params}`) into the console entries and the
/// finished requests since the previous read; requests still open stay in
/// `pending`.
pub(crate) fn devtools(
    entries: &serde_json::Value,
    pending: &mut Pending,
) -> (Vec<ConsoleEntry>, Vec<NetworkEntry>) {
    let (mut console, mut done) = (Vec::new(), Vec::new());
    let Some(list) = entries.as_array() else {
        return (console, done);
    };
    for e in list {
        let Some(msg) = e["message"]
            .as_str()
            .and_then(|m| serde_json::from_str::<serde_json::Value>(m).ok())
        else {
            continue;
        };
        let method = msg["method"].as_str().unwrap_or_default();
        match devtools_event(method, &msg["params"], pending) {
            Some(Logged::Console(c)) => console.push(c),
            Some(Logged::Network(n)) => done.push(n),
            None => {}
        }
    }
    (console, done)
}

/// What one DevTools event adds to a page's log.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Logged {
    /// A console message.
    Console(ConsoleEntry),
    /// A request that finished (or failed).
    Network(NetworkEntry),
}

/// One DevTools event of [`DEVTOOLS_EVENTS`], its `method` and `params`, as
/// chromedriver's log records it or as a DevTools session receives it live:
/// a console entry, a finished request, or nothing yet (a request under way
/// is followed in `pending`; any other event is ignored).
pub(crate) fn devtools_event(
    method: &str,
    params: &serde_json::Value,
    pending: &mut Pending,
) -> Option<Logged> {
    if let Some(c) = console_entry(method, params) {
        return Some(Logged::Console(c));
    }
    network_event(method, params, pending).map(Logged::Network)
}

/// Requests being followed across log reads: requestId → (entry, start time in s).
pub(crate) type Pending = HashMap<String, (NetworkEntry, f64)>;

/// Folds one network event into `pending`; returns the request it finished
/// (or failed), if any.
fn network_event(
    method: &str,
    p: &serde_json::Value,
    pending: &mut Pending,
) -> Option<NetworkEntry> {
    let id = p["requestId"].as_str().unwrap_or_default().to_string();
    match method {
        "Network.requestWillBeSent" => {
            let url = p["request"]["url"].as_str().unwrap_or_default();
            if url.starts_with("data:") {
                return None;
            }
            let entry = NetworkEntry {
                method: p["request"]["method"].as_str().unwrap_or("GET").to_string(),
                url: url.to_string(),
                status: None,
                kind: p["type"].as_str().unwrap_or("Other").to_string(),
                timing: None,
                failure: None,
                request_id: Some(id.clone()),
                redirect_count: None,
                intercepted: None,
                started_at: None,
            };
            pending.insert(id, (entry, p["timestamp"].as_f64().unwrap_or(0.0)));
            None
        }
        "Network.responseReceived" => {
            if let Some((entry, _)) = pending.get_mut(&id) {
                entry.status = p["response"]["status"].as_u64();
                if let Some(t) = p["type"].as_str() {
                    entry.kind = t.to_string();
                }
            }
            None
        }
        "Network.loadingFinished" | "Network.loadingFailed" => {
            let (mut entry, start) = pending.remove(&id)?;
            let end = p["timestamp"].as_f64().unwrap_or(start);
            entry.timing = Some(((end - start) * 1000.0 * 10.0).round() / 10.0);
            if method == "Network.loadingFailed" {
                entry.failure = Some(p["errorText"].as_str().unwrap_or("failed").to_string());
            }
            Some(entry)
        }
        _ => None,
    }
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

    fn ev(method: &str, params: serde_json::Value) -> serde_json::Value {
        serde_json::json!({"message": serde_json::json!({"method": method, "params": params}).to_string()})
    }

    #[test]
    fn console_events_read_as_the_console_prints_them() {
        let v = serde_json::json!([
            ev(
                "Runtime.consoleAPICalled",
                serde_json::json!({"type": "log", "timestamp": 5.5,
                "args": [{"type": "string", "value": "clicked"}, {"type": "number", "value": 1, "description": "1"}],
                "stackTrace": {"callFrames": [{"url": "http://127.0.0.1:1/play", "lineNumber": 3}]}})
            ),
            ev(
                "Runtime.consoleAPICalled",
                serde_json::json!({"type": "error", "timestamp": 6,
                "args": [{"type": "string", "value": "a \"b\""}, {"type": "boolean", "value": true},
                         {"type": "object", "className": "Object", "description": "Object"},
                         {"type": "undefined"}, {"type": "object", "subtype": "null", "value": null},
                         {"type": "number", "unserializableValue": "NaN", "description": "NaN"}]})
            ),
            ev(
                "Runtime.exceptionThrown",
                serde_json::json!({"timestamp": 7.0, "exceptionDetails": {
                "text": "Uncaught", "url": "http://127.0.0.1:1/console", "lineNumber": 4,
                "exception": {"description": "Error: demo: boom\n    at x:5:30"}}})
            ),
            ev(
                "Log.entryAdded",
                serde_json::json!({"entry": {"level": "error", "source": "network",
                "text": "Failed to load resource: the server responded with a status of 404 (Not Found)",
                "url": "http://127.0.0.1:1/api/missing", "timestamp": 8.0}})
            ),
        ]);
        let (c, n) = devtools(&v, &mut Pending::new());
        assert!(n.is_empty());
        assert_eq!(c[0].text, "clicked 1");
        assert_eq!(
            (c[0].level.as_str(), c[0].line, c[0].timestamp),
            ("info", Some(3), 5)
        );
        assert_eq!(c[0].url.as_deref(), Some("http://127.0.0.1:1/play"));
        assert_eq!(c[1].text, "a \"b\" true Object undefined null NaN");
        assert_eq!(c[1].level, "error");
        assert_eq!(c[2].text, "Uncaught Error: demo: boom");
        assert_eq!(
            (c[2].source.as_str(), c[2].level.as_str()),
            ("javascript", "error")
        );
        assert_eq!(
            (c[3].source.as_str(), c[3].level.as_str()),
            ("network", "error")
        );
        assert!(
            c[3].text.starts_with("Failed to load resource"),
            "{:?}",
            c[3]
        );
    }

    #[test]
    fn network_events_fold_into_entries() {
        let v = serde_json::json!([
            ev(
                "Network.requestWillBeSent",
                serde_json::json!({"requestId": "1", "timestamp": 1.0, "type": "Fetch", "request": {"url": "http://x/api", "method": "GET"}})
            ),
            ev(
                "Network.responseReceived",
                serde_json::json!({"requestId": "1", "type": "Fetch", "response": {"status": 404}})
            ),
            ev(
                "Network.requestWillBeSent",
                serde_json::json!({"requestId": "2", "timestamp": 1.0, "request": {"url": "http://x/slow", "method": "GET"}})
            ),
            ev(
                "Runtime.consoleAPICalled",
                serde_json::json!({"type": "log", "args": [{"type": "string", "value": "between"}]})
            ),
            ev(
                "Network.loadingFinished",
                serde_json::json!({"requestId": "1", "timestamp": 1.25})
            ),
        ]);
        let mut pending = Pending::new();
        let (console, done) = devtools(&v, &mut pending);
        assert_eq!(console.len(), 1, "console and network from one read");
        assert_eq!(done.len(), 1);
        assert_eq!((done[0].status, done[0].timing), (Some(404), Some(250.0)));
        assert!(pending.contains_key("2"));
        assert!(
            answered(&mut pending).is_empty(),
            "no response yet: stays pending"
        );
        let (_, got) = devtools(
            &serde_json::json!([ev(
                "Network.responseReceived",
                serde_json::json!({"requestId": "2", "type": "XHR", "response": {"status": 200}})
            )]),
            &mut pending,
        );
        assert!(got.is_empty());
        let answered = answered(&mut pending);
        assert_eq!((answered[0].status, answered[0].timing), (Some(200), None));
        assert!(pending.is_empty());
    }
}
