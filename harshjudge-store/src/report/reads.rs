//! What the reports of one publication read of the store, each file once.
//!
//! The HTML report (its overview and run pages), JUnit XML and the step
//! summary all look at the same runs: each used to read `result.json`,
//! `meta.yaml` and `judge/result.json` and list the run's evidence folders on
//! its own. `Reads` keeps what was read for the rest of the publication.
//! A harness process also hands it the final results it already holds
//! ([`Finished`]: each is what its `result.json` says, written by the same
//! process), so those files are not read back at all. A read that fails is
//! not kept: it fails again, the same way, for the next reader.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;

use crate::store::judge::RunJudgment;
use crate::store::{RunEvidence, RunId, RunResult, ScenarioMeta, Slug, Store, StoreError};

/// The final results a harness process holds in memory, by run folder: what
/// their `result.json` says (the files are on disk before the reports are
/// written, [`flush_writes`](crate::store::flush_writes)).
#[derive(Clone, Debug, Default)]
pub struct Finished {
    runs: HashMap<(Slug, RunId), (RunResult, Option<RunEvidence>)>,
}

impl Finished {
    /// No result known: every one is read from the store.
    pub fn new() -> Finished {
        Finished::default()
    }

    /// Notes the final result of the run whose folder is `run_dir` (ignored
    /// when `run_dir` is not a run folder), and its evidence files when they
    /// were listed at its completion (`Event::RunFinished`'s `evidence`).
    pub fn insert(&mut self, run_dir: &Path, result: RunResult, evidence: Option<RunEvidence>) {
        if let Some(key) = Store::run_of_dir(run_dir) {
            self.runs.insert(key, (result, evidence));
        }
    }

    /// How many results are known.
    pub fn len(&self) -> usize {
        self.runs.len()
    }

    /// Whether none is known.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }
}

type Key = (Slug, RunId);

/// The store's files as the reports of one publication read them: each once.
pub(crate) struct Reads<'a> {
    store: &'a Store,
    results: RefCell<HashMap<Key, Option<Rc<RunResult>>>>,
    metas: RefCell<HashMap<Slug, Rc<ScenarioMeta>>>,
    evidence: RefCell<HashMap<Key, Rc<RunEvidence>>>,
    judgments: RefCell<HashMap<Key, Option<Rc<RunJudgment>>>>,
}

