//! What one invocation runs, decided before anything runs.
//!
//! [`plan`] is a pure function of the registered scenarios, libtest's
//! arguments, our flags (`--shard`, `--last-failed`, `--resume`) and what
//! earlier invocations recorded ([`Recorded`], read by [`Recorded::read`]). It
//! returns the trials to list, which steps of which scenario must run (each up
//! to its last selected step), the order they start in, and the scenarios whose
//! recorded outcomes are reused instead of running them.

use std::collections::{BTreeMap, HashMap, HashSet};

use libtest_mimic::{Arguments, Trial};

use super::changed::ChangedFiles;
use super::flags::SuiteFlags;
use crate::registry::ScenarioDef;
use harshjudge_store::event::StepOutcome;
use harshjudge_store::store::checkpoint::{Checkpoint, ScenarioEntry, ScenarioState, SuiteLog};
use harshjudge_store::store::{RunId, RunResult, RunStatus, Slug, Store, StoreError};

use super::step_test_name;

/// What earlier invocations recorded that the plan depends on.
#[derive(Debug)]
pub(crate) struct Recorded {
    /// `--shard`: each scenario's recorded average duration in ms.
    pub durations: Vec<(&'static str, Option<u64>)>,
    /// `--resume` / `--last-failed`: the previous invocation's checkpoint
    /// (`Err`: unreadable, with why).
    pub previous: Result<Option<Checkpoint>, StoreError>,
    /// `--resume`: the `result.json` of each run the previous checkpoint names, by slug.
    pub results: HashMap<String, (RunId, RunResult)>,
    /// `--only-changed`: the files git says changed since the ref (set by
    /// the caller, which asks git: [`ChangedFiles::read`]).
    pub changed: Option<ChangedFiles>,
}

impl Default for Recorded {
    /// Nothing recorded: no durations, no previous invocation.
    fn default() -> Recorded {
        Recorded {
            durations: Vec::new(),
            previous: Ok(None),
            results: HashMap::new(),
            changed: None,
        }
    }
}

impl Recorded {
    /// Reads what the plan needs for `flags`, and only that. `store` is `None`
    /// when listing (no settings are read then); `durations_store` is where
    /// `--shard` finds the recorded durations.
    pub fn read(
        store: Option<&Store>,
        durations_store: Option<&Store>,
        scenarios: &[&'static ScenarioDef],
        flags: &SuiteFlags,
        binary: &str,
    ) -> Recorded {
        let durations = if flags.shard.is_some() {
            crate::harness::shard::durations(durations_store, scenarios.iter().map(|d| d.slug))
        } else {
            Vec::new()
        };
        let previous = match store.filter(|_| flags.resume || flags.last_failed) {
            Some(store) => SuiteLog::previous(store, binary),
            None => Ok(None),
        };
        let mut results = HashMap::new();
        if flags.resume
            && let (Some(store), Ok(Some(previous))) = (store, &previous)
        {
            for def in scenarios {
                let Some(entry) = previous.scenarios.get(def.slug) else {
                    continue;
                };
                let found = (|| {
                    let slug = Slug::new(def.slug).ok()?;
                    let run = RunId::new(entry.run_id.as_deref()?).ok()?;
                    let result = store.scenario(&slug).run(&run).result().ok()??;
                    Some((run, result))
                })();
                if let Some(r) = found {
                    results.insert(def.slug.to_string(), r);
                }
            }
        }
        Recorded {
            durations,
            previous,
            results,
            changed: None,
        }
    }
}

/// One libtest trial: a step, or under nextest a whole scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct TrialSpec {
    /// Index of its scenario in [`Plan::scenarios`].
    pub scenario: usize,
    /// The last step (1-based) the trial needs: its own step, or the
    /// scenario's last step for a whole-scenario trial.
    pub last: usize,
    /// The test name.
    pub name: String,
    /// A whole scenario (nextest) rather than one step.
    pub whole: bool,
}

/// A scenario whose outcome is taken over from the previous invocation (`--resume`).
#[derive(Debug)]
pub(crate) struct Reused {
    /// The scenario.
    pub def: &'static ScenarioDef,
    /// Its checkpoint entry, with its state settled from the run's result.
    pub entry: ScenarioEntry,
    /// Each step's outcome as recorded.
    pub outcomes: Vec<StepOutcome>,
}

/// libtest's selection by name: a test is selected when it matches any of the
/// filters (every test when there is none) and none of the `--skip`s; a match
/// is a substring, or the whole name with `--exact`. libtest-mimic's
/// [`Arguments`] holds one filter; the others are [`SuiteFlags::extra_filters`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    filters: Vec<String>,
    skip: Vec<String>,
    exact: bool,
}

