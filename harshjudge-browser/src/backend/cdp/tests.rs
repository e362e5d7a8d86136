//! The CDP client against a fake browser on a pipe pair (framing, answers,
//! sessions, closing), and against a real Chromium (launch, a page in a
//! browser context, evaluation, nothing left after a kill).

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::net::unix::pipe;

use super::connection::{CdpError, Connection, Gone};
use super::launch::{Endpoint, launch, ws_url_of_active_port};
use super::protocol::{
    AddScriptToEvaluateOnNewDocument, AttachToTarget, AttachedToTarget, CallArgument,
    CallFunctionOn, CreateBrowserContext, CreateTarget, DisposeBrowserContext, Evaluate,
    GetVersion, Navigate, PageEnable, RuntimeEnable, SessionId,
};
use super::transport::{self, Incoming, NulFrames};
use crate::config::BrowserConfig;

/// The browser's side of a connection: reads the client's commands and
/// writes whatever bytes a test wants.
pub(super) struct Fake {
    commands: Incoming,
    pub(super) out: Option<pipe::Sender>,
}

impl Fake {
    /// A connection to a fake browser whose stderr said `said`.
    pub(super) fn connect(said: &str) -> (Connection, Fake) {
        let (to_browser, commands) = pipe::pipe().expect("pipe");
        let (out, from_browser) = pipe::pipe().expect("pipe");
        let (outgoing, incoming) = transport::pipe_pair(to_browser, from_browser);
        let said = Some(Arc::new(Mutex::new(said.to_string())));
        let connection = Connection::open(outgoing, incoming, said);
        let commands = Incoming::Pipe {
            reader: commands,
            frames: NulFrames::default(),
        };
        (
            connection,
            Fake {
                commands,
                out: Some(out),
            },
        )
    }

    /// The next command the client sent.
    pub(super) async fn command(&mut self) -> Value {
        let frame = self
            .commands
            .next()
            .await
            .expect("a command")
            .expect("read");
        serde_json::from_slice(&frame).expect("JSON")
    }

    async fn write(&mut self, bytes: &[u8]) {
        let out = self.out.as_mut().expect("open");
        out.write_all(bytes).await.expect("write");
        out.flush().await.expect("flush");
    }

    /// Writes `message` framed (JSON + NUL).
    pub(super) async fn send(&mut self, message: Value) {
        let mut bytes = message.to_string().into_bytes();
        bytes.push(0);
        self.write(&bytes).await;
    }

    /// Answers command `id` with `result`.
    pub(super) async fn answer(&mut self, id: &Value, result: Value) {
        self.send(json!({ "id": id, "result": result })).await;
    }
}

/// `f`, failing the test if it takes over 10 s (a waiter never answered).
pub(super) async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), f)
        .await
        .expect("done within 10 s")
}

/// `tokio::join!` of the futures, [`within`] 10 s.
macro_rules! joined {
    ($($f:expr),+ $(,)?) => {
        within(async { tokio::join!($($f),+) }).await
    };
}

fn evaluate(expression: &str) -> Evaluate<'_> {
    Evaluate {
        expression,
        await_promise: false,
        return_by_value: true,
        context_id: None,
    }
}

/// `{"result": {"type": "string", "value": v}}`, as Runtime.evaluate answers.
fn string_result(v: &str) -> Value {
    json!({ "result": { "type": "string", "value": v } })
}

fn value_of(r: Result<super::protocol::Evaluated, CdpError>) -> Value {
    r.expect("answered").result.value.expect("a value")
}

pub(super) fn session(s: &str) -> SessionId {
    SessionId(s.into())
}

#[test]
fn nul_frames_are_cut_at_each_nul_whatever_the_reads() {
    let mut frames = NulFrames::default();
    frames.push(b"{\"a\"");
    assert!(frames.next_frame().is_none());
    frames.push(b":1}\0{\"b\":2}\0{\"c");
    assert_eq!(frames.next_frame().as_deref(), Some(&b"{\"a\":1}"[..]));
    assert_eq!(frames.next_frame().as_deref(), Some(&b"{\"b\":2}"[..]));
    assert!(frames.next_frame().is_none());
    frames.push(b"\":3}");
    assert!(frames.next_frame().is_none());
    frames.push(b"\0\0");
    assert_eq!(frames.next_frame().as_deref(), Some(&b"{\"c\":3}"[..]));
    assert_eq!(frames.next_frame().as_deref(), Some(&b""[..]));
    assert!(frames.next_frame().is_none());
    assert!(frames.is_empty());
}

