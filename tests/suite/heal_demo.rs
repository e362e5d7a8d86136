//! Healing on the demo app (issue 24.4): the demo suite's `web_login`
//! scenario (examples/demo/web.rs, as written) run in headless Chromium
//! against the demo app served changed by `DEMO_APP_VARIANT` (a renamed
//! button, a changed label, a changed text). `harshjudge-mcp heal web-login`
//! proposes the diff, checks it on the live page, and with `--apply` writes
//! it; the healed scenario, built again (`heal_demo_suite`), then passes. The
//! changed text is an assertion on content: never healed.

use crate::support;

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};
use support::{Run, runs, serve_demo as serve, test_binary};

/// The demo's web scenarios, as the failures' locations name them.
const SOURCE: &str = "examples/demo/web.rs";
const SLUG: &str = "web-login";

struct Project {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    hj: PathBuf,
    /// The copy of the scenario's source that heal reads and writes.
    source: PathBuf,
}

fn project() -> Project {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let source = root.join("src-root").join(SOURCE);
    std::fs::create_dir_all(source.parent().unwrap()).unwrap();
    std::fs::copy(support::workspace().join(SOURCE), &source).unwrap();
    Project {
        hj: root.join(".harshJudge"),
        root,
        source,
        _tmp: tmp,
    }
}

/// Runs `suite`'s web_login scenario against the app at `url`.
fn run(p: &Project, suite: &str, url: &str) -> Run {
    let mut cmd = Command::new(test_binary(suite));
    cmd.current_dir(support::workspace())
        .arg("web_login::")
        .env("HARSHJUDGE_DIR", &p.hj)
        .env("HARSHJUDGE_REPORT", "off")
        .env("HARSHJUDGE_JUNIT", "off")
        .env("HARSHJUDGE_WAIT", "1s")
        .env("HARSHJUDGE_BASE_URL", url)
        .env_remove("NEXTEST")
        .env_remove("NEXTEST_RUN_ID");
    Run::from(cmd.output().expect("the suite runs"))
}

/// `harshjudge-mcp heal web-login ARGS…`: (exit code, its JSON).
fn heal(p: &Project, args: &[&str]) -> (i32, Value) {
    let out = Command::new(support::mcp_binary())
        .arg("--cwd")
        .arg(&p.root)
        .args(["--dashboard", "off", "heal", SLUG])
        .args(args)
        .args(["--source-root", "src-root"])
        .env_remove("HARSHJUDGE_BASE_URL")
        .output()
        .unwrap();
    let text = if out.status.success() {
        out.stdout
    } else {
        out.stderr
    };
    let text = String::from_utf8_lossy(&text).into_owned();
    let v = serde_json::from_str(text.trim()).unwrap_or_else(|_| Value::from(text));
    (out.status.code().unwrap_or(-1), v)
}

fn source(p: &Project) -> String {
    std::fs::read_to_string(&p.source).unwrap()
}

fn last_run(p: &Project) -> PathBuf {
    runs(&p.hj, SLUG).pop().expect("a run")
}

fn error(v: &Value) -> &str {
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("an error: {v:#}"))
}

/// The diff applies to the demo's source as written (`patch -p1`).
fn patch_applies(diff: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join(SOURCE);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::copy(support::workspace().join(SOURCE), &file).unwrap();
    let mut child = Command::new("patch")
        .args(["-p1", "--dry-run", "--quiet"])
        .current_dir(tmp.path())
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(child.stdin.as_mut().unwrap(), diff.as_bytes()).unwrap();
    assert!(child.wait().unwrap().success(), "patch refuses:\n{diff}");
}

