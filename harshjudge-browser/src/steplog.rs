//! The step's console and network as a backend reports them, in no
//! protocol's words: console entries ([`StepLog::console`]) and the
//! [`NetEvent`]s of each request, from its sending to its response's end or
//! its failure, each hop of a redirect under its request id (BiDi's events
//! become these in `bidi/adapt.rs`). What arrived before a step boundary
//! belongs to that step ([`StepLog::take`]).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::sync::{Notify, oneshot};

use super::glob::Matcher;
use super::logs::{ConsoleEntry, NetworkEntry};
use super::request::{Request, ResponseInfo};

/// How long a step boundary waits for requests still in flight.
const SETTLE: Duration = Duration::from_millis(250);

/// What a waiter of `wait_for_request`/`wait_for_response` is told.
pub(crate) enum Seen {
    /// A request was sent.
    Request(Request),
    /// A response arrived.
    Response(ResponseInfo),
}

struct Waiter {
    matcher: Matcher,
    response: bool,
    tx: Option<oneshot::Sender<Seen>>,
}

/// One request being followed: its entry, when it started (ms), its
/// request as sent, and whether its response was told to the waiters.
struct Open {
    entry: NetworkEntry,
    start: f64,
    request: Request,
    told: bool,
}

#[derive(Default)]
struct State {
    console: Vec<ConsoleEntry>,
    done: Vec<NetworkEntry>,
    /// (request id, redirect count) → the request.
    open: HashMap<(String, u64), Open>,
    /// How routes settled requests: request id → `fulfilled`, `aborted`, `continued`.
    marks: HashMap<String, &'static str>,
    waiters: Vec<Waiter>,
    downloads: Downloads,
    /// The latest request of each image, font or stylesheet URL (or one of
    /// no known kind), across steps (the trace reads its body back when it
    /// keeps a step).
    resources: Resources,
}

/// The latest request of each image, font or stylesheet URL the page
/// loaded (D10 of docs/design/trace.md): at most [`MAX_RESOURCES`] URLs,
/// the oldest out.
#[derive(Default)]
struct Resources {
    /// (URL, request id, its response's `Content-Type` once answered), the
    /// latest last.
    latest: VecDeque<(String, String, Option<String>)>,
}

/// The URLs [`Resources`] keeps.
pub(crate) const MAX_RESOURCES: usize = 512;

/// A resource's latest request, as [`StepLog::resource`] answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Recorded {
    /// The request's id (its body is read back by it).
    pub request: String,
    /// Its response's `Content-Type`, once answered.
    pub mime: Option<String>,
}

impl Resources {
    fn sent(&mut self, url: &str, id: &str) {
        self.latest.retain(|(u, _, _)| u != url);
        if self.latest.len() >= MAX_RESOURCES {
            self.latest.pop_front();
        }
        self.latest
            .push_back((url.to_string(), id.to_string(), None));
    }

    fn answered(&mut self, id: &str, headers: &[(String, String)]) {
        let Some(mime) = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
            .map(|(_, v)| v)
        else {
            return;
        };
        for (_, _, m) in self.latest.iter_mut().filter(|(_, i, _)| i == id) {
            *m = Some(mime.clone());
        }
    }
}

/// How many recent downloads a late fetch error is matched against.
const DOWNLOADS_KEPT: usize = 16;
/// Marks kept for requests the browser has not told of yet; past it, they are
/// dropped (a request the browser never tells of must not grow the log).
const MAX_UNSEEN_MARKS: usize = 4096;

/// Where a load began or ended: its browsing context, its navigation (none
/// for a request no navigation made) and its URL.
#[derive(Clone, Debug, Default, PartialEq)]
struct LoadOf {
    context: String,
    navigation: Option<String>,
    url: String,
}

impl LoadOf {
    fn of(context: &str, navigation: Option<&str>, url: &str) -> LoadOf {
        LoadOf {
            context: context.to_string(),
            navigation: navigation.filter(|n| !n.is_empty()).map(String::from),
            url: url.to_string(),
        }
    }

    /// The same load: the same navigation when both name one, else the same
    /// URL in the same context.
    fn same(&self, other: &LoadOf) -> bool {
        match (&self.navigation, &other.navigation) {
            (Some(a), Some(b)) => a == b,
            _ => self.context == other.context && self.url == other.url,
        }
    }
}