#[tokio::test]
async fn commands_go_out_framed_and_answers_reach_their_callers_in_any_order() {
    let (connection, mut fake) = Fake::connect("");
    let s1 = session("S1");
    let browser = async {
        let mut commands = Vec::new();
        for _ in 0..3 {
            commands.push(fake.command().await);
        }
        commands.sort_by_key(|c| c["id"].as_u64());
        let ids: Vec<u64> = commands.iter().map(|c| c["id"].as_u64().unwrap()).collect();
        assert!(ids[0] < ids[1] && ids[1] < ids[2], "{ids:?}");
        for c in &commands {
            assert_eq!(c["method"], "Runtime.evaluate", "{c}");
            assert_eq!(c["params"]["returnByValue"], true, "{c}");
        }
        let on_session: Vec<&Value> = commands.iter().filter(|c| c["sessionId"] == "S1").collect();
        assert_eq!(on_session.len(), 1, "{commands:?}");
        assert!(
            commands
                .iter()
                .filter(|c| c.get("sessionId").is_none())
                .count()
                == 2
        );
        // Answered last to first, the middle one's in two writes with a
        // pause between them, the other two in one write.
        let (a, b, c) = (&commands[0], &commands[1], &commands[2]);
        let text = |c: &Value| c["params"]["expression"].as_str().unwrap().to_string();
        let last = format!(
            "{}\0",
            json!({ "id": c["id"], "result": string_result(&text(c)) })
        );
        let first = format!(
            "{}\0",
            json!({ "id": a["id"], "result": string_result(&text(a)) })
        );
        let middle = format!(
            "{}\0",
            json!({ "id": b["id"], "result": string_result(&text(b)) })
        );
        let (head, tail) = middle.split_at(middle.len() / 2);
        fake.write(head.as_bytes()).await;
        tokio::time::sleep(Duration::from_millis(30)).await;
        fake.write(format!("{tail}{last}{first}").as_bytes()).await;
    };
    let (_, one, two, three) = joined!(
        browser,
        connection.send(None, &evaluate("one")),
        connection.send(Some(&s1), &evaluate("two")),
        connection.send(None, &evaluate("three")),
    );
    assert_eq!(value_of(one), "one");
    assert_eq!(value_of(two), "two");
    assert_eq!(value_of(three), "three");
}

#[tokio::test]
async fn events_go_to_the_channel_of_their_session() {
    let (connection, mut fake) = Fake::connect("");
    let mut root = connection.events(None).expect("root events");
    assert!(connection.events(None).is_none(), "taken once");
    let attached = |s: &str| {
        json!({ "method": "Target.attachedToTarget", "params": {
            "sessionId": s, "waitingForDebugger": true,
            "targetInfo": { "targetId": format!("T-{s}"), "type": "page", "url": "about:blank", "attached": true }
        }})
    };
    fake.send(attached("S1")).await;
    fake.send(attached("S2")).await;
    // Before anyone took S1's channel: kept.
    fake.send(
        json!({ "method": "Page.loadEventFired", "sessionId": "S1", "params": { "timestamp": 1 } }),
    )
    .await;
    fake.send(json!({ "method": "Page.frameNavigated", "sessionId": "S2", "params": {} }))
        .await;
    fake.send(json!({ "method": "Runtime.consoleAPICalled", "sessionId": "S1", "params": {} }))
        .await;
    fake.send(json!({ "method": "Target.targetInfoChanged", "params": {} }))
        .await;
    // An event of a session never attached goes nowhere.
    fake.send(json!({ "method": "Page.loadEventFired", "sessionId": "S9", "params": {} }))
        .await;

    let next = |rx: &mut tokio::sync::mpsc::UnboundedReceiver<super::connection::Received>| {
        let got = rx.try_recv().map(|r| r.method);
        got.ok()
    };
    // Every event was routed once the last one arrived on the root channel.
    let first = tokio::time::timeout(Duration::from_secs(5), root.recv())
        .await
        .expect("in time")
        .expect("an event");
    let parsed = first
        .parse::<AttachedToTarget>()
        .expect("attached")
        .expect("parses");
    assert_eq!(parsed.session_id, session("S1"));
    assert_eq!(parsed.target_info.target_id.0, "T-S1");
    assert!(parsed.waiting_for_debugger);
    let second = root.recv().await.expect("an event");
    assert_eq!(second.method, "Target.attachedToTarget");
    let third = root.recv().await.expect("an event");
    assert_eq!(third.method, "Target.targetInfoChanged");
    assert!(third.parse::<AttachedToTarget>().is_none());

    let mut s1 = connection
        .events(Some(&session("S1")))
        .expect("S1's events");
    let mut s2 = connection
        .events(Some(&session("S2")))
        .expect("S2's events");
    assert_eq!(next(&mut s1).as_deref(), Some("Page.loadEventFired"));
    assert_eq!(next(&mut s1).as_deref(), Some("Runtime.consoleAPICalled"));
    assert_eq!(next(&mut s1), None);
    assert_eq!(next(&mut s2).as_deref(), Some("Page.frameNavigated"));
    assert_eq!(next(&mut s2), None);
    assert_eq!(next(&mut root), None);
}

