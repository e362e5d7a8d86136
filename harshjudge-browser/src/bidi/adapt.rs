//! BiDi's events in the protocol-neutral vocabulary the backends share: a
//! navigation event as a [`Lifecycle`] event (with the bookkeeping of the
//! navigations under way it implies), `log.entryAdded` as a [`ConsoleEntry`]
//! and the `network.*` events (and `downloadWillBegin`) as [`NetEvent`]s for
//! the [`StepLog`].

use std::collections::HashMap;
use std::sync::Arc;

use super::protocol::{BytesValue, Header};
use super::protocol_events::{BidiEvent, LogEntry, RequestData};
use super::{Bidi, dialog, route};
use crate::lifecycle::Lifecycle;
use crate::logs::ConsoleEntry;
use crate::request::Request;
use crate::steplog::{NetEvent, StepLog};

/// What the reader says of an event it could not read.
fn malformed_notice(method: &str, error: &str) -> String {
    format!(
        "harshjudge: a WebDriver BiDi event {method} of an unexpected shape was ignored ({error}), and so will be the next ones of its method; please report it with the browser and driver versions"
    )
}

/// Folds what `event` says of the step's console and network into `log`.
pub(crate) fn feed_step_log(log: &StepLog, event: &BidiEvent) {
    match event {
        BidiEvent::LogEntryAdded(p) => log.console(console_entry(p)),
        _ => {
            if let Some(e) = net_event(event) {
                log.net(e);
            }
        }
    }
}

/// The [`NetEvent`] a BiDi event is, if any.
pub(crate) fn net_event(event: &BidiEvent) -> Option<NetEvent> {
    Some(match event {
        BidiEvent::BeforeRequestSent(p) => NetEvent::Sent {
            request: Request::from(&p.request),
            redirect: p.redirect_count,
            kind: kind(&p.request),
            at: p.timestamp,
        },
        BidiEvent::ResponseStarted(p) | BidiEvent::ResponseCompleted(p) => NetEvent::Response {
            id: p.request.request.clone(),
            redirect: p.redirect_count,
            at: p.timestamp,
            status: p.response.status,
            status_text: p.response.status_text.clone(),
            headers: pairs(&p.response.headers),
            completed: matches!(event, BidiEvent::ResponseCompleted(_)),
        },
        BidiEvent::FetchError(p) => NetEvent::Failed {
            id: p.request.request.clone(),
            redirect: p.redirect_count,
            at: p.timestamp,
            error: p.error_text.clone(),
            context: p.context.clone(),
            navigation: p.navigation.clone(),
            canceled: false,
        },
        BidiEvent::DownloadWillBegin(p) => NetEvent::Download {
            context: p.context.clone(),
            navigation: p.navigation.clone(),
            url: p.url.clone(),
            name: p.suggested_filename.clone(),
        },
        _ => return None,
    })
}

/// BiDi headers as pairs (a value in base64 as it is written).
pub(crate) fn pairs(headers: &[Header]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|h| {
            let (BytesValue::String { value } | BytesValue::Base64 { value }) = &h.value;
            (h.name.clone(), value.clone())
        })
        .collect()
}

impl From<&RequestData> for Request {
    fn from(r: &RequestData) -> Request {
        Request {
            id: r.request.clone(),
            url: r.url.clone(),
            method: r.method.clone(),
            headers: pairs(&r.headers),
        }
    }
}

/// `debug`, `info`, `warning`, `error` as the console entries name them.
fn level(l: &str) -> &'static str {
    match l {
        "error" => "error",
        "warn" | "warning" => "warning",
        "debug" => "debug",
        _ => "info",
    }
}

/// The resource type the classic path names (Document, Script, Fetch, XHR, …)
/// from BiDi's `destination` and `initiatorType`.
fn kind(request: &RequestData) -> String {
    let destination = request.destination.as_deref().unwrap_or_default();
    let initiator = request.initiator_type.as_deref().unwrap_or_default();
    match (destination, initiator) {
        ("document" | "iframe" | "frame", _) => "Document",
        ("script" | "worker" | "sharedworker" | "serviceworker", _) => "Script",
        ("style", _) => "Stylesheet",
        ("image", _) => "Image",
        ("font", _) => "Font",
        ("audio" | "video" | "track", _) => "Media",
        ("manifest", _) => "Manifest",
        (_, "fetch") => "Fetch",
        (_, "xmlhttprequest") => "XHR",
        _ => "Other",
    }
    .to_string()
}

