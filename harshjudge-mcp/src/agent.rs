//! State an agent builds up across calls in one server process: its browser
//! session, the run it is recording (evidence goes there by itself), the
//! recording of its tool calls, and its session id in the knowledge store.
//!
//! Every browser tool waits on the browser in one place, `Agent::block_on` /
//! `Agent::block_within`: at most `HARSHJUDGE_TOOL_TIMEOUT` (`browser_launch`
//! and `browser_close` have room for their own limits), then the task is
//! dropped (freeing the browser lock it held), the session is remembered as
//! unresponsive and the call fails `BROWSER_UNAVAILABLE`. The next
//! `browser_close` or `browser_launch` lets that session go with
//! `Browsers::discard`, asking its browser nothing, as the
//! runner does with a step's unanswered session.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use harshjudge_browser::{ConsoleEntry, NetworkEntry, Page, Tracer};
use harshjudge_store::store::{RunId, Slug, StepId};
use serde_json::Value;

use crate::error::{Code, ToolError};

/// The browser an agent drives.
pub struct BrowserSession {
    /// The page.
    pub page: Page,
    /// What relative URLs are joined to.
    pub base_url: String,
    /// Console entries not yet returned by `browser_console`.
    pub console: Vec<ConsoleEntry>,
    /// Requests not yet returned by `browser_network`.
    pub network: Vec<NetworkEntry>,
    /// Actions taken so far (numbers evidence files of one step apart).
    pub actions: usize,
    /// What the page's actions and assertions record (`HARSHJUDGE_TRACE`,
    /// read as the session opened; none for `off`): each step of the active
    /// run gets their trace as a scenario's step does.
    pub tracer: Option<Arc<Tracer>>,
    /// The run and step the tracer's running step belongs to (none: no run
    /// was active at the last call).
    pub traced: Option<(RunId, StepId)>,
    /// The run whose `trace-resources/` the tracer stored images into.
    pub trace_run: Option<RunId>,
}

impl BrowserSession {
    /// Delimits the trace's steps: a call belongs to `target`, the active
    /// run's current step; a call outside any run, or in another step than
    /// the last call's, begins the trace's step anew (what came before is
    /// no step's), and a call in another run than the images stored so far
    /// begins the trace's run anew.
    pub fn trace_call_in(&mut self, target: Option<(RunId, StepId)>) {
        let Some(tracer) = &self.tracer else {
            return;
        };
        match &target {
            Some((run, _)) if self.trace_run.as_ref() != Some(run) => {
                tracer.restart_run();
                self.trace_run = Some(run.clone());
            }
            Some(_) if self.traced == target => return,
            _ => tracer.restart_step(),
        }
        self.traced = target;
    }
}

/// A tool call kept by `record_start` … `record_stop`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordedCall {
    /// The tool.
    pub tool: String,
    /// Its arguments as given.
    #[schemars(with = "Option<serde_json::Map<String, Value>>")]
    pub args: Value,
    /// Whether it succeeded when recorded.
    pub ok: bool,
    /// The error code when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Milliseconds it took.
    pub duration_ms: f64,
    /// The stable page locator a browser action resolved its target to (a
    /// snapshot ref becomes a test id, id, name, text or CSS path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locator: Option<String>,
}

/// A recording in progress.
#[derive(Clone, Debug)]
pub struct Recording {
    /// The sequence's id (its file name under `.harshJudge/sequences/`).
    pub id: String,
    /// Its name.
    pub name: String,
    /// What it does.
    pub description: Option<String>,
    /// When it started.
    pub started_at: String,
    /// The calls so far.
    pub calls: Vec<RecordedCall>,
    /// Bytes of arguments kept so far (JSON).
    pub bytes: usize,
    /// Calls not kept because the recording reached a cap.
    pub dropped: usize,
}

/// Longest string a recorded call keeps, in bytes; a longer one is replaced by
/// `{"$omitted": {"bytes": N}}` (replay refuses such a call, saying why).
pub const MAX_RECORDED_STRING: usize = 4096;
/// Most calls one recording keeps.
pub const MAX_RECORDED_CALLS: usize = 1000;
/// Most bytes of arguments (JSON) one recording keeps.
pub const MAX_RECORDED_BYTES: usize = 4 * 1024 * 1024;

