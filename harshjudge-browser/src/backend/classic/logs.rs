//! A classic page's console and network: chromedriver's `devtools` log (a
//! remote Chromium without BiDi), else nothing and a note saying so.

use std::sync::atomic::Ordering;

use serde_json::Value;

use super::ClassicPage;
use super::nav::get_log;
use crate::config::BrowserKind;
use crate::engines;
use crate::error::BrowserError;
use crate::logs::{self, ConsoleEntry, NetworkEntry};

/// How long the end of a step waits for requests still in flight.
const NETWORK_SETTLE: std::time::Duration = std::time::Duration::from_millis(250);

type Logs = (Vec<ConsoleEntry>, Vec<NetworkEntry>);

impl ClassicPage {
    /// Console and network entries since the previous call: one read of the
    /// `devtools` log, which carries both (more only while requests are in flight).
    pub(super) async fn take_logs(&self) -> Result<Logs, BrowserError> {
        if self.browser != BrowserKind::Chromium {
            // No BiDi and no log endpoint (WebKit): nothing to read; the
            // first step's console says so.
            let first = !self.noted.swap(true, Ordering::Relaxed);
            let note = first.then(|| engines::no_bidi_entry(self.browser));
            return Ok((note.into_iter().collect(), Vec::new()));
        }
        let c = &self.client;
        let read = |v: &Value| logs::devtools(v, &mut self.pending.lock().expect("pending lock"));
        let (mut console, mut network) = read(&get_log(c, "devtools").await?);
        {
            let mut early = self.early.lock().expect("early lock");
            console.splice(0..0, std::mem::take(&mut early.0));
            network.splice(0..0, std::mem::take(&mut early.1));
        }
        // A request whose response arrived but whose body is still loading (a fetch
        // the page already reacted to) belongs to this step: give in-flight requests
        // a short while to finish, then report the answered ones as they stand.
        let settle_until = std::time::Instant::now() + NETWORK_SETTLE;
        while !self.pending.lock().expect("pending lock").is_empty()
            && std::time::Instant::now() < settle_until
        {
            // Every read is a WebDriver command: poll sparingly.
            tokio::time::sleep(std::time::Duration::from_millis(60)).await;
            let (more_console, more_network) = read(&get_log(c, "devtools").await?);
            console.extend(more_console);
            network.extend(more_network);
        }
        network.extend(logs::answered(
            &mut self.pending.lock().expect("pending lock"),
        ));
        Ok((console, network))
    }

    /// The step's console and network so far, as its boundary will record them
    /// (left in place for it); with `pending`, requests not yet answered too.
    pub(super) async fn peek_logs(&self, pending: bool) -> Result<Logs, BrowserError> {
        if self.browser != BrowserKind::Chromium {
            return Ok((Vec::new(), Vec::new()));
        }
        let got = get_log(&self.client, "devtools").await?;
        let mut open = self.pending.lock().expect("pending lock");
        let (console, network) = logs::devtools(&got, &mut open);
        let mut early = self.early.lock().expect("early lock");
        early.0.extend(console);
        early.1.extend(network);
        let mut net = early.1.clone();
        net.extend(
            open.values()
                .filter(|(e, _)| pending || e.status.is_some())
                .map(|(e, _)| e.clone()),
        );
        Ok((early.0.clone(), net))
    }
}
