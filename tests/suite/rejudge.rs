//! Re-judging without re-running, with real runs of tests/fixtures/judged.rs
//! (`judged_suite`; `checkout` in real headless Chromium, `notes` without a
//! browser) and a real command judge (a shell script written here):
//! `--rejudge` makes verdicts from the recorded evidence without starting the
//! app, a browser or a new run; verdicts are reused or re-made as their inputs'
//! hashes say; `--rejudge-run`; the suite checkpoint's execution and judgment;
//! `--resume` re-judging instead of re-running; a kill during judgment.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::{all_files_parse, json, runs, test_binary, tree, yaml};

const SUITE: &str = "judged_suite";

/// A temporary project: the `.harshJudge/` folder, the judge script and the
/// files that prove what was (not) started.
struct Project {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    fn new() -> Project {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        // The judge: counts its calls, keeps the last document it read, answers
        // the verdict its variables say (per scenario), or sleeps, or crashes.
        let judge = r#"#!/bin/sh
PATH=/usr/bin:/bin
dir=$(dirname "$0")
input=$(cat)
echo call >> "$dir/judge-calls"
# Judges run side by side: each writes its own file, then renames it in place.
printf '%s' "$input" > "$dir/judge-input.json.$$"
mv -f "$dir/judge-input.json.$$" "$dir/judge-input.json"
if [ -n "$JUDGE_SLEEP" ]; then
  echo $$ > "$dir/judge.pid"
  sleep "$JUDGE_SLEEP"
fi
if [ "$JUDGE_CRASH" = 1 ]; then
  echo "the test judge crashed on purpose" >&2
  exit 3
fi
case "$input" in
  *'"scenario": "notes"'*) verdict=${JUDGE_NOTES:-pass} ;;
  *) verdict=${JUDGE_CHECKOUT:-pass} ;;