/// The classifier of failed loads that are downloads: the recent downloads
/// (kept across step boundaries, a fetch error may come in the next step),
/// and the step's console entries of failed loads a download may yet explain.
#[derive(Default)]
struct Downloads {
    /// The latest downloads begun: the load, the suggested file name.
    began: VecDeque<(LoadOf, String)>,
    /// Failed loads in the step's console: their index there and the load.
    failed: Vec<(usize, LoadOf, String)>,
    /// Canceled loads of the step, in no console: a download that begins
    /// later in the step adds its `info` entry.
    canceled: Vec<(LoadOf, ConsoleEntry, String)>,
}

impl Downloads {
    /// The download `load` became, if one began.
    fn of(&self, load: &LoadOf) -> Option<&str> {
        self.began
            .iter()
            .rev()
            .find(|(l, _)| l.same(load))
            .map(|(_, name)| name.as_str())
    }

    /// A download began: remembered, and the failed loads already in the
    /// step's console that were its request become what they are.
    fn began(&mut self, load: LoadOf, name: String, console: &mut Vec<ConsoleEntry>) {
        self.canceled.retain(|(canceled, entry, error)| {
            if !canceled.same(&load) {
                return true;
            }
            console.push(became_download(entry.clone(), &name, error));
            false
        });
        self.failed.retain(|(i, failed, error)| {
            if !failed.same(&load) {
                return true;
            }
            if let Some(entry) = console.get_mut(*i) {
                *entry = became_download(entry.clone(), &name, error);
            }
            false
        });
        if self.began.len() == DOWNLOADS_KEPT {
            self.began.pop_front();
        }
        self.began.push_back((load, name));
    }
}

/// The console entry of a load that ended because it became a download:
/// `info`, saying so, in place of the failed load's error.
fn became_download(failed: ConsoleEntry, name: &str, error: &str) -> ConsoleEntry {
    let url = failed.url.clone().unwrap_or_default();
    ConsoleEntry {
        level: "info".into(),
        text: format!(
            "the load of {url} became a download ({name:?}); it ended with {error}, as a download's load does"
        ),
        source: "download".into(),
        ..failed
    }
}

/// What a backend tells of a request, hop by hop (a redirect's hops share
/// the request's id, `redirect` counting them); times in ms.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum NetEvent {
    /// A request was sent; `kind`: its resource type as the classic path
    /// names it (Document, Script, Fetch, XHR, …).
    Sent {
        request: Request,
        redirect: u64,
        kind: String,
        at: f64,
    },
    /// A response's headers arrived, or (`completed`) its body.
    Response {
        id: String,
        redirect: u64,
        at: Option<f64>,
        status: Option<u64>,
        status_text: String,
        headers: Vec<(String, String)>,
        completed: bool,
    },
    /// A request failed (`error`: the browser's words); `context` and
    /// `navigation` (none for a request no navigation made) name its load.
    /// `canceled`: the page or the browser gave it up (a navigation away, a
    /// download): no console error, as Chromium's own console writes none.
    Failed {
        id: String,
        redirect: u64,
        at: Option<f64>,
        error: Option<String>,
        context: String,
        navigation: Option<String>,
        canceled: bool,
    },
    /// A navigation of `context` to `url` became a download of the file `name`.
    Download {
        context: String,
        navigation: Option<String>,
        url: String,
        name: String,
    },
}

/// The events of one session, kept until the step boundary takes them.
#[derive(Default)]
pub(crate) struct StepLog {
    state: Mutex<State>,
    changed: Notify,
}

/// The reason phrase Chromium's console names with a failed load's status.
fn reason(status: u64, text: &str) -> String {
    if !text.is_empty() {
        return text.to_string();
    }
    http::StatusCode::from_u16(status as u16)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("")
        .to_string()
}

