//! The page's console and network, live: the events of one page session
//! (`Runtime.consoleAPICalled`, `Runtime.exceptionThrown`, `Log.entryAdded`,
//! `Network.requestWillBeSent/responseReceived/loadingFinished/loadingFailed`)
//! folded into the library's [`ConsoleEntry`] and [`NetworkEntry`] by the
//! parsers `logs.rs` reads chromedriver's `devtools` log with, so both ways
//! give the same entries. The params stay JSON here: those parsers read the
//! few fields they need from it, and an event a parser does not understand
//! costs nothing more than a missing field.

use serde_json::Value;

use super::connection::Received;
use crate::browser::logs::{self, ConsoleEntry, Logged, NetworkEntry, Pending};

/// The events a page session must have enabled for its log: `Runtime.enable`,
/// `Log.enable`, `Network.enable`.
pub(crate) const LOG_EVENTS: [&str; 7] = logs::DEVTOOLS_EVENTS;

/// One page's console and network since the last [`take`](PageLog::take).
#[derive(Debug, Default)]
pub(crate) struct PageLog {
    console: Vec<ConsoleEntry>,
    /// Requests that finished or failed.
    network: Vec<NetworkEntry>,
    /// Requests under way, by request id.
    pending: Pending,
}

impl PageLog {
    /// Folds in one event of the page's session; whether it was one of
    /// [`LOG_EVENTS`] (others are left to whoever else reads the session).
    pub(crate) fn event(&mut self, event: &Received) -> bool {
        if !LOG_EVENTS.contains(&event.method.as_str()) {
            return false;
        }
        let Ok(params) = serde_json::from_str::<Value>(event.params.get()) else {
            return true;
        };
        self.fold(&event.method, &params);
        true
    }

    /// Folds in one event by its method and params.
    pub(crate) fn fold(&mut self, method: &str, params: &Value) {
        match logs::devtools_event(method, params, &mut self.pending) {
            Some(Logged::Console(c)) => self.console.push(c),
            Some(Logged::Network(n)) => self.network.push(n),
            None => {}
        }
    }

    /// How many requests are under way (a step boundary may wait for them).
    pub(crate) fn in_flight(&self) -> usize {
        self.pending.len()
    }

    /// The console and the requests since the last take: those that ended,
    /// then those answered whose body is still loading (a later end of
    /// theirs is then ignored, as with the `devtools` log); unanswered ones
    /// stay for the next take.
    pub(crate) fn take(&mut self) -> (Vec<ConsoleEntry>, Vec<NetworkEntry>) {
        let console = std::mem::take(&mut self.console);
        let mut network = std::mem::take(&mut self.network);
        network.extend(logs::answered(&mut self.pending));
        (console, network)
    }

    /// What [`take`](PageLog::take) would give, left in place; with
    /// `pending`, the unanswered requests too.
    pub(crate) fn peek(&self, pending: bool) -> (Vec<ConsoleEntry>, Vec<NetworkEntry>) {
        let mut network = self.network.clone();
        let mut open: Vec<NetworkEntry> = self
            .pending
            .values()
            .filter(|(e, _)| pending || e.status.is_some())
            .map(|(e, _)| e.clone())
            .collect();
        open.sort_by(|a, b| a.url.cmp(&b.url));
        network.extend(open);
        (self.console.clone(), network)
    }
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
