//! Declared secrets (issue 37, point 14): runs of the suite (its test binary as `cargo test` runs it) of
//! tests/fixtures/secrets.rs, whose secrets reach a page's HTML, a command's
//! stdout, a request's query, body and response, a step's error, a panic, and
//! the web server's command line and output. No file under `.harshJudge/`
//! (evidence, blobs, results, the report and its data, JUnit) and no line
//! printed holds a secret; their markers are where the secrets were.

use crate::support;

use std::path::{Path, PathBuf};

use support::{python, run_suite};

const SUITE: &str = "secrets_suite";

/// The value of `FIXTURE_LAB_KEY`, declared by `main!(secrets = …)`.
const LAB_KEY: &str = "lab-Key-7f2c9a41";
/// The value of `FIXTURE_DB_PASS`, declared by `HARSHJUDGE_SECRETS`.
const DB_PASS: &str = "db-Pass-90e1b3d5";

struct Fixture {
    _tmp: tempfile::TempDir,
    srv: PathBuf,
    hj: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let srv = tmp.path().join("srv");
    std::fs::create_dir_all(&srv).unwrap();
    // The app's page config holds its token, as JupyterLab's does.
    std::fs::write(
        srv.join("index.html"),
        format!(
            "<html><head><script id=\"config\" type=\"application/json\">{{\"token\": \"{LAB_KEY}\"}}</script></head>\
             <body><h1>Lab</h1><p>key {LAB_KEY}</p></body></html>"
        ),
    )
    .unwrap();
    let hj = tmp.path().join("hj");
    Fixture { _tmp: tmp, srv, hj }
}

impl Fixture {
    fn run(&self, envs: &[(&str, &str)]) -> support::Run {
        let srv = self.srv.display().to_string();
        let python = python();
        let mut all = vec![
            ("FIXTURE_SECRETS_DIR", srv.as_str()),
            ("HARSHJUDGE_TEST_PYTHON", python.as_str()),
            ("FIXTURE_LAB_KEY", LAB_KEY),
            ("FIXTURE_DB_PASS", DB_PASS),
            ("HARSHJUDGE_SECRETS", "FIXTURE_DB_PASS"),
        ];
        all.extend_from_slice(envs);
        run_suite(SUITE, &self.hj, &[], &all)
    }
}

/// Every file under `dir` (links not followed), with its bytes.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let kind = e.file_type().unwrap();
            if kind.is_dir() {
                stack.push(e.path());
            } else if kind.is_file() {
                out.push((e.path(), std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn holds(bytes: &[u8], what: &str) -> bool {
    bytes.windows(what.len()).any(|w| w == what.as_bytes())
}

/// The files under `dir` that hold `what`, relative.
fn holding(all: &[(PathBuf, Vec<u8>)], dir: &Path, what: &str) -> Vec<String> {
    all.iter()
        .filter(|(_, b)| holds(b, what))
        .map(|(p, _)| p.strip_prefix(dir).unwrap().display().to_string())
        .collect()
}

#[test]
fn a_declared_secret_is_in_no_file_and_no_line_of_a_failing_run() {
    let f = fixture();
    let r = f.run(&[]);
    assert_eq!(r.code, 101, "{r:?}");
    for secret in [LAB_KEY, DB_PASS] {
        assert!(
            !r.stdout.contains(secret) && !r.stderr.contains(secret),
            "{secret} printed: {r:?}"
        );
    }
    // libtest's failure lines: the step's error and the panic, masked.
    assert!(
        r.stdout
            .contains("the lab refused key [secret:FIXTURE_LAB_KEY]"),
        "{r:?}"
    );
    assert!(
        r.stdout
            .contains("the lab panicked on key [secret:FIXTURE_LAB_KEY]"),
        "{r:?}"
    );
    let all = files(&f.hj);
    assert!(all.len() > 20, "{} files", all.len());
    for secret in [LAB_KEY, DB_PASS] {
        let leaks = holding(&all, &f.hj, secret);
        assert!(leaks.is_empty(), "{secret} written to {leaks:#?}");
    }
    let lab = holding(&all, &f.hj, "[secret:FIXTURE_LAB_KEY]");
    let db = holding(&all, &f.hj, "[secret:FIXTURE_DB_PASS]");
    let has = |list: &[String], what: &dyn Fn(&str) -> bool| list.iter().any(|p| what(p));
    // The page's HTML, where the app's config put its token.
    assert!(
        has(&lab, &|p| p.ends_with("/evidence/page.html")),
        "{lab:#?}"
    );
    // The command's stdout, both secrets.
    assert!(
        has(&lab, &|p| p.ends_with("command-01-stdout.txt")),
        "{lab:#?}"
    );
    assert!(
        has(&db, &|p| p.ends_with("command-01-stdout.txt")),
        "{db:#?}"
    );
    // The requests: query, body and response.
    assert!(
        has(&lab, &|p| p.contains("step-03") && p.contains("request-")),
        "{lab:#?}"
    );
    // The step's error and the panic: results, JUnit, the report's data.
    assert!(has(&lab, &|p| p.ends_with("result.json")), "{lab:#?}");
    assert!(has(&lab, &|p| p.ends_with("junit.xml")), "{lab:#?}");
    assert!(
        has(&lab, &|p| p.starts_with("report")
            && !p.ends_with("junit.xml")),
        "{lab:#?}"
    );
    // A screenshot is written as it is (an image cannot be masked), and still
    // is one.
    assert!(
        all.iter()
            .any(|(p, b)| p.extension().is_some_and(|e| e == "png")
                && b.starts_with(b"\x89PNG\r\n\x1a\n")),
        "no screenshot"
    );
}

#[test]
fn the_web_servers_failing_command_line_and_output_are_masked() {
    let f = fixture();
    let r = f.run(&[("FIXTURE_SECRETS_SERVER", "fails")]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains("could not start the app under test"),
        "{r:?}"
    );
    assert!(!r.stderr.contains(LAB_KEY), "{r:?}");
    assert!(!r.stdout.contains(LAB_KEY), "{r:?}");
    // Its command line and its output line, masked where the key stood.
    assert!(
        r.stderr.matches("token=[secret:FIXTURE_LAB_KEY]").count() >= 2,
        "{r:?}"
    );
    assert!(r.stderr.contains("serving at http://127.0.0.1:"), "{r:?}");
    if f.hj.exists() {
        let all = files(&f.hj);
        let leaks = holding(&all, &f.hj, LAB_KEY);
        assert!(leaks.is_empty(), "written to {leaks:#?}");
    }
}

#[test]
fn a_secret_too_short_to_mask_stops_the_run_naming_it() {
    let f = fixture();
    let r = f.run(&[
        ("FIXTURE_SHORT", "abc"),
        ("HARSHJUDGE_SECRETS", "FIXTURE_DB_PASS, FIXTURE_SHORT"),
    ]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains(
            "secret `FIXTURE_SHORT` is 3 byte(s) long; harshjudge masks secrets of at least 4"
        ),
        "{r:?}"
    );
    let r = f.run(&[("HARSHJUDGE_SECRETS", "not a name")]);
    assert_eq!(r.code, 2, "{r:?}");
    assert!(
        r.stderr.contains("`not a name` is not a secret's name"),
        "{r:?}"
    );
}