impl StepLog {
    /// Folds one network event in.
    pub(crate) fn net(&self, event: NetEvent) {
        let mut s = self.state.lock().expect("step log lock");
        match event {
            NetEvent::Sent {
                request,
                redirect: hop,
                kind,
                at: start,
            } => {
                if request.url.starts_with("data:") {
                    return;
                }
                // `Other`: a remote end that names no destination (chromedriver's
                // BiDi for a font).
                if matches!(kind.as_str(), "Image" | "Font" | "Stylesheet" | "Other") {
                    s.resources.sent(&request.url, &request.id);
                }
                // A redirect: the hop before ends here (if its completion was not seen).
                if hop > 0
                    && let Some(prev) = s.open.remove(&(request.id.clone(), hop - 1))
                {
                    let mut e = prev.entry;
                    e.timing = Some(((start - prev.start) * 10.0).round() / 10.0);
                    s.done.push(e);
                }
                let entry = NetworkEntry {
                    method: request.method.clone(),
                    url: request.url.clone(),
                    status: None,
                    kind,
                    timing: None,
                    failure: None,
                    request_id: Some(request.id.clone()),
                    redirect_count: (hop > 0).then_some(hop),
                    intercepted: None,
                    started_at: Some(start),
                };
                tell(&mut s.waiters, &request.url, false, || {
                    Seen::Request(request.clone())
                });
                s.open.insert(
                    (request.id.clone(), hop),
                    Open {
                        entry,
                        start,
                        request,
                        told: false,
                    },
                );
            }
            NetEvent::Response {
                id,
                redirect,
                at,
                status,
                status_text,
                headers,
                completed,
            } => {
                s.resources.answered(&id, &headers);
                let r = Answer {
                    status,
                    status_text,
                    headers,
                };
                if !response(&mut s, &id, redirect, at, r, completed) {
                    return;
                }
            }
            NetEvent::Download {
                context,
                navigation,
                url,
                name,
            } => {
                let load = LoadOf::of(&context, navigation.as_deref(), &url);
                let State {
                    downloads, console, ..
                } = &mut *s;
                downloads.began(load, name, console);
            }
            NetEvent::Failed {
                id,
                redirect,
                at,
                error,
                context,
                navigation,
                canceled,
            } => {
                let key = (id.clone(), redirect);
                let Some(o) = s.open.remove(&key) else { return };
                let end = at.unwrap_or(o.start);
                let mut e = o.entry;
                e.timing = Some(((end - o.start) * 10.0).round() / 10.0);
                let error = error.unwrap_or_else(|| "failed".to_string());
                e.intercepted = s.marks.get(&id).copied().map(String::from);
                let failed = ConsoleEntry {
                    level: "error".into(),
                    text: format!("Failed to load resource: {error}"),
                    source: "network".into(),
                    url: Some(e.url.clone()),
                    line: None,
                    timestamp: end as u64,
                };
                let load = LoadOf::of(&context, navigation.as_deref(), &e.url);
                let entry = match s.downloads.of(&load) {
                    Some(name) => Some(became_download(failed, name, &error)),
                    None if canceled => {
                        s.downloads.canceled.push((load, failed, error.clone()));
                        None
                    }
                    None => {
                        let i = s.console.len();
                        s.downloads.failed.push((i, load, error.clone()));
                        Some(failed)
                    }
                };
                s.console.extend(entry);
                e.failure = Some(error);
                s.done.push(e);
            }
        }
        drop(s);
        self.changed.notify_waiters();
    }

    /// A console entry: the page's (a console call, a page error) or this
    /// side's own (a route's handler that failed).
    pub(crate) fn console(&self, entry: ConsoleEntry) {
        self.state
            .lock()
            .expect("step log lock")
            .console
            .push(entry);
        self.changed.notify_waiters();
    }

    /// Marks a request as settled by a route (`fulfilled`, `aborted`, `continued`).
    pub(crate) fn mark(&self, request: &str, how: &'static str) {
        self.state
            .lock()
            .expect("step log lock")
            .marks
            .insert(request.to_string(), how);
    }

    /// Waits for the next request (or response) whose URL matches.
    pub(crate) fn waiter(&self, matcher: Matcher, response: bool) -> oneshot::Receiver<Seen> {
        let (tx, rx) = oneshot::channel();
        let mut s = self.state.lock().expect("step log lock");
        s.waiters
            .retain(|w| w.tx.as_ref().is_some_and(|t| !t.is_closed()));
        s.waiters.push(Waiter {
            matcher,
            response,
            tx: Some(tx),
        });
        rx
    }

