//! The typed commands of `protocol.rs` against the shapes of the W3C
//! WebDriver BiDi spec (each command's `…Parameters` type), and the events
//! of `protocol_events.rs` read from messages as the remote ends send them:
//! an unknown event and one of another shape never fail the reader.

use serde_json::{Value, json};

use super::protocol::*;
use super::protocol_events::*;

/// A command's parameters, as sent.
fn sent<C: Command>(params: C) -> Value {
    serde_json::to_value(params).unwrap()
}

/// `session.SubscriptionRequest`, `script.AddPreloadScriptParameters`,
/// `input.PerformActionsParameters`.
#[test]
fn session_script_and_input_commands_are_the_specs() {
    assert_eq!(
        sent(Subscribe {
            events: &["log.entryAdded", "browsingContext.load"]
        }),
        json!({"events": ["log.entryAdded", "browsingContext.load"]})
    );
    assert_eq!(
        sent(AddPreloadScript {
            function_declaration: "function () {}".into(),
            contexts: None,
            user_contexts: None,
        }),
        json!({"functionDeclaration": "function () {}"})
    );
    assert_eq!(
        sent(AddPreloadScript {
            function_declaration: "function () {}".into(),
            contexts: Some(vec!["ctx".into()]),
            user_contexts: None,
        }),
        json!({"functionDeclaration": "function () {}", "contexts": ["ctx"]})
    );
    assert_eq!(
        sent(AddPreloadScript {
            function_declaration: "function () {}".into(),
            contexts: None,
            user_contexts: Some(vec!["uc".into()]),
        }),
        json!({"functionDeclaration": "function () {}", "userContexts": ["uc"]})
    );
    let actions =
        json!([{"type": "key", "id": "k", "actions": [{"type": "keyDown", "value": "a"}]}]);
    assert_eq!(
        sent(PerformActions {
            context: "c",
            actions: &actions
        }),
        json!({"context": "c", "actions": actions})
    );
}

/// `browsingContext.NavigateParameters`, `ReloadParameters`,
/// `TraverseHistoryParameters`, `CreateParameters`, `CloseParameters`,
/// `HandleUserPromptParameters`, `GetTreeParameters`.
#[test]
fn browsing_context_commands_are_the_specs() {
    let wait = Readiness::Complete;
    assert_eq!(
        sent(Navigate {
            context: "c",
            url: "http://a/",
            wait
        }),
        json!({"context": "c", "url": "http://a/", "wait": "complete"})
    );
    assert_eq!(
        sent(Reload { context: "c", wait }),
        json!({"context": "c", "wait": "complete"})
    );
    assert_eq!(
        sent(TraverseHistory {
            context: "c",
            delta: -1
        }),
        json!({"context": "c", "delta": -1})
    );
    assert_eq!(
        sent(Create {
            kind: CreateType::Tab,
            user_context: Some("u"),
            background: false,
        }),
        json!({"type": "tab", "userContext": "u"})
    );
    assert_eq!(
        sent(Create {
            kind: CreateType::Tab,
            user_context: None,
            background: true,
        }),
        json!({"type": "tab", "background": true})
    );
    assert_eq!(
        sent(Close {
            context: "c",
            prompt_unload: false
        }),
        json!({"context": "c", "promptUnload": false})
    );
    assert_eq!(
        sent(HandleUserPrompt {
            context: "c",
            accept: true,
            user_text: Some("Ada")
        }),
        json!({"context": "c", "accept": true, "userText": "Ada"})
    );
    assert_eq!(
        sent(HandleUserPrompt {
            context: "c",
            accept: false,
            user_text: None
        }),
        json!({"context": "c", "accept": false})
    );
    assert_eq!(
        sent(GetTree {
            root: None,
            max_depth: 0
        }),
        json!({"maxDepth": 0})
    );
    let created: Created =
        serde_json::from_value(json!({"context": "t", "userContext": "u"})).unwrap();
    assert_eq!(created.context, "t");
}

/// `network.AddDataCollectorParameters` and `network.GetDataParameters`,
/// and `network.GetDataResult`'s bytes.
#[test]
fn data_collector_commands_are_the_specs() {
    assert_eq!(
        sent(AddDataCollector {
            data_types: vec![DataType::Response],
            max_encoded_data_size: 8 << 20,
        }),
        json!({"dataTypes": ["response"], "maxEncodedDataSize": 8388608})
    );
    assert_eq!(
        sent(GetData {
            data_type: DataType::Response,
            collector: "c1",
            request: "r7",
        }),
        json!({"dataType": "response", "collector": "c1", "request": "r7"})
    );
    let added: DataCollector = serde_json::from_value(json!({"collector": "c1"})).unwrap();
    assert_eq!(added.collector, "c1");
    let data: Data =
        serde_json::from_value(json!({"bytes": {"type": "base64", "value": "iVBO"}})).unwrap();
    assert_eq!(
        data.bytes,
        BytesValue::Base64 {
            value: "iVBO".into()
        }
    );
}

