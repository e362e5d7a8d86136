//! Runs that survive interruptions and flakiness, with real runs of
//! tests/fixtures/resilience.rs: retries and flaky status everywhere,
//! `--fail-on-flaky`, `--last-failed`, SIGKILL at many points then `--resume`,
//! Ctrl-C and SIGTERM with a browser open, and `replay.sh`.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::{alive, all_files_parse, descendants, json, run_suite, runs, test_binary, yaml};

const SUITE: &str = "resilience_suite";

fn binary(hj: &Path, envs: &[(&str, &str)], args: &[&str]) -> Command {
    let mut cmd = Command::new(test_binary(SUITE));
    cmd.current_dir(support::workspace())
        .args(args)
        .env("HARSHJUDGE_DIR", hj)
        .env_remove("HARSHJUDGE_BASE_URL")
        .env_remove("NEXTEST_RUN_ID")
        .env_remove("NEXTEST")
        .env_remove("HARSHJUDGE_RETRIES")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in envs {
        cmd.env(k, v);
    }
    cmd
}

fn output(child: Child) -> support::Run {
    support::Run::from(child.wait_with_output().unwrap())
}

/// The run folders of a scenario with their result.json.
fn results(hj: &Path, slug: &str) -> Vec<(PathBuf, serde_json::Value)> {
    runs(hj, slug)
        .into_iter()
        .filter(|r| r.join("result.json").exists())
        .map(|r| {
            let v = json(r.join("result.json"));
            (r, v)
        })
        .collect()
}

