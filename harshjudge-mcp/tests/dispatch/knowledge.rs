//! The knowledge store on real files: relevance on a hand-written history of a
//! shop app (30 steps in 3 sessions), filters, scope, index freshness (own
//! records, other writers, rewritten files), `similar`, torn lines, bad input.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

use harshjudge_mcp::Code;
use harshjudge_mcp::knowledge::{
    KnowledgeStore, Observation, Outcome, PageState, Scope, SearchQuery, SearchResult, StepRecord,
    page_path, tokenize,
};
use harshjudge_mcp::tools::knowledge::{
    KnowledgeSearch, KnowledgeSimilar, knowledge_search, knowledge_similar,
};
use serde_json::{Value, json};

const BASE: &str = "http://127.0.0.1:4000";

/// A page of the shop: path, title, test ids.
fn page(key: &str) -> (&'static str, &'static str, &'static [&'static str]) {
    match key {
        "home" => (
            "/",
            "Shop – Home",
            &[
                "nav-home",
                "nav-cart",
                "search-input",
                "search-button",
                "product-card",
            ],
        ),
        "login" => (
            "/login",
            "Sign in – Shop",
            &[
                "nav-home",
                "email-input",
                "password-input",
                "sign-in-button",
            ],
        ),
        "products" => (
            "/products",
            "Products – Shop",
            &[
                "nav-home",
                "nav-cart",
                "product-card",
                "filter-select",
                "sort-select",
            ],
        ),
        "product42" => (
            "/products/42",
            "Blue Mug – Shop",
            &[
                "nav-home",
                "nav-cart",
                "add-to-cart-button",
                "quantity-input",
                "product-title",
            ],
        ),
        "cart" => (
            "/cart",
            "Your cart – Shop",
            &[
                "nav-home",
                "nav-cart",
                "cart-item",
                "quantity-input",
                "checkout-button",
                "remove-item-button",
            ],
        ),
        "checkout" => (
            "/checkout",
            "Checkout – Shop",
            &[
                "nav-home",
                "address-input",
                "card-input",
                "place-order-button",
            ],
        ),
        other => panic!("no page {other}"),
    }
}

/// `(tool, args, error (code, message), page after the call, text)`.
type Row = (
    &'static str,
    Value,
    Option<(&'static str, &'static str)>,
    &'static str,
    &'static str,
);

fn history() -> Vec<(&'static str, Vec<Row>)> {
    let nav = |p: &str| json!({"url": format!("{BASE}{p}")});
    let click = |id: &str| json!({"target": format!("testid={id}")});
    let fill = |id: &str, v: &str| json!({"target": format!("testid={id}"), "value": v});
    vec![
        (
            "s1",
            vec![
                ("browser_navigate", nav("/login"), None, "login", ""),
                (
                    "browser_fill",
                    fill("email-input", "ann@example.com"),
                    None,
                    "login",
                    "",
                ),
                (
                    "browser_fill",
                    fill("password-input", "secret"),
                    None,
                    "login",
                    "",
                ),
                (
                    "browser_click",
                    click("sign-in-button"),
                    None,
                    "products",
                    "Welcome back, Ann",
                ),
                (
                    "browser_click",
                    click("product-card"),
                    None,
                    "product42",
                    "",
                ),
                (
                    "browser_click",
                    click("add-to-cart"),
                    Some(("TARGET_NOT_FOUND", "no element matches testid=add-to-cart")),
                    "product42",
                    "",
                ),
                (
                    "browser_click",
                    click("add-to-cart-button"),
                    None,
                    "product42",
                    "Added to cart",
                ),
                ("browser_navigate", nav("/cart"), None, "cart", ""),
                ("browser_screenshot", json!({}), None, "cart", ""),
                (
                    "browser_fill",
                    fill("quantity-input", "3"),
                    None,
                    "cart",
                    "3 items",
                ),
            ],
        ),
        (
            "s2",
            vec![
                ("browser_navigate", nav("/"), None, "home", ""),
                (
                    "browser_fill",
                    fill("search-input", "blue mug"),
                    None,
                    "home",
                    "",
                ),
                (
                    "browser_click",
                    click("search-button"),
                    None,
                    "products",
                    "1 result for blue mug",
                ),
                (
                    "browser_click",
                    click("product-card"),
                    None,
                    "product42",
                    "",
                ),
                (
                    "browser_fill",
                    fill("quantity-input", "2"),
                    None,
                    "product42",
                    "",
                ),
                (
                    "browser_click",
                    click("add-to-cart-button"),
                    None,
                    "product42",
                    "Added to cart",
                ),
                ("browser_click", click("nav-cart"), None, "cart", ""),
                (
                    "browser_click",
                    click("checkout-btn"),
                    Some(("TARGET_NOT_FOUND", "no element matches testid=checkout-btn")),
                    "cart",
                    "",
                ),
                (
                    "browser_wait_for",
                    json!({"text": "Your cart"}),
                    None,
                    "cart",
                    "",
                ),
                ("browser_screenshot", json!({}), None, "cart", ""),
            ],
        ),
        (
            "s3",
            vec![
                ("browser_navigate", nav("/login"), None, "login", ""),
                (
                    "browser_fill",
                    fill("email-input", "ann@example.com"),
                    None,
                    "login",
                    "",
                ),
                (
                    "browser_fill",
                    fill("password-input", "wrong"),
                    None,
                    "login",
                    "",
                ),
                (
                    "browser_click",
                    click("sign-in-button"),
                    Some(("WAIT_TIMEOUT", "text \"Welcome\" did not appear within 5s")),
                    "login",
                    "Invalid password",
                ),
                (
                    "browser_fill",
                    fill("password-input", "secret"),
                    None,
                    "login",
                    "",
                ),
                (
                    "browser_click",
                    click("sign-in-button"),
                    None,
                    "products",
                    "Welcome back, Ann",
                ),
                (
                    "browser_navigate",
                    nav("/products/42"),
                    None,
                    "product42",
                    "",
                ),
                (
                    "browser_click",
                    click("add-to-cart-button"),
                    None,
                    "product42",
                    "Added to cart",
                ),
                ("browser_navigate", nav("/cart"), None, "cart", ""),
                (
                    "browser_click",
                    click("checkout-button"),
                    None,
                    "checkout",
                    "Shipping address",
                ),
            ],
        ),
    ]
}