/// The key of the value that stands for a string too large to record.
pub const OMITTED: &str = "$omitted";

/// A call's arguments as a recording keeps them: strings over
/// [`MAX_RECORDED_STRING`] bytes replaced by their size.
pub fn recordable_args(v: &Value) -> Value {
    match v {
        Value::String(s) if s.len() > MAX_RECORDED_STRING => {
            serde_json::json!({ OMITTED: {"bytes": s.len()} })
        }
        Value::Array(a) => Value::Array(a.iter().map(recordable_args).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (k.clone(), recordable_args(x)))
                .collect(),
        ),
        other => other.clone(),
    }
}

impl Recording {
    /// A new, empty recording.
    pub fn new(id: String, name: String, description: Option<String>) -> Self {
        Recording {
            id,
            name,
            description,
            started_at: harshjudge_store::store::now_iso(),
            calls: vec![],
            bytes: 0,
            dropped: 0,
        }
    }

    /// Keeps a call, unless the recording is at its cap of
    /// [`MAX_RECORDED_CALLS`] calls or [`MAX_RECORDED_BYTES`] bytes (then it
    /// only counts it in `dropped`). Returns whether it was kept.
    pub fn push(&mut self, call: RecordedCall) -> bool {
        let size = serde_json::to_string(&call.args).map_or(0, |s| s.len());
        if self.calls.len() >= MAX_RECORDED_CALLS || self.bytes + size > MAX_RECORDED_BYTES {
            self.dropped += 1;
            return false;
        }
        self.bytes += size;
        self.calls.push(call);
        true
    }

    /// The warning to give once calls were dropped.
    pub fn warning(&self) -> Option<String> {
        (self.dropped > 0).then(|| {
            format!(
                "the recording reached its cap ({MAX_RECORDED_CALLS} calls or {MAX_RECORDED_BYTES} bytes of arguments): the last {} calls were not recorded; record shorter sequences",
                self.dropped
            )
        })
    }
}

/// Default of `HARSHJUDGE_TOOL_TIMEOUT`: longer than any browser tool takes
/// when the browser answers (a wait or an assertion's `timeoutMs` of at most
/// 60 s, with the screenshots and logs of the evidence around it).
pub const DEFAULT_TOOL_TIMEOUT: Duration = Duration::from_secs(120);