#[test]
fn a_flaky_scenario_is_reported_flaky_everywhere() {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    let state = tmp.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let state_s = state.display().to_string();
    let envs = [("FIXTURE_STATE", state_s.as_str())];

    let r = run_suite(SUITE, &hj, &["flaky::"], &envs);
    assert_eq!(r.code, 0, "a flaky scenario passes by default: {r:?}");
    let all = results(&hj, "flaky");
    assert_eq!(all.len(), 2, "one run folder per attempt");
    let (first, second) = (&all[0].1, &all[1].1);
    assert_eq!(
        (first["status"].as_str(), first["attempt"].as_u64()),
        (Some("fail"), Some(1))
    );
    assert_eq!(
        (second["status"].as_str(), second["attempt"].as_u64()),
        (Some("pass"), Some(2))
    );
    assert_eq!(second["flaky"], true);
    assert_eq!(first["firstRunId"], first["runId"]);
    assert_eq!(second["firstRunId"], first["runId"], "attempts are linked");
    // Terminal summary.
    assert!(r.stdout.contains("flaky flaky"), "{r:?}");
    assert!(r.stdout.contains("attempt 1 of 3: retried"), "{r:?}");
    assert!(r.stdout.contains("attempt 2 of 3: flaky"), "{r:?}");
    // meta.yaml statistics.
    let meta = yaml(hj.join("scenarios/flaky/meta.yaml"));
    assert_eq!(meta["flakyCount"].as_u64(), Some(1));
    assert_eq!(
        (meta["totalRuns"].as_u64(), meta["failCount"].as_u64()),
        (Some(2), Some(1))
    );
    // JUnit: the step that failed once carries a flakyFailure.
    let xml = std::fs::read_to_string(hj.join("report/junit.xml")).unwrap();
    let case = xml
        .split("<testcase ")
        .find(|c| c.contains("name=\"02 Sometimes fails\""))
        .expect("the step's testcase");
    assert!(
        case.contains("<flakyFailure message=\"the first attempt fails (attempt 1)\""),
        "{case}"
    );
    assert!(!case.contains("<failure"), "{case}");
    assert!(
        xml.contains("<property name=\"flaky.flaky\" value=\"true\"/>"),
        "{xml}"
    );
    // The HTML report's data.
    let overview = std::fs::read_to_string(hj.join("report/data/overview.js")).unwrap();
    assert!(overview.contains("\"f\":true") && overview.contains("\"flaky\":true"));

    // replay.sh reruns exactly that scenario, recording a new run.
    let replay = all[1].0.join("replay.sh");
    // As a person would run it, not as a process of this test's nextest run.
    let out = support::rlibs::fresh_env(&mut Command::new(&replay))
        .env("FIXTURE_STATE", &state)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("running 1 test") && stdout.contains("flaky::02_sometimes_fails ... ok"),
        "the exact filter selects the scenario's last step (the steps before it run too): {stdout}"
    );
    let after = results(&hj, "flaky");
    assert_eq!(after.len(), 3, "a new run of the same scenario");
    assert_eq!(after[2].1["status"], "pass");
    assert_eq!(
        after[2].1["steps"].as_array().unwrap().len(),
        2,
        "every step ran"
    );

    // `harshjudge-mcp replay <runId>` does the same and names the new run.
    let out = support::rlibs::fresh_env(&mut Command::new(support::mcp_binary()))
        .args(["--cwd", tmp.path().to_str().unwrap(), "replay"])
        .arg(all[1].0.file_name().unwrap())
        .env("FIXTURE_STATE", &state)
        .env("HARSHJUDGE_LOG", "warn")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replayed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(replayed["status"], "pass", "{replayed}");
    assert_eq!(replayed["scenarioSlug"], "flaky");
    let newest = results(&hj, "flaky").pop().unwrap();
    assert_eq!(replayed["runId"], newest.1["runId"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("flaky::02_sometimes_fails ... ok"),
        "the test binary's output goes to stderr"
    );

    // --fail-on-flaky: flaky fails the suite, saying why.
    std::fs::remove_file(state.join("flaky-attempts")).unwrap();
    let r = run_suite(SUITE, &hj, &["flaky::", "--fail-on-flaky"], &envs);
    assert_eq!(r.code, 101, "{r:?}");
    assert!(
        r.stdout.contains("flaky: failed on attempt 1") && r.stdout.contains("--fail-on-flaky"),
        "{r:?}"
    );

    // --last-failed reruns only that scenario; it passes at once now.
    let r = run_suite(SUITE, &hj, &["--last-failed"], &envs);
    assert_eq!(r.code, 0, "{r:?}");
    assert!(
        r.stderr
            .contains("--last-failed: running 1 scenario(s) that failed last time: flaky"),
        "{r:?}"
    );
    assert!(r.stdout.contains("running 2 tests"), "{r:?}");

    // A scenario that fails every attempt: rerunFailure for the earlier ones.
    let r = run_suite(SUITE, &hj, &["always_fails::"], &envs);
    assert_eq!(r.code, 101, "{r:?}");
    assert!(r.stdout.contains("all 2 attempts failed"), "{r:?}");
    let xml = std::fs::read_to_string(hj.join("report/junit.xml")).unwrap();
    assert!(
        xml.contains("<rerunFailure message=\"this never works\"") && xml.contains("<failure "),
        "{xml}"
    );
    all_files_parse(&hj);
}

/// Scenario slugs of the slow fixtures.
const SLOW: [&str; 4] = ["slow-a", "slow-b", "slow-c", "slow-d"];