impl<'a> Reads<'a> {
    /// Reads from `store`, nothing known beforehand.
    pub(crate) fn new(store: &'a Store) -> Reads<'a> {
        Reads {
            store,
            results: RefCell::default(),
            metas: RefCell::default(),
            evidence: RefCell::default(),
            judgments: RefCell::default(),
        }
    }

    /// Reads from `store`, with the results (and evidence listings) of
    /// `finished` known. A run whose `result.json` is gone (retention
    /// removed the run) is read, so it is missing from the reports as it
    /// would be without `finished`.
    pub(crate) fn with_finished(store: &'a Store, finished: Finished) -> Reads<'a> {
        let reads = Reads::new(store);
        {
            let mut results = reads.results.borrow_mut();
            let mut listed = reads.evidence.borrow_mut();
            for ((slug, run), (result, evidence)) in finished.runs {
                let path = store.scenario(&slug).run(&run).result_path();
                if store.metadata(&path).is_ok_and(|m| m.is_file()) {
                    if let Some(evidence) = evidence {
                        listed.insert((slug.clone(), run.clone()), Rc::new(evidence));
                    }
                    results.insert((slug, run), Some(Rc::new(result)));
                }
            }
        }
        reads
    }

    /// The store read.
    pub(crate) fn store(&self) -> &'a Store {
        self.store
    }

    /// `result.json` of a run ([`RunDir::result`](crate::store::RunDir::result)).
    pub(crate) fn result(
        &self,
        slug: &Slug,
        run: &RunId,
    ) -> Result<Option<Rc<RunResult>>, StoreError> {
        let key = (slug.clone(), run.clone());
        if let Some(r) = self.results.borrow().get(&key) {
            return Ok(r.clone());
        }
        let r = self.store.scenario(slug).run(run).result()?.map(Rc::new);
        self.results.borrow_mut().insert(key, r.clone());
        Ok(r)
    }

    /// The run whose folder is `run_dir`, and its `result.json`
    /// ([`Store::read_result_at`]).
    pub(crate) fn result_at(
        &self,
        run_dir: &Path,
    ) -> Result<Option<(Slug, RunId, Rc<RunResult>)>, StoreError> {
        let (slug, run) = match Store::run_of_dir(run_dir) {
            Some(key) if self.results.borrow().contains_key(&key) => key,
            _ => self.store.run_at(run_dir)?,
        };
        Ok(self.result(&slug, &run)?.map(|r| (slug, run, r)))
    }

    /// `meta.yaml` of a scenario; the default when it is missing or unreadable.
    pub(crate) fn meta(&self, slug: &Slug) -> Rc<ScenarioMeta> {
        if let Some(m) = self.metas.borrow().get(slug) {
            return m.clone();
        }
        let meta = self.store.scenario(slug).meta().ok().flatten();
        let m = Rc::new(meta.unwrap_or_default());
        self.metas.borrow_mut().insert(slug.clone(), m.clone());
        m
    }

    /// A run's evidence files ([`RunDir::evidence`](crate::store::RunDir::evidence)).
    pub(crate) fn evidence(&self, slug: &Slug, run: &RunId) -> Result<Rc<RunEvidence>, StoreError> {
        let key = (slug.clone(), run.clone());
        if let Some(e) = self.evidence.borrow().get(&key) {
            return Ok(e.clone());
        }
        let e = Rc::new(self.store.scenario(slug).run(run).evidence()?);
        self.evidence.borrow_mut().insert(key, e.clone());
        Ok(e)
    }

    /// A run's `judge/result.json` ([`RunDir::judgment`](crate::store::RunDir::judgment)).
    pub(crate) fn judgment(
        &self,
        slug: &Slug,
        run: &RunId,
    ) -> Result<Option<Rc<RunJudgment>>, StoreError> {
        let key = (slug.clone(), run.clone());
        if let Some(j) = self.judgments.borrow().get(&key) {
            return Ok(j.clone());
        }
        let j = self.store.scenario(slug).run(run).judgment()?.map(Rc::new);
        self.judgments.borrow_mut().insert(key, j.clone());
        Ok(j)
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::recorder::{RunHandle, StepRecord};
    use crate::report::invocation::{Publish, publish, publish_with};
    use crate::report::junit::{NotRunRef, RunRef};
    use crate::store::{EvidenceName, NewEvidence, ScenarioSpec, StepId, StepStatus};

    /// Records a run of `slug` (its second step fails when `fail`), with a
    /// JSON attachment, a log and a screenshot-named file; returns its folder,
    /// its final result as the recorder holds it and its evidence as its
    /// completion listed it.
    fn record(
        store: &Store,
        slug: &Slug,
        fail: bool,
        attempt: u32,
    ) -> (PathBuf, RunResult, Option<RunEvidence>) {
        let titles = vec!["Open «home»".to_string(), "Pay & leave".to_string()];
        let mut run = RunHandle::start(store, slug, titles).unwrap();
        run.set_attempt(attempt, None).unwrap();
        for (i, n) in ["01", "02"].into_iter().enumerate() {
            let id = StepId::new(n).unwrap();
            run.begin_step(&id).unwrap();
            for (name, ext, bytes) in [
                (
                    "data",
                    "json",
                    &br#"{"step": 1, "items": ["apple", "pear"]}"#[..],
                ),
                ("console", "log", b"line 1\nline <2>\n"),
                ("page-after", "png", b"\x89PNG not really"),
            ] {
                let name = EvidenceName::new(name).unwrap();
                let file = NewEvidence {
                    name: &name,
                    ext,
                    kind: "custom",
                    bytes,
                };
                run.record_evidence(&id, file, serde_json::Map::new())
                    .unwrap();
            }
            let failed = fail && i == 1;
            run.complete_step(StepRecord {
                id,
                status: if failed {
                    StepStatus::Fail
                } else {
                    StepStatus::Pass
                },
                duration_ms: 7 + i as u64,
                error: failed.then(|| "expected <b> to be \"visible\"".to_string()),
                location: failed.then(|| "tests/web.rs:12:5".to_string()),
                summary: None,
            })
            .unwrap();
        }
        run.complete(Some(40)).unwrap();
        let evidence = run.take_listed_evidence();
        assert!(evidence.is_some(), "the completion listed the evidence");
        (run.dir(), run.result().clone(), evidence)
    }

    /// Every file below `dir`, with its bytes (`generatedAt` masked: it is the
    /// time the report was built).
    fn files(dir: &Path) -> Vec<(PathBuf, String)> {
        let generated = regex::Regex::new(r#""generatedAt":"[^"]*""#).unwrap();
        let mut out = vec![];
        let mut todo = vec![dir.to_path_buf()];
        while let Some(d) = todo.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    todo.push(p);
                } else {
                    let text = std::fs::read_to_string(&p).unwrap();
                    let masked = generated
                        .replace_all(&text, "\"generatedAt\":\"…\"")
                        .into_owned();
                    out.push((p.strip_prefix(dir).unwrap().to_path_buf(), masked));
                }
            }
        }
        out.sort();
        out
    }

