//! Issue 23, points 1 to 3 in real Chromium: evidence from WebDriver BiDi
//! events (a page that throws, an unhandled rejection, console.error), routes
//! (one fulfills JSON, one aborts, one continues with a header the server
//! sees, one answers only while an expectation already waits),
//! `wait_for_request`/`wait_for_response`, network and console
//! assertions (a request that must not happen), a step failed for its console
//! errors (`HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS=1`), and the fallback to the
//! `devtools` log through a remote end without BiDi: an old-style proxy in
//! front of chromedriver that drops `webSocketUrl` from the new session's
//! capabilities, as a Grid node without BiDi does.
//!
//! The pages come from a small HTTP server of this test (loopback), which
//! records every request it is sent, headers included.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use harshjudge::serde_json::json;
use harshjudge::{Response, Scenario, expect, scenario, step};

use crate::support::wdcount;

use crate::support::play;
use play::{Seen, serve};

use crate::support;
use crate::support::KillOnDrop;

/// An old-style WebDriver proxy in front of `upstream` (a Python process:
/// `tests/bidi/strip_bidi_proxy.py`): every command passes through, but a new
/// session's answer loses `webSocketUrl` (a remote end without BiDi). Its URL.
fn strip_bidi_proxy(upstream: &str) -> (String, KillOnDrop) {
    let python = std::env::var("HARSHJUDGE_TEST_PYTHON")
        .ok()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| "python3".into());
    let mut child = std::process::Command::new(python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bidi/strip_bidi_proxy.py"))
        .arg(upstream)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python runs the proxy");
    let mut port = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut port)
        .unwrap();
    (
        format!("http://127.0.0.1:{}", port.trim()),
        KillOnDrop(child),
    )
}

#[scenario]
async fn network_control(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    let out = page.locator("#out");
    step!("A route fulfills JSON", {
        page.route("**/api/items", |route| async move {
            route
                .fulfill(Response::new().status(200).json(&json!(["stubbed"])))
                .await
        })
        .await?;
        page.goto("/play").await?;
        page.locator("#items").click().await?;
        expect(&out).to_have_text("200 [\"stubbed\"]").await?;
        expect(&s.network())
            .to_have_request("/api/items")
            .status(200)
            .await?;
    });
    step!("A route aborts", {
        page.unroute("**/api/items").await?;
        page.route("**/api/items", |route| async move { route.abort().await })
            .await?;
        page.locator("#items").click().await?;
        expect(&out).to_contain_text("failed:").await?;
    });
    step!("A route continues with a header", {
        page.unroute("**/api/items").await?;
        page.route(
            harshjudge::regex::Regex::new("/api/echo$")?,
            |route| async move { route.continue_().header("X-Judge", "yes").await },
        )
        .await?;
        // The newest route falls back to the older one.
        page.route("**/api/*", |route| async move { route.fallback().await })
            .await?;
        page.locator("#echo").click().await?;
        let echoed = expect(&out).to_contain_text("\"x-judge\",\"yes\"").await;
        if let Err(e) = echoed {
            let console = s.console().entries().await?;
            let network = s.network().entries().await?;
            // What the page itself saw of its requests.
            let resources = page
                .eval(
                    "return performance.getEntriesByType('resource').map((e) => \
                     [e.name, e.responseStatus, Math.round(e.startTime), Math.round(e.responseEnd)])",
                )
                .await?;
            return Err(harshjudge::Error::msg(format!(
                "{e}\nconsole: {console:?}\nnetwork: {network:?}\nthe page's resources: {resources}"
            )));
        }
    });
    step!("Wait for a request and its response", {
        let (post, items) = (page.locator("#post"), page.locator("#items"));
        let (request, clicked) = tokio::join!(page.wait_for_request("**/api/items"), post.click());
        clicked?;
        assert_eq!(request?.method(), "POST");
        // Its response is in before the next waiter starts.
        expect(&out).to_have_text("201 {\"id\":1}").await?;
        let (response, clicked) = tokio::join!(page.wait_for_response("/api/items"), items.click());
        clicked?;
        let response = response?;
        assert_eq!(
            (response.status(), response.request().method()),
            (200, "GET")
        );
        expect(&s.network())
            .to_have_request("**/api/items")
            .method("POST")
            .status(201)
            .await?;
        expect(&s.network())
            .not()
            .to_have_request("**/api/secret")
            .await?;
        let made = expect(&s.network())
            .not()
            .to_have_request("**/api/items")
            .method("post")
            .await;
        assert!(
            made.as_ref().is_err_and(|e| e.to_string().contains("POST")),
            "{made:?}"
        );
    });
    step!("Console messages and page errors", {
        page.locator("#log").click().await?;
        page.locator("#throw").dispatch_event("click").await?;
        page.locator("#reject").click().await?;
        expect(&s.console()).to_have_message("hello log").await?;
        expect(&s.console())
            .to_have_message("rejected quietly")
            .await?;
        let errors = expect(&s.console()).to_have_no_errors().await;
        let text = errors.as_ref().map_err(|e| e.to_string()).unwrap_err();
        for want in ["logged error", "boom from click", "rejected quietly"] {
            assert!(text.contains(want), "{want} in {text}");
        }
        expect(&s.console())
            .allow("logged error")
            .allow("boom from click")
            .allow(harshjudge::regex::Regex::new("rejected")?)
            .to_have_no_errors()
            .await?;
    });
    step!("A late route answer reaches a waiting expectation", {
        // The expectation waits inside the page for up to 5 s; the route
        // answers after 1.5 s of it. chromedriver runs one command of a
        // session at a time, BiDi's included: a route's answer must not queue
        // behind a classic command that waits for what only it can bring.
        page.route("**/api/items", |route| async move {
            tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
            route
                .fulfill(Response::new().status(200).json(&json!(["late"])))
                .await
        })
        .await?;
        page.locator("#items").click().await?;
        expect(&out).to_have_text("200 [\"late\"]").await?;
    });
    Ok(())
}

