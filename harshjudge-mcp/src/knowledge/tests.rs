//! Unit tests of the tokenizer, the records and the weights.

use serde_json::json;

use super::scoring::{F_ARGS, F_TEXT, W_MAX, best_weight, dice, round_down};
use super::tokenizer::{STOPWORDS, is_stopword, ts_key, url_tokens};
use super::*;

#[test]
fn stopwords() {
    assert!(STOPWORDS.iter().all(|w| is_stopword(w)));
    assert!(!is_stopword("in") && !is_stopword("button"));
}

#[test]
fn tokens() {
    assert_eq!(tokenize("sign-in"), ["sign", "in"]);
    assert_eq!(tokenize("submitButton"), ["submit", "button"]);
    assert_eq!(tokenize("HTMLParser x_y"), ["html", "parser"]);
    assert_eq!(tokenize("browser_click"), ["browser", "click"]);
    assert_eq!(tokenize("The Buttons of entries"), ["button", "entry"]);
    assert_eq!(
        tokenize("status class h1 e2e 404"),
        ["status", "class", "h1", "e2e", "404"]
    );
    assert!(tokenize("a the and").is_empty());
    let mut u = Vec::new();
    url_tokens(
        "https://shop.example.com:8080/cart/items?q=shoes",
        &mut |t| u.push(t.to_string()),
    );
    assert_eq!(
        u,
        ["shop", "example", "com", "8080", "cart", "item", "shoe"]
    );
}

#[test]
fn paths() {
    assert_eq!(page_path("http://127.0.0.1:4000/cart/"), "/cart");
    assert_eq!(page_path("https://x.io"), "/");
    assert_eq!(page_path("/Products/123?x=1#top"), "/products/:id");
    assert_eq!(
        page_path("localhost:3000/orders/9f8e7d6c-1234"),
        "/orders/:id"
    );
    assert_eq!(page_path("cart"), "/cart");
    assert_eq!(
        page_path("http://h/app#/settings/profile"),
        "/app/#/settings/profile"
    );
}

#[test]
fn timestamps_sort() {
    assert!(ts_key("2024-01-20T14:30:52.001Z") > ts_key("2024-01-20T14:30:52Z"));
    assert_eq!(ts_key("2024-01-20T14:30:52Z"), 20240120143052000);
    assert_eq!(ts_key("garbage"), 0);
}

#[test]
fn compact() {
    let long = "x".repeat(1000);
    let v = compact_args(&json!({"data": long, "list": (0..30).collect::<Vec<_>>()}));
    assert_eq!(
        v["data"].as_str().unwrap().chars().count(),
        MAX_ARG_CHARS + 1
    );
    assert_eq!(v["list"].as_array().unwrap().len(), 21);
}

#[test]
fn weights() {
    assert_eq!(best_weight(F_TEXT | F_ARGS), W_MAX);
    assert_eq!(best_weight(F_TEXT), 4);
    assert_eq!(best_weight(0), 0);
    assert_eq!(dice(3, 3, 3), 1.0);
    assert_eq!(round_down(0.9999), 0.999);
}