impl Filter {
    /// The filters of `args` and `flags`, its `--skip`s and `--exact`.
    pub fn new(args: &Arguments, flags: &SuiteFlags) -> Filter {
        Filter {
            filters: args
                .filter
                .iter()
                .chain(&flags.extra_filters)
                .cloned()
                .collect(),
            skip: args.skip.clone(),
            exact: args.exact,
        }
    }

    /// Whether the test `name` is selected.
    pub fn selects(&self, name: &str) -> bool {
        let hit = |f: &String| {
            if self.exact {
                name == f
            } else {
                name.contains(f.as_str())
            }
        };
        (self.filters.is_empty() || self.filters.iter().any(hit)) && !self.skip.iter().any(hit)
    }
}

/// What one invocation lists and runs.
#[derive(Debug)]
pub(crate) struct Plan {
    /// The scenarios of this invocation (after `--shard` and `--last-failed`), in name order.
    pub scenarios: Vec<&'static ScenarioDef>,
    /// Every trial, in listing order.
    pub trials: Vec<TrialSpec>,
    /// Per scenario, the last step to run (0: the scenario does not run).
    pub stop_after: Vec<usize>,
    /// Per scenario, whether each step's trial was selected by the filter.
    pub selected: HashMap<&'static str, Vec<bool>>,
    /// The trials [`Filter`] leaves out (by name), in listing order.
    pub filtered_out: Vec<String>,
    /// Selected scenarios whose recorded outcomes are reused (`--resume`).
    pub reused: Vec<Reused>,
    /// What the user is told before the tests run.
    pub notes: Vec<String>,
    /// The previous invocation's checkpoint, when `--resume` or `--last-failed` read it.
    pub previous: Option<Checkpoint>,
    /// Selected scenarios that never run (`#[scenario(skip = …)]`,
    /// `fixme = …`): their trials are listed and report the reason.
    pub skipped: Vec<&'static ScenarioDef>,
    /// The scenarios the tag selection (`--tag`, `--tags`, `HARSHJUDGE_TAGS`)
    /// leaves out: their trials are filtered out, as by a name filter.
    pub tag_excluded: Vec<&'static ScenarioDef>,
    /// The tag selection as given (`--tag smoke --tags "not slow"`).
    pub tag_selection: String,
    /// The setup scenarios no filter or tag selected that run because selected
    /// scenarios depend on them, each with those scenarios (function names):
    /// `fixture_database: brought along as a setup of smoke_login, smoke_search`.
    pub brought_along: Vec<(&'static ScenarioDef, Vec<&'static str>)>,
}

impl Plan {
    /// The scenarios to execute, each with its last step, in the order they
    /// start (name order; at most `--test-threads` at once).
    pub fn work(&self) -> Vec<(&'static ScenarioDef, usize)> {
        self.scenarios
            .iter()
            .zip(&self.stop_after)
            .filter(|(_, n)| **n > 0)
            .map(|(d, n)| (*d, *n))
            .collect()
    }

    /// Whether anything is run or reused (else no file is touched).
    pub fn any_selected(&self) -> bool {
        self.stop_after.iter().any(|n| *n > 0) || !self.reused.is_empty()
    }

    /// The arguments to hand libtest-mimic, which applies one filter: no
    /// filter, and the trials the plan's [`Filter`] leaves out as exact
    /// `--skip`s. It then lists, runs and counts as "filtered out" what the
    /// plan decided, with several filters too.
    pub fn libtest_args(&self, args: &Arguments) -> Arguments {
        Arguments {
            filter: None,
            skip: self.filtered_out.clone(),
            exact: true,
            ..args.clone()
        }
    }
}