esac
printf '{"verdict": "%s", "reasoning": "the test judge says %s"}\n' "$verdict" "$verdict"
"#;
        write_script(&root.join("judge.sh"), judge);
        // A chromedriver that only says it was called: nothing may start one.
        write_script(
            &root.join("chromedriver"),
            "#!/bin/sh\necho called >> \"$(dirname \"$0\")/chromedriver-called\"\nexit 1\n",
        );
        std::fs::create_dir_all(root.join("empty-bin")).unwrap();
        Project { _tmp: tmp, root }
    }

    fn hj(&self) -> PathBuf {
        self.root.join("hj")
    }

    fn judge(&self) -> String {
        self.root.join("judge.sh").display().to_string()
    }

    fn calls(&self) -> usize {
        std::fs::read_to_string(self.root.join("judge-calls"))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    /// The test binary, run directly (a kill reaches the harness, not cargo).
    fn command(&self, args: &[&str], envs: &[(&str, &str)]) -> Command {
        let mut cmd = Command::new(test_binary(SUITE));
        cmd.current_dir(support::workspace())
            .args(args)
            .env("HARSHJUDGE_DIR", self.hj())
            .env("HARSHJUDGE_JUNIT", "off")
            .env("HARSHJUDGE_REPORT", "off")
            .env("HARSHJUDGE_JUDGE_RETRIES", "0")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for k in [
            "HARSHJUDGE_BASE_URL",
            "HARSHJUDGE_JUDGE_CMD",
            "HARSHJUDGE_JUDGE_URL",
            "HARSHJUDGE_JUDGE_MODEL",
            "HARSHJUDGE_UNCERTAIN",
            "HARSHJUDGE_RESUME",
            "HARSHJUDGE_RETRIES",
            "NEXTEST_RUN_ID",
            "NEXTEST",
            "JUDGED_RECEIPT",
            "JUDGED_NOTE",
            "JUDGED_CODE_FAIL",
            "JUDGED_NO_APP",
        ] {
            cmd.env_remove(k);
        }
        for (k, v) in envs {
            cmd.env(k, v);
        }
        cmd
    }

    /// A normal run (the app and, for `checkout`, Chromium start).
    fn run(&self, args: &[&str], envs: &[(&str, &str)]) -> support::Run {
        output(self.command(args, envs).spawn().unwrap())
    }

    /// A run that must start neither the app, nor a browser, nor chromedriver:
    /// no chromium or chromedriver on PATH, HARSHJUDGE_CHROMEDRIVER a script
    /// that records being called, and the fixture's app refusing to start.
    fn offline(&self, args: &[&str], envs: &[(&str, &str)]) -> support::Run {
        let mut cmd = self.command(args, envs);
        cmd.env("PATH", self.root.join("empty-bin"))
            .env("HARSHJUDGE_CHROMEDRIVER", self.root.join("chromedriver"))
            .env("JUDGED_NO_APP", self.root.join("app-started"));
        let out = output(cmd.spawn().unwrap());
        self.assert_nothing_started(&out);
        out
    }

    fn assert_nothing_started(&self, out: &support::Run) {
        assert!(
            !self.root.join("chromedriver-called").exists(),
            "chromedriver was started: {out:?}"
        );
        assert!(
            !self.root.join("app-started").exists(),
            "the app was started: {out:?}"
        );
        assert!(
            !out.stderr.contains("JUDGED_NO_APP") && !out.stdout.contains("JUDGED_NO_APP"),
            "{out:?}"
        );
    }

    fn run_dirs(&self, slug: &str) -> Vec<PathBuf> {
        runs(&self.hj(), slug)
    }

    fn only_run(&self, slug: &str) -> PathBuf {
        let runs = self.run_dirs(slug);
        assert_eq!(runs.len(), 1, "{slug}: {runs:?}");
        runs[0].clone()
    }

    fn checkpoint(&self) -> serde_json::Value {
        json(self.hj().join(".suite").join(format!("{SUITE}.json")))
    }

    fn meta(&self, slug: &str) -> serde_json::Value {
        yaml(self.hj().join("scenarios").join(slug).join("meta.yaml"))
    }
}

fn write_script(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

fn output(child: Child) -> support::Run {
    support::Run::from(child.wait_with_output().unwrap())
}

fn counts(meta: &serde_json::Value) -> (u64, u64, u64) {
    (
        meta["totalRuns"].as_u64().unwrap(),
        meta["passCount"].as_u64().unwrap(),
        meta["failCount"].as_u64().unwrap(),
    )
}

/// `result.json` without the fields a judgment may change: what execution wrote.
fn execution_fields(result: &serde_json::Value) -> serde_json::Value {
    let mut r = result.clone();
    let o = r.as_object_mut().unwrap();
    for k in [
        "status",
        "executedStatus",
        "failedStep",
        "errorMessage",
        "flaky",
    ] {
        o.remove(k);
    }
    for step in o["steps"].as_array_mut().unwrap() {
        let s = step.as_object_mut().unwrap();
        for k in [
            "status",
            "executedStatus",
            "verdict",
            "error",
            "expectation",
        ] {
            s.remove(k);
        }
    }
    r
}

/// Every file of a run's execution (all but `judge/`, `result.json` and the
/// run's lock file) with the SHA-256 of its contents.
fn execution_files(run: &Path) -> Vec<(String, String)> {
    tree(run)
        .into_iter()
        .filter(|f| !f.starts_with("judge/") && f != "result.json" && f != ".run.lock")
        .map(|f| {
            let bytes = std::fs::read(run.join(&f)).unwrap();
            let store = harshjudge_store::judge::EvidenceInput::of_bytes(&f, run.join(&f), &bytes);
            (f, store.sha256)
        })
        .collect()
}

/// What libtest printed for test `name` (`ok`, `FAILED`, `ignored…`).
fn outcome<'a>(out: &'a support::Run, name: &str) -> &'a str {
    out.stdout
        .lines()
        .find_map(|l| {
            let rest = l.strip_prefix("test ")?.strip_prefix(name)?;
            rest.trim_start().strip_prefix("... ")
        })
        .unwrap_or("(not run)")
}

