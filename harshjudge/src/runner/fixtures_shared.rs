//! Invocation fixtures under cargo-nextest, where every scenario is a process
//! of its own: once per nextest run, as the `WebServer` is
//! (`server/nextest.rs`). The run's folder `harshjudge-fixture-{run}-{key}`
//! (`key`: the test binary and the fixture) holds a lock, the value as JSON
//! (`value.json`, [`crate::fixture::Share`]) or why its set-up failed
//! (`failed.txt`). The first process that asks sets it up under the lock and
//! writes it; the others read it. Its teardown runs when the run ends: the
//! first process starts the test binary again, detached
//! (`--harshjudge-fixture-teardown`), which waits for nextest's runner to
//! end, reads the value, calls the teardown and removes the folder. How the
//! teardown went (its time, what it printed, its failure) is written into the
//! fixture's entry of the `result.json` of the run that set it up: the
//! scenarios' own results stand, and nextest has reported them by then.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::Error;
use crate::fixture::{FixtureDef, FixtureValue, Share};
use crate::output::{self, Captured};
use crate::scenario::Scenario;
use harshjudge_browser::process::shared::RunFolder;
use harshjudge_store::store::{FixtureOutcome, RunId, Slug, Store};

/// The value, once set up.
const VALUE: &str = "value.json";
/// Why its set-up failed.
const FAILED: &str = "failed.txt";
/// The argument that makes a test binary the teardown of a fixture of a run.
pub(crate) const TEARDOWN_ARG: &str = "--harshjudge-fixture-teardown";

/// The value of `def` for nextest run `run`: read from the run's folder, or
/// set up here (the first process of the run that asks) and written there.
pub(super) async fn value(
    def: &'static FixtureDef,
    s: Scenario,
    share: Share,
    run: &str,
) -> Result<FixtureValue, Error> {
    let binary = harshjudge_browser::process::binary_name();
    let (key, run) = (def.key, run.to_string());
    let folder = tokio::task::spawn_blocking(move || {
        RunFolder::lock("fixture", &run, &[binary.as_bytes(), key.as_bytes()])
    })
    .await
    .map_err(|e| Error::msg(format!("fixture `{}`: {e}", def.name)))?
    .map_err(|e| {
        Error::msg(format!(
            "fixture `{}` cannot be shared by the run's processes: {} ({})",
            def.name,
            e.what(),
            e.into_io()
        ))
    })?;
    if let Some(why) = folder.read(FAILED) {
        return Err(Error::msg(String::from_utf8_lossy(&why)));
    }
    if let Some(bytes) = folder.read(VALUE) {
        return (share.decode)(&bytes);
    }
    let publish = |name: &str, bytes: &[u8]| {
        folder.publish(name, bytes).map_err(|e| {
            Error::msg(format!(
                "fixture `{}`: {} ({})",
                def.name,
                e.what(),
                e.into_io()
            ))
        })
    };
    let set_up_by = SetUpBy {
        store: s.shared.recorded_in(),
        slug: s.slug().to_string(),
        run: s.run_id().to_string(),
    };
    match super::fixture_calls::run_set_up(def, s).await {
        Ok(value) => {
            publish(VALUE, &(share.encode)(&value)?)?;
            if let Err(e) = spawn_teardown(folder.path(), def.key, &set_up_by) {
                eprintln!(
                    "harshjudge: fixture `{}` will not be torn down after the run: {e}",
                    def.name
                );
            }
            Ok(value)
        }
        Err(e) => {
            let why = format!("{} (set up once for the nextest run)", e.message());
            publish(FAILED, harshjudge_browser::secrets::mask(&why).as_bytes())?;
            Err(e)
        }
    }
}

/// The run whose scenario set a fixture up: its teardown is recorded there.
struct SetUpBy {
    store: Store,
    slug: String,
    run: String,
}