/// Decides what runs: `--shard`, then `--last-failed`, then libtest's filter,
/// the tag selection and `--only-changed` (each scenario runs up to its last selected step),
/// then `skip`/`fixme` (selected, never run), then `--resume`, then the setups
/// of what runs ([`include_setups`]).
pub(crate) fn plan(
    scenarios: Vec<&'static ScenarioDef>,
    args: &Arguments,
    flags: &SuiteFlags,
    nextest: bool,
    recorded: Recorded,
    store: Option<&Store>,
) -> Plan {
    let mut notes = Vec::new();
    let scenarios = match flags.shard {
        None => scenarios,
        Some(shard) => {
            let mine = crate::harness::shard::select(&recorded.durations, shard);
            notes.push(crate::harness::shard::note(
                shard,
                &recorded.durations,
                &mine,
            ));
            scenarios
                .into_iter()
                .filter(|d| mine.contains(&d.slug))
                .collect()
        }
    };
    let previous = recorded.previous.unwrap_or_else(|e| {
        notes.push(format!(
            "the previous checkpoint is unreadable ({e}): running everything"
        ));
        None
    });
    let excluded = last_failed(&scenarios, flags, previous.as_ref(), &mut notes);
    let mut reusable = BTreeMap::new();
    if flags.resume {
        match &previous {
            None => notes
                .push("--resume: no earlier run of this suite recorded: running everything".into()),
            Some(p) => {
                for def in &scenarios {
                    let found = p.scenarios.get(def.slug).zip(store).and_then(|(e, st)| {
                        let (run, result) = recorded.results.get(def.slug)?;
                        reuse(st, def, e, run, result)
                    });
                    if let Some(r) = found {
                        reusable.insert(def.slug, r);
                    }
                }
            }
        }
    }
    let scenarios: Vec<&'static ScenarioDef> = scenarios
        .into_iter()
        .filter(|d| !excluded.contains(d.slug))
        .collect();
    let trials = trials(&scenarios, nextest);
    let filter = Filter::new(args, flags);
    let tagged: Vec<bool> = (scenarios.iter())
        .map(|d| flags.tags.selects(d.tags))
        .collect();
    // `--only-changed`: like a tag selection, what it leaves out is filtered
    // out, and the setups of what it keeps come along.
    let changed: Vec<bool> = (scenarios.iter())
        .map(|d| recorded.changed.as_ref().is_none_or(|c| c.contains(d.file)))
        .collect();
    if let Some(c) = &recorded.changed {
        let n = changed.iter().filter(|c| **c).count();
        notes.push(c.note(n, scenarios.len()));
    }
    let chosen: Vec<bool> = tagged.iter().zip(&changed).map(|(t, c)| *t && *c).collect();
    let (mut stop_after, selected) =
        selection(&scenarios, &trials, &filter, &chosen, args, nextest);
    let filtered_out = (trials.iter())
        .filter(|t| !filter.selects(&t.name) || !chosen[t.scenario])
        .map(|t| t.name.clone())
        .collect();
    let tag_excluded: Vec<&'static ScenarioDef> = (scenarios.iter().zip(&tagged))
        .filter(|(_, t)| !**t)
        .map(|(d, _)| *d)
        .collect();
    if nextest && flags.max_failures.is_some() {
        notes.push("--max-failures (HARSHJUDGE_MAX_FAILURES) counts the failed runs of one process; under cargo-nextest each scenario is a process of its own, so it limits only the repetitions of --repeat-each: use `cargo nextest run --max-fail N` to stop the run after N failed scenarios".into());
    }
    // `skip`/`fixme`: selected (listed, reported) but never run.
    let mut skipped = Vec::new();
    for (si, def) in scenarios.iter().enumerate() {
        if def.skip.is_some() && stop_after[si] > 0 {
            stop_after[si] = 0;
            skipped.push(*def);
        }
    }
    // Reused scenarios are not run: their trials get the recorded outcomes.
    let mut reused = Vec::new();
    for (si, def) in scenarios.iter().enumerate() {
        if stop_after[si] > 0
            && let Some((entry, outcomes)) = reusable.remove(def.slug)
        {
            stop_after[si] = 0;
            reused.push(Reused {
                def,
                entry,
                outcomes,
            });
        }
    }
    let mut plan = Plan {
        scenarios,
        trials,
        stop_after,
        selected,
        filtered_out,
        reused,
        notes,
        previous,
        skipped,
        tag_excluded,
        tag_selection: flags.tags.to_string(),
        brought_along: Vec::new(),
    };
    // The setups of what runs come along, whatever selected it; one that
    // runs was not filtered out by its tags.
    include_setups(&mut plan, nextest);
    if !plan.tag_excluded.is_empty() {
        let note = format!(
            "{}: {} scenario(s) filtered out by their tags",
            flags.tags,
            plan.tag_excluded.len()
        );
        plan.notes.push(note);
    }
    plan
}