#[test]
fn a_renamed_button_of_the_demo_app_is_healed_checked_live_and_the_healed_scenario_passes() {
    let p = project();
    let original = source(&p);
    let renamed = serve("renamed-button");
    let r = run(&p, "demo", &renamed.url);
    assert_ne!(r.code, 0, "the button is renamed: {r:?}");
    let failed = last_run(&p);

    // Proposed from the recorded page only (no app URL given).
    let (code, v) = heal(&p, &[]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["failure"]["kind"], "noMatch", "{v:#}");
    assert_eq!(v["stepId"], "02");
    assert_eq!(v["before"], ".name(\"Sign in\")");
    assert_eq!(v["after"], ".name(\"Log in\")");
    let note = v["note"].as_str().unwrap();
    assert!(note.contains("recorded at the failure only"), "{note}");
    assert!(v.get("live").is_none(), "{v:#}");
    let diff = v["diff"].as_str().unwrap();
    assert!(
        diff.contains("-        page.get_by_role(\"button\").name(\"Sign in\").click().await?;\n+        page.get_by_role(\"button\").name(\"Log in\").click().await?;\n"),
        "{diff}"
    );
    patch_applies(diff);

    // Checked live on the changed app: exactly one element.
    let (code, v) = heal(&p, &["--base-url", &renamed.url]);
    assert_eq!(code, 0, "{v:#}");
    let login = format!("{}/login", renamed.url);
    assert_eq!(v["live"]["url"], login.as_str(), "{v:#}");
    assert_eq!(v["live"]["count"], 1);
    assert_eq!(
        v["live"]["locator"],
        "get_by_role(\"button\").name(\"Log in\")"
    );
    assert_eq!(
        v["note"],
        format!("checked live: get_by_role(\"button\").name(\"Log in\") matches exactly one element on {login}").as_str()
    );
    // The MCP tool checks live too, in the server's process (the agent's
    // page is never closed: `a_live_heal_check_over_mcp_…`); the same answer.
    let ctx = harshjudge_mcp::Context::new(&p.root).unwrap();
    let args = json!({"scenarioSlug": SLUG, "sourceRoot": "src-root", "baseUrl": renamed.url});
    let out = harshjudge_mcp::call(&ctx, "heal", Some(args));
    assert!(!out.is_error(), "{}", out.value);
    assert_eq!(out.value["live"]["count"], 1, "{}", out.value);
    assert_eq!(out.value["after"], ".name(\"Log in\")");
    assert_eq!(out.value["applied"], false);
    let bad = json!({"scenarioSlug": SLUG, "sourceRoot": "src-root", "baseUrl": "not a url"});
    let out = harshjudge_mcp::call(&ctx, "heal", Some(bad));
    assert!(out.is_error(), "{}", out.value);
    assert!(
        out.value["error"]
            .as_str()
            .unwrap_or_default()
            .contains("not a url"),
        "the bad URL is named: {}",
        out.value
    );
    assert_eq!(source(&p), original, "a proposal writes nothing");

    // On an app as written the replacement finds nothing: refused, nothing written.
    let as_written = serve("");
    let (code, v) = heal(&p, &["--apply", "--base-url", &as_written.url]);
    assert_eq!(code, 1, "{v:#}");
    assert!(
        error(&v).contains("matches 0 elements on the live page"),
        "{v:#}"
    );
    assert_eq!(source(&p), original, "a failed live check writes nothing");
    assert!(!failed.join("heal.json").exists());

    // --apply (live) writes the change and records it.
    let (code, v) = heal(&p, &["--apply", "--live", "--base-url", &renamed.url]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["applied"], true);
    let healed = source(&p);
    assert_eq!(
        healed,
        original.replacen(".name(\"Sign in\").click()", ".name(\"Log in\").click()", 1)
    );
    assert!(healed.contains(".to_have_text(\"Welcome, Ada\")"));
    let record = support::json(failed.join("heal.json"));
    assert_eq!(record["after"], ".name(\"Log in\")");
    assert_eq!(record["live"]["count"], 1);

    // The healed scenario, built again, passes against the changed app.
    let dir = support::workspace().join("target/heal-demo");
    std::fs::create_dir_all(&dir).unwrap();
    let items: Vec<&str> = healed.lines().filter(|l| !l.starts_with("//!")).collect();
    std::fs::write(dir.join("web.rs"), items.join("\n")).unwrap();
    let r = run(&p, "heal_demo_suite", &renamed.url);
    assert_eq!(r.code, 0, "the healed scenario passes: {r:?}");
    assert_eq!(
        support::json(last_run(&p).join("result.json"))["status"],
        "pass"
    );
}