    /// The step's console and network so far (network: the finished requests and
    /// those answered; with `pending`, the unanswered ones too), left in place.
    pub(crate) fn peek(&self, pending: bool) -> (Vec<ConsoleEntry>, Vec<NetworkEntry>) {
        let s = self.state.lock().expect("step log lock");
        let mut network = s.done.clone();
        network.extend(
            s.open
                .values()
                .filter(|o| pending || o.entry.status.is_some())
                .map(|o| o.entry.clone()),
        );
        (s.console.clone(), network)
    }

    /// The step's console and network, taken at its boundary: requests still in
    /// flight get a short while to finish; the answered ones are then reported
    /// with this step as they stand, the unanswered stay for the next.
    pub(crate) async fn take(&self) -> (Vec<ConsoleEntry>, Vec<NetworkEntry>) {
        let until = Instant::now() + SETTLE;
        loop {
            let changed = self.changed.notified();
            if self.state.lock().expect("step log lock").open.is_empty() {
                break;
            }
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() || tokio::time::timeout(left, changed).await.is_err() {
                break;
            }
        }
        let mut s = self.state.lock().expect("step log lock");
        let console = std::mem::take(&mut s.console);
        // Their entries leave with the step (a download that begins later
        // no longer finds them there).
        s.downloads.failed.clear();
        s.downloads.canceled.clear();
        let mut network = std::mem::take(&mut s.done);
        let answered: Vec<(String, u64)> = s
            .open
            .iter()
            .filter(|(_, o)| o.entry.status.is_some())
            .map(|(k, _)| k.clone())
            .collect();
        let mut late: Vec<NetworkEntry> = answered
            .into_iter()
            .filter_map(|k| s.open.remove(&k).map(|o| o.entry))
            .collect();
        late.sort_by(|a, b| a.url.cmp(&b.url));
        network.extend(late);
        for e in &mut network {
            if e.intercepted.is_none()
                && let Some(id) = &e.request_id
            {
                e.intercepted = s.marks.get(id).copied().map(String::from);
            }
        }
        // A mark leaves with its request's last entry. A route may settle a
        // request before the browser tells of it (CDP's `Fetch.requestPaused`
        // can come before `Network.requestWillBeSent`): that mark waits for
        // its request, within a bound.
        let open: std::collections::HashSet<String> =
            s.open.keys().map(|(id, _)| id.clone()).collect();
        for id in network.iter().filter_map(|e| e.request_id.as_ref()) {
            if !open.contains(id) {
                s.marks.remove(id);
            }
        }
        if s.marks.len() > MAX_UNSEEN_MARKS {
            s.marks.retain(|id, _| open.contains(id));
        }
        (console, network)
    }

    /// The latest request of the image, font or stylesheet at `url`, while
    /// it is among the last [`MAX_RESOURCES`] such URLs the page loaded.
    pub(crate) fn resource(&self, url: &str) -> Option<Recorded> {
        let s = self.state.lock().expect("step log lock");
        let (_, request, mime) = s.resources.latest.iter().rev().find(|(u, _, _)| u == url)?;
        Some(Recorded {
            request: request.clone(),
            mime: mime.clone(),
        })
    }

    /// Forgets everything (a session going back to the pool).
    pub(crate) fn clear(&self) {
        *self.state.lock().expect("step log lock") = State::default();
    }
}

/// What a response said: its status, reason phrase and headers.
struct Answer {
    status: Option<u64>,
    status_text: String,
    headers: Vec<(String, String)>,
}