fn step<'a>(result: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    result["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no step {id} in {result}"))
}

fn judgment<'a>(judge: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    judge["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stepId"] == id)
        .unwrap_or_else(|| panic!("no judgment of step {id} in {judge}"))
}

#[test]
fn rejudge_makes_verdicts_from_the_evidence_without_running_anything() {
    let p = Project::new();
    // One execution, no judge: the steps with an expectation wait for a verdict.
    let first = p.run(&[], &[]);
    assert_eq!(first.code, 0, "{first:?}");
    let (notes, checkout) = (p.only_run("notes"), p.only_run("checkout"));
    for run in [&notes, &checkout] {
        assert!(!run.join("judge/result.json").exists(), "{}", run.display());
    }
    assert!(
        checkout.join("step-02/evidence/after.png").is_file(),
        "the browser step left screenshots"
    );
    let before: Vec<_> = [&notes, &checkout]
        .iter()
        .map(|r| (json(r.join("result.json")), execution_files(r)))
        .collect();
    assert_eq!(counts(&p.meta("notes")), (1, 1, 0));
    let cp = p.checkpoint();
    assert_eq!(cp["scenarios"]["notes"]["executed"], "pass", "{cp}");
    assert_eq!(cp["scenarios"]["notes"]["judged"], "pending", "{cp}");

    // No judge configured: a clear error, nothing changed.
    let out = p.offline(&["--rejudge"], &[]);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("no judge is configured")
            && out.stderr.contains("HARSHJUDGE_JUDGE_CMD")
            && out.stderr.contains("HARSHJUDGE_JUDGE_URL")
            && out.stderr.contains("notes run"),
        "{out:?}"
    );
    assert_eq!(p.calls(), 0);
    assert!(!notes.join("judge").exists());

    // With a judge: the note's verdict fails it, the receipt's passes.
    let judge = p.judge();
    let envs = [
        ("HARSHJUDGE_JUDGE_CMD", judge.as_str()),
        ("JUDGE_NOTES", "fail"),
    ];
    let junit = p.root.join("junit.xml");
    let junit_env = junit.display().to_string();
    let mut with_junit = envs.to_vec();
    with_junit.push(("HARSHJUDGE_JUNIT", junit_env.as_str()));
    let out = p.offline(&["--rejudge"], &with_junit);
    assert_eq!(
        out.code, 101,
        "a failing verdict fails the invocation: {out:?}"
    );
    assert_eq!(p.calls(), 2, "one call per judged step: {out:?}");
    assert_eq!(
        outcome(&out, "notes::01_write_the_note"),
        "FAILED",
        "{out:?}"
    );
    assert_eq!(outcome(&out, "notes::02_read_it_back"), "ok", "{out:?}");
    assert_eq!(outcome(&out, "checkout::01_open_the_cart"), "ok", "{out:?}");
    assert_eq!(
        outcome(&out, "checkout::02_pay_with_the_saved_card"),
        "ok",
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains("the command judge's verdict is fail: the test judge says fail")
            && out.stdout.contains("expected: the note says all is good")
            && out.stdout.contains(
                "re-judged by --rejudge: 1 verdict(s) made, 0 reused; status pass -> fail"
            ),
        "{out:?}"
    );
    // The reports are published from the re-judged runs.
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<failure") && xml.contains("the test judge says fail"),
        "{xml}"
    );
    // No new run, the execution untouched: only judge/ and the status fields.
    assert_eq!(p.run_dirs("notes"), std::slice::from_ref(&notes));
    assert_eq!(p.run_dirs("checkout"), std::slice::from_ref(&checkout));
    for (run, (result, files)) in [&notes, &checkout].iter().zip(&before) {
        let now = json(run.join("result.json"));
        assert_eq!(execution_fields(&now), execution_fields(result));
        assert_eq!(&execution_files(run), files, "{}", run.display());
        assert!(run.join("judge/result.json").is_file());
    }
    all_files_parse(&p.hj());
    // The note's run: failed by its verdict, its code's outcome kept apart.
    let r = json(notes.join("result.json"));
    assert_eq!(r["status"], "fail");
    assert_eq!(r["executedStatus"], "pass");
    assert_eq!(r["failedStep"], "01");
    let s = step(&r, "01");
    assert_eq!(
        (&s["status"], &s["executedStatus"], &s["verdict"]),
        (&"fail".into(), &"pass".into(), &"fail".into())
    );
    assert_eq!(s["expectation"], "the note says all is good");
    assert_eq!(step(&r, "02")["status"], "pass");
    let j = json(notes.join("judge/result.json"));
    let sj = judgment(&j, "01");
    assert_eq!(sj["verdict"], "fail");
    assert_eq!(sj["judge"], "command");
    assert!(sj["inputsHash"].as_str().unwrap().starts_with("sha256:"));
    // The judge read the recorded evidence of the right step.
    let input = json(p.root.join("judge-input.json"));
    assert!(input["scenario"] == "notes" || input["scenario"] == "checkout");
    // The receipt's run still passes; its screenshots were shown to the judge.
    let r = json(checkout.join("result.json"));
    assert_eq!(r["status"], "pass");
    assert_eq!(step(&r, "02")["verdict"], "pass");
    let cj = json(checkout.join("judge/result.json"));
    assert_eq!(judgment(&cj, "02")["verdict"], "pass");
    let prompt =
        std::fs::read_to_string(checkout.join("judge/step-02.prompt.md")).unwrap_or_default();
    let shown = prompt + &std::fs::read_to_string(p.root.join("judge-input.json")).unwrap();
    assert!(shown.contains("after.png"), "{shown}");
    // Statistics under the locks: the note's run now counts as failed.
    assert_eq!(counts(&p.meta("notes")), (1, 0, 1));
    assert_eq!(p.meta("notes")["lastResult"], "fail");
    assert_eq!(counts(&p.meta("checkout")), (1, 1, 0));
    // The checkpoint keeps execution and judgment apart.
    let cp = p.checkpoint();
    let n = &cp["scenarios"]["notes"];
    assert_eq!(
        (&n["state"], &n["executed"], &n["judged"]),
        (&"fail".into(), &"pass".into(), &"fail".into()),
        "{cp}"
    );
    let c = &cp["scenarios"]["checkout"];
    assert_eq!(
        (&c["executed"], &c["judged"]),
        (&"pass".into(), &"pass".into())
    );

    // Filters select scenarios as for a run: only `checkout` is re-judged.
    let out = p.offline(&["--rejudge", "checkout::02"], &envs);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("1 reused"), "{out:?}");
    assert_eq!(p.calls(), 2, "unchanged inputs, same judge: reused");
}

