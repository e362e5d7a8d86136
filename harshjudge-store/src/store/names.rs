//! Every folder and file name of the `.harshJudge/` layout, in one place.
//! They are private to `store`: code outside reaches a file through a typed
//! handle ([`ScenarioDir`](super::ScenarioDir), [`RunDir`](super::RunDir),
//! [`StepDir`](super::StepDir)) or a path method of [`Store`](super::Store),
//! never by joining a name (which the compiler refuses, and the
//! test below looks for as a string).

/// The store's folder in a project.
pub(super) const STORE_DIR: &str = ".harshJudge";
/// `config.yaml`.
pub(super) const CONFIG: &str = "config.yaml";
/// `prd.md`.
pub(super) const PRD: &str = "prd.md";
/// `scenarios/`.
pub(super) const SCENARIOS: &str = "scenarios";
/// `scenarios/{slug}/meta.yaml`.
pub(super) const META: &str = "meta.yaml";
/// `scenarios/{slug}/scenario.md` (v1).
pub(super) const SCENARIO_MD: &str = "scenario.md";
/// `scenarios/{slug}/steps/`.
pub(super) const STEPS: &str = "steps";
/// `scenarios/{slug}/runs/`.
pub(super) const RUNS: &str = "runs";
/// `runs/{runId}/result.json` (and `judge/result.json`).
pub(super) const RESULT: &str = "result.json";
/// `runs/{runId}/skill-state.yaml`.
pub(super) const SKILL_STATE: &str = "skill-state.yaml";
/// `runs/{runId}/replay.sh` (and `judge/replay.sh`).
pub(super) const REPLAY: &str = "replay.sh";
/// `runs/{runId}/video.webm`: the run's video (`HARSHJUDGE_VIDEO`), not a step's evidence.
pub(super) const VIDEO: &str = "video.webm";
/// `runs/{runId}/video.vtt`: its cues.
pub(super) const VIDEO_CUES: &str = "video.vtt";
/// `runs/{runId}/trace-resources/`: the stylesheets (and later images) the
/// run's DOM snapshots need, `{sha256}.{ext}`, each a hard link to its blob.
pub(super) use harshjudge_browser::trace::TRACE_RESOURCES;
/// `runs/{runId}/judge/`.
pub(super) const JUDGE: &str = "judge";
/// `runs/{runId}/evidence/` (flat, v1) and `step-{NN}/evidence/`.
pub(super) const EVIDENCE: &str = "evidence";
/// The prefix of a step folder, `step-{NN}`.
pub(super) const STEP_PREFIX: &str = "step-";
/// The suffix of an evidence file's sidecar.
pub(super) const SIDECAR_SUFFIX: &str = ".meta.json";
/// `scenarios/{slug}/.meta.yaml.lock`, held while `meta.yaml` is rewritten.
pub(super) const META_LOCK: &str = ".meta.yaml.lock";
/// `runs/{runId}/.run.lock`, held while a run is written.
pub(super) const RUN_LOCK: &str = ".run.lock";
/// `.running/`: the runs in progress, one marker each.
pub(super) const RUNNING: &str = ".running";
/// `.suite/`: suite checkpoints and invocation records.
pub(super) const SUITE: &str = ".suite";
/// `.suite/.publish.lock`.
pub(super) const PUBLISH_LOCK: &str = ".publish.lock";
/// `report/`.
pub(super) const REPORT: &str = "report";
/// `report/junit.xml`.
pub(super) const JUNIT: &str = "junit.xml";
/// `report/index.html`.
pub(super) const REPORT_INDEX: &str = "index.html";
/// `report/data/`.
pub(super) const REPORT_DATA: &str = "data";
/// `report/data/overview.js`.
pub(super) const REPORT_OVERVIEW: &str = "overview.js";
/// `knowledge/`.
pub(super) const KNOWLEDGE: &str = "knowledge";
/// `sequences/`.
pub(super) const SEQUENCES: &str = "sequences";
/// `exports/`.
pub(super) const EXPORTS: &str = "exports";
/// `.dashboard-state.json`.
pub(super) const DASHBOARD_STATE: &str = ".dashboard-state.json";
/// `.dashboard.log`.
pub(super) const DASHBOARD_LOG: &str = ".dashboard.log";
/// `.blobs/`.
pub(super) const BLOBS: &str = ".blobs";
/// `.auth/`: saved storage states (logins), mode 0600, ignored by git.
pub(super) const AUTH: &str = ".auth";
/// `.gitignore` (of the store, and of `.auth/`).
pub(super) const GITIGNORE_FILE: &str = ".gitignore";