/// A response's headers (`completed`: and body) arrived: its status on the
/// request's entry, told to the waiters once; completed, the entry is done
/// (a console error for a failed load that is no document's). Whether its
/// request was being followed.
fn response(
    s: &mut State,
    id: &str,
    redirect: u64,
    at: Option<f64>,
    r: Answer,
    completed: bool,
) -> bool {
    let key = (id.to_string(), redirect);
    let State {
        open,
        waiters,
        done,
        console,
        marks,
        ..
    } = s;
    let Some(o) = open.get_mut(&key) else {
        return false;
    };
    o.entry.status = r.status;
    if !o.told {
        o.told = true;
        let info = ResponseInfo {
            url: o.request.url.clone(),
            status: r.status.unwrap_or(0) as u16,
            status_text: r.status_text.clone(),
            headers: r.headers.clone(),
            request: o.request.clone(),
        };
        tell(waiters, &info.url.clone(), true, || Seen::Response(info));
    }
    if completed {
        let o = open.remove(&key).expect("present");
        let end = at.unwrap_or(o.start);
        let mut e = o.entry;
        e.timing = Some(((end - o.start) * 10.0).round() / 10.0);
        e.intercepted = marks.get(id).copied().map(String::from);
        if let Some(status) = e.status.filter(|s| *s >= 400)
            && e.kind != "Document"
        {
            console.push(ConsoleEntry {
                level: "error".into(),
                text: format!(
                    "Failed to load resource: the server responded with a status of {status} ({})",
                    reason(status, &r.status_text)
                ),
                source: "network".into(),
                url: Some(e.url.clone()),
                line: None,
                timestamp: end as u64,
            });
        }
        done.push(e);
    }
    true
}