#[test]
fn sigkill_at_any_point_then_resume_completes_the_suite() {
    let tmp = tempfile::tempdir().unwrap();
    // Each slow scenario takes 3 x 120 ms; the suite about 1.5 s with one
    // thread, so every kill point below falls inside it.
    let envs = [("FIXTURE_STEP_MS", "120")];
    let mut resumed_some = false;
    let mut saw_running = false;
    for (i, delay) in [150u64, 420, 700, 980, 1260].into_iter().enumerate() {
        let root = tmp.path().join(format!("p{i}"));
        let hj = root.join(".harshJudge");
        let mut child = binary(&hj, &envs, &["slow_", "--test-threads", "1"])
            .spawn()
            .unwrap();
        // A kill point counts from the suite's start (its checkpoint written),
        // not from the spawn: on a loaded machine the process alone can take
        // longer than 150 ms to begin, and a kill before its checkpoint is
        // another case than the one each point means to make.
        let checkpoint_path = hj.join(".suite").join(format!("{SUITE}.json"));
        let spawned = Instant::now();
        while !checkpoint_path.exists() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the suite ended ({status}) before it wrote its checkpoint");
            }
            assert!(
                spawned.elapsed() < Duration::from_secs(60),
                "the suite did not write its checkpoint within 60 s"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        std::thread::sleep(Duration::from_millis(delay));
        // Our own child.
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(child.id() as i32).expect("a pid"),
            rustix::process::Signal::KILL,
        )
        .unwrap();
        let killed = output(child);
        assert_ne!(killed.code, 0, "killed at {delay} ms: {killed:?}");

        // Every file parses; statistics never count a run that did not end
        // (a kill between a run's result and its count is repaired at the next start).
        all_files_parse(&hj);
        for slug in SLOW {
            let done = results(&hj, slug)
                .iter()
                .filter(|(_, v)| v["status"] != "running")
                .count() as u64;
            let meta = hj.join(format!("scenarios/{slug}/meta.yaml"));
            if meta.exists() {
                let total = yaml(&meta)["totalRuns"].as_u64().unwrap_or(0);
                assert!(
                    total == done || total + 1 == done,
                    "{slug} after a kill at {delay} ms: {total} counted, {done} ended"
                );
            }
        }
        let checkpoint = json(&checkpoint_path);
        assert!(checkpoint["finishedAt"].is_null(), "{checkpoint}");
        let running: Vec<String> = SLOW
            .iter()
            .flat_map(|s| results(&hj, s))
            .filter(|(_, v)| v["status"] == "running")
            .map(|(_, v)| v["runId"].as_str().unwrap().to_string())
            .collect();

        // Before anything restarts, an agent already learns that those runs' process is gone.
        if let Some(id) = running.first() {
            saw_running = true;
            let ctx = harshjudge_mcp::Context::new(&root).unwrap();
            let out =
                harshjudge_mcp::call(&ctx, "getRunState", Some(serde_json::json!({"runId": id})));
            assert!(!out.is_error(), "{}", out.value);
            assert_eq!(out.value["interrupted"], true, "{}", out.value);
            assert!(
                out.value["hint"].as_str().unwrap().contains("is gone"),
                "{}",
                out.value
            );
        }

        // --resume: interrupted runs are marked at start; only unfinished scenarios run.
        let r = output(
            binary(
                &hj,
                &[("FIXTURE_STEP_MS", "10"), ("HARSHJUDGE_VERBOSE", "1")],
                &["slow_", "--test-threads", "1", "--resume"],
            )
            .spawn()
            .unwrap(),
        );
        assert_eq!(r.code, 0, "resume after a kill at {delay} ms: {r:?}");
        for id in &running {
            assert!(
                r.stderr
                    .contains(&format!("{id} was left running by a process that is gone")),
                "{id}: {r:?}"
            );
        }
        let finished: Vec<&str> = SLOW
            .iter()
            .copied()
            .filter(|s| checkpoint["scenarios"][*s]["state"] == "pass")
            .collect();
        for slug in SLOW {
            let all = results(&hj, slug);
            assert!(
                all.iter().all(|(_, v)| v["status"] != "running"),
                "{slug}: no run stays running"
            );
            let passes = all.iter().filter(|(_, v)| v["status"] == "pass").count();
            assert_eq!(passes, 1, "{slug}: exactly one passing run after resume");
            for (_, v) in all.iter().filter(|(_, v)| v["interrupted"] == true) {
                assert_eq!(v["status"], "fail");
                assert!(
                    v["errorMessage"].as_str().unwrap().contains("is gone"),
                    "{v}"
                );
            }
            let meta = yaml(hj.join(format!("scenarios/{slug}/meta.yaml")));
            let completed = all
                .iter()
                .filter(|(_, v)| v["status"] != "running" && v["interrupted"] != true)
                .count() as u64;
            assert_eq!(completed, 1, "{slug}");
            assert_eq!(
                meta["totalRuns"].as_u64(),
                Some(completed),
                "{slug}: statistics count the completed runs, not the interrupted ones"
            );
        }
        for slug in &finished {
            assert!(
                r.stdout.contains(&format!("{slug}  ")) && r.stdout.contains("reused by --resume"),
                "{slug} is reused: {r:?}"
            );
            resumed_some = true;
        }
        let after = json(&checkpoint_path);
        assert!(after["finishedAt"].is_string());
        for slug in SLOW {
            assert_eq!(after["scenarios"][slug]["state"], "pass", "{after}");
        }
        assert!(
            !hj.join(".running").exists()
                || std::fs::read_dir(hj.join(".running"))
                    .unwrap()
                    .next()
                    .is_none(),
            "no run is left marked running"
        );
        all_files_parse(&hj);
    }
    assert!(
        resumed_some,
        "at least one kill happened after a scenario had finished"
    );
    assert!(saw_running, "at least one kill happened during a run");
}