fn step(day: usize, minute: usize, row: &Row) -> StepRecord {
    let (tool, args, err, key, text) = row;
    let (path, title, ids) = page(key);
    let mut s = StepRecord::new(*tool, args.clone());
    s.timestamp = format!("2024-05-0{day}T10:{minute:02}:00.000Z");
    s.duration_ms = 12.5;
    if let Some((code, msg)) = err {
        s.ok = false;
        s.code = Some(code.to_string());
        s.error = Some(msg.to_string());
    }
    s.observation = Observation {
        url: Some(format!("{BASE}{path}")),
        title: Some(title.into()),
        test_ids: ids.iter().map(|s| s.to_string()).collect(),
        text: (!text.is_empty()).then(|| text.to_string()),
    };
    s
}

fn knowledge_dir(tmp: &Path) -> PathBuf {
    tmp.join(".harshJudge").join("knowledge")
}

/// Records the fixture history, one store per session, like three processes.
fn fixture() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = knowledge_dir(tmp.path());
    for (day, (session, rows)) in history().iter().enumerate() {
        let store = KnowledgeStore::open(dir.clone(), session.to_string());
        for (i, row) in rows.iter().enumerate() {
            store.record(step(day + 1, i, row)).unwrap();
        }
    }
    (tmp, dir)
}

fn search(store: &KnowledgeStore, q: SearchQuery) -> SearchResult {
    store.search(&q).unwrap()
}

fn target(s: &StepRecord) -> &str {
    s.args["target"].as_str().unwrap_or("")
}

#[test]
fn store_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<KnowledgeStore>();
}

#[test]
fn exact_match_ranks_first_with_confidence_one_and_partial_ones_lower() {
    let (_tmp, dir) = fixture();
    let store = KnowledgeStore::open(dir, "s4".into());
    let r = search(&store, SearchQuery::new("checkout button"));
    assert_eq!(r.total, 30);
    assert!(
        r.index_built_ms.is_some(),
        "the first search builds the index"
    );
    let first = &r.hits[0];
    assert_eq!(target(&first.step), "testid=checkout-button");
    assert_eq!(first.step.session, "s3");
    assert_eq!(first.confidence, 1.0);
    assert!(
        first.matched.contains(&"args:checkout".to_string()),
        "{:?}",
        first.matched
    );
    assert!(
        first.matched.contains(&"args:button".to_string()),
        "{:?}",
        first.matched
    );
    // The failed click on "checkout-btn": "checkout" in its args, "button"
    // only among the page's test ids: (1.0 + 0.7) / 2.
    let second = &r.hits[1];
    assert_eq!(target(&second.step), "testid=checkout-btn");
    assert_eq!(second.confidence, 0.85);
    // Everything else matched less, and the order never goes up.
    assert!(r.hits[2..].iter().all(|h| h.confidence < 0.85));
    assert!(
        r.hits
            .windows(2)
            .all(|w| w[0].confidence >= w[1].confidence)
    );
    assert_eq!(r.hits.len(), 10);
    assert!(r.scanned > 10 && r.scanned <= 30);
}

#[test]
fn ties_go_to_the_newest_step() {
    let (_tmp, dir) = fixture();
    let store = KnowledgeStore::open(dir, "s4".into());
    let r = search(&store, SearchQuery::new("add-to-cart-button"));
    let perfect: Vec<&str> = r
        .hits
        .iter()
        .filter(|h| h.confidence == 1.0)
        .map(|h| h.step.session.as_str())
        .collect();
    assert_eq!(perfect, ["s3", "s2", "s1"]);
    assert!(
        r.hits[..3]
            .iter()
            .all(|h| target(&h.step) == "testid=add-to-cart-button")
    );
    // The failed click on "add-to-cart" misses only "button" in its args.
    let near = &r.hits[3];
    assert_eq!(target(&near.step), "testid=add-to-cart");
    assert_eq!(near.confidence, 0.9);
}