/// Tells the first live waiter for `url` (a request's or a response's).
fn tell(waiters: &mut Vec<Waiter>, url: &str, response: bool, seen: impl FnOnce() -> Seen) {
    waiters.retain(|w| w.tx.as_ref().is_some_and(|t| !t.is_closed()));
    let mut seen = Some(seen);
    for w in waiters.iter_mut() {
        if w.response == response && w.matcher.is_match(url) {
            if let (Some(tx), Some(f)) = (w.tx.take(), seen.take()) {
                let _ = tx.send(f());
            }
            break;
        }
    }
    waiters.retain(|w| w.tx.is_some());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bidi::protocol_events::BidiEvent;
    use serde_json::{Value, json};

    /// Folds the BiDi event `method` with `params` in, read as the reader
    /// reads it and turned into this log's vocabulary as the BiDi backend
    /// turns it.
    fn fold(log: &StepLog, method: &str, params: &Value) {
        let event = BidiEvent::parse(&json!({"type": "event", "method": method, "params": params}));
        assert!(!matches!(event, BidiEvent::Malformed { .. }), "{event:?}");
        crate::bidi::feed_step_log(log, &event);
    }

    fn sent(id: &str, url: &str, hop: u64, t: f64) -> Value {
        json!({"request": {"request": id, "url": url, "method": "GET", "headers": [],
            "destination": "", "initiatorType": "fetch"}, "redirectCount": hop, "timestamp": t})
    }

    fn done(id: &str, hop: u64, status: u64, t: f64) -> Value {
        json!({"request": {"request": id}, "redirectCount": hop, "timestamp": t,
            "response": {"status": status, "statusText": "", "headers": []}})
    }

    /// The latest request of each image URL is kept across steps with its
    /// response's type, at most MAX_RESOURCES URLs (the oldest out); other
    /// kinds are not kept; clearing forgets them.
    #[tokio::test]
    async fn the_latest_request_of_each_image_url_is_kept_bounded() {
        let log = StepLog::default();
        let image = |id: &str, url: &str| NetEvent::Sent {
            request: Request {
                id: id.into(),
                url: url.into(),
                method: "GET".into(),
                headers: Vec::new(),
            },
            redirect: 0,
            kind: "Image".into(),
            at: 1.0,
        };
        log.net(image("1", "http://a/logo.png"));
        log.net(image("2", "http://a/logo.png"));
        log.net(NetEvent::Response {
            id: "2".into(),
            redirect: 0,
            at: Some(2.0),
            status: Some(200),
            status_text: String::new(),
            headers: vec![("Content-Type".into(), "image/png".into())],
            completed: true,
        });
        let _ = log.take().await;
        assert_eq!(
            log.resource("http://a/logo.png"),
            Some(Recorded {
                request: "2".into(),
                mime: Some("image/png".into())
            })
        );
        log.net(NetEvent::Sent {
            request: Request {
                id: "3".into(),
                url: "http://a/api".into(),
                method: "GET".into(),
                headers: Vec::new(),
            },
            redirect: 0,
            kind: "Fetch".into(),
            at: 1.0,
        });
        assert_eq!(log.resource("http://a/api"), None);
        for i in 0..MAX_RESOURCES {
            log.net(image(&format!("n{i}"), &format!("http://a/{i}.png")));
        }
        assert_eq!(log.resource("http://a/logo.png"), None, "the oldest out");
        assert_eq!(log.resource("http://a/0.png").unwrap().request, "n0");
        log.clear();
        assert_eq!(log.resource("http://a/0.png"), None);
    }

    #[tokio::test]
    async fn a_redirect_keeps_its_request_id_and_each_hop_is_an_entry() {
        let log = StepLog::default();
        fold(
            &log,
            "network.beforeRequestSent",
            &sent("7", "http://a/old", 0, 10.0),
        );
        fold(&log, "network.responseCompleted", &done("7", 0, 302, 12.0));
        fold(
            &log,
            "network.beforeRequestSent",
            &sent("7", "http://a/new", 1, 13.0),
        );
        fold(&log, "network.responseCompleted", &done("7", 1, 404, 20.0));
        let (console, network) = log.take().await;
        let got: Vec<_> = network
            .iter()
            .map(|e| {
                (
                    e.url.as_str(),
                    e.status,
                    e.request_id.as_deref(),
                    e.redirect_count,
                    e.timing,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("http://a/old", Some(302), Some("7"), None, Some(2.0)),
                ("http://a/new", Some(404), Some("7"), Some(1), Some(7.0)),
            ]
        );
        assert_eq!(network[0].kind, "Fetch");
        // Each hop's start, wall ms as the backend timed it (the trace assigns
        // requests to actions by it).
        let starts: Vec<_> = network.iter().map(|e| e.started_at).collect();
        assert_eq!(starts, [Some(10.0), Some(13.0)]);
        let json = serde_json::to_value(&network[1]).unwrap();
        assert_eq!(json["startedAt"], 13.0);
        assert_eq!(console.len(), 1);
        assert_eq!(
            console[0].text,
            "Failed to load resource: the server responded with a status of 404 (Not Found)"
        );
        assert_eq!(log.take().await.1.len(), 0, "taken once");
    }

    #[tokio::test]
    async fn a_route_settling_a_request_before_it_is_seen_still_marks_its_entry() {
        // CDP can pause a request (and the route settle it) before
        // `requestWillBeSent`; a step boundary may fall between the two.
        let log = StepLog::default();
        log.mark("9", "fulfilled");
        assert!(log.take().await.1.is_empty());
        fold(
            &log,
            "network.beforeRequestSent",
            &sent("9", "http://a/api/missing", 0, 10.0),
        );
        fold(&log, "network.responseCompleted", &done("9", 0, 418, 12.0));
        let (_, network) = log.take().await;
        assert_eq!(network.len(), 1);
        assert_eq!(network[0].intercepted.as_deref(), Some("fulfilled"));
        // The mark left with its entry: a later request with the same id (a
        // new page's numbering) is not marked.
        fold(
            &log,
            "network.beforeRequestSent",
            &sent("9", "http://a/other", 0, 20.0),
        );
        fold(&log, "network.responseCompleted", &done("9", 0, 200, 22.0));
        assert_eq!(log.take().await.1[0].intercepted, None);
    }

    #[tokio::test]
    async fn page_errors_read_as_the_console_prints_them() {
        let log = StepLog::default();
        fold(
            &log,
            "log.entryAdded",
            &json!({"type": "javascript", "level": "error", "text": "Error: boom\n    at x", "timestamp": 5}),
        );
        fold(
            &log,
            "log.entryAdded",
            &json!({"type": "console", "level": "warn", "text": "careful", "timestamp": 6,
                "stackTrace": {"callFrames": [{"url": "http://a/", "lineNumber": 3}]}}),
        );
        let (console, _) = log.take().await;
        assert_eq!(console[0].text, "Uncaught Error: boom");
        assert_eq!(
            (console[0].level.as_str(), console[0].source.as_str()),
            ("error", "javascript")
        );
        assert_eq!(
            (console[1].level.as_str(), console[1].line),
            ("warning", Some(3))
        );
    }

    /// A navigation that became a download ends its request with
    /// `net::ERR_ABORTED`, before or after `downloadWillBegin` (Chromium
    /// sends them in either order), or in the next step: never a console
    /// error, always an `info` naming the download. A failed load that no
    /// download explains stays an error.
    #[tokio::test]
    async fn a_load_that_became_a_download_is_no_console_error_in_either_order() {
        let nav = |id: &str, url: &str, navigation: &str| {
            let mut v = sent(id, url, 0, 1.0);
            v["context"] = json!("ctx");
            v["navigation"] = json!(navigation);
            v
        };
        let aborted = |id: &str, navigation: &str| {
            json!({"request": {"request": id}, "context": "ctx", "navigation": navigation,
                "errorText": "net::ERR_ABORTED", "timestamp": 2.0})
        };
        let began = |url: &str, navigation: &str| {
            json!({"context": "ctx", "navigation": navigation, "url": url,
                "suggestedFilename": "report.csv", "timestamp": 2.0})
        };
        let url = "http://a/export";
        let gate = |console: &[ConsoleEntry]| {
            console
                .iter()
                .filter(|c| c.level == "error")
                .map(|c| c.text.clone())
                .collect::<Vec<_>>()
        };
        // The fetch error first, then the download: the error becomes an info.
        let log = StepLog::default();
        fold(&log, "network.beforeRequestSent", &nav("1", url, "n1"));
        fold(&log, "network.fetchError", &aborted("1", "n1"));
        assert_eq!(gate(&log.peek(false).0).len(), 1, "not yet explained");
        fold(&log, "browsingContext.downloadWillBegin", &began(url, "n1"));
        let (console, network) = log.take().await;
        assert!(gate(&console).is_empty(), "{console:?}");
        assert_eq!(console.len(), 1);
        assert_eq!(
            (console[0].level.as_str(), console[0].source.as_str()),
            ("info", "download")
        );
        assert!(
            console[0]
                .text
                .contains("became a download (\"report.csv\")")
                && console[0].text.contains("net::ERR_ABORTED"),
            "{}",
            console[0].text
        );
        assert_eq!(network[0].failure.as_deref(), Some("net::ERR_ABORTED"));
        // The download first, then the fetch error (in the next step): an info.
        fold(&log, "network.beforeRequestSent", &nav("2", url, "n2"));
        fold(&log, "browsingContext.downloadWillBegin", &began(url, "n2"));
        assert!(log.take().await.0.is_empty());
        fold(&log, "network.fetchError", &aborted("2", "n2"));
        let (console, _) = log.take().await;
        assert!(gate(&console).is_empty(), "{console:?}");
        assert_eq!(console[0].source, "download");
        // Without a navigation id (an `<a download>`): matched by context and URL.
        fold(&log, "network.beforeRequestSent", &nav("3", url, ""));
        fold(&log, "browsingContext.downloadWillBegin", &began(url, ""));
        fold(&log, "network.fetchError", &aborted("3", ""));
        assert!(gate(&log.take().await.0).is_empty());
        // Another navigation's failed load is still an error, before and after
        // a download of another navigation begins.
        fold(
            &log,
            "network.beforeRequestSent",
            &nav("4", "http://a/broken", "n4"),
        );
        fold(&log, "network.fetchError", &aborted("4", "n4"));
        fold(&log, "browsingContext.downloadWillBegin", &began(url, "n5"));
        assert_eq!(
            gate(&log.take().await.0),
            ["Failed to load resource: net::ERR_ABORTED"]
        );
    }

    #[tokio::test]
    async fn an_unanswered_request_stays_for_the_next_step() {
        let log = StepLog::default();
        fold(
            &log,
            "network.beforeRequestSent",
            &sent("1", "http://a/slow", 0, 1.0),
        );
        let started = Instant::now();
        assert!(log.take().await.1.is_empty());
        assert!(started.elapsed() >= SETTLE);
        fold(
            &log,
            "network.fetchError",
            &json!({"request": {"request": "1"}, "errorText": "net::ERR_FAILED", "timestamp": 3.0}),
        );
        let (console, network) = log.take().await;
        assert_eq!(network[0].failure.as_deref(), Some("net::ERR_FAILED"));
        assert_eq!(console[0].text, "Failed to load resource: net::ERR_FAILED");
    }
}