/// `network.AddInterceptParameters` (with `UrlPatternPattern` and
/// `UrlPatternString`), `RemoveInterceptParameters`,
/// `ContinueRequestParameters`, `FailRequestParameters`,
/// `ProvideResponseParameters`.
#[test]
fn network_commands_are_the_specs() {
    let add = AddIntercept {
        phases: vec![InterceptPhase::BeforeRequestSent],
        contexts: Some(vec!["c".into()]),
        url_patterns: Some(vec![
            InterceptPattern::Pattern {
                pathname: "/api".into(),
            },
            InterceptPattern::String {
                pattern: "http://a/x".into(),
            },
        ]),
    };
    assert_eq!(
        sent(add),
        json!({"phases": ["beforeRequestSent"], "contexts": ["c"], "urlPatterns": [
            {"type": "pattern", "pathname": "/api"}, {"type": "string", "pattern": "http://a/x"}]})
    );
    let every = AddIntercept {
        phases: vec![InterceptPhase::BeforeRequestSent],
        contexts: None,
        url_patterns: None,
    };
    assert_eq!(sent(every), json!({"phases": ["beforeRequestSent"]}));
    let answer: Intercept = serde_json::from_value(json!({"intercept": "i1"})).unwrap();
    assert_eq!(answer.intercept, "i1");
    assert_eq!(
        sent(RemoveIntercept { intercept: "i1" }),
        json!({"intercept": "i1"})
    );
    let header = Header {
        name: "X-A".into(),
        value: BytesValue::String { value: "1".into() },
    };
    assert_eq!(
        sent(ContinueRequest {
            request: "r",
            headers: Some(vec![header.clone()])
        }),
        json!({"request": "r", "headers": [{"name": "X-A", "value": {"type": "string", "value": "1"}}]})
    );
    assert_eq!(
        sent(ContinueRequest {
            request: "r",
            headers: None
        }),
        json!({"request": "r"})
    );
    assert_eq!(sent(FailRequest { request: "r" }), json!({"request": "r"}));
    let provide = ProvideResponse {
        request: "r",
        status_code: 404,
        reason_phrase: "Not Found",
        headers: vec![header],
        body: BytesValue::Base64 {
            value: "aGk=".into(),
        },
    };
    assert_eq!(
        sent(provide),
        json!({"request": "r", "statusCode": 404, "reasonPhrase": "Not Found",
            "headers": [{"name": "X-A", "value": {"type": "string", "value": "1"}}],
            "body": {"type": "base64", "value": "aGk="}})
    );
}

/// `browser.createUserContext` (`{}`), `browser.getUserContexts`' answer,
/// `RemoveUserContextParameters`, `SetDownloadBehaviorParameters` (null
/// restores the default: it is written, not left out).
#[test]
fn browser_commands_are_the_specs() {
    assert_eq!(sent(CreateUserContext {}), json!({}));
    assert_eq!(sent(GetUserContexts {}), json!({}));
    let created: UserContextInfo = serde_json::from_value(json!({"userContext": "u1"})).unwrap();
    assert_eq!(created.user_context, "u1");
    let all: UserContexts = serde_json::from_value(
        json!({"userContexts": [{"userContext": "default"}, {"userContext": "u1"}]}),
    )
    .unwrap();
    let ids: Vec<_> = all
        .user_contexts
        .iter()
        .map(|u| u.user_context.as_str())
        .collect();
    assert_eq!(ids, ["default", "u1"]);
    assert_eq!(
        sent(RemoveUserContext { user_context: "u1" }),
        json!({"userContext": "u1"})
    );
    assert_eq!(
        sent(SetDownloadBehavior {
            download_behavior: Some(DownloadBehavior::Allowed {
                destination_folder: "/tmp/d".into()
            })
        }),
        json!({"downloadBehavior": {"type": "allowed", "destinationFolder": "/tmp/d"}})
    );
    assert_eq!(
        sent(SetDownloadBehavior {
            download_behavior: None
        }),
        json!({"downloadBehavior": null})
    );
}

fn event(method: &str, params: Value) -> BidiEvent {
    BidiEvent::parse(&json!({"type": "event", "method": method, "params": params}))
}