#[test]
fn verdicts_are_reused_or_remade_as_their_inputs_hashes_say() {
    let p = Project::new();
    let first = p.run(&["notes"], &[]);
    assert_eq!(first.code, 0, "{first:?}");
    let run = p.only_run("notes");
    let judge = p.judge();
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut v: Vec<(&str, &str)> = vec![("HARSHJUDGE_JUDGE_CMD", judge.as_str())];
        v.extend_from_slice(extra);
        v
    };
    let rejudge = |envs: &[(&str, &str)]| p.offline(&["--rejudge", "notes"], envs);

    let out = rejudge(&with(&[]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(p.calls(), 1);
    let hash = |p: &Project| {
        json(p.only_run("notes").join("judge/result.json"))["steps"][0]["inputsHash"].clone()
    };
    let first_hash = hash(&p);
    // Same judge, same evidence: reused, the judge is not called, even though
    // it would now answer otherwise.
    let out = rejudge(&with(&[("JUDGE_NOTES", "fail")]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(p.calls(), 1, "{out:?}");
    assert!(
        out.stdout.contains("0 verdict(s) made, 1 reused"),
        "{out:?}"
    );
    // No judge configured, nothing to make: the recorded verdicts stand.
    let out = rejudge(&[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("0 verdict(s) made, 1 reused"),
        "{out:?}"
    );

    // Another judge (another command line): re-made.
    let other = format!("{judge} --second-opinion");
    let out = rejudge(&[
        ("HARSHJUDGE_JUDGE_CMD", other.as_str()),
        ("JUDGE_NOTES", "fail"),
    ]);
    assert_eq!(out.code, 101, "{out:?}");
    assert_eq!(p.calls(), 2);
    assert_ne!(hash(&p), first_hash);
    assert_eq!(json(run.join("result.json"))["status"], "fail");
    assert_eq!(counts(&p.meta("notes")), (1, 0, 1));
    // A failed verdict does not make its own inputs change (the code's outcome
    // is `executedStatus`, not the combined status): reused.
    let out = rejudge(&[("HARSHJUDGE_JUDGE_CMD", other.as_str())]);
    assert_eq!(out.code, 101, "{out:?}");
    assert_eq!(p.calls(), 2, "{out:?}");

    // Back to the first judge: its identity differs again, so re-made (pass).
    let out = rejudge(&with(&[]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(p.calls(), 3);
    assert_eq!(hash(&p), first_hash, "the same inputs hash the same");
    assert_eq!(json(run.join("result.json"))["status"], "pass");
    assert_eq!(counts(&p.meta("notes")), (1, 1, 0));

    // A judge error is recorded without a verdict, fails the step, and is
    // always re-made.
    let out = p.offline(
        &["--rejudge-run", run.file_name().unwrap().to_str().unwrap()],
        &with(&[("JUDGE_CRASH", "1")]),
    );
    assert_eq!(out.code, 101, "{out:?}");
    assert!(out.stdout.contains("gave no verdict"), "{out:?}");
    assert_eq!(p.calls(), 4);
    let r = json(run.join("result.json"));
    assert_eq!(step(&r, "01")["verdict"], "error");
    assert!(p.checkpoint()["scenarios"]["notes"]["judged"] == "pending");
    let out = rejudge(&with(&[]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(p.calls(), 5, "a judgment without verdict is re-made");
    assert_eq!(json(run.join("result.json"))["status"], "pass");

    // Changed evidence: re-made.
    let note = run.join("step-01/evidence/note.txt");
    assert!(note.is_file(), "{:?}", tree(&run));
    std::fs::write(&note, "all good, edited").unwrap();
    let out = rejudge(&with(&[]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(p.calls(), 6);

    // A verdict made for another expectation (the code's expectation changed
    // since): re-made. The recorded judgment is made to answer an older
    // expectation, with the hash of that one.
    let jpath = run.join("judge/result.json");
    let mut j = json(&jpath);
    let slug = harshjudge_store::store::Slug::new("notes").unwrap();
    let id =
        harshjudge_store::store::RunId::new(run.file_name().unwrap().to_str().unwrap()).unwrap();
    let store = harshjudge_store::store::Store::new(p.hj());
    let result = store.scenario(&slug).run(&id).result().unwrap().unwrap();
    let old = harshjudge_store::judge::step_input(
        &store,
        &slug,
        &id,
        &result.steps[0],
        "Write the note",
        "an older expectation",
    )
    .unwrap();
    let identity = j["steps"][0]["identity"].as_str().unwrap().to_string();
    j["steps"][0]["expectation"] = "an older expectation".into();
    j["steps"][0]["inputsHash"] = harshjudge_store::judge::inputs_hash(&old, &identity).into();
    std::fs::write(&jpath, serde_json::to_string(&j).unwrap()).unwrap();
    let out = rejudge(&with(&[]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(p.calls(), 7, "{out:?}");
    let j = json(&jpath);
    assert_eq!(j["steps"][0]["expectation"], "the note says all is good");

    // Under nextest a scenario is one trial.
    let out = p.offline(
        &["--rejudge", "--exact", "notes"],
        &with(&[("NEXTEST", "1")]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(outcome(&out, "notes"), "ok", "{out:?}");
    assert_eq!(p.calls(), 7);
    assert_eq!(p.run_dirs("notes"), std::slice::from_ref(&run));

    // An uncertain verdict fails the step; HARSHJUDGE_UNCERTAIN=pass counts it
    // as passed when the recorded verdict is reused (no judge needed).
    let id = run.file_name().unwrap().to_str().unwrap();
    let out = p.offline(
        &["--rejudge-run", id],
        &with(&[("JUDGE_NOTES", "uncertain")]),
    );
    assert_eq!(out.code, 101, "{out:?}");
    assert!(out.stdout.contains("HARSHJUDGE_UNCERTAIN=pass"), "{out:?}");
    assert_eq!(
        step(&json(run.join("result.json")), "01")["verdict"],
        "uncertain"
    );
    assert_eq!(counts(&p.meta("notes")), (1, 0, 1));
    let out = rejudge(&[("HARSHJUDGE_UNCERTAIN", "pass")]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(p.calls(), 8);
    assert_eq!(json(run.join("result.json"))["status"], "pass");
    assert_eq!(counts(&p.meta("notes")), (1, 1, 0));
    assert_eq!(p.checkpoint()["scenarios"]["notes"]["judged"], "pass");
}

#[test]
fn rejudge_run_remakes_every_verdict_of_that_run_only() {
    let p = Project::new();
    for note in ["all good", "something broke"] {
        let out = p.run(&["notes"], &[("JUDGED_NOTE", note)]);
        assert_eq!(out.code, 0, "{out:?}");
    }
    let runs = p.run_dirs("notes");
    assert_eq!(runs.len(), 2);
    let (older, newer) = (&runs[0], &runs[1]);
    let judge = p.judge();
    let envs = [
        ("HARSHJUDGE_JUDGE_CMD", judge.as_str()),
        ("JUDGE_NOTES", "fail"),
    ];
    let id = older.file_name().unwrap().to_str().unwrap();
    let out = p.offline(&["--rejudge-run", id], &envs);
    assert_eq!(out.code, 101, "{out:?}");
    assert_eq!(p.calls(), 1);
    assert!(out.stdout.contains("re-judged by --rejudge-run"), "{out:?}");
    assert!(
        !out.stdout.contains("checkout"),
        "only that run's scenario: {out:?}"
    );
    assert_eq!(json(older.join("result.json"))["status"], "fail");
    assert!(
        !newer.join("judge").exists(),
        "the newer run is not touched"
    );
    assert_eq!(p.run_dirs("notes"), runs);
    // Counted as failed; `lastResult` stays the newer run's.
    let meta = p.meta("notes");
    assert_eq!(counts(&meta), (2, 1, 1));
    assert_eq!(meta["lastResult"], "pass");
    // Forced: the same inputs are judged again.
    let out = p.offline(&["--rejudge-run", id], &envs);
    assert_eq!(out.code, 101, "{out:?}");
    assert_eq!(p.calls(), 2);
    // --rejudge takes the latest run.
    let out = p.offline(&["--rejudge", "notes"], &envs);
    assert_eq!(out.code, 101, "{out:?}");
    assert!(newer.join("judge/result.json").is_file());
    assert_eq!(p.calls(), 3);
    // Bad ids are named.
    let out = p.offline(&["--rejudge-run", "20200101T000000000Z-zzzzzz"], &envs);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("no such run"), "{out:?}");
    let out = p.offline(&["--rejudge-run", "../x"], &envs);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("--rejudge-run \"../x\" is invalid"),
        "{out:?}"
    );
    let out = p.offline(&["--rejudge", "--resume"], &envs);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(out.stderr.contains("cannot be combined"), "{out:?}");
    // A scenario never run: its trials say to run it first.
    let out = p.offline(&["--rejudge", "checkout"], &envs);
    assert_eq!(out.code, 101, "{out:?}");
    assert!(
        out.stdout
            .contains("no finished run of scenario \"checkout\"")
            && out.stdout.contains("run it first"),
        "{out:?}"
    );
    assert!(p.run_dirs("checkout").is_empty());
}

#[test]
fn resume_rejudges_what_was_executed_but_not_judged_instead_of_rerunning() {
    let p = Project::new();
    let out = p.run(&["notes"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let run = p.only_run("notes");
    let cp = p.checkpoint();
    let n = &cp["scenarios"]["notes"];
    assert_eq!(
        (&n["state"], &n["executed"], &n["judged"]),
        (&"pass".into(), &"pass".into(), &"pending".into()),
        "{cp}"
    );
    // --resume without a judge: reused as it is, with a note saying why.
    let out = p.offline(&["--resume", "notes"], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("executed but not fully judged")
            && out.stderr.contains("HARSHJUDGE_JUDGE_CMD"),
        "{out:?}"
    );
    assert_eq!(p.run_dirs("notes"), std::slice::from_ref(&run));
    // With a judge: re-judged from the evidence, not re-run.
    let judge = p.judge();
    let envs = [
        ("HARSHJUDGE_JUDGE_CMD", judge.as_str()),
        ("JUDGE_NOTES", "fail"),
    ];
    let out = p.offline(&["--resume", "notes"], &envs);
    assert_eq!(out.code, 101, "{out:?}");
    assert_eq!(p.calls(), 1);
    assert_eq!(
        p.run_dirs("notes"),
        std::slice::from_ref(&run),
        "not re-run"
    );
    assert!(
        out.stderr.contains("re-judged from its evidence"),
        "{out:?}"
    );
    assert_eq!(
        outcome(&out, "notes::01_write_the_note"),
        "FAILED",
        "{out:?}"
    );
    let cp = p.checkpoint();
    let n = &cp["scenarios"]["notes"];
    assert_eq!(
        (&n["state"], &n["executed"], &n["judged"], &n["reused"]),
        (&"fail".into(), &"pass".into(), &"fail".into(), &true.into()),
        "{cp}"
    );
    assert_eq!(counts(&p.meta("notes")), (1, 0, 1));
    // Fully judged now: --resume reuses it without calling the judge.
    let out = p.offline(&["--resume", "notes"], &envs);
    assert_eq!(out.code, 101, "{out:?}");
    assert_eq!(p.calls(), 1);
    assert_eq!(p.run_dirs("notes"), [run]);
}

fn kill_group_of(pid_file: &Path) {
    if let Some(pid) = std::fs::read_to_string(pid_file)
        .ok()
        .and_then(|s| s.trim().parse::<i32>().ok())
        .and_then(rustix::process::Pid::from_raw)
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Whether every run of `notes` has a final `result.json`.
fn executions_final(p: &Project) -> bool {
    p.run_dirs("notes").iter().all(|r| {
        std::fs::read_to_string(r.join("result.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|v| v["status"] != "running")
    })
}

/// Starts `cmd`, waits until the judge is called (then SIGKILLs the test
/// process while the judge sleeps, and the judge) or the process ends.
/// Returns whether it was killed.
fn kill_while_judging(p: &Project, mut cmd: Command) -> bool {
    let pid_file = p.root.join("judge.pid");
    let _ = std::fs::remove_file(&pid_file);
    let mut child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if pid_file.exists() {
            // The judge hangs. Steps after a judged one may still be executing
            // alongside it: give the execution a moment to become final (it
            // must not wait for the judge), then kill.
            let hanging = Instant::now();
            while hanging.elapsed() < Duration::from_secs(10) && !executions_final(p) {
                std::thread::sleep(Duration::from_millis(20));
            }
            rustix::process::kill_process(
                rustix::process::Pid::from_child(&child),
                rustix::process::Signal::KILL,
            )
            .unwrap();
            let _ = child.wait();
            kill_group_of(&pid_file);
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        assert!(
            Instant::now() < deadline,
            "the suite neither judged nor ended"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_kill_during_judgment_leaves_the_execution_intact_and_the_judgment_resumable() {
    let p = Project::new();
    let judge = p.judge();
    let sleeping = [
        ("HARSHJUDGE_JUDGE_CMD", judge.as_str()),
        ("JUDGE_SLEEP", "60"),
    ];
    // A run whose judge hangs: the process is killed while it judges (when the
    // harness judges during runs; else it ends with the verdicts pending).
    let killed = kill_while_judging(&p, p.command(&["notes"], &sleeping));
    let run = p.only_run("notes");
    let r = json(run.join("result.json"));
    assert_ne!(r["status"], "running", "the execution is final: {r}");
    assert_ne!(r["interrupted"], true, "{r}");
    assert!(run.join("step-01/evidence/note.txt").is_file());
    assert!(run.join("step-02/evidence/read.txt").is_file());
    let meta = p.meta("notes");
    assert_eq!(counts(&meta), (1, 1, 0), "killed: {killed}");
    all_files_parse(&p.hj());
    let j = run.join("judge/result.json");
    assert!(
        !j.exists() || json(&j)["steps"][0]["verdict"].is_null(),
        "no verdict was made"
    );
    // --resume completes the judgment without running the scenario again.
    let out = p.offline(
        &["--resume", "notes"],
        &[("HARSHJUDGE_JUDGE_CMD", judge.as_str())],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(p.run_dirs("notes"), std::slice::from_ref(&run));
    assert_eq!(json(&j)["steps"][0]["verdict"], "pass");
    assert_eq!(p.checkpoint()["scenarios"]["notes"]["judged"], "pass");

    // A kill during --rejudge itself: the execution and the statistics stay as
    // they were, and the next --rejudge completes the judgment.
    let before_result = std::fs::read(run.join("result.json")).unwrap();
    let before_meta = std::fs::read(p.hj().join("scenarios/notes/meta.yaml")).unwrap();
    let calls = p.calls();
    let mut cmd = p.command(
        &["--rejudge-run", run.file_name().unwrap().to_str().unwrap()],
        &[
            ("HARSHJUDGE_JUDGE_CMD", judge.as_str()),
            ("JUDGE_SLEEP", "60"),
            ("JUDGE_NOTES", "fail"),
        ],
    );
    cmd.env("JUDGED_NO_APP", p.root.join("app-started"));
    assert!(kill_while_judging(&p, cmd), "--rejudge-run calls the judge");
    assert_eq!(p.calls(), calls + 1);
    assert_eq!(
        std::fs::read(run.join("result.json")).unwrap(),
        before_result
    );
    assert_eq!(
        std::fs::read(p.hj().join("scenarios/notes/meta.yaml")).unwrap(),
        before_meta
    );
    all_files_parse(&p.hj());
    let out = p.offline(
        &["--rejudge-run", run.file_name().unwrap().to_str().unwrap()],
        &[
            ("HARSHJUDGE_JUDGE_CMD", judge.as_str()),
            ("JUDGE_NOTES", "fail"),
        ],
    );
    assert_eq!(out.code, 101, "{out:?}");
    assert_eq!(json(run.join("result.json"))["status"], "fail");
    assert_eq!(counts(&p.meta("notes")), (1, 0, 1));
    assert_eq!(p.run_dirs("notes"), [run]);
}
