use std::collections::BTreeMap;

use super::*;
use crate::testing::fake_def;
use harshjudge_store::store::{StepId, StepStatus};

fn args(a: &[&str]) -> Arguments {
    Arguments::from_iter(std::iter::once("suite").chain(a.iter().copied()))
}

/// Three scenarios, registered out of order; `registry::all` sorts by name.
fn suite() -> Vec<&'static ScenarioDef> {
    let mut v = vec![
        fake_def("checkout", &["Add items", "Pay", "See receipt"]),
        fake_def("about", &["Open"]),
        fake_def("login", &["Open", "Sign in"]),
    ];
    v.sort_by_key(|d| d.fn_name);
    v
}

fn nothing_recorded() -> Recorded {
    Recorded {
        previous: Ok(None),
        ..Recorded::default()
    }
}

fn slugs(p: &Plan) -> Vec<&str> {
    p.work().iter().map(|(d, _)| d.slug).collect()
}

#[test]
fn without_a_filter_every_step_of_every_scenario_runs_in_name_order() {
    let p = plan(
        suite(),
        &args(&[]),
        &SuiteFlags::default(),
        false,
        nothing_recorded(),
        None,
    );
    assert_eq!(slugs(&p), ["about", "checkout", "login"]);
    assert_eq!(p.stop_after, [1, 3, 2]);
    let names: Vec<&str> = p.trials.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "about::01_open",
            "checkout::01_add_items",
            "checkout::02_pay",
            "checkout::03_see_receipt",
            "login::01_open",
            "login::02_sign_in",
        ]
    );
    assert_eq!(p.selected["checkout"], [true, true, true]);
    assert!(p.any_selected() && p.notes.is_empty() && p.reused.is_empty());
}

#[test]
fn a_filter_runs_each_scenario_up_to_its_last_selected_step() {
    let p = plan(
        suite(),
        &args(&["checkout::02"]),
        &SuiteFlags::default(),
        false,
        nothing_recorded(),
        None,
    );
    assert_eq!(p.stop_after, [0, 2, 0]);
    assert_eq!(p.work().len(), 1);
    assert_eq!(p.selected["checkout"], [false, true, false]);
    assert_eq!(p.selected["login"], [false, false]);

    let exact = plan(
        suite(),
        &args(&["--exact", "login::01_open"]),
        &SuiteFlags::default(),
        false,
        nothing_recorded(),
        None,
    );
    assert_eq!(exact.stop_after, [0, 0, 1]);

    let skip = plan(
        suite(),
        &args(&["--skip", "checkout::03", "--skip", "login"]),
        &SuiteFlags::default(),
        false,
        nothing_recorded(),
        None,
    );
    assert_eq!(skip.stop_after, [1, 2, 0]);
    assert_eq!(skip.selected["checkout"], [true, true, false]);

    let none = plan(
        suite(),
        &args(&["no_such_test"]),
        &SuiteFlags::default(),
        false,
        nothing_recorded(),
        None,
    );
    assert!(!none.any_selected());
}

/// A command line as the harness parses it: our flags and the filters after
/// the first taken out by `SuiteFlags::split`, the rest through libtest-mimic.
fn command_line(a: &[&str]) -> (Arguments, SuiteFlags) {
    let line = std::iter::once("suite").chain(a.iter().copied());
    let (rest, flags) = SuiteFlags::split(line.map(str::to_string)).unwrap();
    (Arguments::from_iter(rest), flags)
}

fn plan_of(a: &[&str]) -> Plan {
    let (args, flags) = command_line(a);
    plan(suite(), &args, &flags, false, nothing_recorded(), None)
}

/// The trials libtest-mimic keeps (lists, runs) with the plan's arguments.
fn kept(p: &Plan, a: &[&str]) -> Vec<String> {
    let (args, _) = command_line(a);
    let args = p.libtest_args(&args);
    (p.trials.iter())
        .map(|t| libtest_mimic::Trial::test(t.name.clone(), || Ok(())))
        .filter(|t| !args.is_filtered_out(t))
        .map(|t| t.name().to_string())
        .collect()
}