fn stop_with(signal: rustix::process::Signal, name: &str, code: i32) {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    let child = binary(&hj, &[], &["browser_wait"]).spawn().unwrap();
    let pid = child.id();
    // Wait until step 02 runs (the browser is open).
    let start = Instant::now();
    let step_running = || {
        runs(&hj, "browser-wait").first().is_some_and(|r| {
            std::fs::read_to_string(r.join("skill-state.yaml"))
                .is_ok_and(|s| s.contains("currentStep: 2"))
        })
    };
    while !step_running() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "step 02 never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let family = descendants(pid);
    assert!(
        family.len() >= 3,
        "the browser runs under the harness: {family:?}"
    );
    // Our own child.
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(pid as i32).expect("a pid"),
        signal,
    )
    .unwrap();
    let r = output(child);
    assert_eq!(r.code, code, "{name}: {r:?}");
    assert!(r.stderr.contains(&format!("harshjudge: {name}")), "{r:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while family.iter().any(|p| alive(*p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<u32> = family.iter().copied().filter(|p| alive(*p)).collect();
    assert!(left.is_empty(), "{name}: processes left running: {left:?}");
    let run = &runs(&hj, "browser-wait")[0];
    let result = json(run.join("result.json"));
    assert_eq!(
        (result["status"].as_str(), result["interrupted"].as_bool()),
        (Some("fail"), Some(true)),
        "{result}"
    );
    assert!(
        result["errorMessage"]
            .as_str()
            .unwrap()
            .contains(&format!("interrupted by {name}")),
        "{result}"
    );
    assert_eq!(result["failedStep"], "02");
    assert_eq!(result["steps"][0]["status"], "pass");
    let state = yaml(run.join("skill-state.yaml"));
    assert_eq!(
        state["currentStep"].as_u64(),
        Some(2),
        "skill-state keeps where it stopped"
    );
    // An agent asking where the run stands (MCP getRunState) learns it was
    // interrupted and where to pick up.
    let ctx = harshjudge_mcp::Context::new(tmp.path()).unwrap();
    let out = harshjudge_mcp::call(
        &ctx,
        "getRunState",
        Some(serde_json::json!({"runId": result["runId"]})),
    );
    assert!(!out.is_error(), "{}", out.value);
    let st = out.value;
    assert_eq!(
        (st["interrupted"].as_bool(), st["resumable"].as_bool()),
        (Some(true), Some(false)),
        "{st}"
    );
    assert_eq!(st["resumeFrom"]["id"], "02", "{st}");
    assert!(
        st["hint"]
            .as_str()
            .unwrap()
            .contains("pick up at step 02 \"Wait\"; steps 01 passed here"),
        "{st}"
    );
    let checkpoint = json(hj.join(".suite").join(format!("{SUITE}.json")));
    assert_eq!(checkpoint["interrupted"], true);
    assert_eq!(
        checkpoint["scenarios"]["browser-wait"]["state"],
        "interrupted"
    );
    all_files_parse(&hj);
}

#[test]
fn ctrl_c_stops_cleanly() {
    stop_with(rustix::process::Signal::INT, "SIGINT", 130);
}