/// How long one browser tool call may take (`HARSHJUDGE_TOOL_TIMEOUT`,
/// default [`DEFAULT_TOOL_TIMEOUT`]), read once per process; a bad value
/// fails every call that needs it, naming the variable.
pub fn tool_timeout() -> Result<Duration, ToolError> {
    static LIMIT: OnceLock<Result<Duration, String>> = OnceLock::new();
    LIMIT
        .get_or_init(|| {
            harshjudge_browser::settings::env_duration(
                "HARSHJUDGE_TOOL_TIMEOUT",
                DEFAULT_TOOL_TIMEOUT,
            )
            .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(ToolError::invalid)
}

/// Per-process agent state, shared by every call.
pub struct Agent {
    runtime: OnceLock<tokio::runtime::Runtime>,
    /// The agent's browsers: its page's, and the live checks' of `heal`.
    pub browsers: harshjudge_browser::Browsers,
    /// The browser, once launched.
    pub browser: tokio::sync::Mutex<Option<BrowserSession>>,
    /// The run started by `startRun` and not completed yet.
    pub active_run: Mutex<Option<(RunId, Slug)>>,
    /// The recording, between `record_start` and `record_stop`.
    pub recording: Mutex<Option<Recording>>,
    /// This process's session id (knowledge store, file names).
    pub session: String,
    files: std::sync::atomic::AtomicUsize,
    /// A browser call ran out of its limit: the session's browser may hang,
    /// so it is let go without a word to it ([`Agent::take_unresponsive`]).
    unresponsive: AtomicBool,
    /// The knowledge store, opened on first use.
    knowledge: OnceLock<crate::knowledge::KnowledgeStore>,
    /// The page's url, title and test ids as read after the last browser action.
    pub last_page: Mutex<Option<(String, String, Vec<String>)>>,
    /// The last snapshot sent to the model: its page's URL and its lines (a
    /// later one on the same page sends only what changed).
    pub last_snapshot: Mutex<Option<(String, Vec<String>)>>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("session", &self.session)
            .finish()
    }
}

impl Default for Agent {
    fn default() -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        Agent {
            runtime: OnceLock::new(),
            browsers: harshjudge_browser::Browsers::new(),
            browser: tokio::sync::Mutex::new(None),
            active_run: Mutex::new(None),
            recording: Mutex::new(None),
            session: format!("s{nanos}-{}", std::process::id()),
            files: Default::default(),
            unresponsive: AtomicBool::new(false),
            knowledge: OnceLock::new(),
            last_page: Mutex::new(None),
            last_snapshot: Mutex::new(None),
        }
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        // The server drops its context inside its own runtime, where a runtime
        // may not block while it shuts down.
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl Agent {
    /// Runs `f` on the agent's own runtime and waits for it, at most
    /// [`tool_timeout`] (`HARSHJUDGE_TOOL_TIMEOUT`). Tool handlers are
    /// synchronous and may themselves run inside the server's runtime, so the
    /// browser's async work is handed to a runtime of its own.
    pub fn block_on<F>(&self, f: F) -> Result<F::Output, ToolError>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let limit = tool_timeout()?;
        self.block_within(limit, "HARSHJUDGE_TOOL_TIMEOUT", f)
    }

    /// Runs `f` as [`block_on`](Agent::block_on) does, at most `limit` (the
    /// setting `named`). A browser that hangs (a stopped process, a page in an
    /// endless script) answers no WebDriver command, and a driver may wait
    /// minutes or for ever: past the limit `f` is dropped where it waits
    /// (whatever it locked is free again, so `browser_close` works) and the
    /// call fails with `BROWSER_UNAVAILABLE`, naming the limit.
    pub fn block_within<F>(
        &self,
        limit: Duration,
        named: &str,
        f: F,
    ) -> Result<F::Output, ToolError>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let rt = self.runtime.get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .thread_name("harshjudge-browser")
                .enable_all()
                .build()
                .expect("a tokio runtime for the browser")
        });
        let (tx, rx) = std::sync::mpsc::channel();
        let task = rt.spawn(async move {
            let _ = tx.send(f.await);
        });
        match rx.recv_timeout(limit) {
            Ok(out) => Ok(out),
            Err(RecvTimeoutError::Timeout) => {
                task.abort();
                self.unresponsive.store(true, Ordering::SeqCst);
                Err(ToolError::new(
                    Code::BrowserUnavailable,
                    format!(
                        "the browser gave no answer within {} ({named}): it may hang (a page in an endless script, a stopped or overloaded browser process); the call was abandoned. Call browser_close to end the session (then browser_launch), or raise {named} if the browser is only slow",
                        harshjudge_browser::settings::format_duration(limit)
                    ),
                ))
            }
            Err(RecvTimeoutError::Disconnected) => Err(ToolError::new(
                Code::Internal,
                "the browser task stopped unexpectedly; call browser_launch again",
            )),
        }
    }

    /// Whether a browser call ran out of its limit since the last time this
    /// was asked (then the session is discarded, not pooled, as it closes).
    pub fn take_unresponsive(&self) -> bool {
        self.unresponsive.swap(false, Ordering::SeqCst)
    }

    /// Whether a browser call ran out of its limit (left for
    /// [`take_unresponsive`](Agent::take_unresponsive) to answer).
    pub fn is_unresponsive(&self) -> bool {
        self.unresponsive.load(Ordering::SeqCst)
    }

    /// Remembers the run an agent is recording (after `startRun`), or forgets
    /// it (after `completeRun`).
    pub fn set_active_run(&self, run: Option<(RunId, Slug)>) {
        if let Ok(mut r) = self.active_run.lock() {
            *r = run;
        }
    }

    /// The knowledge store of the project of `store`.
    pub fn knowledge(
        &self,
        store: &harshjudge_store::store::Store,
    ) -> &crate::knowledge::KnowledgeStore {
        self.knowledge.get_or_init(|| {
            crate::knowledge::KnowledgeStore::open(store.knowledge_dir(), self.session.clone())
        })
    }

    /// A number for the next file this session names (1, 2, …).
    pub fn next_file_number(&self) -> usize {
        self.files.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
    }

    /// The run being recorded, if any.
    pub fn active_run(&self) -> Option<(RunId, Slug)> {
        self.active_run.lock().ok().and_then(|r| r.clone())
    }
}
