use std::path::Path;
use std::time::{Duration, SystemTime};

use super::super::{trace_js, write};

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Sets `path`'s modification time `secs` after a moment of 2030 (later
/// than the files the report writes now).
fn age(path: &Path, secs: u64) {
    let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_900_000_000 + secs);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

const TRACE: &str = r#"{"version":1,"step":"02","attempt":1,"mode":"on","startedAt":1000.0,"endedAt":2000.0,"pages":[],
 "entries":[
  {"n":1,"kind":"navigation","page":"p1","frame":null,"call":"page.goto(\"/a\")","at":"t.rs:1:1","start":1001.0,"end":1100.0,"outcome":{"status":"ok","log":[]},"console":[],"network":[],"snapshots":{"after":0}},
  {"n":2,"kind":"action","page":"p1","frame":null,"call":"page.locator(\"</script><b>\").click()","at":"t.rs:2:1","start":1200.0,"end":1900.0,"outcome":{"status":"failed","kind":"timeout","error":"timed out","log":["waiting"]},"console":[],"network":[],"snapshots":{"before":1}}],
 "between":{"console":[],"network":[]},"limits":[],"errors":[]}"#;

const DOM: &str = r#"{"version":1,"snapshots":[
 {"entry":1,"moment":"after","page":"p1","frame":0,"parentFrame":null,"frameIndex":null,"time":1100.0,"html":["HTML",{},["BODY",{},"one"]]},
 {"entry":2,"moment":"before","page":"p1","frame":0,"parentFrame":null,"frameIndex":null,"time":1300.0,"html":["HTML",{},["BODY",{},"two"]]}]}"#;

/// A run `r1` of scenario `shop` whose step 02 has a trace; step 01 none.
fn project(dir: &Path) -> std::path::PathBuf {
    let run = dir.join("scenarios/shop/runs/r1");
    put(
        &dir.join("scenarios/shop/meta.yaml"),
        "title: Shop\nslug: shop\nstarred: false\ntags: []\nestimatedDuration: 30\nsteps: []\ntotalRuns: 1\npassCount: 0\nfailCount: 1\nlastRun: '2026-01-11T00:00:00.000Z'\nlastResult: fail\navgDuration: 1500\n",
    );
    put(
        &run.join("result.json"),
        r#"{"runId":"r1","scenarioSlug":"shop","status":"fail","startedAt":"2026-01-11T00:00:00.000Z","completedAt":"2026-01-11T00:00:02.000Z","duration":2000,"steps":[{"id":"01","status":"pass","duration":500,"error":null,"evidenceFiles":["before.png"]},{"id":"02","status":"fail","duration":1500,"error":"timed out","evidenceFiles":["trace.json","trace-dom.json"]}],"failedStep":"02","errorMessage":"timed out"}"#,
    );
    put(&run.join("step-01/evidence/before.png"), "PNG");
    put(&run.join("step-02/evidence/trace.json"), TRACE);
    put(&run.join("step-02/evidence/trace-dom.json"), DOM);
    run
}

fn script_of(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("report/data/traces/shop/r1/02.js")).unwrap()
}

/// The data `script_of(dir)` hands `window.__hj.trace`.
fn script_data(dir: &Path) -> serde_json::Value {
    let js = script_of(dir);
    let json = js
        .strip_prefix("window.__hj.trace(")
        .and_then(|j| j.strip_suffix(");\n"))
        .unwrap();
    serde_json::from_str(json).unwrap()
}

#[test]
fn a_traced_step_gets_its_own_script_and_the_run_its_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    project(dir);
    let stats = write(dir).unwrap();
    assert_eq!(stats.trace_scripts_written, 1);
    assert!(!dir.join("report/data/traces/shop/r1/01.js").exists());
    let v = script_data(dir);
    assert_eq!(
        (v["slug"].as_str(), v["runId"].as_str(), v["step"].as_str()),
        (Some("shop"), Some("r1"), Some("02"))
    );
    assert_eq!(v["trace"]["entries"][1]["outcome"]["status"], "failed");
    assert_eq!(v["dom"]["snapshots"][1]["html"][2][2], "two");
    assert_eq!(v["notices"], serde_json::json!([]));
    // Data, never markup: the call's `</script>` cannot close a script.
    let js = script_of(dir);
    assert!(!js.contains("</script"), "{js}");

    // The run's script: the counts, not the trace.
    let run = std::fs::read_to_string(dir.join("report/data/runs/shop/r1.js")).unwrap();
    let json = run
        .strip_prefix("window.__hj.run(")
        .and_then(|j| j.strip_suffix(");\n"))
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(v["steps"][0]["trace"], serde_json::Value::Null);
    let t = &v["steps"][1]["trace"];
    assert_eq!(
        (
            t["entries"].as_u64(),
            t["failed"].as_u64(),
            t["snapshots"].as_bool()
        ),
        (Some(2), Some(1), Some(true))
    );
    assert_eq!(t["evidence"], "../scenarios/shop/runs/r1/step-02/evidence/");
    assert!(!run.contains("page.goto"), "{run}");

    // The dashboard's: the same script; none for a step without a trace.
    assert_eq!(
        trace_js(dir, "shop", "r1", "02").unwrap().as_deref(),
        Some(js.as_str())
    );
    assert_eq!(trace_js(dir, "shop", "r1", "01").unwrap(), None);
    assert_eq!(trace_js(dir, "shop", "nope", "02").unwrap(), None);
    assert!(trace_js(dir, "../x", "r1", "02").is_err());
}