/// Each event read, from a message as Chromium's and Firefox's drivers
/// send it (fields this side does not read included).
#[test]
fn events_are_read_from_the_messages_the_drivers_send() {
    let e = event(
        "network.beforeRequestSent",
        json!({"context": "c", "isBlocked": true, "navigation": null, "redirectCount": 1,
            "timestamp": 1700000000123u64, "intercepts": ["i1"],
            "request": {"request": "r1", "url": "http://a/x", "method": "POST",
                "headers": [{"name": "A", "value": {"type": "string", "value": "1"}},
                    {"name": "B", "value": {"type": "base64", "value": "Mg=="}}],
                "cookies": [], "headersSize": 0, "bodySize": null, "destination": "",
                "initiatorType": null, "timings": {}},
            "initiator": {"type": "script"}}),
    );
    let BidiEvent::BeforeRequestSent(sent) = e else {
        panic!("{e:?}")
    };
    assert!(sent.is_blocked);
    assert_eq!(sent.redirect_count, 1);
    assert_eq!(sent.timestamp, 1700000000123.0);
    assert_eq!(
        (sent.request.request.as_str(), sent.request.method.as_str()),
        ("r1", "POST")
    );
    assert_eq!(sent.request.headers.len(), 2);
    assert_eq!(sent.request.initiator_type, None);

    let e = event(
        "network.responseCompleted",
        json!({"context": "c", "isBlocked": false, "navigation": "n", "redirectCount": 0,
            "timestamp": 5, "request": {"request": "r1", "url": "http://a/x", "method": "GET",
                "headers": [], "cookies": [], "headersSize": 0, "bodySize": 0, "timings": {}},
            "response": {"url": "http://a/x", "protocol": "http/1.1", "status": 404,
                "statusText": "Not Found", "fromCache": false, "headers": [],
                "mimeType": "text/html", "bytesReceived": 3, "headersSize": null,
                "bodySize": null, "content": {"size": 3}}}),
    );
    let BidiEvent::ResponseCompleted(done) = e else {
        panic!("{e:?}")
    };
    assert_eq!(
        (done.response.status, done.response.status_text.as_str()),
        (Some(404), "Not Found")
    );
    assert_eq!(done.timestamp, Some(5.0));

    let e = event(
        "network.fetchError",
        json!({"context": "c", "navigation": null, "redirectCount": 0, "timestamp": 5,
            "isBlocked": false, "request": {"request": "r2", "url": "http://a/y"},
            "errorText": "net::ERR_FAILED"}),
    );
    let BidiEvent::FetchError(failed) = e else {
        panic!("{e:?}")
    };
    assert_eq!(failed.navigation, None);
    assert_eq!(failed.error_text.as_deref(), Some("net::ERR_FAILED"));

    let e = event(
        "log.entryAdded",
        json!({"type": "console", "method": "log", "realm": "r", "args": [], "level": "info",
            "source": {"realm": "r", "context": "c"}, "text": null, "timestamp": 7,
            "stackTrace": {"callFrames": [{"columnNumber": 1, "functionName": "",
                "lineNumber": 4, "url": "http://a/app.js"}]}}),
    );
    let BidiEvent::LogEntryAdded(entry) = e else {
        panic!("{e:?}")
    };
    assert_eq!((entry.kind.as_str(), entry.text), ("console", None));
    let frame = &entry.stack_trace.unwrap().call_frames[0];
    assert_eq!(
        (frame.url.as_str(), frame.line_number),
        ("http://a/app.js", Some(4))
    );

    for method in [
        "browsingContext.navigationStarted",
        "browsingContext.domContentLoaded",
        "browsingContext.load",
        "browsingContext.navigationAborted",
        "browsingContext.navigationFailed",
        "browsingContext.fragmentNavigated",
        "browsingContext.navigationCommitted",
    ] {
        let e = event(
            method,
            json!({"context": "c", "navigation": "n", "timestamp": 1, "url": "http://a/"}),
        );
        let n = match &e {
            BidiEvent::NavigationStarted(n)
            | BidiEvent::DomContentLoaded(n)
            | BidiEvent::Load(n)
            | BidiEvent::NavigationAborted(n)
            | BidiEvent::NavigationFailed(n)
            | BidiEvent::FragmentNavigated(n)
            | BidiEvent::NavigationCommitted(n) => n,
            other => panic!("{method}: {other:?}"),
        };
        assert_eq!(
            (n.context.as_str(), n.navigation.as_deref(), n.url.as_str()),
            ("c", Some("n"), "http://a/"),
            "{method}"
        );
    }
    let e = event(
        "browsingContext.contextDestroyed",
        json!({"context": "f", "url": "about:blank", "children": null, "parent": "c",
            "userContext": "default", "originalOpener": null, "clientWindow": "w"}),
    );
    assert!(matches!(e, BidiEvent::ContextDestroyed(n) if n.context == "f"));
    let e = event(
        "browsingContext.downloadWillBegin",
        json!({"context": "c", "navigation": "n", "timestamp": 1, "url": "http://a/f.csv",
            "suggestedFilename": "f.csv"}),
    );
    assert!(matches!(e, BidiEvent::DownloadWillBegin(d) if d.suggested_filename == "f.csv"));
    let e = event(
        "browsingContext.userPromptOpened",
        json!({"context": "c", "handler": "ignore", "message": "Sure?", "type": "prompt",
            "defaultValue": "yes", "userContext": "default"}),
    );
    let BidiEvent::UserPromptOpened(p) = e else {
        panic!("{e:?}")
    };
    assert_eq!(
        (p.context.as_str(), p.kind.as_str(), p.message.as_str()),
        ("c", "prompt", "Sure?")
    );
    assert_eq!(p.default_value.as_deref(), Some("yes"));
}