#[scenario]
async fn console_errors_fail(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("A page that logs an error", {
        page.goto("/play").await?;
        page.locator("#log").click().await?;
        expect(&page.locator("#out")).to_have_text("idle").await?;
    });
    step!("Never reached", {
        page.goto("/play").await?;
    });
    Ok(())
}

#[scenario]
async fn without_bidi(s: Scenario) -> harshjudge::Result {
    let page = s.page().await?;
    step!("Console and network from the devtools log", {
        page.goto("/play").await?;
        page.locator("#log").click().await?;
        page.locator("#throw").dispatch_event("click").await?;
        page.locator("#items").click().await?;
        expect(&page.locator("#out"))
            .to_have_text("200 [\"real\"]")
            .await?;
        expect(&s.network()).to_have_request("/api/items").await?;
        expect(&s.console()).to_have_message("hello log").await?;
    });
    step!("Routes need BiDi", {
        let e = page
            .route("**/api/items", |route| async move { route.abort().await })
            .await
            .unwrap_err();
        assert!(e.to_string().contains("needs WebDriver BiDi"), "{e}");
    });
    Ok(())
}

struct Outcome {
    hj: PathBuf,
    seen: Seen,
    commands: Vec<(String, String)>,
}

fn run(name: &'static str, hj: &Path, driver: &str, filter: &str, env: &[(&str, &str)]) -> i32 {
    // SAFETY: the runs are sequential, under the caller's `in_process`: no
    // other test of the binary reads the environment meanwhile.
    unsafe {
        std::env::set_var("HARSHJUDGE_DIR", hj);
        std::env::set_var("HARSHJUDGE_WEBDRIVER_URL", driver);
        std::env::remove_var("HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS");
        for (k, v) in env {
            std::env::set_var(k, v);
        }
    }
    let args =
        harshjudge::harness::Arguments::from_iter([name, "--quiet", "--test-threads", "1", filter]);
    let pkg = harshjudge::harness::Package::new(name, env!("CARGO_MANIFEST_DIR"));
    harshjudge::harness::run(pkg, &args)
}

/// The three runs, once for every test.
fn outcome() -> &'static Outcome {
    static RUN: OnceLock<Outcome> = OnceLock::new();
    RUN.get_or_init(|| {
        let _alone = support::in_process();
        let (base, seen) = serve();
        let tmp = support::shared_tempdir();
        let hj = tmp.join("hj");
        let driver = wdcount::CountingDriver::start(&tmp.join("driver"));
        // SAFETY: as in `run`.
        unsafe {
            std::env::set_var("HARSHJUDGE_BASE_URL", &base);
            std::env::set_var("HARSHJUDGE_EVIDENCE", "all");
            // A hang fails in a minute, not in the default five.
            std::env::set_var("HARSHJUDGE_STEP_TIMEOUT", "60s");
        }
        let code = run("bidi", &hj, &driver.url, "network_control", &[]);
        assert_eq!(
            code,
            0,
            "network_control failed:\n{}\nthe server was sent: {:?}\nchromedriver's log of the network: {}",
            explain(&hj),
            seen.lock().unwrap(),
            driver_log(&tmp.join("driver/chromedriver.log"))
        );
        let code = run(
            "bidi",
            &hj,
            &driver.url,
            "console_errors_fail",
            &[("HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS", "1")],
        );
        assert_ne!(code, 0, "the step with a console error fails");
        let (proxy, _proxy) = strip_bidi_proxy(&driver.url);
        assert_eq!(run("bidi", &hj, &proxy, "without_bidi", &[]), 0);
        let commands = driver.commands();
        Outcome {
            hj,
            seen,
            commands,
        }
    })
}