/// A console entry of one `log.entryAdded` event.
fn console_entry(p: &LogEntry) -> ConsoleEntry {
    let frame = p.stack_trace.as_ref().and_then(|s| s.call_frames.first());
    let text = p.text.as_deref().unwrap_or_default();
    let javascript = p.kind == "javascript";
    ConsoleEntry {
        level: if javascript {
            "error"
        } else {
            level(p.level.as_deref().unwrap_or("info"))
        }
        .to_string(),
        // A page error reads as the console prints it: "Uncaught Error: boom".
        text: if javascript && !text.starts_with("Uncaught") {
            format!("Uncaught {}", text.lines().next().unwrap_or_default())
        } else if javascript {
            text.lines().next().unwrap_or_default().to_string()
        } else {
            text.to_string()
        },
        source: if javascript {
            "javascript"
        } else {
            "console-api"
        }
        .to_string(),
        url: frame
            .map(|f| f.url.as_str())
            .filter(|u| !u.is_empty())
            .map(String::from),
        line: frame.and_then(|f| f.line_number),
        timestamp: p.timestamp as u64,
    }
}

impl Bidi {
    /// One event: into the step's log, to the waiters, and a blocked request to
    /// the routes. One of another shape is said (once per method) and
    /// otherwise ignored.
    pub(super) fn event(self: Arc<Self>, event: BidiEvent) {
        if let BidiEvent::Malformed { method, error } = &event {
            if self
                .malformed
                .lock()
                .expect("bidi lock")
                .insert(method.clone())
            {
                eprintln!("{}", malformed_notice(method, error));
            }
            return;
        }
        if let Some(news) = self.navigation_news(&event) {
            // No receiver: no call is waiting.
            let _ = self.lifecycle.send(news);
        }
        if self.logged(&event) {
            feed_step_log(&self.log, &event);
        }
        match event {
            BidiEvent::BeforeRequestSent(sent) if sent.is_blocked => {
                let bidi = self.clone();
                tokio::spawn(async move { route::handle(&bidi, &sent.request).await });
            }
            BidiEvent::UserPromptOpened(prompt) => {
                tokio::spawn(dialog::handle(self.clone(), prompt));
            }
            BidiEvent::AuthRequired(challenge) if challenge.is_blocked => {
                tokio::spawn(super::auth::handle(self.clone(), challenge));
            }
            _ => {}
        }
    }

    /// Keeps the console and network of `context`, a context this side
    /// opened for itself, out of the step's log.
    pub(crate) fn unlog(&self, context: &str) {
        let mut unlogged = self.unlogged.lock().expect("bidi lock");
        unlogged.insert(context.to_string());
    }

    /// Whether `event` goes into the step's log: not one of an unlogged
    /// context, whose closing forgets it.
    fn logged(&self, event: &BidiEvent) -> bool {
        let mut unlogged = self.unlogged.lock().expect("bidi lock");
        if let BidiEvent::ContextDestroyed(gone) = event {
            unlogged.remove(&gone.context);
        }
        event.log_context().is_none_or(|c| !unlogged.contains(c))
    }