#[test]
fn filters_by_tool_outcome_and_url() {
    let (_tmp, dir) = fixture();
    let store = KnowledgeStore::open(dir, "s4".into());

    let mut q = SearchQuery::new("quantity");
    q.tool = Some("BROWSER_FILL".into());
    let r = search(&store, q);
    let values: Vec<&str> = r
        .hits
        .iter()
        .map(|h| h.step.args["value"].as_str().unwrap())
        .collect();
    assert_eq!(values, ["2", "3"], "fills of the quantity, newest first");
    assert!(r.hits.iter().all(|h| h.confidence == 1.0));

    let mut q = SearchQuery::new("checkout");
    q.outcome = Some(Outcome::Error);
    let r = search(&store, q);
    assert_eq!(r.hits.len(), 1);
    assert_eq!(r.hits[0].step.code.as_deref(), Some("TARGET_NOT_FOUND"));

    let mut q = SearchQuery::new("sign in");
    q.outcome = Some(Outcome::Ok);
    let r = search(&store, q);
    assert!(!r.hits.is_empty());
    assert!(r.hits.iter().all(|h| h.step.ok));
    let mut q = SearchQuery::new("sign in welcome");
    q.outcome = Some(Outcome::Error);
    let r = search(&store, q);
    assert_eq!(r.hits.len(), 1);
    assert_eq!(r.hits[0].step.code.as_deref(), Some("WAIT_TIMEOUT"));

    let mut q = SearchQuery::new("checkout");
    q.url = Some("/CART".into());
    let r = search(&store, q);
    assert!(!r.hits.is_empty());
    assert!(r.hits.iter().all(|h| {
        h.step
            .observation
            .url
            .as_deref()
            .unwrap()
            .ends_with("/cart")
    }));
    assert_eq!(target(&r.hits[0].step), "testid=checkout-btn");

    let mut q = SearchQuery::new("checkout");
    q.tool = Some("no_such_tool".into());
    let r = search(&store, q);
    assert!(r.hits.is_empty());
    assert_eq!(r.total, 30);
}

#[test]
fn scope_session_sees_only_the_current_session() {
    let (_tmp, dir) = fixture();
    let store = KnowledgeStore::open(dir, "s2".into());
    let mut q = SearchQuery::new("add to cart");
    q.scope = Scope::Session;
    q.limit = 100;
    let r = search(&store, q.clone());
    assert_eq!(r.total, 10);
    assert!(!r.hits.is_empty());
    assert!(r.hits.iter().all(|h| h.step.session == "s2"));
    q.scope = Scope::All;
    let r = search(&store, q);
    assert_eq!(r.total, 30);
    let sessions: std::collections::BTreeSet<&str> =
        r.hits.iter().map(|h| h.step.session.as_str()).collect();
    assert_eq!(sessions.len(), 3);

    // A session that recorded nothing yet.
    let fresh = KnowledgeStore::open(knowledge_dir(_tmp.path()), "s9".into());
    let mut q = SearchQuery::new("cart");
    q.scope = Scope::Session;
    let r = search(&fresh, q);
    assert_eq!((r.total, r.hits.len()), (0, 0));
}

#[test]
fn index_stays_fresh_without_rebuilding() {
    let (tmp, dir) = fixture();
    let store = KnowledgeStore::open(dir.clone(), "s4".into());
    let r = search(&store, SearchQuery::new("coupon"));
    assert!(r.index_built_ms.is_some());
    assert!(r.hits.is_empty());

    // Our own record is indexed as it is written.
    let mut s = StepRecord::new(
        "browser_click",
        json!({"target": "testid=apply-coupon-button"}),
    );
    s.observation.url = Some(format!("{BASE}/cart"));
    store.record(s).unwrap();
    let r = search(&store, SearchQuery::new("coupon"));
    assert_eq!(r.index_built_ms, None, "no rebuild");
    assert_eq!(r.hits.len(), 1);
    assert_eq!(r.hits[0].step.id, "s4-1");
    assert_eq!(r.hits[0].step.session, "s4");
    assert_eq!(r.total, 31);

    // Another process: a new session's file, and a line appended to an old one.
    let other = KnowledgeStore::open(dir.clone(), "s5".into());
    other
        .record(StepRecord::new(
            "browser_fill",
            json!({"target": "testid=coupon-input", "value": "SPRING"}),
        ))
        .unwrap();
    let mut raw = StepRecord::new("browser_press", json!({"key": "Enter"}));
    raw.id = "s1-raw".into();
    raw.session = "s1".into();
    raw.timestamp = "2024-05-04T09:00:00.000Z".into();
    raw.observation.text = Some("Coupon applied".into());
    let mut f = OpenOptions::new()
        .append(true)
        .open(dir.join("steps/s1.jsonl"))
        .unwrap();
    writeln!(f, "{}", serde_json::to_string(&raw).unwrap()).unwrap();
    drop(f);
    let r = search(&store, SearchQuery::new("coupon"));
    assert_eq!(r.index_built_ms, None, "appends are read incrementally");
    assert_eq!(r.total, 33);
    let ids: Vec<&str> = r.hits.iter().map(|h| h.step.id.as_str()).collect();
    assert!(
        ids.contains(&"s4-1") && ids.contains(&"s5-1") && ids.contains(&"s1-raw"),
        "{ids:?}"
    );

    // A file rewritten behind our back (shorter): the index is rebuilt.
    std::fs::write(dir.join("steps/s5.jsonl"), "").unwrap();
    let r = search(&store, SearchQuery::new("coupon"));
    assert!(r.index_built_ms.is_some(), "a shrunk file means a rebuild");
    assert_eq!(r.total, 32);
    assert!(r.hits.iter().all(|h| h.step.id != "s5-1"));

    // A file removed: rebuilt too.
    std::fs::remove_file(dir.join("steps/s2.jsonl")).unwrap();
    let r = search(&store, SearchQuery::new("cart"));
    assert!(r.index_built_ms.is_some());
    assert_eq!(r.total, 22);
    assert!(r.hits.iter().all(|h| h.step.session != "s2"));

    // And nothing changed: no rebuild, same answer.
    let again = search(&store, SearchQuery::new("cart"));
    assert_eq!(again.index_built_ms, None);
    assert_eq!(again.total, 22);
    drop(tmp);
}