#[test]
fn several_filters_select_the_tests_matching_any_of_them_as_libtest_does() {
    // `cargo test -- about checkout::02`: the union; each scenario runs up to
    // its last selected step.
    let a = ["about", "checkout::02"];
    let p = plan_of(&a);
    assert_eq!(p.stop_after, [1, 2, 0]);
    assert_eq!(p.selected["checkout"], [false, true, false]);
    assert_eq!(kept(&p, &a), ["about::01_open", "checkout::02_pay"]);
    assert_eq!(p.filtered_out.len(), 4);

    // `--skip` drops what any skip matches, whatever filter matched it.
    let a = ["open", "checkout", "--skip", "login", "--skip", "03"];
    let p = plan_of(&a);
    assert_eq!(p.stop_after, [1, 2, 0]);
    assert_eq!(
        kept(&p, &a),
        [
            "about::01_open",
            "checkout::01_add_items",
            "checkout::02_pay"
        ]
    );

    // `--exact`: whole names, for the filters and the skips alike (a skip
    // that is only part of a name drops nothing).
    let a = [
        "--exact",
        "login::02_sign_in",
        "about::01_open",
        "login",
        "--skip",
        "about",
    ];
    let p = plan_of(&a);
    assert_eq!(p.stop_after, [1, 0, 2]);
    assert_eq!(p.selected["login"], [false, true]);
    assert_eq!(kept(&p, &a), ["about::01_open", "login::02_sign_in"]);
    let a = [
        "--exact",
        "checkout::03_see_receipt",
        "about::01_open",
        "--skip",
        "about::01_open",
    ];
    assert_eq!(plan_of(&a).stop_after, [0, 3, 0]);

    // Values of libtest's and our options are not filters; after `--` everything is.
    let a = [
        "--test-threads",
        "2",
        "about",
        "--format",
        "pretty",
        "--skip",
        "sign",
        "--retries",
        "1",
        "login",
        "--",
        "--exact",
    ];
    let (args, flags) = command_line(&a);
    assert_eq!(args.filter.as_deref(), Some("about"));
    assert_eq!(flags.extra_filters, ["login", "--exact"]);
    assert!(!args.exact && flags.retries == Some(1) && args.test_threads == Some(2));
    assert_eq!(kept(&plan_of(&a), &a), ["about::01_open", "login::01_open"]);

    // No filter matches: nothing runs, everything is filtered out.
    let a = ["nothing", "at_all"];
    let p = plan_of(&a);
    assert!(!p.any_selected() && p.filtered_out.len() == p.trials.len());
    assert!(kept(&p, &a).is_empty());
}

#[test]
fn under_nextest_each_scenario_is_one_trial_with_every_step_selected() {
    let p = plan(
        suite(),
        &args(&["--exact", "login"]),
        &SuiteFlags::default(),
        true,
        nothing_recorded(),
        None,
    );
    let names: Vec<&str> = p.trials.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["about", "checkout", "login"]);
    assert!(p.trials.iter().all(|t| t.whole));
    assert_eq!(p.stop_after, [0, 0, 2]);
    assert_eq!(p.selected["login"], [true, true]);
}

#[test]
fn shards_split_the_scenarios_and_say_so() {
    let recorded = |_: ()| Recorded {
        durations: vec![
            ("about", Some(10)),
            ("checkout", Some(300)),
            ("login", Some(100)),
        ],
        previous: Ok(None),
        results: Default::default(),
        changed: None,
    };
    let mut seen = vec![];
    for index in 1..=2 {
        let flags = SuiteFlags {
            shard: Some(crate::harness::shard::Shard { index, count: 2 }),
            ..SuiteFlags::default()
        };
        let p = plan(suite(), &args(&[]), &flags, false, recorded(()), None);
        assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
        assert!(p.notes[0].starts_with(&format!("--shard {index}/2: running")));
        seen.extend(slugs(&p).into_iter().map(str::to_string));
    }
    seen.sort();
    assert_eq!(seen, ["about", "checkout", "login"]);
}