/// What a failed nested run recorded, for the failure message: each step's
/// status and error, and the failing step's console and network evidence (a
/// rare failure is then diagnosed from the CI log alone).
fn explain(hj: &Path) -> String {
    let mut out = String::new();
    let Ok(slugs) = std::fs::read_dir(hj.join("scenarios")) else {
        return format!("no scenarios under {}", hj.display());
    };
    for slug in slugs.flatten() {
        let Ok(runs) = std::fs::read_dir(slug.path().join("runs")) else {
            continue;
        };
        for run in runs.flatten() {
            let result =
                std::fs::read_to_string(run.path().join("result.json")).unwrap_or_default();
            out.push_str(&format!("{}\n{result}\n", run.path().display()));
            let Ok(v) = harshjudge::serde_json::from_str::<harshjudge::serde_json::Value>(&result)
            else {
                continue;
            };
            let steps = v["steps"].as_array().cloned().unwrap_or_default();
            for (i, step) in steps.iter().enumerate() {
                if step["status"] != "fail" {
                    continue;
                }
                let dir = run.path().join(format!("step-{:02}/evidence", i + 1));
                for file in ["console.json", "network.json"] {
                    let text = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
                    out.push_str(&format!("step {:02} {file}: {text}\n", i + 1));
                }
            }
        }
    }
    out
}

/// The lines of the driver's log about network commands and events, and
/// the echo request, shortened.
fn driver_log(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let from = text.find("network.addIntercept").unwrap_or(0);
    let from = text[..from].rfind("\n[").unwrap_or(0);
    let lines: Vec<String> = text[from..]
        .lines()
        .take(400)
        .map(|l| l.chars().take(220).collect())
        .collect();
    lines.join("\n")
}

fn run_dir(hj: &Path, slug: &str) -> PathBuf {
    support::only_run(hj, slug)
}

fn json(p: &Path) -> harshjudge::serde_json::Value {
    harshjudge::serde_json::from_str(
        &std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
    )
    .unwrap()
}

fn evidence(slug: &str, step: usize, file: &str) -> harshjudge::serde_json::Value {
    json(&run_dir(&outcome().hj, slug).join(format!("step-{step:02}/evidence/{file}")))
}

/// The entries of a network.json whose URL ends with `path`.
fn requests(slug: &str, step: usize, path: &str) -> Vec<harshjudge::serde_json::Value> {
    evidence(slug, step, "network.json")
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["url"].as_str().unwrap().ends_with(path))
        .cloned()
        .collect()
}

fn routes_fulfill_abort_and_continue_and_network_json_says_which() {
    let o = outcome();
    let result = json(&run_dir(&o.hj, "network-control").join("result.json"));
    assert_eq!(result["status"], "pass", "{result}");
    // Fulfilled: the server never saw the GET of step 1, network.json marks it.
    let r1 = requests("network-control", 1, "/api/items");
    assert_eq!(r1.len(), 1, "{r1:?}");
    assert_eq!(
        (r1[0]["status"].as_u64(), r1[0]["intercepted"].as_str()),
        (Some(200), Some("fulfilled"))
    );
    assert_eq!(r1[0]["type"], "Fetch");
    let r2 = requests("network-control", 2, "/api/items");
    assert_eq!(r2[0]["intercepted"], "aborted", "{r2:?}");
    assert!(
        r2[0]["failure"].as_str().is_some_and(|f| !f.is_empty()),
        "{r2:?}"
    );
    let r3 = requests("network-control", 3, "/api/echo");
    assert_eq!(r3[0]["intercepted"], "continued", "{r3:?}");
    let seen = o.seen.lock().unwrap();
    let gets = seen
        .iter()
        .filter(|(m, p, _)| m == "GET" && p == "/api/items")
        .count();
    assert_eq!(
        gets, 2,
        "only the unrouted GETs (network-control's step 4, without-bidi's) reach the server: {seen:?}"
    );
    let echo = seen.iter().find(|(_, p, _)| p == "/api/echo").unwrap();
    assert!(
        echo.2.contains(&("x-judge".to_string(), "yes".to_string())),
        "the server sees the header the route added: {:?}",
        echo.2
    );
    assert!(!seen.iter().any(|(_, p, _)| p == "/api/secret"));
    // Step 4: the POST and the GET, not routed.
    let r4 = requests("network-control", 4, "/api/items");
    let got: Vec<_> = r4
        .iter()
        .map(|e| {
            (
                e["method"].as_str().unwrap(),
                e["status"].as_u64(),
                e.get("intercepted").is_some(),
            )
        })
        .collect();
    assert!(got.contains(&("POST", Some(201), false)), "{got:?}");
    assert!(got.contains(&("GET", Some(200), false)), "{got:?}");
    // Step 6: the late answer is the route's.
    let r6 = requests("network-control", 6, "/api/items");
    assert_eq!(r6[0]["intercepted"], "fulfilled", "{r6:?}");
}