#[test]
fn a_trace_script_is_written_again_only_when_its_files_are_newer() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let run = project(dir);
    for f in [
        "result.json",
        "step-02/evidence/trace.json",
        "step-02/evidence/trace-dom.json",
    ] {
        age(&run.join(f), 0);
    }
    assert_eq!(write(dir).unwrap().trace_scripts_written, 1);
    let script = dir.join("report/data/traces/shop/r1/02.js");
    age(&script, 10);
    // The run changed (its result), the trace did not.
    age(&run.join("result.json"), 20);
    let stats = write(dir).unwrap();
    assert_eq!(
        (stats.run_pages_written, stats.trace_scripts_written),
        (1, 0)
    );
    // Its snapshots changed.
    age(&run.join("result.json"), 40);
    put(
        &run.join("step-02/evidence/trace-dom.json"),
        &DOM.replace("two", "deux"),
    );
    age(&run.join("step-02/evidence/trace-dom.json"), 30);
    assert_eq!(write(dir).unwrap().trace_scripts_written, 1);
    assert!(script_of(dir).contains("deux"));
}

#[test]
fn snapshots_over_the_limit_are_left_out_with_a_notice() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let run = project(dir);
    let big = format!(
        r#"{{"version":1,"snapshots":[{{"entry":2,"moment":"before","page":"p1","frame":0,"html":["HTML",{{}},"{}"]}}]}}"#,
        "x".repeat(9 << 20)
    );
    put(&run.join("step-02/evidence/trace-dom.json"), &big);
    write(dir).unwrap();
    let js = script_of(dir);
    assert!(js.len() < 64 * 1024, "{} bytes", js.len());
    assert!(
        js.contains("\"dom\":null")
            && js.contains("trace-dom.json (9.0 MiB) is left out")
            && js.contains("at most 8 MiB"),
        "{js}"
    );
    assert!(js.contains("page.goto"), "the entries stay");
    // A trace.json that is not JSON: a notice, no trace.
    put(&run.join("step-02/evidence/trace.json"), "{not json");
    std::fs::remove_file(dir.join("report/data/runs/shop/r1.js")).unwrap();
    std::fs::remove_file(dir.join("report/data/traces/shop/r1/02.js")).unwrap();
    write(dir).unwrap();
    let js = script_of(dir);
    assert!(
        js.contains("\"trace\":null") && js.contains("trace.json is not JSON"),
        "{js}"
    );
}

#[test]
fn trace_scripts_of_runs_out_of_the_history_are_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    project(dir);
    let old = dir.join("report/data/traces/shop/gone/02.js");
    put(&old, "window.__hj.trace({});");
    write(dir).unwrap();
    assert!(!old.exists());
    assert!(dir.join("report/data/traces/shop/r1/02.js").is_file());
}

/// The resources `trace-dom.json` names are inlined as `data:` URLs of
/// their type (a sheet named without one is CSS, as the first files wrote
/// it), an image among them; one missing on disk is named in a notice.
#[test]
fn a_steps_images_and_sheets_are_inlined_as_data_urls_of_their_type() {
    use base64::Engine as _;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let run = project(dir);
    let (png, css) = (b"\x89PNG fake".as_slice(), b"p { color: red }".as_slice());
    let sha = |b: &[u8]| harshjudge_browser::trace::ContentHash::of(b).to_string();
    let (png_sha, css_sha, gone) = (sha(png), sha(css), sha(b"gone"));
    std::fs::create_dir_all(run.join("trace-resources")).unwrap();
    std::fs::write(run.join(format!("trace-resources/{png_sha}.png")), png).unwrap();
    std::fs::write(run.join(format!("trace-resources/{css_sha}.css")), css).unwrap();
    let dom = DOM.trim_end_matches('}').to_string()
        + &format!(
            r#","resources":{{"{png_sha}":{{"type":"image/png","bytes":9,"file":"x"}},"{css_sha}":{{"bytes":16,"file":"y"}},"{gone}":{{"type":"image/gif","bytes":4,"file":"z"}}}},"images":{{"http://a/logo.png":"{png_sha}","http://a/gone.gif":null}}}}"#
        );
    put(&run.join("step-02/evidence/trace-dom.json"), &dom);
    write(dir).unwrap();
    let v = script_data(dir);
    let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
    assert_eq!(
        v["resources"][&png_sha],
        format!("data:image/png;base64,{}", b64(png))
    );
    assert_eq!(
        v["resources"][&css_sha],
        format!("data:text/css;base64,{}", b64(css))
    );
    assert!(v["resources"].get(&gone).is_none());
    assert_eq!(
        v["dom"]["images"]["http://a/gone.gif"],
        serde_json::Value::Null
    );
    let notices = v["notices"].to_string();
    assert!(
        notices.contains("1 resources") && notices.contains(&gone[..12]),
        "{notices}"
    );
}