#[test]
fn sigterm_stops_cleanly() {
    stop_with(rustix::process::Signal::TERM, "SIGTERM", 143);
}

/// What a SIGKILL may have left half-written under `hj`: run folders without
/// `result.json`/`skill-state.yaml`, evidence files without their sidecar,
/// sidecars without their file, and temporary files.
#[derive(Debug, Default)]
struct HalfWritten {
    runs_without_result: Vec<PathBuf>,
    evidence_without_sidecar: Vec<PathBuf>,
    sidecars_alone: Vec<PathBuf>,
    temporary: Vec<PathBuf>,
}

fn half_written(hj: &Path) -> HalfWritten {
    let mut found = HalfWritten::default();
    fn walk(dir: &Path, found: &mut HalfWritten) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".tmp") {
                found.temporary.push(p);
            } else if e.file_type().unwrap().is_dir() {
                walk(&p, found);
            }
        }
    }
    walk(hj, &mut found);
    let Ok(scenarios) = std::fs::read_dir(hj.join("scenarios")) else {
        return found;
    };
    for sc in scenarios.flatten() {
        let slug = sc.file_name().to_string_lossy().into_owned();
        for run in runs(hj, &slug) {
            if !run.join("result.json").is_file() || !run.join("skill-state.yaml").is_file() {
                found.runs_without_result.push(run.clone());
            }
            for step in std::fs::read_dir(&run).unwrap().flatten() {
                let ev = step.path().join("evidence");
                if !step.file_name().to_string_lossy().starts_with("step-") || !ev.is_dir() {
                    continue;
                }
                let names: Vec<String> = std::fs::read_dir(&ev)
                    .unwrap()
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| !n.starts_with('.'))
                    .collect();
                for n in &names {
                    if let Some(stem) = n.strip_suffix(".meta.json") {
                        if !names
                            .iter()
                            .any(|f| f != n && f.rsplit_once('.').is_some_and(|(s, _)| s == stem))
                        {
                            found.sidecars_alone.push(ev.join(n));
                        }
                    } else {
                        let stem = n.rsplit_once('.').map_or(n.as_str(), |(s, _)| s);
                        if !names.contains(&format!("{stem}.meta.json")) {
                            found.evidence_without_sidecar.push(ev.join(n));
                        }
                    }
                }
            }
        }
    }
    found
}