#[cfg(test)]
mod tests {
    //! The names above are private to `store`, so the compiler refuses
    //! `store::names::RESULT` anywhere else: a file of the layout is reached
    //! through a handle or a path method of the store. What the compiler
    //! cannot see is a name spelled again as a string; this check looks for
    //! that in the code (not comments, not test modules) of the workspace's
    //! crates outside `harshjudge-store/src/store/`.

    use std::path::Path;

    /// Every name declared in this file.
    fn layout_names() -> Vec<String> {
        include_str!("names.rs")
            .lines()
            .filter(|l| l.starts_with("pub(super) const "))
            .filter_map(|l| l.split('"').nth(1).map(str::to_string))
            .collect()
    }

    /// The layout names `line` spells as a path: a file name as a literal
    /// (`"result.json"`, `"{name}.meta.json"`), any name or a `step-` folder
    /// given to `join`/`push`/`Path::new`/`PathBuf::from`, or a segment of a
    /// literal path (`"{dir}/evidence"`). Text for people has spaces.
    fn leaks(line: &str, names: &[String]) -> Vec<String> {
        // Compiled once: a debug build compiling it per line took over a
        // minute for the whole tree (issue 40.4).
        static LITERAL: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(r#"(join|push|Path::new|PathBuf::from)?\(?"([^" \\`]*)""#)
                .expect("a valid pattern")
        });
        let mut out = vec![];
        for c in LITERAL.captures_iter(line) {
            let (call, lit) = (c.get(1).is_some(), &c[2]);
            let file = |n: &String| {
                n.contains('.')
                    && (lit == n
                        || (n.starts_with('.')
                            && lit.ends_with(n.as_str())
                            && lit.len() > n.len()
                            && lit.contains('{')))
            };
            let named = names.iter().any(file)
                || (call
                    && (names.iter().any(|n| lit == n) || lit.starts_with(super::STEP_PREFIX)))
                || (lit.contains('/')
                    && !lit.starts_with("/api/")
                    && lit.split('/').any(|seg| names.iter().any(|n| seg == n)));
            if named {
                out.push(lit.to_string());
            }
        }
        out
    }

    #[test]
    fn the_check_sees_a_spelled_name_and_not_keys_or_messages() {
        let names = layout_names();
        assert!(names.len() > 25 && names.contains(&"result.json".to_string()));
        let leak = |line: &str| !leaks(line, &names).is_empty();
        assert!(leak(r#"dir.join("result.json")"#));
        assert!(leak(r#"dir.join("runs")"#));
        assert!(leak(r#"dir.join(format!("step-{id}"))"#) || leak(r#"dir.join("step-01")"#));
        assert!(leak(r#"format!("{dir}/evidence")"#));
        assert!(leak(r#"format!("{name}.meta.json")"#));
        assert!(leak(r#"match n { "meta.yaml" => 1 }"#));
        assert!(!leak(r#"json!({"runs": runs, "steps": steps})"#));
        assert!(!leak(r#"o.insert("evidence".into(), v)"#));
        assert!(!leak(r#"err("no .harshJudge/config.yaml in this folder")"#));
    }

    #[test]
    fn no_layout_name_is_spelled_outside_the_store() {
        let names = layout_names();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = vec![];
        let mut dirs = vec![
            root.join("harshjudge/src"),
            root.join("harshjudge-browser/src"),
            root.join("harshjudge-store/src"),
            root.join("harshjudge-mcp/src"),
            root.join("harshjudge-macros/src"),
        ];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() && !p.ends_with("harshjudge-store/src/store") {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "rs")
                    && !p.file_name().is_some_and(|n| {
                        n == "tests.rs" || n.to_string_lossy().ends_with("_tests.rs")
                    })
                {
                    files.push(p);
                }
            }
        }
        assert!(
            files.len() > 50,
            "the sources were found under {}",
            root.display()
        );
        let mut bad = vec![];
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for (n, line) in text.lines().enumerate() {
                let code = line.trim_start();
                if code.starts_with("#[cfg(test)]") {
                    break; // the unit tests at the end of the file
                }
                if code.starts_with("//") || code.contains(".route(") {
                    continue;
                }
                for lit in leaks(line, &names) {
                    bad.push(format!(
                        "  {}:{}: \"{lit}\"",
                        f.strip_prefix(&root).unwrap_or(&f).display(),
                        n + 1
                    ));
                }
            }
        }
        assert!(
            bad.is_empty(),
            "these lines spell a .harshJudge/ layout name outside harshjudge-store/src/store/ (ask the store: store.scenario(&slug).run(&id).result_path(), Store::report_dir, …; add the path to the store if it lacks it):\n{}",
            bad.join("\n")
        );
    }
}
