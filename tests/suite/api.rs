//! `s.request()` and `s.command()` (issue 22 points 2 and 3): one real run of
//! tests/fixtures/api.rs (its own HTTP server on 127.0.0.1, real processes,
//! real Chromium for the page's cookies), then what it printed and left in
//! `.harshJudge/`: every builder and matcher passing, every matcher failing
//! with expected and received, the evidence of each request and command,
//! bodies bounded, and no secret anywhere.

use crate::support;
use crate::support::browsers;
use crate::support::page;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use harshjudge::browser::BrowserConfig;
use page::{js, until};
use support::{Run, json, runs, test_binary};

const SUITE: &str = "api_suite";

/// The secrets the fixture sends (its constants).
const SECRETS: &[&str] = &[
    "tok-BEARER-SECRET-42",
    "cookie-SECRET-777",
    "login-TOKEN-SECRET-31",
    "pw-SECRET-9",
    "env-SECRET-5150",
    "page-COOKIE-SECRET-64",
    "ctx-TOKEN-SECRET-23",
    "key-API-SECRET-46",
];

struct Ran {
    hj: PathBuf,
    dir: PathBuf,
    run: Run,
}

/// The suite, run once for every test of this file.
fn ran() -> &'static Ran {
    static RAN: OnceLock<Ran> = OnceLock::new();
    RAN.get_or_init(|| {
        let tmp = support::shared_tempdir();
        let hj = tmp.join(".harshJudge");
        let dir = tmp.join("work");
        std::fs::create_dir_all(&dir).unwrap();
        let out = Command::new(test_binary(SUITE))
            .current_dir(support::workspace())
            .env("HARSHJUDGE_DIR", &hj)
            .env("API_FIXTURE_DIR", &dir)
            .env_remove("HARSHJUDGE_BASE_URL")
            .env_remove("NEXTEST_RUN_ID")
            .env_remove("NEXTEST")
            .output()
            .expect("the suite runs");
        Ran {
            hj,
            dir,
            run: Run::from(out),
        }
    })
}

/// The latest run folder of `slug`.
fn run_dir(slug: &str) -> PathBuf {
    runs(&ran().hj, slug)
        .pop()
        .unwrap_or_else(|| panic!("a run of {slug}: {:?}", ran().run))
}

