//! The demo app's JSON API.

use std::net::SocketAddr;

use demo_app::client::{Response, request};
use harshjudge::evidence::HttpProbe;
use harshjudge::{Scenario, scenario, step};
use serde_json::{Value, json};

fn addr(s: &Scenario) -> harshjudge::Result<SocketAddr> {
    let host = s.base_url().trim_start_matches("http://");
    host.parse().map_err(|e| {
        harshjudge::Error::msg(format!("base URL {:?} is not host:port: {e}", s.base_url()))
    })
}

/// Sends a request, attaches the exchange as evidence, returns status and JSON body.
async fn call(
    s: &Scenario,
    name: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> harshjudge::Result<(u16, Value)> {
    let text = body.as_ref().map(Value::to_string);
    let res: Response = request(addr(s)?, method, path, text.as_deref()).await?;
    let json: Value = if res.body.is_empty() {
        Value::Null
    } else {
        res.parse_json()?
    };
    s.attach_json(name, &json!({"request": {"method": method, "path": path, "body": body}, "status": res.status, "body": json}))?;
    Ok((res.status, json))
}

/// Sign in through the API.
#[scenario(tags = ["api", "smoke"])]
async fn api_login(s: Scenario) -> harshjudge::Result {
    step!("Wrong password is refused", {
        let (status, body) = call(
            &s,
            "login-refused",
            "POST",
            "/api/login",
            Some(json!({"email": "ada@example.com", "password": "nope"})),
        )
        .await?;
        harshjudge::ensure!(status == 401, "expected 401, got {status}: {body}");
    });
    let token = step!("Ada signs in", {
        let (status, body) = call(
            &s,
            "login",
            "POST",
            "/api/login",
            Some(json!({"email": "ada@example.com", "password": "secret"})),
        )
        .await?;
        harshjudge::ensure!(
            status == 200 && body["name"] == "Ada",
            "expected Ada, got {status}: {body}"
        );
        body["token"].as_str().unwrap_or_default().to_string()
    });
    step!("The token names Ada", {
        harshjudge::ensure!(token == "t-ada", "unexpected token {token:?}");
    });
    Ok(())
}

/// Add and remove items through the API.
#[scenario(tags = ["api"])]
async fn api_items(s: Scenario) -> harshjudge::Result {
    // The item list before and after every step, as evidence.
    s.probe(HttpProbe::new("items", s.url("/api/items"))).await;
    let before = step!("List the items", {
        let (status, body) = call(&s, "items", "GET", "/api/items", None).await?;
        harshjudge::ensure!(status == 200, "GET /api/items: {status}");
        body.as_array().map(Vec::len).unwrap_or(0)
    });
    let id = step!("Add a hammer", {
        let (status, item) = call(
            &s,
            "created",
            "POST",
            "/api/items",
            Some(json!({"text": "hammer", "category": "tools"})),
        )
        .await?;
        harshjudge::ensure!(status == 201, "expected 201, got {status}: {item}");
        item["id"].as_u64().unwrap_or_default()
    });
    step!("An empty item is refused", {
        let (status, body) = call(
            &s,
            "refused",
            "POST",
            "/api/items",
            Some(json!({"text": "  "})),
        )
        .await?;
        harshjudge::ensure!(status == 400, "expected 400, got {status}: {body}");
    });
    step!("Remove the hammer", {
        let (status, _) = call(&s, "deleted", "DELETE", &format!("/api/items/{id}"), None).await?;
        harshjudge::ensure!(status == 204, "expected 204, got {status}");
        let (_, items) = call(&s, "items-after", "GET", "/api/items", None).await?;
        let after = items.as_array().map(Vec::len).unwrap_or(0);
        harshjudge::ensure!(
            after == before,
            "expected {before} items again, found {after}"
        );
    });
    Ok(())
}

/// Fails on purpose (only with HARSHJUDGE_DEMO_FAIL=1), to show failure evidence.
#[scenario(tags = ["demo-failure"])]
async fn api_expected_failure(s: Scenario) -> harshjudge::Result {
    step!("Read the health endpoint", {
        let (status, body) = call(&s, "health", "GET", "/api/health", None).await?;
        harshjudge::ensure!(status == 200, "health: {status} {body}");
    });
    step!("Expect a status the API never returns", {
        let (_, body) = call(&s, "health-again", "GET", "/api/health", None).await?;
        if std::env::var_os("HARSHJUDGE_DEMO_FAIL").is_some() {
            harshjudge::ensure!(
                body["status"] == "degraded",
                "expected status \"degraded\", got {}",
                body["status"]
            );
        }
    });
    Ok(())
}