    /// What a navigation event says of its context: the navigation under
    /// way noted (started) or forgotten (its document loaded, or no document
    /// to come), and the news for the calls and reads that wait on it.
    pub(super) fn navigation_news(&self, event: &BidiEvent) -> Option<Lifecycle> {
        use BidiEvent as E;
        let (context, navigation, url) = match event {
            E::NavigationStarted(n)
            | E::DomContentLoaded(n)
            | E::Load(n)
            | E::ContextDestroyed(n)
            | E::FragmentNavigated(n)
            | E::NavigationCommitted(n)
            | E::NavigationAborted(n)
            | E::NavigationFailed(n) => (&n.context, &n.navigation, &n.url),
            E::DownloadWillBegin(d) => (&d.context, &d.navigation, &d.url),
            // A request that is no document's.
            E::FetchError(f) if f.navigation.as_deref().is_none_or(str::is_empty) => return None,
            E::FetchError(f) => (&f.context, &f.navigation, &String::new()),
            _ => return None,
        };
        let (context, url) = (context.clone(), url.clone());
        let navigation = navigation.clone().unwrap_or_default();
        let mut navigating = self.navigating.lock().expect("bidi lock");
        let end = |navigating: &mut HashMap<String, String>| {
            if navigating.get(&context) == Some(&navigation) {
                navigating.remove(&context);
            }
        };
        match event {
            E::NavigationStarted(_) => {
                navigating.insert(context.clone(), navigation.clone());
                Some(Lifecycle::Started {
                    context,
                    navigation,
                    url,
                })
            }
            E::DomContentLoaded(_) | E::Load(_) => {
                end(&mut navigating);
                Some(Lifecycle::Loaded {
                    context,
                    navigation,
                    url,
                })
            }
            E::ContextDestroyed(_) => {
                navigating.remove(&context);
                Some(Lifecycle::Destroyed(context))
            }
            // The same document: whatever was under way in it is over.
            E::FragmentNavigated(_) => {
                navigating.remove(&context);
                Some(Lifecycle::Ended(context, navigation))
            }
            E::NavigationCommitted(_) => Some(Lifecycle::Committed {
                context,
                navigation,
                url,
            }),
            E::NavigationAborted(_) | E::NavigationFailed(_) => {
                end(&mut navigating);
                Some(Lifecycle::Cancelled {
                    context,
                    navigation,
                    url,
                })
            }
            E::DownloadWillBegin(_) | E::FetchError(_) => {
                end(&mut navigating);
                Some(Lifecycle::Ended(context, navigation))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{BidiEvent, net_event};
    use crate::request::Request;
    use crate::steplog::NetEvent;

    fn parse(method: &str, params: serde_json::Value) -> BidiEvent {
        BidiEvent::parse(&json!({"type": "event", "method": method, "params": params}))
    }

    /// Each network event of BiDi becomes the [`NetEvent`] of the same
    /// request, hop, time and facts; other events become none.
    #[test]
    fn bidi_network_events_become_neutral_net_events() {
        let sent = parse(
            "network.beforeRequestSent",
            json!({"request": {"request": "7", "url": "http://a/x", "method": "POST",
                "headers": [{"name": "X-A", "value": {"type": "string", "value": "1"}}],
                "destination": "", "initiatorType": "fetch"}, "redirectCount": 1, "timestamp": 10.5}),
        );
        assert_eq!(
            net_event(&sent),
            Some(NetEvent::Sent {
                request: Request {
                    id: "7".into(),
                    url: "http://a/x".into(),
                    method: "POST".into(),
                    headers: vec![("X-A".into(), "1".into())],
                },
                redirect: 1,
                kind: "Fetch".into(),
                at: 10.5,
            })
        );
        let done = parse(
            "network.responseCompleted",
            json!({"request": {"request": "7"}, "redirectCount": 1, "timestamp": 12.0,
                "response": {"status": 404, "statusText": "Nope",
                    "headers": [{"name": "B", "value": {"type": "base64", "value": "Yg=="}}]}}),
        );
        assert_eq!(
            net_event(&done),
            Some(NetEvent::Response {
                id: "7".into(),
                redirect: 1,
                at: Some(12.0),
                status: Some(404),
                status_text: "Nope".into(),
                headers: vec![("B".into(), "Yg==".into())],
                completed: true,
            })
        );
        let started = parse(
            "network.responseStarted",
            json!({"request": {"request": "7"}, "response": {"status": 200}}),
        );
        assert!(matches!(
            net_event(&started),
            Some(NetEvent::Response {
                completed: false,
                at: None,
                redirect: 0,
                ..
            })
        ));
        let failed = parse(
            "network.fetchError",
            json!({"request": {"request": "8"}, "context": "c", "navigation": "n",
                "errorText": "net::ERR_FAILED"}),
        );
        assert_eq!(
            net_event(&failed),
            Some(NetEvent::Failed {
                id: "8".into(),
                redirect: 0,
                at: None,
                error: Some("net::ERR_FAILED".into()),
                context: "c".into(),
                navigation: Some("n".into()),
                canceled: false,
            })
        );
        let download = parse(
            "browsingContext.downloadWillBegin",
            json!({"context": "c", "navigation": null, "url": "http://a/f",
                "suggestedFilename": "f.csv"}),
        );
        assert_eq!(
            net_event(&download),
            Some(NetEvent::Download {
                context: "c".into(),
                navigation: None,
                url: "http://a/f".into(),
                name: "f.csv".into(),
            })
        );
        let load = parse(
            "browsingContext.load",
            json!({"context": "c", "navigation": "n", "url": "http://a/"}),
        );
        assert_eq!(net_event(&load), None);
    }
}
