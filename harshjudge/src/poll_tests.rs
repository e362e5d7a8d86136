use std::sync::atomic::{AtomicUsize, Ordering};

use super::*;

const FAST: [Duration; 1] = [Duration::from_millis(5)];

#[tokio::test]
async fn a_polled_value_passes_once_it_matches_and_counts_its_tries() {
    let calls = AtomicUsize::new(0);
    expect_poll(|| async { Ok(calls.fetch_add(1, Ordering::SeqCst) + 1) })
        .intervals(FAST)
        .to_equal(3)
        .await
        .unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 3);
    // Every matcher, and `not`.
    expect_poll(|| async { Ok(5) })
        .to_be_greater_than(4)
        .await
        .unwrap();
    expect_poll(|| async { Ok(5) })
        .to_be_greater_than_or_equal(5)
        .await
        .unwrap();
    expect_poll(|| async { Ok(5) })
        .to_be_less_than(6)
        .await
        .unwrap();
    expect_poll(|| async { Ok(5.0) })
        .to_be_less_than_or_equal(5.0)
        .await
        .unwrap();
    expect_poll(|| async { Ok(String::from("order 42 shipped")) })
        .to_contain("42")
        .await
        .unwrap();
    expect_poll(|| async { Ok(vec![1, 2, 3]) })
        .to_contain(2)
        .await
        .unwrap();
    expect_poll(|| async { Ok("v1.2.3".to_string()) })
        .to_match(regex::Regex::new(r"^v\d+\.\d+").unwrap())
        .await
        .unwrap();
    expect_poll(|| async { Ok(7) })
        .not()
        .to_equal(8)
        .await
        .unwrap();
    expect_poll(|| async { Ok(7) })
        .to_satisfy("odd", |v| v % 2 == 1)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_value_that_never_matches_fails_naming_the_last_value_and_the_tries() {
    let calls = AtomicUsize::new(0);
    let line = line!() + 1;
    let e = expect_poll(|| async { Ok(calls.fetch_add(1, Ordering::SeqCst)) })
        .timeout(Duration::from_millis(120))
        .intervals([Duration::from_millis(10), Duration::from_millis(20)])
        .to_equal(1000)
        .await
        .unwrap_err();
    let m = e.message();
    let n = calls.load(Ordering::SeqCst);
    assert!(n >= 3, "{n} tries");
    assert!(
        m.starts_with("expect_poll(…).to_equal(1000) failed after "),
        "{m}"
    );
    assert!(m.contains(&format!("({n} tries)")), "{m}");
    assert!(m.contains(&format!("received: {}", n - 1)), "{m}");
    assert_eq!((e.location().file(), e.location().line()), (file!(), line));
}

#[tokio::test]
async fn an_error_of_the_polled_function_fails_at_once_naming_the_try() {
    let calls = AtomicUsize::new(0);
    let e = expect_poll(|| async {
        if calls.fetch_add(1, Ordering::SeqCst) == 1 {
            return Err(Error::msg("the API is down"));
        }
        Ok(0)
    })
    .intervals(FAST)
    .to_equal(1)
    .await
    .unwrap_err();
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert!(
        e.message()
            .contains("the polled function failed on try 2: the API is down"),
        "{}",
        e.message()
    );
}

#[tokio::test]
async fn a_block_is_retried_until_it_passes() {
    let calls = AtomicUsize::new(0);
    to_pass(|| async {
        let n = calls.fetch_add(1, Ordering::SeqCst);
        crate::ensure!(n >= 2, "not yet: try {}", n + 1);
        Ok(())
    })
    .intervals(FAST)
    .await
    .unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_block_that_never_passes_names_its_last_error_and_the_tries() {
    let calls = AtomicUsize::new(0);
    let e = to_pass(|| async {
        let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
        crate::bail!("the status is still Pending (try {n})");
    })
    .timeout(Duration::from_millis(100))
    .intervals(FAST)
    .await
    .unwrap_err();
    let n = calls.load(Ordering::SeqCst);
    let m = e.message();
    assert!(m.starts_with("to_pass(…) failed after "), "{m}");
    assert!(m.contains(&format!("({n} tries)")), "{m}");
    assert!(m.contains(&format!("Pending (try {n})")), "{m}");
}

#[tokio::test]
async fn a_soft_failure_inside_a_block_fails_that_try_and_reaches_no_step() {
    let calls = AtomicUsize::new(0);
    to_pass(|| async {
        let n = calls.fetch_add(1, Ordering::SeqCst);
        let at = Location::caller();
        soft::settle(
            n < 1,
            at,
            if n < 1 {
                Err(Error::msg("soft miss"))
            } else {
                Ok(())
            },
        )
        .await?;
        Ok(())
    })
    .intervals(FAST)
    .await
    .unwrap();
    assert_eq!(
        calls.load(Ordering::SeqCst),
        2,
        "the soft failure failed try 1"
    );
}

#[tokio::test]
async fn the_default_limit_is_the_expect_timeout() {
    let r = Retry::new(Location::caller());
    assert_eq!(
        r.limit().unwrap(),
        harshjudge_browser::default_expect_timeout().unwrap()
    );
    assert_eq!(r.interval(0), Duration::from_millis(100));
    assert_eq!(r.interval(9), Duration::from_secs(1));
}