#[test]
fn similar_ranks_same_page_steps_first_with_one_for_an_identical_state() {
    let (_tmp, dir) = fixture();
    let store = KnowledgeStore::open(dir, "s4".into());
    let (path, title, ids) = page("cart");
    // Another host and port: only the path counts.
    let state = PageState {
        url: Some(format!("http://localhost:9999{path}/")),
        title: Some(title.into()),
        test_ids: ids.iter().rev().map(|s| s.to_string()).collect(),
        tool: None,
    };
    let r = store.similar(&state, 20, Scope::All).unwrap();
    let on_cart = |h: &harshjudge_mcp::knowledge::Hit| {
        h.step.observation.url.as_deref() == Some(&format!("{BASE}/cart"))
    };
    // 8 steps of the history ended on the cart page: all first, all 1.0.
    assert!(r.hits[..8].iter().all(on_cart));
    assert!(r.hits[..8].iter().all(|h| h.confidence == 1.0));
    assert!(r.hits[8..].iter().all(|h| h.confidence < 1.0));
    assert_eq!(r.hits[0].step.session, "s3", "newest first");
    assert!(
        r.hits[0].matched.contains(&"url:/cart".to_string()),
        "{:?}",
        r.hits[0].matched
    );
    assert!(r.hits[0].matched.contains(&"testIds:6/6".to_string()));

    // With the tool: the cart's clicks come first.
    let mut with_tool = state.clone();
    with_tool.tool = Some("browser_click".into());
    let r = store.similar(&with_tool, 5, Scope::All).unwrap();
    assert_eq!(r.hits.len(), 5);
    let top: Vec<&str> = r.hits[..2].iter().map(|h| target(&h.step)).collect();
    assert_eq!(top, ["testid=checkout-btn", "testid=nav-cart"]);
    assert!(r.hits[..2].iter().all(|h| h.confidence == 1.0));
    assert!(r.hits[2].confidence < 1.0);

    // A product page (another id in the path) matches the product page's steps.
    let state = PageState {
        url: Some(format!("{BASE}/products/77")),
        ..PageState::default()
    };
    let r = store.similar(&state, 100, Scope::All).unwrap();
    assert_eq!(r.hits.len(), 8);
    assert!(r.hits.iter().all(|h| h.confidence == 1.0));

    // Partly alike: a title word and some test ids.
    let state = PageState {
        title: Some("Checkout".into()),
        test_ids: vec!["nav-home".into(), "card-input".into()],
        ..PageState::default()
    };
    let r = store.similar(&state, 3, Scope::All).unwrap();
    assert_eq!(
        r.hits[0].step.observation.title.as_deref(),
        Some("Checkout – Shop")
    );
    assert!(
        r.hits[0].confidence > 0.5 && r.hits[0].confidence < 1.0,
        "{}",
        r.hits[0].confidence
    );
}

#[test]
fn similar_tool_uses_the_current_page_unless_a_page_is_given() {
    let (_tmp, dir) = fixture();
    let store = KnowledgeStore::open(dir, "s4".into());
    let current = PageState {
        url: Some(format!("{BASE}/login")),
        title: None,
        test_ids: vec![],
        tool: Some("browser_fill".into()),
    };
    let args: KnowledgeSimilar = serde_json::from_value(json!({"limit": 3})).unwrap();
    let v = serde_json::to_value(knowledge_similar(&store, args, Some(current.clone())).unwrap())
        .unwrap();
    assert_eq!(v["state"]["url"], json!(format!("{BASE}/login")));
    assert_eq!(v["hits"].as_array().unwrap().len(), 3);
    for h in v["hits"].as_array().unwrap() {
        assert_eq!(h["step"]["tool"], "browser_fill");
        assert_eq!(h["confidence"], 1.0);
    }
    // A page given in the arguments replaces the current one entirely.
    let args: KnowledgeSimilar =
        serde_json::from_value(json!({"url": "/checkout", "limit": 1})).unwrap();
    let v = serde_json::to_value(knowledge_similar(&store, args, Some(current)).unwrap()).unwrap();
    assert_eq!(
        v["state"],
        json!({"url": "/checkout", "tool": "browser_fill"})
    );
    assert_eq!(
        v["hits"][0]["step"]["observation"]["url"],
        json!(format!("{BASE}/checkout"))
    );
}