#[tokio::test]
async fn when_the_browser_goes_every_waiter_gets_lost_with_what_it_said() {
    let (connection, mut fake) = Fake::connect("[1:1:FATAL:zygote.cc] boom");
    let mut root = connection.events(None).expect("root events");
    let s1 = session("S1");
    let browser = async {
        for _ in 0..3 {
            fake.command().await;
        }
        // The browser exits: its end of the pipe closes.
        fake.out = None;
    };
    let (_, a, b, c) = joined!(
        browser,
        connection.send(None, &evaluate("a")),
        connection.send(Some(&s1), &evaluate("b")),
        connection.send(None, &GetVersion {}),
    );
    for (r, method) in [
        (a.map(|_| ()), "Runtime.evaluate"),
        (b.map(|_| ()), "Runtime.evaluate"),
        (c.map(|_| ()), "Browser.getVersion"),
    ] {
        match r {
            Err(CdpError::Lost {
                gone: Gone::BrowserExited,
                method: m,
                detail,
            }) => {
                assert_eq!(m, method);
                assert!(detail.contains("boom"), "{detail}");
            }
            other => panic!("expected Lost, got {other:?}"),
        }
    }
    assert!(connection.is_closed());
    // A later command fails at once, and says the same.
    let later = tokio::time::timeout(
        Duration::from_secs(5),
        connection.send(None, &GetVersion {}),
    )
    .await
    .expect("at once");
    let e = crate::error::BrowserError::from(later.expect_err("lost"));
    let text = e.to_string();
    assert!(
        text.starts_with("the browser exited while waiting for Browser.getVersion")
            && text.contains("boom"),
        "{text}"
    );
    // The events' channel ends.
    assert!(root.recv().await.is_none());
}

#[tokio::test]
async fn a_malformed_message_is_skipped_and_the_reader_goes_on() {
    let (connection, mut fake) = Fake::connect("");
    let browser = async {
        let first = fake.command().await;
        fake.write(b"this is not JSON\0\0[1,2]\0{\"id\":\"x\"}\0")
            .await;
        // An answer to no one, and an event without params.
        fake.send(json!({ "id": 424242, "result": {} })).await;
        fake.send(json!({ "method": "Inspector.detached" })).await;
        fake.answer(
            &first["id"],
            json!({ "protocolVersion": "1.3", "product": "HeadlessChrome/1" }),
        )
        .await;
        // A reply the command cannot read is that command's failure only.
        let second = fake.command().await;
        fake.answer(&second["id"], json!({ "product": 7 })).await;
        let third = fake.command().await;
        fake.answer(&third["id"], string_result("fine")).await;
    };
    let client = async {
        let version = connection
            .send(None, &GetVersion {})
            .await
            .expect("answered");
        let wrong = connection.send(None, &GetVersion {}).await;
        let fine = connection.send(None, &evaluate("x")).await;
        (version, wrong, fine)
    };
    let (_, (version, wrong, fine)) = joined!(browser, client);
    assert_eq!(version.product, "HeadlessChrome/1");
    assert!(
        matches!(
            wrong,
            Err(CdpError::Answer {
                method: "Browser.getVersion",
                ..
            })
        ),
        "{wrong:?}"
    );
    assert_eq!(value_of(fine), "fine");
    let mut root = connection.events(None).expect("root events");
    assert_eq!(
        root.try_recv().expect("the event").method,
        "Inspector.detached"
    );
}

