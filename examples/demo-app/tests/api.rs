//! The JSON API, the binding address and the lifecycle of `DemoApp`.

mod common;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use common::{JsonBody, delete, get, post, request};
use demo_app::DemoApp;
use serde_json::json;

#[tokio::test]
async fn health() {
    let app = DemoApp::start().await.unwrap();
    let res = get(app.addr(), "/api/health").await;
    assert_eq!(res.status, 200);
    assert!(
        res.header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
    assert_eq!(res.json(), json!({"status": "ok"}));
    app.stop().await;
}

#[tokio::test]
async fn login_accepts_the_two_users() {
    let app = DemoApp::start().await.unwrap();
    let res = post(
        app.addr(),
        "/api/login",
        r#"{"email":"ada@example.com","password":"secret"}"#,
    )
    .await;
    assert_eq!(res.status, 200);
    assert_eq!(
        res.json(),
        json!({"ok": true, "name": "Ada", "token": "t-ada"})
    );

    let res = post(
        app.addr(),
        "/api/login",
        r#"{"email":"grace@example.com","password":"hopper"}"#,
    )
    .await;
    assert_eq!(res.status, 200);
    assert_eq!(res.json()["name"], "Grace");
    assert_eq!(res.json()["ok"], true);
    app.stop().await;
}

#[tokio::test]
async fn login_rejects_bad_credentials() {
    let app = DemoApp::start().await.unwrap();
    for body in [
        r#"{"email":"ada@example.com","password":"wrong"}"#,
        r#"{"email":"grace@example.com","password":"secret"}"#,
        r#"{"email":"nobody@example.com","password":"secret"}"#,
        r#"{}"#,
    ] {
        let res = post(app.addr(), "/api/login", body).await;
        assert_eq!(res.status, 401, "{body}");
        assert_eq!(
            res.json(),
            json!({"ok": false, "error": "invalid credentials"}),
            "{body}"
        );
    }
    let res = post(app.addr(), "/api/login", "not json").await;
    assert_eq!(res.status, 400);
    assert_eq!(res.json()["ok"], false);
    app.stop().await;
}

#[tokio::test]
async fn items_start_with_apple_and_pear() {
    let app = DemoApp::start().await.unwrap();
    let res = get(app.addr(), "/api/items").await;
    assert_eq!(res.status, 200);
    assert_eq!(
        res.json(),
        json!([
            {"id": 1, "text": "apple", "category": "fruit", "urgent": false},
            {"id": 2, "text": "pear", "category": "fruit", "urgent": false},
        ])
    );
    app.stop().await;
}

#[tokio::test]
async fn add_and_delete_items() {
    let app = DemoApp::start().await.unwrap();
    let addr = app.addr();

    let res = post(
        addr,
        "/api/items",
        r#"{"text":"hammer","category":"tools","urgent":true}"#,
    )
    .await;
    assert_eq!(res.status, 201);
    assert_eq!(
        res.json(),
        json!({"id": 3, "text": "hammer", "category": "tools", "urgent": true})
    );

    let res = post(addr, "/api/items", r#"{"text":"  milk  "}"#).await;
    assert_eq!(res.status, 201);
    assert_eq!(
        res.json(),
        json!({"id": 4, "text": "milk", "category": "general", "urgent": false})
    );

    for body in [r#"{"text":""}"#, r#"{"text":"   "}"#, r#"{}"#] {
        let res = post(addr, "/api/items", body).await;
        assert_eq!(res.status, 400, "{body}");
        assert_eq!(res.json(), json!({"error": "text must not be empty"}));
    }
    let res = post(addr, "/api/items", "{").await;
    assert_eq!(res.status, 400);

    let texts = |v: serde_json::Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|i| i["text"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        texts(get(addr, "/api/items").await.json()),
        ["apple", "pear", "hammer", "milk"]
    );

    let res = delete(addr, "/api/items/1").await;
    assert_eq!(res.status, 204);
    assert_eq!(res.body, "");
    assert_eq!(
        texts(get(addr, "/api/items").await.json()),
        ["pear", "hammer", "milk"]
    );

    let res = delete(addr, "/api/items/1").await;
    assert_eq!(res.status, 404);
    assert_eq!(res.json(), json!({"error": "no item 1"}));
    let res = delete(addr, "/api/items/7").await;
    assert_eq!(res.status, 404);
    assert_eq!(res.json(), json!({"error": "no item 7"}));
    let res = delete(addr, "/api/items/abc").await;
    assert_eq!(res.status, 404);
    assert_eq!(res.json(), json!({"error": "no item abc"}));

    // Ids are never reused.
    let res = post(addr, "/api/items", r#"{"text":"plum"}"#).await;
    assert_eq!(res.json()["id"], 5);
    app.stop().await;
}

#[tokio::test]
async fn state_is_per_instance() {
    let first = DemoApp::start().await.unwrap();
    let second = DemoApp::start().await.unwrap();
    assert_ne!(first.addr(), second.addr());
    let res = delete(first.addr(), "/api/items/1").await;
    assert_eq!(res.status, 204);
    assert_eq!(get(first.addr(), "/api/data").await.json()["items"], 1);
    assert_eq!(get(second.addr(), "/api/data").await.json()["items"], 2);
    first.stop().await;
    second.stop().await;
}

#[tokio::test]
async fn data_reports_message_and_count() {
    let app = DemoApp::start().await.unwrap();
    let res = get(app.addr(), "/api/data").await;
    assert_eq!(res.status, 200);
    assert_eq!(
        res.json(),
        json!({"message": "Hello from the API", "items": 2})
    );
    post(app.addr(), "/api/items", r#"{"text":"fig"}"#).await;
    assert_eq!(get(app.addr(), "/api/data").await.json()["items"], 3);
    app.stop().await;
}

#[tokio::test]
async fn slow_waits_the_given_time() {
    let app = DemoApp::start().await.unwrap();
    let started = Instant::now();
    let res = get(app.addr(), "/api/slow?ms=300").await;
    let took = started.elapsed();
    assert_eq!(res.status, 200);
    assert_eq!(res.json(), json!({"waited": 300}));
    assert!(took >= Duration::from_millis(300), "took {took:?}");
    assert!(took < Duration::from_secs(5), "took {took:?}");

    let res = get(app.addr(), "/api/slow?ms=0").await;
    assert_eq!(res.json(), json!({"waited": 0}));
    app.stop().await;
}

#[tokio::test]
async fn unknown_api_path_is_a_json_404() {
    let app = DemoApp::start().await.unwrap();
    let res = get(app.addr(), "/api/missing").await;
    assert_eq!(res.status, 404);
    assert_eq!(res.json(), json!({"error": "not found: /api/missing"}));
    app.stop().await;
}

#[tokio::test]
async fn wrong_method_is_405() {
    let app = DemoApp::start().await.unwrap();
    let res = get(app.addr(), "/api/login").await;
    assert_eq!(res.status, 405);
    app.stop().await;
}

#[tokio::test]
async fn binds_loopback_only() {
    let app = DemoApp::start().await.unwrap();
    let addr = app.addr();
    assert_eq!(addr.ip(), IpAddr::V4(Ipv4Addr::LOCALHOST));
    assert_eq!(app.base_url(), format!("http://127.0.0.1:{}", addr.port()));
    // A server bound to 0.0.0.0 would also answer on the rest of 127.0.0.0/8
    // and on [::1]; one bound to 127.0.0.1 answers on 127.0.0.1 alone.
    for other in [
        SocketAddr::from((Ipv4Addr::new(127, 0, 0, 2), addr.port())),
        SocketAddr::from((std::net::Ipv6Addr::LOCALHOST, addr.port())),
    ] {
        let connected = tokio::time::timeout(
            Duration::from_secs(2),
            tokio::net::TcpStream::connect(other),
        )
        .await;
        assert!(
            !matches!(connected, Ok(Ok(_))),
            "the app also answers on {other}"
        );
    }
    assert_eq!(get(addr, "/api/health").await.status, 200);
    app.stop().await;
}

#[tokio::test]
async fn start_on_a_given_port() {
    // Find a free port, release it, then ask for it explicitly.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let app = DemoApp::start_on(port).await.unwrap();
    assert_eq!(app.addr().port(), port);
    assert_eq!(app.base_url(), format!("http://127.0.0.1:{port}"));
    // A second app cannot take the same port.
    assert!(DemoApp::start_on(port).await.is_err());
    assert_eq!(get(app.addr(), "/api/health").await.status, 200);
    app.stop().await;
}

#[tokio::test]
async fn stop_closes_the_port() {
    let app = DemoApp::start().await.unwrap();
    let addr = app.addr();
    assert_eq!(get(addr, "/api/health").await.status, 200);
    app.stop().await;
    assert!(request(addr, "GET", "/api/health", None).await.is_err());
}

#[tokio::test]
async fn stop_lets_an_in_flight_request_finish() {
    let app = DemoApp::start().await.unwrap();
    let addr = app.addr();
    let pending = tokio::spawn(async move { get(addr, "/api/slow?ms=500").await });
    tokio::time::sleep(Duration::from_millis(150)).await;
    app.stop().await;
    let res = pending.await.unwrap();
    assert_eq!(res.status, 200);
    assert_eq!(res.json(), json!({"waited": 500}));
}

#[test]
fn start_in_background_outlives_the_caller_runtime() {
    let url = demo_app::start_in_background().unwrap();
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .expect("base url on 127.0.0.1")
        .parse()
        .unwrap();
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    // Two short-lived runtimes, one after the other: the app survives the first.
    for _ in 0..2 {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let res = runtime.block_on(get(addr, "/api/health"));
        assert_eq!(res.status, 200);
    }
}