#[test]
fn torn_and_garbage_lines_are_skipped() {
    let (_tmp, dir) = fixture();
    let file = dir.join("steps/s2.jsonl");
    let mut f = OpenOptions::new().append(true).open(&file).unwrap();
    f.write_all(b"not json at all\n{\"id\": 7}\n").unwrap();
    f.write_all(b"{\"id\":\"torn\",\"tool\":\"browser_cl")
        .unwrap();
    drop(f);
    let store = KnowledgeStore::open(dir.clone(), "s2".into());
    let r = search(&store, SearchQuery::new("browser"));
    // `{"id": 7}` is not a record (id must be a string); the torn line is skipped.
    assert_eq!(r.total, 30);

    // The next write after a torn line starts on a line of its own.
    store
        .record(StepRecord::new(
            "browser_click",
            json!({"target": "testid=after-the-tear"}),
        ))
        .unwrap();
    let r = search(&store, SearchQuery::new("after tear"));
    assert_eq!(r.index_built_ms, None);
    assert_eq!(r.hits.len(), 1);
    assert_eq!(r.total, 31);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("browser_cl\n{"), "the torn line was closed");
    // A reader starting from scratch agrees.
    let fresh = KnowledgeStore::open(dir, "s7".into());
    let r = search(&fresh, SearchQuery::new("after tear"));
    assert_eq!((r.total, r.hits.len()), (31, 1));
    // Numbering went on after the lines already in the file.
    assert!(r.hits[0].step.id.starts_with("s2-"));
}

#[test]
fn record_compacts_what_it_keeps() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = knowledge_dir(tmp.path());
    assert!(!dir.exists());
    let store = KnowledgeStore::open(dir.clone(), "agent/../x y".into());
    assert_eq!(store.session(), "agent_.._x_y");
    let mut s = StepRecord::new(
        "recordEvidence",
        json!({"data": "A".repeat(5000), "type": "screenshot"}),
    );
    s.observation.test_ids = (0..80).map(|i| format!("id-{}", i % 70)).collect();
    s.observation.text = Some("word ".repeat(200));
    s.session = "someone else".into();
    s.duration_ms = f64::NAN; // JSON has no NaN: it would be written as null
    store.record(s).unwrap();
    store
        .record(StepRecord::new("getRunState", json!({})))
        .unwrap();
    let line = std::fs::read_to_string(dir.join("steps/agent_.._x_y.jsonl")).unwrap();
    let first: StepRecord = serde_json::from_str(line.lines().next().unwrap()).unwrap();
    assert_eq!(first.id, "agent_.._x_y-1");
    assert_eq!(first.session, "agent_.._x_y");
    assert!(first.timestamp.ends_with('Z'));
    assert_eq!(first.args["data"].as_str().unwrap().chars().count(), 201);
    assert_eq!(first.observation.test_ids.len(), 50);
    assert_eq!(
        first.observation.text.as_ref().unwrap().chars().count(),
        301
    );
    assert_eq!(first.duration_ms, 0.0);
    // Reopened (a new process with the same session): ids go on.
    let again = KnowledgeStore::open(dir, "agent/../x y".into());
    again
        .record(StepRecord::new("getRunState", json!({})))
        .unwrap();
    let r = search(&again, SearchQuery::new("run state"));
    let mut ids: Vec<&str> = r.hits.iter().map(|h| h.step.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, ["agent_.._x_y-2", "agent_.._x_y-3"]);
}

#[test]
fn an_empty_store_answers_with_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = knowledge_dir(tmp.path());
    let store = KnowledgeStore::open(dir.clone(), "s1".into());
    let r = search(&store, SearchQuery::new("anything"));
    assert_eq!((r.hits.len(), r.total, r.scanned), (0, 0, 0));
    let r = store
        .similar(
            &PageState {
                url: Some("/cart".into()),
                ..Default::default()
            },
            10,
            Scope::All,
        )
        .unwrap();
    assert!(r.hits.is_empty());
    assert!(!dir.exists(), "reading creates nothing");
}

#[test]
fn bad_input_is_invalid_input() {
    let (_tmp, dir) = fixture();
    let store = KnowledgeStore::open(dir, "s4".into());
    let s = |v: Value| {
        knowledge_search(&store, serde_json::from_value(v).unwrap())
            .map(|r| serde_json::to_value(r).unwrap())
    };
    for (args, words) in [
        (json!({"query": "  "}), "query is empty"),
        (json!({"query": "the and a"}), "no searchable words"),
        (json!({"query": "cart", "limit": 0}), "limit 0"),
        (json!({"query": "cart", "limit": 101}), "limit 101"),
    ] {
        let e = s(args.clone()).unwrap_err();
        assert_eq!(e.code, Code::InvalidInput, "{args}");
        assert!(e.message.contains(words), "{args}: {}", e.message);
    }
    assert!(
        serde_json::from_value::<KnowledgeSearch>(json!({"query": "x", "scope": "everything"}))
            .is_err()
    );
    assert!(serde_json::from_value::<KnowledgeSearch>(json!({"query": "x", "limt": 3})).is_err());
    assert!(
        serde_json::from_value::<KnowledgeSearch>(json!({"query": "x", "outcome": "failed"}))
            .is_err()
    );

    let sim = |v: Value, cur| knowledge_similar(&store, serde_json::from_value(v).unwrap(), cur);
    let e = sim(json!({}), None).unwrap_err();
    assert_eq!(e.code, Code::InvalidInput);
    assert!(
        e.message.contains("url, title or testIds") && e.message.contains("browser"),
        "{}",
        e.message
    );
    let e = sim(
        json!({"tool": "browser_click", "testIds": [""]}),
        Some(PageState::default()),
    )
    .unwrap_err();
    assert_eq!(e.code, Code::InvalidInput);
    let e = sim(json!({"url": "/cart", "limit": 1000}), None).unwrap_err();
    assert_eq!(e.code, Code::InvalidInput);

    // Odd but valid input never panics.
    for q in [
        "🙂 ünïcode 𝔘",
        "////",
        "a".repeat(10_000).as_str(),
        "x\u{0}y cart",
        "-- -- --cart",
    ] {
        let _ = s(json!({"query": q}));
    }
    let v = s(json!({"query": "Checkout-Button", "scope": "session", "url": ""})).unwrap();
    assert_eq!(v["tokens"], json!(["checkout", "button"]));
    assert_eq!(v["total"], 0, "nothing recorded in session s4");
}