fn page_errors_rejections_and_console_errors_are_entries_of_their_step() {
    let _ = outcome();
    let console = evidence("network-control", 5, "console.json");
    let entries: Vec<(String, String, String)> = console
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let s = |k: &str| e[k].as_str().unwrap_or_default().to_string();
            (s("level"), s("source"), s("text"))
        })
        .collect();
    let has = |level: &str, source: &str, text: &str| {
        entries
            .iter()
            .any(|(l, s, t)| l == level && s == source && t.contains(text))
    };
    assert!(has("error", "console-api", "logged error"), "{entries:?}");
    assert!(has("info", "console-api", "hello log"), "{entries:?}");
    assert!(
        has("error", "javascript", "Uncaught Error: boom from click"),
        "{entries:?}"
    );
    assert!(
        has("error", "javascript", "rejected quietly"),
        "{entries:?}"
    );
    // Nothing of step 5 in step 4, nothing of step 4 in step 5.
    let c4 = evidence("network-control", 4, "console.json");
    assert!(!c4.to_string().contains("boom"), "{c4}");
    let n5 = evidence("network-control", 5, "network.json");
    assert_eq!(n5.as_array().unwrap().len(), 0, "{n5}");
}

fn a_step_whose_page_logged_an_error_fails_when_the_setting_says_so() {
    let o = outcome();
    let run = run_dir(&o.hj, "console-errors-fail");
    let result = json(&run.join("result.json"));
    assert_eq!(result["status"], "fail", "{result}");
    assert_eq!(result["failedStep"], "01", "{result}");
    let message = result["errorMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("logged error") && message.contains("HARSHJUDGE_FAIL_ON_CONSOLE_ERRORS"),
        "{message}"
    );
    let console = json(&run.join("step-01/evidence/console.json"));
    assert!(console.to_string().contains("logged error"), "{console}");
}

fn a_remote_end_without_bidi_falls_back_to_the_devtools_log() {
    let o = outcome();
    let run = run_dir(&o.hj, "without-bidi");
    let result = json(&run.join("result.json"));
    assert_eq!(result["status"], "pass", "{result}");
    let console = evidence("without-bidi", 1, "console.json").to_string();
    for want in [
        "hello log",
        "logged error",
        "Uncaught Error: boom from click",
    ] {
        assert!(console.contains(want), "{want} in {console}");
    }
    let r = requests("without-bidi", 1, "/api/items");
    assert_eq!(r[0]["status"], 200, "{r:?}");
    // The fallback's sessions read the devtools log; the BiDi sessions never do
    // per step: the only GetLog of the BiDi run is the pool's drain on release.
    let mut sessions: Vec<&String> = Vec::new();
    for (s, _) in &o.commands {
        if !s.is_empty() && !sessions.contains(&s) {
            sessions.push(s);
        }
    }
    let reads = |sid: &String| {
        o.commands
            .iter()
            .filter(|(s, n)| s == sid && n == "GetLog")
            .count()
    };
    let last = sessions.last().unwrap();
    assert!(
        reads(last) >= 2,
        "the fallback session reads the log at each boundary"
    );
    let bidi_reads: usize = sessions[..sessions.len() - 1]
        .iter()
        .map(|s| reads(s))
        .sum();
    assert!(
        bidi_reads <= 2,
        "the BiDi sessions read the devtools log only when released: {bidi_reads}"
    );
}

/// Every fact of the runs above, checked in one test: the runs are made once (`support::facts`).
#[test]
fn every_fact_of_the_runs() {
    support::facts(&[
        (
            "routes_fulfill_abort_and_continue_and_network_json_says_which",
            routes_fulfill_abort_and_continue_and_network_json_says_which,
        ),
        (
            "page_errors_rejections_and_console_errors_are_entries_of_their_step",
            page_errors_rejections_and_console_errors_are_entries_of_their_step,
        ),
        (
            "a_step_whose_page_logged_an_error_fails_when_the_setting_says_so",
            a_step_whose_page_logged_an_error_fails_when_the_setting_says_so,
        ),
        (
            "a_remote_end_without_bidi_falls_back_to_the_devtools_log",
            a_remote_end_without_bidi_falls_back_to_the_devtools_log,
        ),
    ]);
}