#[test]
fn a_changed_label_of_the_demo_app_is_healed_a_changed_text_is_not() {
    let p = project();
    let original = source(&p);
    // The Email field is labelled "E-mail": the fill's locator matches nothing.
    let relabelled = serve("changed-label");
    let r = run(&p, "demo", &relabelled.url);
    assert_ne!(r.code, 0, "{r:?}");
    let (code, v) = heal(&p, &["--base-url", &relabelled.url]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["before"], "get_by_label(\"Email\")");
    assert_eq!(v["after"], "get_by_label(\"E-mail\")");
    assert_eq!(v["live"]["count"], 1, "{v:#}");
    assert!(
        v["note"].as_str().unwrap().starts_with("checked live: "),
        "{v:#}"
    );
    patch_applies(v["diff"].as_str().unwrap());

    // The greeting says "Hello, Ada": an assertion on content fails. Never healed.
    let retexted = serve("changed-text");
    let r = run(&p, "demo", &retexted.url);
    assert_ne!(r.code, 0, "{r:?}");
    let failed = last_run(&p);
    for args in [
        &[][..],
        &["--apply"],
        &["--apply", "--base-url", &retexted.url],
    ] {
        let (code, v) = heal(&p, args);
        assert_eq!(code, 1, "{v:#}");
        let e = error(&v);
        assert!(e.starts_with("not a locator failure: not healed"), "{e}");
        assert!(e.contains("step 03"), "{e}");
        assert!(e.contains("Welcome, Ada"), "{e}");
    }
    assert!(!failed.join("heal.json").exists());
    assert_eq!(source(&p), original, "nothing written");

    // An unknown variant: the app refuses to start, naming the value.
    let out = Command::new(env!("CARGO_BIN_EXE_demo-cli"))
        .args(["serve", "--port", "0"])
        .env("DEMO_APP_VARIANT", "renamed")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("DEMO_APP_VARIANT=\"renamed\" is not a variant")
            && stderr.contains("renamed-button, changed-label, changed-text"),
        "{stderr}"
    );
}

/// The MCP `heal` tool's live check runs in the server's own process, with
/// a page of its agent's browsers: no `harshjudge-mcp` process is started
/// (the binary it would run does not exist here), and the agent's open page
/// stays open and working, on the same chromedriver, through the check.
#[test]
fn a_live_heal_check_over_mcp_runs_in_process_and_leaves_the_agents_page_open() {
    let p = project();
    let renamed = serve("renamed-button");
    let r = run(&p, "demo", &renamed.url);
    assert_ne!(r.code, 0, "the button is renamed: {r:?}");
    harshjudge_mcp::dashboard::set_binary(p.root.join("no-such-harshjudge-mcp"));
    let ctx = harshjudge_mcp::Context::new(&p.root).unwrap();
    let call = |tool: &str, args: Value| {
        let out = harshjudge_mcp::call(&ctx, tool, Some(args.clone()));
        assert!(!out.is_error(), "{tool} {args}: {}", out.value);
        out.value
    };
    call("browser_launch", json!({"baseUrl": renamed.url}));
    call("browser_navigate", json!({"url": "/login"}));
    let agent = ctx.agent();
    let browsers = &agent.browsers;
    // The agent's Chromium (the DevTools protocol), else its chromedriver.
    let owned =
        || (browsers.local_browser()).or_else(|| browsers.local_driver().map(|(pid, _)| pid));
    let driver = owned().expect("the agent's browser");
    let args = json!({"scenarioSlug": SLUG, "sourceRoot": "src-root", "baseUrl": renamed.url});
    let healed = call("heal", args);
    assert_eq!(healed["live"]["count"], 1, "{healed}");
    assert_eq!(healed["after"], ".name(\"Log in\")");
    // The agent's page is still open, on the same browser, and still works.
    assert_eq!(owned(), Some(driver));
    let again = call("browser_navigate", json!({"url": "/items"}));
    assert!(again.to_string().contains("/items"), "{again}");
    call("browser_close", json!({}));
}