#[test]
fn tool_result_shape() {
    let (_tmp, dir) = fixture();
    let store = KnowledgeStore::open(dir, "s4".into());
    let a: KnowledgeSearch =
        serde_json::from_value(json!({"query": "checkout button", "limit": 2, "outcome": "ok"}))
            .unwrap();
    let v = serde_json::to_value(knowledge_search(&store, a).unwrap()).unwrap();
    assert!(v["indexBuiltMs"].as_f64().is_some());
    assert_eq!(v["total"], 30);
    let hit = &v["hits"][0];
    assert_eq!(hit["confidence"], 1.0);
    assert_eq!(hit["step"]["args"]["target"], "testid=checkout-button");
    assert_eq!(hit["step"]["observation"]["testIds"][0], "nav-home");
    assert_eq!(hit["step"]["durationMs"], 12.5);
    assert!(
        hit["step"].get("code").is_none(),
        "no error fields on a success"
    );
    assert_eq!(v["hits"].as_array().unwrap().len(), 2);
    let a: KnowledgeSearch = serde_json::from_value(json!({"query": "checkout button"})).unwrap();
    let v = serde_json::to_value(knowledge_search(&store, a).unwrap()).unwrap();
    assert!(v.get("indexBuiltMs").is_none());
}

#[test]
fn concurrent_records_and_searches() {
    let tmp = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(KnowledgeStore::open(knowledge_dir(tmp.path()), "s1".into()));
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                for i in 0..50 {
                    let target = format!("testid=button-t{t}n{i}");
                    store
                        .record(StepRecord::new("browser_click", json!({"target": target})))
                        .unwrap();
                    if i % 10 == 0 {
                        store.search(&SearchQuery::new("button")).unwrap();
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let r = search(&store, SearchQuery::new("browser click"));
    assert_eq!(r.total, 200);
    assert_eq!(r.scanned, 200);
    let fresh = KnowledgeStore::open(knowledge_dir(tmp.path()), "s2".into());
    let r = search(&fresh, SearchQuery::new("browser click"));
    assert_eq!(r.total, 200);
    let mut q = SearchQuery::new("button-t3n49");
    q.limit = 1;
    let r = search(&fresh, q);
    assert_eq!(target(&r.hits[0].step), "testid=button-t3n49");
    assert_eq!(r.hits[0].confidence, 1.0);
}

/// xorshift64*: deterministic data for the differential tests.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const NOUNS: [&str; 12] = [
    "cart", "checkout", "coupon", "email", "login", "order", "price", "search", "shipping",
    "profile", "review", "menu",
];
const ROLES: [&str; 4] = ["button", "input", "link", "list"];
const WORDS: [&str; 16] = [
    "welcome", "added", "total", "free", "invalid", "saved", "blue", "mug", "shipping", "order",
    "error", "again", "cart", "items", "loading", "done",
];
const TOOLS: [&str; 6] = [
    "browser_click",
    "browser_fill",
    "browser_navigate",
    "browser_screenshot",
    "recordEvidence",
    "browserWaitFor",
];
const PATHS: [&str; 8] = [
    "/",
    "/cart",
    "/checkout",
    "/login",
    "/orders/17",
    "/orders/18",
    "/search",
    "/profile/edit",
];

/// A random history of 4 sessions × 150 steps (unique timestamps, so the
/// order of every answer is fully determined), recorded through the store.
fn random_history(dir: &Path, rng: &mut Rng) -> Vec<StepRecord> {
    let ids: Vec<String> = NOUNS
        .iter()
        .flat_map(|n| ROLES.iter().map(move |r| format!("{n}-{r}")))
        .collect();
    // Pages: a path, a title and a set of test ids; sometimes a row id of its own.
    let pages: Vec<(String, String, Vec<String>)> = (0..14)
        .map(|i| {
            let path = PATHS[i % PATHS.len()].to_string();
            let title = format!("{} {} Shop", rng.pick(&WORDS), rng.pick(&NOUNS));
            let mut t: Vec<String> = (0..3 + rng.below(6))
                .map(|_| rng.pick(&ids).clone())
                .collect();
            t.sort();
            t.dedup();
            (path, title, t)
        })
        .collect();
    let mut all = Vec::new();
    let mut second = 0;
    for session in ["p1", "p2", "p3", "p4"] {
        let store = KnowledgeStore::open(dir.to_path_buf(), session.into());
        for _ in 0..150 {
            second += 1 + rng.below(3);
            let (path, title, page_ids) = rng.pick(&pages).clone();
            let tool = *rng.pick(&TOOLS);
            let id = if page_ids.is_empty() {
                "x-y".to_string()
            } else {
                rng.pick(&page_ids).clone()
            };
            let args = match rng.below(4) {
                0 => json!({"target": format!("testid={id}")}),
                1 => {
                    json!({"target": format!("testid={id}"), "value": format!("{} {}", rng.pick(&WORDS), rng.pick(&NOUNS))})
                }
                2 => json!({"url": format!("{BASE}{path}")}),
                _ => json!({}),
            };
            let mut s = StepRecord::new(tool, args);
            s.timestamp = format!(
                "2024-06-{:02}T{:02}:{:02}:{:02}.000Z",
                1 + second / 86_400,
                (second / 3600) % 24,
                (second / 60) % 60,
                second % 60
            );
            if rng.chance(15) {
                s.ok = false;
                s.code = Some(
                    (*rng.pick(&["TARGET_NOT_FOUND", "WAIT_TIMEOUT", "ACTION_FAILED"])).into(),
                );
                s.error = Some(format!(
                    "{} {} not found",
                    rng.pick(&NOUNS),
                    rng.pick(&ROLES)
                ));
            }
            let mut test_ids = page_ids.clone();
            if rng.chance(20) {
                test_ids.push(format!("row-{}", rng.below(40)));
            }
            s.observation = Observation {
                url: Some(format!("{BASE}{path}")),
                title: Some(title),
                test_ids,
                text: rng.chance(40).then(|| {
                    (0..2 + rng.below(4))
                        .map(|_| *rng.pick(&WORDS))
                        .collect::<Vec<_>>()
                        .join(" ")
                }),
            };
            store.record(s).unwrap();
        }
    }
    // Read back what was recorded (ids, sessions, caps applied).
    let mut files: Vec<_> = std::fs::read_dir(dir.join("steps"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for f in files {
        for line in std::fs::read_to_string(f).unwrap().lines() {
            all.push(serde_json::from_str::<StepRecord>(line).unwrap());
        }
    }
    all
}

/// Per token of a step, the weight (tenths) of the strongest field that has
/// it, as documented.
fn field_weights(s: &StepRecord) -> std::collections::HashMap<String, u32> {
    let mut best: std::collections::HashMap<String, u32> = Default::default();
    let mut add = |toks: Vec<String>, w: u32| {
        for t in toks {
            let e = best.entry(t).or_default();
            *e = (*e).max(w);
        }
    };
    add(tokenize(&s.tool), 10);
    fn strings(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::String(x) => out.push(x.clone()),
            Value::Number(n) => out.push(n.to_string()),
            Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
            Value::Object(o) => o.values().for_each(|x| strings(x, out)),
            _ => {}
        }
    }
    let mut args = Vec::new();
    strings(&s.args, &mut args);
    for a in args {
        add(tokenize(&a), 10);
    }
    add(tokenize(s.code.as_deref().unwrap_or("")), 8);
    add(tokenize(s.error.as_deref().unwrap_or("")), 8);
    let o = &s.observation;
    let url = o.url.as_deref().unwrap_or("");
    add(tokenize(url.split_once("://").map_or(url, |x| x.1)), 7);
    for id in &o.test_ids {
        add(tokenize(id), 7);
    }
    add(tokenize(o.title.as_deref().unwrap_or("")), 6);
    add(tokenize(o.text.as_deref().unwrap_or("")), 4);
    best
}

/// The `similar` confidence of a step as documented.
fn brute_similar(s: &StepRecord, state: &PageState) -> f64 {
    use std::collections::BTreeSet;
    let dice = |a: &BTreeSet<String>, b: &BTreeSet<String>| {
        if a.is_empty() && b.is_empty() {
            0.0
        } else {
            2.0 * a.intersection(b).count() as f64 / (a.len() + b.len()) as f64
        }
    };
    let o = &s.observation;
    let (mut score, mut max) = (0.0, 0.0);
    if let Some(u) = &state.url {
        max += 8.0;
        if o.url.as_deref().map(page_path) == Some(page_path(u)) {
            score += 8.0;
        }
    }
    if !state.test_ids.is_empty() {
        max += 6.0;
        let a: BTreeSet<String> = state.test_ids.iter().cloned().collect();
        let b: BTreeSet<String> = o.test_ids.iter().cloned().collect();
        score += 6.0 * dice(&a, &b);
    }
    if let Some(t) = &state.title {
        max += 3.0;
        let a: BTreeSet<String> = tokenize(t).into_iter().collect();
        let b: BTreeSet<String> = tokenize(o.title.as_deref().unwrap_or(""))
            .into_iter()
            .collect();
        score += 3.0 * dice(&a, &b);
    }
    if let Some(t) = &state.tool {
        max += 2.0;
        if s.tool.eq_ignore_ascii_case(t) {
            score += 2.0;
        }
    }
    score / max
}

/// Best first, newer first on ties; `(id, score)` of the first `k` with a score.
fn brute_top<T: PartialOrd + Copy + Default>(
    steps: &[StepRecord],
    k: usize,
    score: impl Fn(&StepRecord) -> Option<T>,
) -> Vec<(String, T)> {
    let mut v: Vec<(T, &str, &str)> = steps
        .iter()
        .filter_map(|s| {
            score(s)
                .filter(|x| *x > T::default())
                .map(|x| (x, s.timestamp.as_str(), s.id.as_str()))
        })
        .collect();
    v.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap().then(b.1.cmp(a.1)));
    v.into_iter()
        .take(k)
        .map(|(x, _, id)| (id.to_string(), x))
        .collect()
}

#[test]
fn search_agrees_with_brute_force_scoring() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = knowledge_dir(tmp.path());
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let steps = random_history(&dir, &mut rng);
    assert_eq!(steps.len(), 600);
    let weights: std::collections::HashMap<String, _> = steps
        .iter()
        .map(|s| (s.id.clone(), field_weights(s)))
        .collect();
    let store = KnowledgeStore::open(dir, "p3".into());
    let vocab: Vec<String> = NOUNS
        .iter()
        .chain(&ROLES)
        .chain(&WORDS)
        .chain(&TOOLS)
        .chain(&PATHS)
        .map(|s| s.to_string())
        .chain([
            "TARGET_NOT_FOUND".into(),
            "zzz".into(),
            "found".into(),
            "shop".into(),
            "17".into(),
        ])
        .collect();
    for round in 0..400 {
        let query: Vec<String> = (0..1 + rng.below(3))
            .map(|_| rng.pick(&vocab).clone())
            .collect();
        let mut q = SearchQuery::new(query.join(" "));
        q.limit = *rng.pick(&[1, 3, 10, 100]);
        if rng.chance(25) {
            q.tool = Some(rng.pick(&TOOLS).to_string());
        }
        if rng.chance(20) {
            q.outcome = Some(if rng.chance(50) {
                Outcome::Ok
            } else {
                Outcome::Error
            });
        }
        if rng.chance(20) {
            q.url = Some(rng.pick(&PATHS).to_string());
        }
        if rng.chance(25) {
            q.scope = Scope::Session;
        }
        let mut tokens: Vec<String> = Vec::new();
        for t in tokenize(&q.query) {
            if !tokens.contains(&t) {
                tokens.push(t);
            }
        }
        let expected = brute_top(&steps, q.limit, |s| {
            let pass = (q.scope == Scope::All || s.session == "p3")
                && q.tool
                    .as_ref()
                    .is_none_or(|t| s.tool.eq_ignore_ascii_case(t))
                && q.outcome.is_none_or(|o| s.ok == (o == Outcome::Ok))
                && q.url.as_ref().is_none_or(|u| {
                    s.observation
                        .url
                        .as_deref()
                        .unwrap_or("")
                        .to_lowercase()
                        .contains(&u.to_lowercase())
                });
            pass.then(|| {
                let w = &weights[&s.id];
                tokens
                    .iter()
                    .map(|t| w.get(t).copied().unwrap_or(0))
                    .sum::<u32>()
            })
        });
        let r = store.search(&q).unwrap();
        let got: Vec<(String, u32)> = r
            .hits
            .iter()
            .map(|h| {
                (
                    h.step.id.clone(),
                    (h.confidence * 10.0 * tokens.len() as f64).round() as u32,
                )
            })
            .collect();
        assert_eq!(got, expected, "round {round}: {q:?} tokens {tokens:?}");
    }
}

