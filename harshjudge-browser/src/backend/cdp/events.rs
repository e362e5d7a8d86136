//! The page's console and network, live, into the generic [`StepLog`] as
//! `bidi/adapt.rs` feeds it for BiDi: the console events
//! (`Runtime.consoleAPICalled`, `Runtime.exceptionThrown`, `Log.entryAdded`)
//! become [`ConsoleEntry`]s by the parsers `logs.rs` reads chromedriver's
//! `devtools` log with, and the `Network.*` events of a request become its
//! typed [`NetEvent`]s (a redirect's hops under one request id, times in ms
//! since the Unix epoch), so `wait_for_request`/`wait_for_response` waiters,
//! peeks and step boundaries work as on BiDi.
//!
//! A failed load's console error is the [`StepLog`]'s own (it knows when a
//! load became a download), so Chromium's `Log.entryAdded` of a request
//! (`source: network` with its `networkRequestId`) is not repeated.

use std::collections::HashMap;

use serde_json::Value;

use super::connection::Received;
use super::protocol::{
    LoadingFailed, LoadingFinished, RequestWillBeSent, ResponseReceived, header_pairs,
};
use crate::logs::{self, ConsoleEntry, Logged, Pending};
use crate::request::Request;
use crate::steplog::{NetEvent, StepLog};

/// The console events.
const CONSOLE_EVENTS: [&str; 3] = [
    "Runtime.consoleAPICalled",
    "Runtime.exceptionThrown",
    "Log.entryAdded",
];

/// What is kept of a request under way between its events.
#[derive(Debug)]
struct Followed {
    /// Its hop (0, then 1 after the first redirect, …).
    hop: u64,
    /// Wall clock minus the events' monotonic clock, ms.
    offset: f64,
    /// The frame that made it.
    frame: String,
    /// Its navigation (a document's request only).
    loader: Option<String>,
    status: Option<u64>,
    status_text: String,
}

/// One page session's requests under way, turning its events into
/// [`NetEvent`]s (see the module's doc).
#[derive(Debug, Default)]
pub(crate) struct NetLog {
    open: HashMap<String, Followed>,
}

impl NetLog {
    /// Folds one event of the page's session into `log`; whether it was a
    /// console or network event (others are left to whoever else reads it).
    pub(crate) fn event(&mut self, event: &Received, log: &StepLog) -> bool {
        let method = event.method.as_str();
        if CONSOLE_EVENTS.contains(&method) {
            if let Some(entry) = console_entry(method, event.params.get()) {
                log.console(entry);
            }
            return true;
        }
        if let Some(sent) = event.parse::<RequestWillBeSent>() {
            if let Ok(sent) = sent {
                self.sent(sent, log);
            }
        } else if let Some(received) = event.parse::<ResponseReceived>() {
            if let Ok(r) = received
                && let Some(f) = self.open.get_mut(&r.request_id)
            {
                f.status = Some(r.response.status);
                f.status_text = r.response.status_text.clone();
                log.net(NetEvent::Response {
                    id: r.request_id,
                    redirect: f.hop,
                    at: Some(r.timestamp * 1000.0 + f.offset),
                    status: Some(r.response.status),
                    status_text: r.response.status_text,
                    headers: header_pairs(&r.response.headers),
                    completed: false,
                });
            }
        } else if let Some(finished) = event.parse::<LoadingFinished>() {
            if let Ok(e) = finished
                && let Some(f) = self.open.remove(&e.request_id)
            {
                log.net(NetEvent::Response {
                    id: e.request_id,
                    redirect: f.hop,
                    at: Some(e.timestamp * 1000.0 + f.offset),
                    status: f.status,
                    status_text: f.status_text,
                    headers: Vec::new(),
                    completed: true,
                });
            }
        } else if let Some(failed) = event.parse::<LoadingFailed>() {
            if let Ok(e) = failed
                && let Some(f) = self.open.remove(&e.request_id)
            {
                log.net(NetEvent::Failed {
                    id: e.request_id,
                    redirect: f.hop,
                    at: Some(e.timestamp * 1000.0 + f.offset),
                    error: Some(e.error_text).filter(|t| !t.is_empty()),
                    context: f.frame,
                    navigation: f.loader,
                    canceled: e.canceled,
                });
            }
        } else {
            return false;
        }
        true
    }

    /// A request (or its next hop) sent: the hop before ends with the
    /// response that redirected it.
    fn sent(&mut self, e: RequestWillBeSent, log: &StepLog) {
        let at = e.timestamp * 1000.0;
        let kind = e.kind.unwrap_or_else(|| "Other".to_string());
        let existed = self.open.contains_key(&e.request_id);
        let offset = if e.wall_time > 0.0 {
            e.wall_time * 1000.0 - at
        } else {
            0.0
        };
        let followed = self
            .open
            .entry(e.request_id.clone())
            .or_insert_with(|| Followed {
                hop: 0,
                offset,
                frame: String::new(),
                loader: None,
                status: None,
                status_text: String::new(),
            });
        if existed && let Some(r) = &e.redirect_response {
            log.net(NetEvent::Response {
                id: e.request_id.clone(),
                redirect: followed.hop,
                at: Some(at + followed.offset),
                status: Some(r.status),
                status_text: r.status_text.clone(),
                headers: header_pairs(&r.headers),
                completed: true,
            });
            followed.hop += 1;
        }
        followed.frame = e.frame_id.unwrap_or_default();
        followed.loader = (kind == "Document" && !e.loader_id.is_empty()).then_some(e.loader_id);
        followed.status = None;
        followed.status_text.clear();
        log.net(NetEvent::Sent {
            request: Request {
                id: e.request_id,
                url: e.request.url,
                method: e.request.method,
                headers: header_pairs(&e.request.headers),
            },
            redirect: followed.hop,
            kind,
            at: at + followed.offset,
        });
    }

    /// How many requests are under way.
    pub(crate) fn in_flight(&self) -> usize {
        self.open.len()
    }
}

/// The console entry of a console event; none for Chromium's own entry of
/// a request (the step log writes that one).
fn console_entry(method: &str, params: &str) -> Option<ConsoleEntry> {
    let params: Value = serde_json::from_str(params).ok()?;
    let entry = &params["entry"];
    if method == "Log.entryAdded"
        && entry["source"] == "network"
        && entry["networkRequestId"].is_string()
    {
        return None;
    }
    match logs::devtools_event(method, &params, &mut Pending::default()) {
        Some(Logged::Console(c)) => Some(c),
        _ => None,
    }
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