fn checkpoint(entries: &[(&str, ScenarioState, Option<&str>)]) -> Checkpoint {
    Checkpoint {
        scenarios: entries
            .iter()
            .map(|(slug, state, run)| {
                (
                    slug.to_string(),
                    ScenarioEntry::new(*state, run.map(str::to_string), 1),
                )
            })
            .collect::<BTreeMap<_, _>>(),
        ..Checkpoint::default()
    }
}

#[test]
fn last_failed_runs_only_what_failed_or_was_interrupted() {
    let flags = SuiteFlags {
        last_failed: true,
        ..SuiteFlags::default()
    };
    let previous = checkpoint(&[
        ("about", ScenarioState::Pass, None),
        ("checkout", ScenarioState::Fail, None),
        ("login", ScenarioState::Interrupted, None),
    ]);
    let p = plan(
        suite(),
        &args(&[]),
        &flags,
        false,
        Recorded {
            previous: Ok(Some(previous.clone())),
            ..Recorded::default()
        },
        None,
    );
    assert_eq!(slugs(&p), ["checkout", "login"]);
    assert_eq!(
        p.notes,
        ["--last-failed: running 2 scenario(s) that failed last time: checkout, login"]
    );
    assert_eq!(p.previous, Some(previous));

    let all_passed = checkpoint(&[("about", ScenarioState::Pass, None)]);
    let p = plan(
        suite(),
        &args(&[]),
        &flags,
        false,
        Recorded {
            previous: Ok(Some(all_passed)),
            ..Recorded::default()
        },
        None,
    );
    assert_eq!(slugs(&p).len(), 3);
    assert_eq!(
        p.notes,
        ["--last-failed: nothing failed last time: running everything"]
    );

    let p = plan(suite(), &args(&[]), &flags, false, nothing_recorded(), None);
    assert_eq!(slugs(&p).len(), 3);
    assert_eq!(
        p.notes,
        ["--last-failed: no earlier run of this suite recorded: running everything"]
    );
}

#[test]
fn an_unreadable_checkpoint_runs_everything_and_says_why() {
    let flags = SuiteFlags {
        last_failed: true,
        ..SuiteFlags::default()
    };
    let p = plan(
        suite(),
        &args(&[]),
        &flags,
        false,
        Recorded {
            previous: Err(harshjudge_store::store::StoreError::Corrupt {
                path: "checkpoint.json".into(),
                problem: "bad json".into(),
            }),
            ..Recorded::default()
        },
        None,
    );
    assert_eq!(slugs(&p).len(), 3);
    assert_eq!(
        p.notes[0],
        "the previous checkpoint is unreadable (checkpoint.json: bad json (fix the file by hand, or delete it to start it afresh)): running everything"
    );
}

fn result(run: &str, slug: &str, status: &str, steps: &[(&str, &str)]) -> RunResult {
    serde_json::from_value(serde_json::json!({
        "runId": run,
        "scenarioSlug": slug,
        "status": status,
        "startedAt": "2026-01-01T00:00:00.000Z",
        "duration": 5,
        "steps": steps.iter().map(|(id, st)| serde_json::json!({
            "id": id, "status": st, "duration": 2,
            "error": if *st == "fail" { Some("boom") } else { None },
        })).collect::<Vec<_>>(),
    }))
    .expect("a valid result")
}