/// Issue 11 points 8 and 9: SIGKILL at many points while runs start and
/// evidence is written. Right after each kill, no run folder lacks its
/// `result.json` and no evidence file lacks its sidecar; after the next
/// start, no temporary file, lone sidecar or running run is left.
#[test]
fn sigkill_storm_leaves_nothing_half_written() {
    const KILLS: u64 = 40;
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    let envs = [("FIXTURE_STEP_MS", "0")];
    // Full runs first: how long the suite takes, to spread the kills over it.
    // The quickest of three: a first run slowed by a busy machine would spread
    // the kills past the end of the runs that follow.
    test_binary(SUITE);
    let mut span = u64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        let r = output(
            binary(&hj, &envs, &["slow_", "--test-threads", "4"])
                .spawn()
                .unwrap(),
        );
        assert_eq!(r.code, 0, "{r:?}");
        span = span.min(t.elapsed().as_micros() as u64);
    }
    eprintln!("the suite takes {} ms", span / 1000);
    let mut temporary_after_kills = 0;
    let mut killed_running = 0;
    let mut ended_first = Vec::new();
    while killed_running < KILLS {
        // Spread over the whole run, from the start-up to its end. A run that
        // ends before its kill point (the runs above were slowed by a busy
        // machine, these are not) shows the suite quicker than measured: the
        // point is taken again, spread over that run's time.
        let i = killed_running;
        assert!(
            ended_first.len() as u64 <= KILLS,
            "more runs ended before their kill point than were killed ({} ended first,              taking {ended_first:?} µs; {killed_running} killed): the kill points do not fall in the run",
            ended_first.len()
        );
        let at = Duration::from_micros(span * (i * 37 % KILLS + 1) / (KILLS + 1));
        let mut child = binary(&hj, &envs, &["slow_", "--test-threads", "4"])
            .spawn()
            .unwrap();
        let spawned = Instant::now();
        let ended = loop {
            if child.try_wait().unwrap().is_some() {
                break Some(spawned.elapsed());
            }
            let now = spawned.elapsed();
            if now >= at {
                break None;
            }
            std::thread::sleep((at - now).min(Duration::from_millis(1)));
        };
        if let Some(took) = ended {
            let took = took.as_micros() as u64;
            ended_first.push(took);
            span = span.min(took);
            continue;
        }
        // Our own child, not yet waited for: its pid is still its own.
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(child.id() as i32).expect("a pid"),
            rustix::process::Signal::KILL,
        )
        .unwrap();
        let killed = output(child);
        match killed.code {
            // It ended between the last look and the kill.
            0 => {
                ended_first.push(span);
                continue;
            }
            // The kill's: no exit code.
            -1 => {}
            _ => panic!("a run failed on its own, not by the kill: {killed:?}"),
        }
        killed_running += 1;
        let found = half_written(&hj);
        assert!(
            found.runs_without_result.is_empty() && found.evidence_without_sidecar.is_empty(),
            "after kill {i}: {found:#?}"
        );
        temporary_after_kills += found.temporary.len();
        all_files_parse(&hj);
    }
    eprintln!(
        "{killed_running} kills hit a running suite, {} runs ended before their kill point; \
         {temporary_after_kills} temporary files seen right after the kills",
        ended_first.len()
    );
    // The next start repairs what the kills left.
    let r = output(
        binary(&hj, &envs, &["slow_", "--test-threads", "4"])
            .spawn()
            .unwrap(),
    );
    assert_eq!(r.code, 0, "{r:?}");
    let found = half_written(&hj);
    assert!(
        found.temporary.is_empty()
            && found.sidecars_alone.is_empty()
            && found.runs_without_result.is_empty()
            && found.evidence_without_sidecar.is_empty(),
        "after the next start: {found:#?}"
    );
    for slug in SLOW {
        for (run, v) in results(&hj, slug) {
            assert_ne!(v["status"], "running", "{}", run.display());
        }
    }
    all_files_parse(&hj);
}

/// Issue 11 point 21: after a harness run, each scenario that ran keeps its
/// newest HARSHJUDGE_KEEP_RUNS runs; its statistics still count every run.
#[test]
fn a_harness_run_keeps_the_newest_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let hj = tmp.path().join(".harshJudge");
    let keep2 = [("FIXTURE_STEP_MS", "0"), ("HARSHJUDGE_KEEP_RUNS", "2")];
    for _ in 0..4 {
        let r = output(binary(&hj, &keep2, &["slow_a"]).spawn().unwrap());
        assert_eq!(r.code, 0, "{r:?}");
    }
    assert_eq!(runs(&hj, "slow-a").len(), 2, "the newest 2 runs are kept");
    let meta = yaml(hj.join("scenarios/slow-a/meta.yaml"));
    assert_eq!(
        (meta["totalRuns"].as_u64(), meta["passCount"].as_u64()),
        (Some(4), Some(4)),
        "statistics count every run"
    );
    // The default keeps 20.
    let r = output(
        binary(&hj, &[("FIXTURE_STEP_MS", "0")], &["slow_a"])
            .spawn()
            .unwrap(),
    );
    assert_eq!(r.code, 0, "{r:?}");
    assert_eq!(runs(&hj, "slow-a").len(), 3);
    // A bad value is a usage error naming the setting.
    let r = output(
        binary(&hj, &[("HARSHJUDGE_KEEP_RUNS", "0")], &["slow_a"])
            .spawn()
            .unwrap(),
    );
    assert_eq!(r.code, 2, "{r:?}");
    assert!(r.stderr.contains("HARSHJUDGE_KEEP_RUNS"), "{r:?}");
    all_files_parse(&hj);
}