#[test]
fn similar_agrees_with_brute_force_scoring() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = knowledge_dir(tmp.path());
    let mut rng = Rng(0x0fed_cba9_8765_4321);
    let steps = random_history(&dir, &mut rng);
    let store = KnowledgeStore::open(dir, "p2".into());
    for round in 0..300 {
        // Often a recorded state (a perfect match exists), sometimes a mix.
        let base = rng.pick(&steps).observation.clone();
        let other = rng.pick(&steps).observation.clone();
        let mut state = PageState::default();
        if rng.chance(70) {
            state.url = if rng.chance(80) {
                base.url.clone()
            } else {
                other.url.clone()
            };
        }
        if rng.chance(60) {
            state.title = if rng.chance(80) {
                base.title.clone()
            } else {
                other.title.clone()
            };
        }
        if rng.chance(70) {
            state.test_ids = if rng.chance(70) {
                base.test_ids.clone()
            } else {
                other.test_ids[..other.test_ids.len() / 2].to_vec()
            };
        }
        if rng.chance(40) {
            state.tool = Some(rng.pick(&TOOLS).to_string());
        }
        if state.url.is_none() && state.title.is_none() && state.test_ids.is_empty() {
            state.url = base.url.clone();
        }
        let limit = *rng.pick(&[1, 3, 10, 50]);
        let scope = if rng.chance(25) {
            Scope::Session
        } else {
            Scope::All
        };
        let expected = brute_top(&steps, limit, |s| {
            (scope == Scope::All || s.session == "p2").then(|| brute_similar(s, &state))
        });
        let r = store.similar(&state, limit, scope).unwrap();
        assert_eq!(r.hits.len(), expected.len(), "round {round}: {state:?}");
        for (h, (id, c)) in r.hits.iter().zip(&expected) {
            assert_eq!(&h.step.id, id, "round {round}: {state:?}");
            assert!(
                (h.confidence - c).abs() < 0.0011,
                "round {round}: {} vs {c}",
                h.confidence
            );
            assert_eq!(h.confidence == 1.0, *c == 1.0, "round {round}");
        }
    }
}