#[tokio::test]
async fn error_answers_are_classified() {
    let (connection, mut fake) = Fake::connect("");
    let errors = [
        (-32000, "Execution context was destroyed."),
        (-32000, "Cannot find context with specified id"),
        (-32001, "Session with given id not found."),
        (-32602, "Invalid parameters"),
    ];
    let browser = async {
        for (code, message) in errors {
            let c = fake.command().await;
            fake.send(
                json!({ "id": c["id"], "error": { "code": code, "message": message, "data": "" } }),
            )
            .await;
        }
    };
    let client = async {
        let mut out = Vec::new();
        for _ in errors {
            out.push(
                connection
                    .send(None, &evaluate("x"))
                    .await
                    .expect_err("an error"),
            );
        }
        out
    };
    let (_, got) = joined!(browser, client);
    assert!(
        matches!(
            &got[0],
            CdpError::Navigated {
                method: "Runtime.evaluate",
                ..
            }
        ),
        "{:?}",
        got[0]
    );
    assert!(
        matches!(&got[1], CdpError::Navigated { .. }),
        "{:?}",
        got[1]
    );
    assert!(
        matches!(
            &got[2],
            CdpError::Lost {
                gone: Gone::PageClosed,
                ..
            }
        ),
        "{:?}",
        got[2]
    );
    match &got[3] {
        CdpError::Protocol { code, message, .. } => {
            assert_eq!(*code, -32602);
            assert_eq!(message, "Invalid parameters");
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_crashed_page_fails_its_sessions_waiters_only() {
    let (connection, mut fake) = Fake::connect("");
    let s1 = session("S1");
    fake.send(json!({ "method": "Target.attachedToTarget", "params": {
        "sessionId": "S1", "targetInfo": { "targetId": "T1", "type": "page" } } }))
        .await;
    let browser = async {
        let mut root_command = None;
        for _ in 0..2 {
            let c = fake.command().await;
            if c.get("sessionId").is_none() {
                root_command = Some(c);
            }
        }
        fake.send(json!({ "method": "Inspector.targetCrashed", "sessionId": "S1", "params": {} }))
            .await;
        tokio::time::sleep(Duration::from_millis(30)).await;
        fake.answer(
            &root_command.expect("one to the browser")["id"],
            string_result("alive"),
        )
        .await;
    };
    let (_, on_page, on_browser) = joined!(
        browser,
        connection.send(Some(&s1), &evaluate("page")),
        connection.send(None, &evaluate("browser")),
    );
    assert!(
        matches!(
            on_page,
            Err(CdpError::Lost {
                gone: Gone::PageCrashed,
                ..
            })
        ),
        "{on_page:?}"
    );
    assert_eq!(value_of(on_browser), "alive");
    let later = connection.send(Some(&s1), &evaluate("again")).await;
    let text = crate::error::BrowserError::from(later.expect_err("crashed")).to_string();
    assert!(
        text.starts_with("the page crashed while waiting for Runtime.evaluate"),
        "{text}"
    );
    let mut events = connection.events(Some(&s1)).expect("S1's events");
    assert_eq!(
        events.try_recv().expect("the crash").method,
        "Inspector.targetCrashed"
    );
}

#[tokio::test]
async fn a_detached_session_fails_its_waiters_and_ends_its_events() {
    let (connection, mut fake) = Fake::connect("");
    let s1 = session("S1");
    fake.send(json!({ "method": "Target.attachedToTarget", "params": {
        "sessionId": "S1", "targetInfo": { "targetId": "T1", "type": "page" } } }))
        .await;
    let mut events = connection.events(Some(&s1)).expect("S1's events");
    let browser = async {
        fake.command().await;
        fake.send(json!({ "method": "Target.detachedFromTarget", "params": { "sessionId": "S1", "targetId": "T1" } }))
            .await;
    };
    let (_, r) = joined!(browser, connection.send(Some(&s1), &evaluate("x")));
    assert!(
        matches!(
            r,
            Err(CdpError::Lost {
                gone: Gone::PageClosed,
                ..
            })
        ),
        "{r:?}"
    );
    assert!(events.recv().await.is_none(), "its channel ends");
}

#[test]
fn the_websocket_url_is_read_from_devtools_active_port() {
    let path = "/devtools/browser/5b1fa0c2-7d3e-4f19-9a0b-1c2d3e4f5a6b";
    assert_eq!(
        ws_url_of_active_port(&format!("41235\n{path}")).as_deref(),
        Some(format!("ws://127.0.0.1:41235{path}").as_str())
    );
    assert_eq!(ws_url_of_active_port("41235\n"), None, "half written");
    assert_eq!(
        ws_url_of_active_port(&format!("41235\n{}", &path[..30])),
        None,
        "half written"
    );
    assert_eq!(ws_url_of_active_port(""), None);
    assert_eq!(ws_url_of_active_port(&format!("0\n{path}")), None);
    assert_eq!(ws_url_of_active_port(&format!("abc\n{path}")), None);
}

/// Launches Chromium over `endpoint`, opens a page in a browser context of
/// its own, evaluates in it (and times 300 evaluations after 50), disposes of
/// the context, kills the browser, and checks nothing of it is left.
async fn a_launched_chromium_evaluates_and_leaves_nothing(endpoint: Endpoint) {
    let config = BrowserConfig::from_env().expect("config");
    let launched = launch(&config, endpoint, None)
        .await
        .expect("Chromium starts");
    let (chromium, connection) = (launched.chromium, launched.connection);
    assert!(
        launched.version.product.contains("Chrome"),
        "{:?}",
        launched.version
    );
    assert_eq!(chromium.ws_url().is_some(), endpoint == Endpoint::Port);

    let context = connection
        .send(
            None,
            &CreateBrowserContext {
                dispose_on_detach: None,
            },
        )
        .await
        .expect("a context")
        .browser_context_id;
    let target = connection
        .send(
            None,
            &CreateTarget {
                url: "about:blank",
                browser_context_id: Some(&context),
            },
        )
        .await
        .expect("a target")
        .target_id;
    let session = connection
        .send(
            None,
            &AttachToTarget {
                target_id: &target,
                flatten: true,
            },
        )
        .await
        .expect("attached")
        .session_id;
    let two = connection
        .send(Some(&session), &evaluate("1+1"))
        .await
        .expect("evaluated");
    assert_eq!(two.result.value, Some(json!(2)), "{two:?}");
    assert!(two.exception_details.is_none());
    let thrown = connection
        .send(
            Some(&session),
            &evaluate("(() => { throw new Error('nope') })()"),
        )
        .await
        .expect("answered");
    let details = thrown.exception_details.expect("it threw");
    assert!(details.message().contains("nope"), "{details:?}");
    the_page_commands_work(&connection, &session).await;

    let expression = "document.readyState";
    for _ in 0..50 {
        connection
            .send(Some(&session), &evaluate(expression))
            .await
            .expect("warm-up");
    }
    let mut times = Vec::with_capacity(300);
    for _ in 0..300 {
        let start = Instant::now();
        connection
            .send(Some(&session), &evaluate(expression))
            .await
            .expect("timed");
        times.push(start.elapsed());
    }
    times.sort();
    eprintln!(
        "CDP over {endpoint:?}: Runtime.evaluate round trip median {:.3} ms, p90 {:.3} ms (300 calls after 50)",
        times[150].as_secs_f64() * 1e3,
        times[270].as_secs_f64() * 1e3,
    );

    connection
        .send(
            None,
            &DisposeBrowserContext {
                browser_context_id: &context,
            },
        )
        .await
        .expect("disposed");
    let folder = chromium
        .profile()
        .parent()
        .expect("its folder")
        .to_path_buf();
    // Its group: it leads one of its own, its helpers in it.
    let group = chromium.pid();
    let running = crate::process::processes_of_group(group)
        .expect("/proc")
        .collect::<Vec<_>>();
    assert!(
        running.len() > 1,
        "the browser and its helpers run: {running:?}"
    );
    tokio::task::spawn_blocking(move || chromium.kill())
        .await
        .expect("killed");
    assert_eq!(
        crate::process::processes_of_group(group)
            .expect("/proc")
            .collect::<Vec<_>>(),
        Vec::<u32>::new(),
        "nothing of the browser of {} is left",
        folder.display()
    );
    assert!(!folder.exists(), "{} is removed", folder.display());
    let after = connection
        .send(None, &GetVersion {})
        .await
        .expect_err("gone");
    assert!(
        matches!(
            after,
            CdpError::Lost {
                gone: Gone::BrowserExited,
                ..
            }
        ),
        "{after:?}"
    );
}

/// The hand-typed page commands as Chromium reads them: a script for new
/// documents, a navigation, a function called on an object by its handle.
async fn the_page_commands_work(connection: &Connection, session: &SessionId) {
    let s = Some(session);
    connection
        .send(s, &PageEnable {})
        .await
        .expect("Page.enable");
    connection
        .send(s, &RuntimeEnable {})
        .await
        .expect("Runtime.enable");
    let added = connection
        .send(
            s,
            &AddScriptToEvaluateOnNewDocument {
                source: "window.__early = 'before the page';",
                run_immediately: None,
            },
        )
        .await
        .expect("script added");
    assert!(!added.identifier.is_empty());
    let navigated = connection
        .send(
            s,
            &Navigate {
                url: "data:text/html,<title>cdp</title><p>x</p>",
            },
        )
        .await
        .expect("navigated");
    assert!(navigated.error_text.is_none(), "{navigated:?}");
    assert!(!navigated.frame_id.is_empty());
    // The evaluation waits for nothing: poll until the document is there.
    let mut title = Value::Null;
    for _ in 0..100 {
        let r = connection
            .send(s, &evaluate("document.title + '|' + window.__early"))
            .await;
        if let Ok(r) = r {
            title = r.result.value.unwrap_or_default();
            if title == "cdp|before the page" {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(title, "cdp|before the page");
    let p = connection
        .send(
            s,
            &Evaluate {
                expression: "document.querySelector('p')",
                await_promise: false,
                return_by_value: false,
                context_id: None,
            },
        )
        .await
        .expect("a handle");
    let object_id = p.result.object_id.expect("an object id");
    assert_eq!(p.result.subtype.as_deref(), Some("node"));
    let ten = json!(10);
    let called = connection
        .send(
            s,
            &CallFunctionOn {
                function_declaration: "function (n) { return this.textContent + (n + this.nodeType); }",
                object_id: Some(&object_id),
                execution_context_id: None,
                arguments: &[CallArgument::Value(&ten)],
                await_promise: true,
                return_by_value: true,
            },
        )
        .await
        .expect("called");
    assert_eq!(called.result.value, Some(json!("x11")), "{called:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_over_the_pipe_evaluates_and_leaves_nothing() {
    a_launched_chromium_evaluates_and_leaves_nothing(Endpoint::Pipe).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_over_its_port_evaluates_and_leaves_nothing() {
    a_launched_chromium_evaluates_and_leaves_nothing(Endpoint::Port).await;
}

/// A "browser" that says why it cannot start and exits.
fn failing_browser(folder: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = folder.join("chromium");
    std::fs::write(
        &script,
        "#!/bin/sh\necho 'cannot open display :99' >&2\nexit 3\n",
    )
    .expect("script");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    script
}

#[tokio::test]
async fn a_browser_that_exits_at_its_start_is_an_error_with_what_it_said() {
    let folder = tempfile::tempdir().expect("folder");
    let mut config = BrowserConfig::from_env().expect("config");
    config.chromium = Some(failing_browser(folder.path()));
    let e = launch(&config, Endpoint::Pipe, None)
        .await
        .expect_err("it exits");
    match &e {
        crate::error::BrowserError::Lost { cause, detail, .. } => {
            assert_eq!(cause, "the browser exited", "{e}");
            assert!(detail.contains("cannot open display :99"), "{e}");
        }
        other => panic!("expected Lost, got {other:?}"),
    }
    let e = launch(&config, Endpoint::Port, None)
        .await
        .expect_err("it exits");
    let text = e.to_string();
    assert!(
        text.contains("exited with exit status: 3") && text.contains("cannot open display :99"),
        "{text}"
    );
}