#[test]
fn resume_reuses_finished_runs_and_reruns_the_rest() {
    let store = Store::new("/nowhere/.harshJudge");
    let flags = SuiteFlags {
        resume: true,
        ..SuiteFlags::default()
    };
    let (r_about, r_checkout, r_login) = (
        "20260101T000000000Z-aaaaaa",
        "20260101T000000000Z-bbbbbb",
        "20260101T000000000Z-cccccc",
    );
    let previous = checkpoint(&[
        ("about", ScenarioState::Pass, Some(r_about)),
        // The process died after the run ended, before the checkpoint heard of it.
        ("checkout", ScenarioState::Running, Some(r_checkout)),
        ("login", ScenarioState::Interrupted, Some(r_login)),
    ]);
    let mut results = HashMap::new();
    for (slug, run, r) in [
        (
            "about",
            r_about,
            result(r_about, "about", "pass", &[("01", "pass")]),
        ),
        (
            "checkout",
            r_checkout,
            result(
                r_checkout,
                "checkout",
                "fail",
                &[("01", "pass"), ("02", "fail"), ("03", "skipped")],
            ),
        ),
        ("login", r_login, {
            let mut r = result(r_login, "login", "fail", &[("01", "pass")]);
            r.interrupted = true;
            r
        }),
    ] {
        results.insert(slug.to_string(), (RunId::new(run).unwrap(), r));
    }
    let p = plan(
        suite(),
        &args(&[]),
        &flags,
        false,
        Recorded {
            previous: Ok(Some(previous)),
            results,
            ..Recorded::default()
        },
        Some(&store),
    );
    assert_eq!(slugs(&p), ["login"], "the interrupted run runs again");
    let reused: Vec<&str> = p.reused.iter().map(|r| r.def.slug).collect();
    assert_eq!(reused, ["about", "checkout"]);
    let checkout = &p.reused[1];
    assert_eq!(checkout.entry.state, ScenarioState::Fail);
    // The reused entry says how the execution ended (nothing to judge here).
    assert_eq!(
        (checkout.entry.executed, checkout.entry.judged),
        (
            Some(harshjudge_store::store::checkpoint::Executed::Fail),
            None
        )
    );
    assert_eq!(
        p.reused[0].entry.executed,
        Some(harshjudge_store::store::checkpoint::Executed::Pass)
    );
    assert_eq!(
        checkout.outcomes[2].reason.as_deref(),
        Some(format!("reused by --resume from run {r_checkout}, where it was skipped").as_str())
    );
    let statuses: Vec<StepStatus> = checkout.outcomes.iter().map(|o| o.status).collect();
    assert_eq!(
        statuses,
        [StepStatus::Pass, StepStatus::Fail, StepStatus::Skipped]
    );
    assert_eq!(
        checkout.outcomes[1].error.as_deref(),
        Some(format!("boom\n  (reused by --resume from run {r_checkout})").as_str())
    );
    assert_eq!(
        checkout.outcomes[1].evidence_dir,
        store
            .scenario(&Slug::new("checkout").unwrap())
            .run(&RunId::new(r_checkout).unwrap())
            .step(&StepId::from_index(2).unwrap())
            .evidence()
    );
    assert!(p.any_selected());

    // A filter that selects nothing of a finished scenario reuses nothing of it.
    let p = plan(
        suite(),
        &args(&["login"]),
        &flags,
        false,
        Recorded {
            previous: Ok(Some(checkpoint(&[("about", ScenarioState::Pass, None)]))),
            ..Recorded::default()
        },
        Some(&store),
    );
    assert!(p.reused.is_empty());
    assert_eq!(slugs(&p), ["login"]);
}

#[test]
fn resume_without_an_earlier_run_runs_everything_and_says_so() {
    let flags = SuiteFlags {
        resume: true,
        ..SuiteFlags::default()
    };
    let p = plan(suite(), &args(&[]), &flags, false, nothing_recorded(), None);
    assert_eq!(slugs(&p).len(), 3);
    assert_eq!(
        p.notes,
        ["--resume: no earlier run of this suite recorded: running everything"]
    );
}