/// `--last-failed`: the scenarios to leave out (those that did not fail,
/// or were not interrupted, last time), with a note saying what runs.
fn last_failed(
    scenarios: &[&'static ScenarioDef],
    flags: &SuiteFlags,
    previous: Option<&Checkpoint>,
    notes: &mut Vec<String>,
) -> HashSet<&'static str> {
    if !flags.last_failed {
        return HashSet::new();
    }
    let failed: Vec<&str> = scenarios
        .iter()
        .filter(|d| {
            previous
                .and_then(|p| p.scenarios.get(d.slug))
                .is_some_and(|e| e.state.failed())
        })
        .map(|d| d.slug)
        .collect();
    if failed.is_empty() {
        notes.push(match previous {
            None => {
                "--last-failed: no earlier run of this suite recorded: running everything".into()
            }
            Some(_) => "--last-failed: nothing failed last time: running everything".into(),
        });
        return HashSet::new();
    }
    notes.push(format!(
        "--last-failed: running {} scenario(s) that failed last time: {}",
        failed.len(),
        failed.join(", ")
    ));
    scenarios
        .iter()
        .map(|d| d.slug)
        .filter(|s| !failed.contains(s))
        .collect()
}

/// `--browser`: each scenario once per browser, a copy named
/// `fn_name[browser]` (test names `login[firefox]::01_…`) with the slug
/// `slug-browser` (its runs, evidence and report apart) and the browser its
/// pages open in. Setup scenarios run once (their saved state is plain
/// cookies and storage, which every engine takes). No browser: as registered.
pub(crate) fn per_browser(
    scenarios: Vec<&'static ScenarioDef>,
    browsers: &[harshjudge_browser::BrowserKind],
) -> Vec<&'static ScenarioDef> {
    if browsers.is_empty() {
        return scenarios;
    }
    let mut out = Vec::new();
    for def in scenarios {
        if def.setup {
            out.push(def);
            continue;
        }
        for &b in browsers {
            let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
            out.push(&*Box::leak(Box::new(ScenarioDef {
                fn_name: leak(format!("{}[{b}]", def.fn_name)),
                slug: leak(format!("{}-{b}", def.slug)),
                title: leak(format!("{} [{b}]", def.title)),
                tags: def.tags,
                timeout: def.timeout,
                step_timeout: def.step_timeout,
                retries: def.retries,
                trace: def.trace,
                file: def.file,
                line: def.line,
                module_path: def.module_path,
                steps: def.steps,
                run: def.run,
                case: def.case,
                skip: def.skip,
                storage_state: def.storage_state,
                setup: false,
                depends_on: def.depends_on,
                before: def.before,
                after: def.after,
                browser: Some(b),
                opens_page: def.opens_page,
                emulation: def.emulation,
                fixtures: def.fixtures,
            })));
        }
    }
    out
}