/// Starts this test binary again, detached, as the teardown of fixture `key`
/// once nextest's runner (`process::shared::nextest_runner`) ends.
fn spawn_teardown(dir: &Path, key: &str, by: &SetUpBy) -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let runner = harshjudge_browser::process::shared::nextest_runner()
        .ok_or_else(|| std::io::Error::other("nextest's runner is not known"))?;
    let started = harshjudge_browser::process::start_time(runner)
        .ok_or_else(|| std::io::Error::other("nextest's runner is not running"))?;
    std::process::Command::new(std::env::current_exe()?)
        .arg(TEARDOWN_ARG)
        .arg(dir)
        .arg(key)
        .arg(runner.to_string())
        .arg(started)
        .arg(by.store.dir())
        .arg(&by.slug)
        .arg(&by.run)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .map(drop)
}

/// `--harshjudge-fixture-teardown DIR KEY PID START HJ SLUG RUN`: waits for
/// process PID (nextest's runner, started at START) to end, then tears
/// fixture KEY's value in DIR down, records how it went in run RUN of
/// scenario SLUG in the store HJ, and removes DIR. The exit code: 0 when it
/// was torn down and recorded.
pub(crate) fn tear_down_after_run(args: &[String]) -> i32 {
    let [dir, key, pid, started, hj, slug, run] = args else {
        return 2;
    };
    let pid: u32 = pid.parse().unwrap_or(0);
    while harshjudge_browser::process::start_time(pid).as_deref() == Some(started.as_str()) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let dir = PathBuf::from(dir);
    let Some(def) = crate::fixture::all().into_iter().find(|d| d.key == key) else {
        eprintln!("harshjudge: no fixture `{key}` in this binary");
        let _ = std::fs::remove_dir_all(&dir);
        return 1;
    };
    let printed = std::sync::Arc::new(Captured::default());
    let began = std::time::Instant::now();
    let torn = tear_down(&dir, def, &printed);
    let record = Torn {
        took: began.elapsed(),
        printed: printed.take(),
        failure: torn.as_ref().err().map(Error::message),
    };
    let recorded = record_teardown(Store::new(hj), slug, run, def, record);
    let _ = std::fs::remove_dir_all(&dir);
    match (torn, recorded) {
        (Ok(()), Ok(())) => 0,
        (torn, recorded) => {
            for e in [torn.err(), recorded.err()].into_iter().flatten() {
                eprintln!("harshjudge: {}", e.message());
            }
            1
        }
    }
}

/// How a shared fixture's teardown went.
struct Torn {
    took: Duration,
    printed: Option<String>,
    failure: Option<String>,
}

/// Writes `torn` into the entry of fixture `def` in the `result.json` of
/// run `run` of scenario `slug`, under the run's lock.
fn record_teardown(
    store: Store,
    slug: &str,
    run: &str,
    def: &FixtureDef,
    torn: Torn,
) -> Result<(), Error> {
    let (slug, run) = (Slug::new(slug)?, RunId::new(run)?);
    let scenario = store.scenario(&slug);
    let dir = scenario.run(&run);
    let _lock = dir.lock()?;
    let Some(mut result) = dir.result()? else {
        return Ok(());
    };
    let Some(entry) = (result.fixtures.iter_mut()).find(|f| {
        f.name == def.name && f.scope == crate::fixture::FixtureScope::Invocation.as_str()
    }) else {
        return Ok(());
    };
    entry.torn_down_ms = Some(torn.took.as_millis() as u64);
    entry.teardown_output = torn.printed;
    if let Some(why) = torn.failure {
        entry.outcome = FixtureOutcome::TeardownFailed;
        entry.error = Some(why);
    }
    dir.write_result(&result)?;
    Ok(())
}

fn tear_down(
    dir: &Path,
    def: &'static FixtureDef,
    printed: &std::sync::Arc<Captured>,
) -> Result<(), Error> {
    let share = def
        .share
        .ok_or_else(|| Error::msg(format!("fixture `{}` is not shared", def.name)))?;
    let folder = RunFolder::lock_path(dir.to_path_buf())
        .map_err(|e| Error::msg(format!("{} ({})", e.what(), e.into_io())))?;
    let Some(bytes) = folder.read(VALUE) else {
        return Ok(());
    };
    let value = (share.decode)(&bytes)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::msg(format!("no runtime for the teardown: {e}")))?;
    match rt.block_on(output::scope(
        printed.clone(),
        super::fixture_calls::run_teardown(def, value, super::fixture_calls::TEARDOWN_LIMIT),
    )) {
        None => Ok(()),
        Some(e) => Err(e),
    }
}