#[test]
fn each_browser_gets_its_own_copy_of_each_scenario_and_its_own_test_names() {
    use harshjudge_browser::BrowserKind::{self, Firefox, Webkit};
    fn never(_: crate::scenario::Scenario) -> crate::registry::ScenarioFuture {
        Box::pin(async { Ok(()) })
    }
    // A setup runs once, whatever the browsers.
    let setup = crate::testing::fake_scenario("login_setup", &["Sign in"], never, |d| {
        d.setup = true;
    });
    let s = per_browser(
        vec![fake_def("about", &["Open"]), setup],
        &[Firefox, Webkit],
    );
    let names: Vec<(&str, &str, &str, Option<BrowserKind>)> = s
        .iter()
        .map(|d| (d.fn_name, d.slug, d.title, d.browser))
        .collect();
    assert_eq!(
        names,
        [
            (
                "about[firefox]",
                "about-firefox",
                "about [firefox]",
                Some(Firefox)
            ),
            (
                "about[webkit]",
                "about-webkit",
                "about [webkit]",
                Some(Webkit)
            ),
            ("login_setup", "login_setup", "login_setup", None),
        ]
    );
    let p = plan(
        s,
        &args(&[]),
        &SuiteFlags::default(),
        false,
        nothing_recorded(),
        None,
    );
    let trials: Vec<&str> = p.trials.iter().map(|t| t.name.as_str()).collect();
    assert!(trials.contains(&"about[firefox]::01_open"), "{trials:?}");
    assert!(trials.contains(&"about[webkit]::01_open"), "{trials:?}");
    // No --browser: the scenarios as registered.
    let same = per_browser(vec![fake_def("about", &["Open"])], &[]);
    assert_eq!((same[0].fn_name, same[0].browser), ("about", None));
}

fn never(_: crate::scenario::Scenario) -> crate::registry::ScenarioFuture {
    Box::pin(async { Ok(()) })
}

/// A setup without tags, two scenarios tagged `smoke` that depend on it, and
/// one without tags or setup.
fn tagged_with_a_setup() -> Vec<&'static ScenarioDef> {
    let scenario = |name, tags: &'static [&'static str], deps: &'static [&'static str]| {
        crate::testing::fake_scenario(name, &["One"], never, |d| {
            d.tags = tags;
            d.depends_on = deps;
        })
    };
    let setup = crate::testing::fake_scenario("fixture_database", &["Load"], never, |d| {
        d.setup = true;
    });
    vec![
        setup,
        scenario("other", &[], &[]),
        scenario("smoke_login", &["smoke"], &["fixture_database"]),
        scenario("smoke_search", &["smoke"], &["fixture_database"]),
    ]
}

/// Issue 37.3: a setup that tagged scenarios depend on runs; it is not said
/// to be filtered out by the tags, but brought along, and why.
#[test]
fn a_setup_that_selected_scenarios_need_is_brought_along_not_filtered_by_tags() {
    let (args, flags) = command_line(&["--tag", "smoke"]);
    let p = plan(
        tagged_with_a_setup(),
        &args,
        &flags,
        false,
        nothing_recorded(),
        None,
    );
    assert_eq!(
        slugs(&p),
        ["fixture_database", "smoke_login", "smoke_search"]
    );
    let excluded: Vec<&str> = p.tag_excluded.iter().map(|d| d.fn_name).collect();
    assert_eq!(excluded, ["other"]);
    assert_eq!(
        p.notes,
        [
            "fixture_database: brought along as a setup of smoke_login, smoke_search",
            "--tag smoke: 1 scenario(s) filtered out by their tags",
        ]
    );
    // Its trial is run and reported, not filtered out.
    assert_eq!(p.filtered_out, ["other::01_one"]);
    assert_eq!(p.selected["fixture_database"], [true]);
    // Selected by its own tag: not "brought along".
    let (args, flags) = command_line(&["--tag", "smoke", "--tags", "not other"]);
    let mut suite = tagged_with_a_setup();
    suite[0] = crate::testing::fake_scenario("fixture_database", &["Load"], never, |d| {
        d.setup = true;
        d.tags = &["smoke"];
    });
    let p = plan(suite, &args, &flags, false, nothing_recorded(), None);
    assert_eq!(
        p.notes,
        ["--tag smoke --tags \"not other\": 1 scenario(s) filtered out by their tags"]
    );
    // Under nextest, in the process of one dependent: it runs there too.
    let (args, flags) = command_line(&["--tag", "smoke", "--exact", "smoke_search"]);
    let p = plan(
        tagged_with_a_setup(),
        &args,
        &flags,
        true,
        nothing_recorded(),
        None,
    );
    assert_eq!(slugs(&p), ["fixture_database", "smoke_search"]);
    let excluded: Vec<&str> = p.tag_excluded.iter().map(|d| d.fn_name).collect();
    assert_eq!(excluded, ["other"]);
}