/// An event this side does not read is `Other` (with any parameters, or
/// none); a known one whose fields have another type is `Malformed`, naming
/// the method and what was wrong; a field left out takes the default the
/// page's log took before (a request with no method is a GET).
#[test]
fn an_unknown_or_malformed_event_is_told_apart_and_never_panics() {
    for params in [
        json!({"context": "c", "url": "x"}),
        json!(null),
        json!([1, 2]),
    ] {
        let e = event("browsingContext.contextCreated", params.clone());
        assert!(matches!(e, BidiEvent::Other), "{params}: {e:?}");
    }
    let e = BidiEvent::parse(&json!({"type": "event", "method": "script.realmCreated"}));
    assert!(matches!(e, BidiEvent::Other), "{e:?}");

    let e = event(
        "network.responseCompleted",
        json!({"request": {"request": "r"}, "redirectCount": "one", "response": {"status": 200}}),
    );
    let BidiEvent::Malformed { method, error } = e else {
        panic!("{e:?}")
    };
    assert_eq!(method, "network.responseCompleted");
    assert!(error.contains("invalid type"), "{error}");
    for (method, params) in [
        ("log.entryAdded", json!({"type": "console", "text": 3})),
        ("browsingContext.load", json!({"context": 7})),
        ("browsingContext.userPromptOpened", json!("alert")),
        ("network.beforeRequestSent", json!(null)),
    ] {
        let e = event(method, params);
        assert!(
            matches!(&e, BidiEvent::Malformed { method: m, .. } if m == method),
            "{method}: {e:?}"
        );
    }
    // No method at all: nothing to dispatch on, still no panic.
    let e = BidiEvent::parse(&json!({"type": "event"}));
    assert!(matches!(e, BidiEvent::Malformed { .. }), "{e:?}");

    let e = event("network.fetchError", json!({"request": {"request": "r"}}));
    let BidiEvent::FetchError(f) = e else {
        panic!("{e:?}")
    };
    assert_eq!((f.request.method.as_str(), f.redirect_count), ("GET", 0));
    assert_eq!((f.timestamp, f.error_text), (None, None));
}

/// `storage.DeleteCookiesParameters`: a `CookieFilter` by name, domain and
/// path, in the page's partition when it has one.
#[test]
fn delete_cookies_is_the_specs() {
    let filter = || CookieFilter {
        name: "sid",
        domain: "app.test",
        path: "/",
    };
    assert_eq!(
        sent(DeleteCookies {
            filter: filter(),
            partition: Some(Partition::StorageKey {
                user_context: "u".into()
            }),
        }),
        json!({"filter": {"name": "sid", "domain": "app.test", "path": "/"},
            "partition": {"type": "storageKey", "userContext": "u"}})
    );
    assert_eq!(
        sent(DeleteCookies {
            filter: filter(),
            partition: None,
        }),
        json!({"filter": {"name": "sid", "domain": "app.test", "path": "/"}})
    );
}

/// The browsing context of a console or network event (what keeps a
/// context this side opened for itself out of the step's log).
#[test]
fn console_and_network_events_name_their_context() {
    let event = |method: &str, params: Value| {
        BidiEvent::parse(&json!({"type": "event", "method": method, "params": params}))
    };
    let sent = event(
        "network.beforeRequestSent",
        json!({"context": "c1", "request": {"request": "7"}}),
    );
    assert_eq!(sent.log_context(), Some("c1"));
    let done = event(
        "network.responseCompleted",
        json!({"context": null, "request": {"request": "7"}}),
    );
    assert_eq!(done.log_context(), None, "a request that is no page's");
    let logged = event(
        "log.entryAdded",
        json!({"type": "console", "text": "hi", "source": {"realm": "r", "context": "c2"}}),
    );
    assert_eq!(logged.log_context(), Some("c2"));
    let loaded = event("browsingContext.load", json!({"context": "c3", "url": "u"}));
    assert_eq!(loaded.log_context(), None, "not a console or network event");
}