fn evidence(slug: &str, step: &str) -> PathBuf {
    run_dir(slug).join(format!("step-{step}")).join("evidence")
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn every_builder_method_and_matcher_passes_against_a_real_server() {
    let r = &ran().run;
    for test in [
        "requests::01_get_with_a_query_and_a_header",
        "requests::02_post_json_put_a_form_patch_bytes_delete_head",
        "requests::03_bearer_the_cookie_a_response_set_an_absolute_url",
        "requests::04_an_error_status_a_big_body",
        "requests::05_arrays_contain_their_template_in_order",
        "requests::06_a_request_past_its_timeout_fails",
        "commands::01_exit_code_and_both_streams",
        "commands::02_cwd_env_and_stdin",
        "commands::03_a_command_past_its_timeout_is_killed_with_its_process_group",
        "commands::04_a_program_that_does_not_exist_a_cwd_that_does_not",
        "probe_cwd_env::01_probe",
        "page_cookies::01_open_the_page_then_ask_the_api",
        "api_signed_in::01_sign_in_and_save_the_login",
        "signed_out_api::01_signed_in_the_page_and_a_request_send_the_saved_cookie",
        "signed_out_api::02_after_the_page_signs_out_a_request_sends_no_cookie",
        "api_cookie_in_page::01_a_cookie_set_before_the_page_opened_is_in_the_page",
        "api_cookie_in_page::02_a_cookie_set_while_the_page_is_open_is_in_the_page",
        "defaults_and_strings::01_every_request_carries_the_defaults_of_its_context",
        "defaults_and_strings::02_the_stdout_of_a_command_as_json",
    ] {
        let ok = r
            .stdout
            .lines()
            .any(|l| l.starts_with(&format!("test {test} ")) && l.ends_with("... ok"));
        assert!(ok, "{test} did not pass:\n{r:?}");
    }
    assert_eq!(r.code, 101, "the fail_* scenarios fail: {r:?}");
    for slug in [
        "requests",
        "commands",
        "probe-cwd-env",
        "page-cookies",
        "signed-out-api",
        "api-cookie-in-page",
        "defaults-and-strings",
    ] {
        assert_eq!(
            json(run_dir(slug).join("result.json"))["status"],
            "pass",
            "{slug}"
        );
    }
}

fn each_matcher_fails_naming_what_was_expected_and_what_was_received() {
    let cases: &[(&str, &[&str])] = &[
        (
            "fail-status",
            &[
                ".to_have_status(201) failed",
                "expected: 201",
                "received: 200",
                "GET http://127.0.0.1:",
            ],
        ),
        (
            "fail-not-ok",
            &[
                ".not().to_be_ok() failed",
                "expected: not a status in 200-299",
                "received: 200",
            ],
        ),
        (
            "fail-ok",
            &[
                "/status/500 → 500).to_be_ok() failed",
                "received: 500",
                "body: \"{\\\"status\\\":500}\"",
            ],
        ),
        (
            "fail-header",
            &[
                "to_have_header(\"x-echo\", \"no\")",
                "expected: x-echo: \"no\"",
                "received: x-echo: \"yes\"",
            ],
        ),
        (
            "fail-json",
            &[
                "to_have_json(",
                "$[1].name: expected \"kiwi\", received \"pear\"",
                "template element 1",
            ],
        ),
        (
            "fail-not-json",
            &[
                ".not().to_have_json([{\"id\":2}])",
                "expected: not [{\"id\":2}]",
            ],
        ),
        (
            "fail-text",
            &[
                "to_contain_text(\"welcome\")",
                "expected: a body containing \"welcome\"",
                "\\\"token\\\":\\\"****\\\"",
            ],
        ),
        (
            "fail-succeed",
            &[
                "expect(`sh -c \"echo bad >&2; exit 2\"`).to_succeed() failed",
                "received: exit code 2",
                "stderr: \"bad\\n\"",
            ],
        ),
        (
            "fail-exit-code",
            &[
                "to_have_exit_code(4) failed",
                "expected: exit code 4",
                "received: exit code 0",
            ],
        ),
        (
            "fail-stdout",
            &[
                "to_have_stdout(contains(\"goodbye\")) failed",
                "received: \"hello\\n\"",
            ],
        ),
        (
            "fail-stderr",
            &["to_have_stderr(\"\") failed", "received: \"oops\\n\""],
        ),
        (
            "fail-output-json",
            &[
                ".to_have_json({\"n\":2}) failed",
                "expected: {\"n\":2}",
                "received: $.n: expected 2, received 1",
                "stdout: \"{\\\"n\\\": 1}\\n\"",
            ],
        ),
        (
            "fail-not-stdout",
            &[
                ".not().to_have_stdout(/^hel/) failed",
                "expected: not stdout /^hel/",
            ],
        ),
    ];
    for (slug, wanted) in cases {
        let result = json(run_dir(slug).join("result.json"));
        assert_eq!(result["status"], "fail", "{slug}");
        assert_eq!(result["failedStep"], "01", "{slug}");
        let msg = result["errorMessage"].as_str().unwrap();
        for w in *wanted {
            assert!(msg.contains(w), "{slug}: {w:?} not in\n{msg}");
        }
        let at = result["steps"][0]["errorLocation"].as_str().unwrap();
        assert!(at.starts_with("tests/fixtures/api.rs:"), "{slug}: {at}");
    }
}

fn no_secret_lands_anywhere_under_harshjudge() {
    let hj = &ran().hj;
    let mut checked = 0;
    for file in support::tree(hj) {
        let bytes = std::fs::read(hj.join(&file)).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for s in SECRETS {
            assert!(!text.contains(s), "{s} in {file}");
        }
        checked += 1;
    }
    assert!(checked > 100, "{checked} files");
    // The secrets were sent: masked where they stand.
    let ev = evidence("requests", "03");
    let bearer = std::fs::read_to_string(ev.join("request-01.json")).unwrap();
    assert!(bearer.contains("\"Bearer ****\""), "{bearer}");
    let login = json(ev.join("request-02.json"));
    assert_eq!(login["request"]["body"]["text"], "user=ada&password=****");
    assert_eq!(login["response"]["body"]["json"]["token"], "****");
    let set = &login["response"]["headers"].as_array().unwrap();
    assert!(
        set.iter()
            .any(|h| h["name"] == "set-cookie" && h["value"] == "sid=****; Path=/; HttpOnly"),
        "{set:?}"
    );
    let cookie = json(ev.join("request-03.json"));
    let sent = cookie["request"]["headers"].as_array().unwrap();
    assert!(
        sent.iter()
            .any(|h| h["name"] == "cookie" && h["value"] == "sid=****"),
        "{sent:?}"
    );
    let env = json(evidence("commands", "02").join("command-02.json"));
    assert_eq!(env["env"]["API_TOKEN"], "****");
    assert_eq!(env["env"]["GREETING"], "hi");
    let out =
        std::fs::read_to_string(evidence("commands", "02").join("command-02-stdout.txt")).unwrap();
    assert_eq!(out, "hi-****\n");
}

/// The headers a request of `slug`'s step `step` sent, as its evidence
/// records them (`name: value`, secrets masked).
fn sent_headers(slug: &str, step: &str, n: u32) -> Vec<String> {
    let ex = json(evidence(slug, step).join(format!("request-{n:02}.json")));
    ex["request"]["headers"]
        .as_array()
        .unwrap_or_else(|| panic!("{slug} {step} {n}: {ex}"))
        .iter()
        .map(|h| {
            format!(
                "{}: {}",
                h["name"].as_str().unwrap(),
                h["value"].as_str().unwrap()
            )
        })
        .collect()
}

/// Issue 37.1: a scenario's requests and its page share one cookie jar both
/// ways, with a saved login too (the fixture's scenarios assert what the page
/// and the app saw; here, what the requests sent).
fn a_scenario_s_requests_and_its_page_share_one_cookie_jar() {
    let cookies = |slug: &str, step: &str, n: u32| -> Vec<String> {
        sent_headers(slug, step, n)
            .into_iter()
            .filter(|h| h.starts_with("cookie: "))
            .collect()
    };
    // The saved login went along, then, once the page signed out, nothing.
    assert_eq!(cookies("signed-out-api", "01", 1), ["cookie: sid=****"]);
    assert_eq!(cookies("signed-out-api", "02", 1), Vec::<String>::new());
    // The flag its own response set, the signed-out sid not.
    assert_eq!(
        cookies("api-cookie-in-page", "02", 3),
        ["cookie: flag=****"]
    );
    assert_eq!(
        json(run_dir("api-cookie-in-page").join("result.json"))["status"],
        "pass"
    );
}

/// Issue 37.9: a context's default headers and authorization go with every
/// request (a request's own of a name replace them), masked as a request's
/// own; a command's stdout reads as JSON, and says why when it is not.
fn a_context_s_default_headers_and_a_command_s_json() {
    let first = sent_headers("defaults-and-strings", "01", 1);
    for h in [
        "x-client: suite",
        "x-trace: default",
        "x-api-key: ****",
        "authorization: Token ****",
    ] {
        assert!(first.contains(&h.to_string()), "{h}: {first:?}");
    }
    let second = sent_headers("defaults-and-strings", "01", 2);
    let named = |name: &str| -> Vec<&String> {
        second
            .iter()
            .filter(|h| h.starts_with(&format!("{name}: ")))
            .collect()
    };
    assert_eq!(named("x-trace"), ["x-trace: own-7"], "{second:?}");
    assert_eq!(
        named("authorization"),
        ["authorization: Bearer ****"],
        "{second:?}"
    );
    assert_eq!(named("x-client"), ["x-client: suite"], "{second:?}");
    let err =
        std::fs::read_to_string(evidence("defaults-and-strings", "02").join("json-error.txt"))
            .unwrap();
    assert!(
        err.starts_with("command echo \"not json\": its stdout is not the JSON expected (")
            && err.ends_with("; stdout: not json\n"),
        "{err}"
    );
}

fn each_request_is_evidence_of_its_step_with_a_bounded_body() {
    let first = json(evidence("requests", "01").join("request-01.json"));
    assert_eq!(first["method"], "GET");
    let url = first["url"].as_str().unwrap();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/echo?q=a+b&n=1"),
        "{url}"
    );
    assert_eq!(first["response"]["status"], 200);
    assert_eq!(first["response"]["statusText"], "OK");
    assert!(
        first["durationMs"].is_u64() && first["startedAt"].is_string(),
        "{first}"
    );
    let sent = first["request"]["headers"].as_array().unwrap();
    assert!(
        sent.iter()
            .any(|h| h["name"] == "x-trace" && h["value"] == "t1"),
        "{sent:?}"
    );
    let meta = json(evidence("requests", "01").join("request-01.meta.json"));
    assert_eq!(meta["type"], "api_response");
    let names = files(&evidence("requests", "02"));
    for n in 1..=5 {
        assert!(names.contains(&format!("request-{n:02}.json")), "{names:?}");
    }
    let methods: Vec<String> = (1..=5)
        .map(|n| {
            json(evidence("requests", "02").join(format!("request-{n:02}.json")))["method"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(methods, ["POST", "PUT", "PATCH", "DELETE", "HEAD"]);
    let post = json(evidence("requests", "02").join("request-01.json"));
    assert_eq!(
        post["request"]["body"]["json"],
        serde_json::json!({"name": "pear"})
    );
    // The big body: whole in the response, bounded in the evidence.
    let big = json(evidence("requests", "04").join("request-02.json"));
    let body = &big["response"]["body"];
    assert_eq!(body["size"], 200_003);
    assert_eq!(body["truncated"], true);
    assert_eq!(
        body["text"].as_str().unwrap().len(),
        harshjudge::api::EVIDENCE_LIMIT
    );
    // A request that timed out is recorded with its error, and fails.
    let slow = json(evidence("requests", "06").join("request-01.json"));
    assert!(
        slow["error"]
            .as_str()
            .unwrap()
            .contains("no response within 0.3 s"),
        "{slow}"
    );
    assert!(slow.get("response").is_none(), "{slow}");
    let err =
        std::fs::read_to_string(evidence("requests", "06").join("timeout-error.txt")).unwrap();
    assert!(
        err.starts_with("GET http://127.0.0.1:") && err.contains("/slow: no response within 0.3 s"),
        "{err}"
    );
}

fn each_command_is_stdout_stderr_and_exit_code_evidence() {
    let ev = evidence("commands", "01");
    assert_eq!(
        files(&ev),
        [
            "command-01-stderr.meta.json",
            "command-01-stderr.txt",
            "command-01-stdout.meta.json",
            "command-01-stdout.txt",
            "command-01.json",
            "command-01.meta.json"
        ]
    );
    for (file, kind) in [
        ("command-01", "exit_code"),
        ("command-01-stdout", "stdout"),
        ("command-01-stderr", "stderr"),
    ] {
        assert_eq!(
            json(ev.join(format!("{file}.meta.json")))["type"],
            kind,
            "{file}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(ev.join("command-01-stdout.txt")).unwrap(),
        "out\n"
    );
    assert_eq!(
        std::fs::read_to_string(ev.join("command-01-stderr.txt")).unwrap(),
        "err\n"
    );
    let rec = json(ev.join("command-01.json"));
    assert_eq!(rec["exitCode"], 3);
    assert_eq!(
        rec["args"],
        serde_json::json!(["-c", "echo out; echo err >&2; exit 3"])
    );
    assert_eq!(rec["timedOut"], false);
    let dir = ran().dir.canonicalize().unwrap();
    let pwd = json(evidence("commands", "02").join("command-01.json"));
    assert_eq!(pwd["cwd"], ran().dir.display().to_string());
    let stdin = json(evidence("commands", "02").join("command-03.json"));
    assert_eq!(stdin["stdinBytes"], 8);
    // The timeout: recorded, the error names the command, the limit and the
    // output so far, and the process it started in the background is dead.
    let t = json(evidence("commands", "03").join("command-01.json"));
    assert_eq!(t["timedOut"], true);
    assert_eq!(t["exitCode"], serde_json::Value::Null);
    let err =
        std::fs::read_to_string(evidence("commands", "03").join("timeout-error.txt")).unwrap();
    assert!(
        err.contains("did not finish within 0.5 s: killed with its process group")
            && err.contains("stdout: \"started\\n\""),
        "{err}"
    );
    let pid = std::fs::read_to_string(dir.join("child.pid")).unwrap();
    let proc = PathBuf::from(format!("/proc/{}", pid.trim()));
    let gone = (0..50).any(|_| {
        let dead = !proc.exists()
            || std::fs::read_to_string(proc.join("stat")).is_ok_and(|s| s.contains(") Z "));
        if !dead {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        dead
    });
    assert!(
        gone,
        "the background sleep {} outlived the command's timeout",
        pid.trim()
    );
    let spawn =
        std::fs::read_to_string(evidence("commands", "04").join("spawn-errors.txt")).unwrap();
    assert!(
        spawn.contains("command no-such-program-hj: cannot start it"),
        "{spawn}"
    );
    assert!(
        spawn.contains("command pwd: cannot start it in /no/such/dir-hj"),
        "{spawn}"
    );
    // What could not start is recorded too.
    let tried = json(evidence("commands", "04").join("command-02.json"));
    assert_eq!(tried["cwd"], "/no/such/dir-hj");
    assert!(
        tried["error"]
            .as_str()
            .unwrap()
            .starts_with("cannot start it: "),
        "{tried}"
    );
    assert_eq!(
        json(evidence("commands", "04").join("command-01.meta.json"))["type"],
        "exit_code"
    );
}

fn a_command_probe_runs_in_its_cwd_with_its_env() {
    let after = json(evidence("probe-cwd-env", "01").join("where-after.json"));
    let want = format!("{}\nprobed\n", ran().dir.canonicalize().unwrap().display());
    assert_eq!(after["stdout"], want);
}

fn the_report_shows_each_request_and_command() {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(the_report_shows_each_request_and_command_in_a_browser());
}

async fn the_report_shows_each_request_and_command_in_a_browser() {
    let hj = &ran().hj;
    let index = hj.join("report/index.html");
    let mut config = BrowserConfig::from_env().expect("browser settings");
    config.webdriver_url = None;
    let url = format!("file://{}", index.display());
    let page = browsers()
        .open_page_with(&config, &url)
        .await
        .expect("a browser page (needs chromium and chromium-driver)");
    let out = support::workspace().join("target/test-output/api");
    std::fs::create_dir_all(&out).unwrap();
    let run_of = |slug: &str| {
        run_dir(slug)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };

    page.goto(&format!("{url}#/run/requests/{}/03", run_of("requests")))
        .await
        .unwrap();
    until(
        &page,
        "three requests",
        "return document.querySelectorAll('details.exchange').length === 3",
    )
    .await;
    let text = js(&page, "return document.getElementById('step').textContent").await;
    let text = text.as_str().unwrap();
    for want in [
        "API requests (3)",
        "POST",
        "/login",
        "200 OK",
        "Bearer ****",
        "sid=****; Path=/; HttpOnly",
        "user=ada&password=****",
        "request-02.json",
    ] {
        assert!(
            text.contains(want),
            "{want:?} not in the step's view:\n{text}"
        );
    }
    std::fs::write(out.join("requests.png"), page.screenshot().await.unwrap()).unwrap();

    page.goto(&format!("{url}#/run/requests/{}/04", run_of("requests")))
        .await
        .unwrap();
    until(
        &page,
        "a 404 marked",
        "return document.querySelectorAll('details.exchange.bad').length === 1",
    )
    .await;
    let text = js(&page, "return document.getElementById('step').textContent").await;
    assert!(
        text.as_str()
            .unwrap()
            .contains("only the first part was kept"),
        "{text}"
    );

    page.goto(&format!("{url}#/run/commands/{}/01", run_of("commands")))
        .await
        .unwrap();
    until(
        &page,
        "one command",
        "return document.querySelectorAll('details.exchange').length === 1",
    )
    .await;
    let text = js(&page, "return document.getElementById('step').textContent").await;
    let text = text.as_str().unwrap();
    for want in [
        "Commands (1)",
        "$ sh -c \"echo out; echo err >&2; exit 3\"",
        "exit 3",
        "out",
        "err",
        "command-01-stdout.txt",
    ] {
        assert!(
            text.contains(want),
            "{want:?} not in the step's view:\n{text}"
        );
    }
    // The streams shown with their command are not listed again as attachments.
    assert!(!text.contains("Attachments"), "{text}");
    std::fs::write(out.join("commands.png"), page.screenshot().await.unwrap()).unwrap();
    browsers().release(page).await;
}

/// Every fact of the suite's run, in one test: the run is made once (`support::facts`).
#[test]
fn every_fact_of_the_run() {
    support::facts(&[
        (
            "every_builder_method_and_matcher_passes_against_a_real_server",
            every_builder_method_and_matcher_passes_against_a_real_server,
        ),
        (
            "each_matcher_fails_naming_what_was_expected_and_what_was_received",
            each_matcher_fails_naming_what_was_expected_and_what_was_received,
        ),
        (
            "no_secret_lands_anywhere_under_harshjudge",
            no_secret_lands_anywhere_under_harshjudge,
        ),
        (
            "a_scenario_s_requests_and_its_page_share_one_cookie_jar",
            a_scenario_s_requests_and_its_page_share_one_cookie_jar,
        ),
        (
            "a_context_s_default_headers_and_a_command_s_json",
            a_context_s_default_headers_and_a_command_s_json,
        ),
        (
            "each_request_is_evidence_of_its_step_with_a_bounded_body",
            each_request_is_evidence_of_its_step_with_a_bounded_body,
        ),
        (
            "each_command_is_stdout_stderr_and_exit_code_evidence",
            each_command_is_stdout_stderr_and_exit_code_evidence,
        ),
        (
            "a_command_probe_runs_in_its_cwd_with_its_env",
            a_command_probe_runs_in_its_cwd_with_its_env,
        ),
        (
            "the_report_shows_each_request_and_command",
            the_report_shows_each_request_and_command,
        ),
    ]);
}