/// Issue 37.8: `main!(setup = [fixture_database])` makes every scenario
/// depend on it: any filter or tag brings it along.
#[test]
fn a_setup_of_the_whole_suite_comes_along_with_any_selection() {
    let suite: Vec<&'static ScenarioDef> = tagged_with_a_setup()
        .into_iter()
        .map(|d| {
            crate::testing::fake_scenario(d.fn_name, &["One"], never, |c| {
                c.tags = d.tags;
                c.setup = d.setup;
            })
        })
        .collect();
    let suite = super::super::setups::for_the_suite(suite, &["fixture_database"]).unwrap();
    for selection in [&["other"][..], &["--tag", "smoke"], &["--skip", "fixture"]] {
        let (args, flags) = command_line(selection);
        let p = plan(
            suite.clone(),
            &args,
            &flags,
            false,
            nothing_recorded(),
            None,
        );
        assert_eq!(slugs(&p)[0], "fixture_database", "{selection:?}");
        assert!(p.selected["fixture_database"][0], "{selection:?}");
        assert!(
            p.notes[0].starts_with("fixture_database: brought along as a setup of "),
            "{selection:?}: {:?}",
            p.notes
        );
    }
}

/// Issue 41.3: `--only-changed` selects the scenarios whose file git says
/// changed, and brings their setups along; the others are filtered out.
#[test]
fn only_changed_runs_the_scenarios_of_changed_files_with_their_setups() {
    let mut suite = tagged_with_a_setup();
    suite[2] = crate::testing::fake_scenario("smoke_login", &["One"], never, |d| {
        d.tags = &["smoke"];
        d.depends_on = &["fixture_database"];
        d.file = "tests/login.rs";
    });
    let top = std::path::PathBuf::from("/repo");
    let changed = |files: &[&str]| Recorded {
        changed: Some(ChangedFiles {
            reference: "HEAD".into(),
            top: top.clone(),
            root: top.join("suite"),
            files: files.iter().map(|f| top.join(f)).collect(),
        }),
        ..nothing_recorded()
    };
    let (args, flags) = command_line(&["--only-changed"]);
    let p = plan(
        suite.clone(),
        &args,
        &flags,
        false,
        changed(&["suite/tests/login.rs", "README.md"]),
        None,
    );
    assert_eq!(slugs(&p), ["fixture_database", "smoke_login"]);
    assert_eq!(p.filtered_out, ["other::01_one", "smoke_search::01_one"]);
    assert!(p.tag_excluded.is_empty());
    assert_eq!(
        p.notes,
        [
            "--only-changed: 1 of 4 scenario(s) in files with uncommitted changes (2 changed file(s))",
            "fixture_database: brought along as a setup of smoke_login",
        ]
    );
    // The package's manifest (or build script) changed: everything runs.
    for manifest in ["suite/Cargo.toml", "suite/build.rs"] {
        let p = plan(
            suite.clone(),
            &args,
            &flags,
            false,
            changed(&[manifest]),
            None,
        );
        assert_eq!(slugs(&p).len(), 4, "{manifest}: {:?}", slugs(&p));
        assert!(
            p.filtered_out.is_empty(),
            "{manifest}: {:?}",
            p.filtered_out
        );
    }
    // Another package's manifest: nothing of this one.
    let p = plan(
        suite.clone(),
        &args,
        &flags,
        false,
        changed(&["other/Cargo.toml"]),
        None,
    );
    assert!(slugs(&p).is_empty(), "{:?}", slugs(&p));
    // Nothing changed: nothing runs.
    let p = plan(suite, &args, &flags, false, changed(&[]), None);
    assert!(slugs(&p).is_empty(), "{:?}", slugs(&p));
}