    /// Issue 25.1: the reports at exit are built from the results the harness
    /// holds; they must be the reports built by reading every `result.json`
    /// back, byte for byte (the HTML report's overview and run pages, JUnit
    /// XML, the step summary).
    #[test]
    fn the_reports_from_held_results_are_the_reports_read_back_byte_for_byte() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().join(".harshJudge"));
        store.ensure_initialized("Demo", "").unwrap();
        let mut finished = Finished::new();
        let mut runs = vec![];
        for (name, fail) in [("checkout", true), ("login", false)] {
            let slug = Slug::new(name).unwrap();
            let spec = ScenarioSpec {
                title: format!("The {name} flow"),
                steps: vec!["Open «home»".into(), "Pay & leave".into()],
                tags: Some(vec!["smoke".into()]),
                starred: None,
                estimated_duration: None,
            };
            store.scenario(&slug).upsert(&spec, &[]).unwrap();
            // An earlier attempt that failed, then the last one.
            let (first, r1, e1) = record(&store, &slug, true, 1);
            let (last, r2, e2) = record(&store, &slug, fail, 2);
            finished.insert(&first, r1, e1);
            finished.insert(&last, r2, e2);
            runs.push(RunRef {
                dir: last,
                earlier: vec![first],
            });
        }
        let publish_into = |name: &str, finished: Option<Finished>| {
            let out = tmp.path().join(name);
            std::fs::create_dir_all(&out).unwrap();
            let p = Publish {
                runs: runs.clone(),
                // Later than now: the root's wall time is 0 in both.
                started: SystemTime::now() + Duration::from_secs(3600),
                junit: Some(out.join("junit.xml")),
                html: true,
                step_summary: Some(out.join("summary.md")),
                invocation: None,
                not_run: vec![NotRunRef {
                    slug: "search".into(),
                    steps: vec!["Find".into()],
                    reason: "skipped: flaky".into(),
                    title: "Search".into(),
                    tags: vec![],
                }],
                errors: vec![],
            };
            let lines = match finished {
                Some(f) => publish_with(&store, &p, f),
                None => publish(&store, &p),
            };
            assert!(lines.iter().all(|l| !l.contains("could not")), "{lines:?}");
            let report = store.dir().join("report");
            std::fs::rename(&report, out.join("report")).unwrap();
            files(&out)
        };
        assert_eq!(finished.len(), 4);
        let held = publish_into("held", Some(finished));
        let read_back = publish_into("read", None);
        assert_eq!(held.len(), read_back.len());
        // index.html, overview.js, 2 run pages (+ junit.xml, summary.md).
        assert!(
            held.len() >= 6,
            "{:?}",
            held.iter().map(|f| &f.0).collect::<Vec<_>>()
        );
        for (h, r) in held.iter().zip(&read_back) {
            assert_eq!(h.0, r.0);
            assert!(
                h.1 == r.1,
                "{} differs:\nheld: {}\nread: {}",
                h.0.display(),
                h.1,
                r.1
            );
        }
        let junit = &held.iter().find(|f| f.0.ends_with("junit.xml")).unwrap().1;
        assert!(
            junit.contains("rerunFailure") && junit.contains("Pay &amp; leave"),
            "{junit}"
        );
    }

    /// A held result whose run was removed since (retention) is not reported:
    /// as when the store is read.
    #[test]
    fn a_held_result_of_a_removed_run_is_not_reported() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().join(".harshJudge"));
        let slug = Slug::new("gone").unwrap();
        let (dir, result, evidence) = record(&store, &slug, false, 1);
        let mut finished = Finished::new();
        finished.insert(&dir, result, evidence);
        std::fs::remove_dir_all(&dir).unwrap();
        let reads = Reads::with_finished(&store, finished);
        assert!(reads.result_at(&dir).unwrap().is_none());
    }
}