/// The trials: one per step, or one per scenario under nextest.
fn trials(scenarios: &[&'static ScenarioDef], nextest: bool) -> Vec<TrialSpec> {
    let mut out = Vec::new();
    for (si, def) in scenarios.iter().enumerate() {
        if nextest {
            out.push(TrialSpec {
                scenario: si,
                last: def.steps.len(),
                name: def.fn_name.to_string(),
                whole: true,
            });
        } else {
            out.extend(def.steps.iter().enumerate().map(|(i, step)| TrialSpec {
                scenario: si,
                last: i + 1,
                name: step_test_name(def.fn_name, i + 1, step.title),
                whole: false,
            }));
        }
    }
    out
}

/// Which steps must run (up to the last selected step of each scenario) and
/// which step trials were selected (under nextest a scenario is one trial:
/// all its steps count as selected): by `filter` and the tag selection
/// (`tagged`, per scenario), then by libtest's `--ignored` /
/// `--include-ignored` / `--bench`.
fn selection(
    scenarios: &[&'static ScenarioDef],
    trials: &[TrialSpec],
    filter: &Filter,
    tagged: &[bool],
    args: &Arguments,
    nextest: bool,
) -> (Vec<usize>, HashMap<&'static str, Vec<bool>>) {
    // What libtest-mimic decides beside the names.
    let kinds = Arguments {
        filter: None,
        skip: Vec::new(),
        ..args.clone()
    };
    let mut stop_after = vec![0usize; scenarios.len()];
    let mut selected: HashMap<&'static str, Vec<bool>> = scenarios
        .iter()
        .map(|d| (d.slug, vec![nextest; d.steps.len()]))
        .collect();
    for t in trials {
        // Filtering looks at the name and kind only; the runner is never called.
        if !filter.selects(&t.name) || !tagged[t.scenario] {
            continue;
        }
        let skip = scenarios[t.scenario].skip.is_some();
        let probe = Trial::test(t.name.clone(), || Ok(())).with_ignored_flag(skip && nextest);
        if kinds.is_filtered_out(&probe) || kinds.is_ignored(&probe) {
            continue;
        }
        stop_after[t.scenario] = stop_after[t.scenario].max(t.last);
        if !nextest && let Some(s) = selected.get_mut(scenarios[t.scenario].slug) {
            s[t.last - 1] = true;
        }
    }
    (stop_after, selected)
}

/// What `--resume` reuses of a scenario the earlier invocation ran: its entry
/// (with its execution and judgment as the run's `result.json` says) and its
/// steps as recorded there. A run that ended counts as finished even if the
/// checkpoint did not hear of it (the process died just after, or while its
/// steps were being judged); a running or interrupted one is not reusable.
fn reuse(
    store: &Store,
    def: &ScenarioDef,
    entry: &ScenarioEntry,
    run: &RunId,
    result: &RunResult,
) -> Option<(ScenarioEntry, Vec<StepOutcome>)> {
    if result.status == RunStatus::Running || result.interrupted {
        return None;
    }
    let state = if entry.state.finished() {
        entry.state
    } else {
        match (result.status, result.flaky) {
            (RunStatus::Pass, true) => ScenarioState::Flaky,
            (RunStatus::Pass, false) => ScenarioState::Pass,
            _ => ScenarioState::Fail,
        }
    };
    let out = super::outcomes::recorded_outcomes(store, def, run, result, "reused by --resume")?;
    let mut entry = ScenarioEntry {
        state,
        ..entry.clone()
    };
    entry.note_result(result);
    Some((entry, out))
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;

/// Brings along the setups of every scenario that runs, whatever the filter:
/// each runs whole. With one trial per step (not nextest) their trials are
/// selected too, so that they are reported; under nextest they run in the
/// process of the scenario that needs them (once per nextest run, [`Gate`]).
/// A setup that no filter or tag selected is named in [`Plan::brought_along`]
/// with the scenarios that need it, and is no longer among those the tags
/// filtered out: it runs.
pub(crate) fn include_setups(plan: &mut Plan, nextest: bool) {
    let by_name: HashMap<&str, &'static ScenarioDef> =
        plan.scenarios.iter().map(|d| (d.fn_name, *d)).collect();
    let running: Vec<&'static ScenarioDef> = plan.work().into_iter().map(|(d, _)| d).collect();
    // Each setup that comes along, with the scenarios that need it, in order.
    let mut brought: Vec<(usize, Vec<&'static str>)> = Vec::new();
    for def in running {
        for dep in super::setups::needs(def, &by_name) {
            let Some(i) = plan.scenarios.iter().position(|d| d.fn_name == dep.fn_name) else {
                continue;
            };
            if let Some((_, of)) = brought.iter_mut().find(|(j, _)| *j == i) {
                of.push(def.fn_name);
                continue;
            }
            if plan.stop_after[i] == dep.steps.len() {
                continue;
            }
            // Not selected at all (a setup partly selected is only completed).
            let unselected = plan.stop_after[i] == 0;
            plan.stop_after[i] = dep.steps.len();
            if !nextest {
                if let Some(selected) = plan.selected.get_mut(dep.slug) {
                    selected.iter_mut().for_each(|s| *s = true);
                }
                let names: HashSet<&str> = (plan.trials.iter())
                    .filter(|t| t.scenario == i)
                    .map(|t| t.name.as_str())
                    .collect();
                plan.filtered_out.retain(|n| !names.contains(n.as_str()));
            }
            if unselected {
                brought.push((i, vec![def.fn_name]));
            }
        }
    }
    for (i, of) in brought {
        let setup = plan.scenarios[i];
        plan.tag_excluded.retain(|d| d.fn_name != setup.fn_name);
        if !nextest {
            plan.notes
                .push(super::setups::brought_along(setup.fn_name, &of));
        }
        plan.brought_along.push((setup, of));
    }
}
