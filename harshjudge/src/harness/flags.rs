//! What one harness invocation adds to libtest's command line: `--retries`,
//! `--resume`, `--last-failed`, `--fail-on-flaky`, `--shard`, `--rejudge`,
//! `--rejudge-run`, `--tag`, `--tags`, `--repeat-each`, `--max-failures`, `--trace`,
//! `--only-changed[=REF]`, `--headed`, `--slow-mo MS`, and libtest's filters after
//! the first (libtest-mimic takes one).

use crate::harness::shard::{Shard, ShardError};
use crate::harness::tags::{TagExpr, TagExprError, TagSelection};
use harshjudge_browser::BrowserKind;
use harshjudge_browser::settings::watch::{SLOW_MO_EXPECTED, parse_slow_mo};
use harshjudge_browser::settings::{SettingError, TRACE_MODES, TraceMode, env, env_bool};
use harshjudge_store::store::{RunId, StoreError};

/// Flags of ours, taken out of the command line before libtest parses the rest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SuiteFlags {
    /// `--retries N` (else `HARSHJUDGE_RETRIES`): attempts after a failure, for
    /// scenarios that set no `retries` of their own.
    pub retries: Option<u32>,
    /// `--resume` (else `HARSHJUDGE_RESUME=1`): rerun only the scenarios the last
    /// invocation did not finish; reuse the others' results.
    pub resume: bool,
    /// `--last-failed` (else `HARSHJUDGE_LAST_FAILED=1`): run only the scenarios
    /// that failed (or were interrupted) last time.
    pub last_failed: bool,
    /// `--fail-on-flaky` (else `HARSHJUDGE_FLAKY=fail`): a scenario that passes
    /// only on a retry fails the suite.
    pub fail_on_flaky: bool,
    /// `--shard i/n`: run only the `i`-th of `n` shards of the scenarios
    /// (the harness's `shard` module). Under cargo-nextest, use `--partition` instead.
    pub shard: Option<Shard>,
    /// `--update-snapshots` (else `HARSHJUDGE_UPDATE_SNAPSHOTS=1`): `to_have_screenshot`
    /// writes the baselines that are missing or differ, and passes.
    pub update_snapshots: bool,
    /// `--rejudge`: re-make the verdicts of each selected scenario's latest
    /// finished run from its recorded evidence; nothing runs.
    pub rejudge: bool,
    /// `--rejudge-run RUN_ID`: re-make every verdict of that one run (never
    /// reused), as `judge/replay.sh` does; nothing runs.
    pub rejudge_run: Option<String>,
    /// libtest's positional filters after the first (libtest-mimic's
    /// `Arguments` takes one): as in libtest, a test runs when it matches any
    /// of them.
    pub extra_filters: Vec<String>,
    /// `--tag NAME` (repeatable: any of them) and `--tags EXPR` (else
    /// `HARSHJUDGE_TAGS`): only the scenarios whose tags the selection accepts.
    pub tags: TagSelection,
    /// `--repeat-each N` (else `HARSHJUDGE_REPEAT_EACH`): each selected
    /// scenario runs N times, each time its own run (`None`: once).
    pub repeat_each: Option<u32>,
    /// `--max-failures N` (else `HARSHJUDGE_MAX_FAILURES`): once N runs
    /// failed, no scenario starts; the rest are reported as not run.
    pub max_failures: Option<u32>,
    /// `--browser NAME` (repeatable): each scenario runs once per browser, its
    /// tests named `scenario[firefox]::01_…`, its runs under its own slug
    /// (`scenario-firefox`). Empty: the one browser `HARSHJUDGE_BROWSER` names,
    /// test names unchanged.
    pub browsers: Vec<BrowserKind>,
    /// `--trace MODE` (else `HARSHJUDGE_TRACE`, default `retain-on-failure`):
    /// when steps' traces are written, for scenarios that set no `trace` of their own.
    pub trace: TraceMode,
    /// `--only-changed[=REF]` (else `HARSHJUDGE_ONLY_CHANGED`): only the
    /// scenarios whose source file differs from the git ref (`HEAD`: the
    /// working tree's changes, untracked files too), with their setups.
    pub only_changed: Option<String>,
    /// `--headed` (else `HARSHJUDGE_HEADED=1`): browsers open real windows.
    pub headed: bool,
    /// `--slow-mo MS` (else `HARSHJUDGE_SLOW_MO`): pages wait that long
    /// before each action (none: `None`).
    pub slow_mo: Option<std::time::Duration>,
}

/// libtest's options that take a value (`--skip X`): that value is not a filter.
const LIBTEST_VALUED: [&str; 6] = [
    "--test-threads",
    "--logfile",
    "--skip",
    "--color",
    "--format",
    "-Z",
];

/// A bad flag or variable: which one, the value given, and what is accepted.
#[derive(Debug, thiserror::Error)]
pub enum FlagError {
    /// A bad `HARSHJUDGE_*` variable (it names the variable).
    #[error(transparent)]
    Setting(#[from] SettingError),
    /// A flag that takes a value came last, without one.
    #[error("{flag} needs {expected}")]
    MissingValue {
        /// The flag (`--retries`).
        flag: &'static str,
        /// What it takes, with an example.
        expected: &'static str,
    },
    /// `--retries` with something else than a number from 0 to 10.
    #[error("--retries {value:?} is invalid: expected {RETRIES_EXPECTED}")]
    Retries {
        /// The value given.
        value: String,
    },
    /// `--shard` with something else than `i/n`.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// `--rejudge-run` with something that is not a run id.
    #[error(
        "--rejudge-run {value:?} is invalid ({source}): expected a run id, the name of a folder in .harshJudge/scenarios/*/runs/"
    )]
    RunId {
        /// The value given.
        value: String,
        /// Why it is not a run id.
        source: StoreError,
    },
    /// `--tags` or `HARSHJUDGE_TAGS` with an expression that does not parse.
    #[error("{flag}: {source}")]
    Tags {
        /// `--tags` or `HARSHJUDGE_TAGS`.
        flag: &'static str,
        /// What is wrong, and where.
        source: TagExprError,
    },
    /// `--tag` with an empty name.
    #[error("--tag {value:?} is invalid: expected a tag name, e.g. --tag smoke")]
    Tag {
        /// The value given.
        value: String,
    },
    /// `--repeat-each` or `--max-failures` (or their variables) with
    /// something else than a count in range.
    #[error("{flag} {value:?} is invalid: expected {expected}")]
    Count {
        /// The flag or variable.
        flag: &'static str,
        /// The value given.
        value: String,
        /// What is accepted.
        expected: &'static str,
    },
    /// `--browser` with something else than chromium, firefox or webkit.
    #[error(
        "--browser {value:?} is invalid: expected chromium, firefox or webkit, e.g. --browser firefox (repeat it for several)"
    )]
    Browser {
        /// The value given.
        value: String,
    },
    /// `--trace` with something else than a trace mode.
    #[error("--trace {value:?} is invalid: expected {TRACE_MODES}, e.g. --trace on")]
    Trace {
        /// The value given.
        value: String,
    },
    /// `--slow-mo` with something else than milliseconds in range.
    #[error("--slow-mo {value:?} is invalid: expected {SLOW_MO_EXPECTED}")]
    SlowMo {
        /// The value given.
        value: String,
    },
    /// `--only-changed=` with an empty ref.
    #[error(
        "--only-changed= needs a git ref after `=`, e.g. --only-changed=main (or --only-changed alone: the working tree against HEAD)"
    )]
    OnlyChanged,
    /// Two flags that exclude each other.
    #[error("{first} and {second} cannot be combined: {why}")]
    Conflict {
        /// The first flag.
        first: &'static str,
        /// The second flag.
        second: &'static str,
        /// What each does, and what to do.
        why: &'static str,
    },
}

/// What `--retries` and `HARSHJUDGE_RETRIES` accept.
const RETRIES_EXPECTED: &str = "a number of retries from 0 to 10";

fn retries(v: &str) -> Option<u32> {
    v.trim().parse::<u32>().ok().filter(|n| *n <= 10)
}

fn parse_retries(v: &str) -> Result<u32, FlagError> {
    retries(v).ok_or_else(|| FlagError::Retries { value: v.into() })
}

/// What `--repeat-each` and `HARSHJUDGE_REPEAT_EACH` accept.
const REPEAT_EXPECTED: &str = "a number of runs from 1 to 1000, e.g. --repeat-each 5";
/// What `--max-failures` and `HARSHJUDGE_MAX_FAILURES` accept.
const MAX_FAILURES_EXPECTED: &str =
    "a number of failed runs from 1 to 1000000, e.g. --max-failures 3";

fn parse_count(
    flag: &'static str,
    v: &str,
    max: u32,
    expected: &'static str,
) -> Result<u32, FlagError> {
    v.trim()
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| FlagError::Count {
            flag,
            value: v.into(),
            expected,
        })
}

fn parse_tags(flag: &'static str, v: &str) -> Result<(String, TagExpr), FlagError> {
    TagExpr::parse(v)
        .map(|e| (v.to_string(), e))
        .map_err(|source| FlagError::Tags { flag, source })
}

fn parse_tag(v: &str) -> Result<String, FlagError> {
    let t = v.trim();
    if t.is_empty() || t == "@" || t.chars().any(char::is_whitespace) {
        return Err(FlagError::Tag { value: v.into() });
    }
    Ok(t.to_string())
}

/// The value of a flag that takes one: `--flag value` or `--flag=value`.
fn value_of(
    a: &str,
    flag: &'static str,
    it: &mut impl Iterator<Item = String>,
    expected: &'static str,
) -> Result<Option<String>, FlagError> {
    if a == flag {
        return it
            .next()
            .map(Some)
            .ok_or(FlagError::MissingValue { flag, expected });
    }
    Ok(a.strip_prefix(flag)
        .and_then(|rest| rest.strip_prefix('='))
        .map(str::to_string))
}

fn parse_run_id(v: &str) -> Result<String, FlagError> {
    RunId::new(v.trim())
        .map(|r| r.to_string())
        .map_err(|source| FlagError::RunId {
            value: v.into(),
            source,
        })
}

impl SuiteFlags {
    /// Splits `args` (program name first) into libtest's arguments and ours.
    /// The environment gives the defaults; flags win.
    pub fn split(
        args: impl IntoIterator<Item = String>,
    ) -> Result<(Vec<String>, SuiteFlags), FlagError> {
        let mut flags = SuiteFlags::from_env()?;
        let mut it = args.into_iter();
        // The program name, then the arguments.
        let mut rest: Vec<String> = it.next().into_iter().collect();
        let mut has_filter = false;
        let mut only_filters = false;
        while let Some(a) = it.next() {
            let positional = only_filters || a == "-" || !a.starts_with('-');
            if positional {
                // libtest-mimic parses the first; the others are ours.
                if has_filter {
                    flags.extra_filters.push(a);
                } else {
                    has_filter = true;
                    rest.push(a);
                }
                continue;
            }
            match a.as_str() {
                "--" => {
                    only_filters = true;
                    rest.push(a);
                }
                _ if LIBTEST_VALUED.contains(&a.as_str()) => {
                    rest.push(a);
                    rest.extend(it.next());
                }
                "--resume" => flags.resume = true,
                "--last-failed" => flags.last_failed = true,
                "--fail-on-flaky" => flags.fail_on_flaky = true,
                "--update-snapshots" => flags.update_snapshots = true,
                "--headed" => flags.headed = true,
                "--only-changed" => flags.only_changed = Some("HEAD".into()),
                _ if a.starts_with("--only-changed=") => {
                    let r = a["--only-changed=".len()..].trim();
                    if r.is_empty() {
                        return Err(FlagError::OnlyChanged);
                    }
                    flags.only_changed = Some(r.to_string());
                }
                _ if a == "--slow-mo" || a.starts_with("--slow-mo=") => {
                    let v =
                        value_of(&a, "--slow-mo", &mut it, SLOW_MO_EXPECTED)?.unwrap_or_default();
                    let d = parse_slow_mo(&v).ok_or(FlagError::SlowMo { value: v })?;
                    flags.slow_mo = Some(d).filter(|d| !d.is_zero());
                }
                "--retries" => {
                    let v = it.next().ok_or(FlagError::MissingValue {
                        flag: "--retries",
                        expected: "a number, e.g. --retries 2",
                    })?;
                    flags.retries = Some(parse_retries(&v)?);
                }
                _ if a.starts_with("--retries=") => {
                    flags.retries = Some(parse_retries(&a["--retries=".len()..])?);
                }
                "--shard" => {
                    let v = it.next().ok_or(FlagError::MissingValue {
                        flag: "--shard",
                        expected: "a value i/n (the i-th of n shards), e.g. --shard 2/3",
                    })?;
                    flags.shard = Some(Shard::parse(&v, "--shard")?);
                }
                "--rejudge" => flags.rejudge = true,
                "--rejudge-run" => {
                    let v = it.next().ok_or(FlagError::MissingValue {
                        flag: "--rejudge-run",
                        expected: "a run id, e.g. --rejudge-run 20261123T101500123Z-a1b2c3 (the name of a folder in .harshJudge/scenarios/*/runs/)",
                    })?;
                    flags.rejudge_run = Some(parse_run_id(&v)?);
                }
                _ if a.starts_with("--rejudge-run=") => {
                    flags.rejudge_run = Some(parse_run_id(&a["--rejudge-run=".len()..])?);
                }
                _ if a.starts_with("--shard=") => {
                    flags.shard = Some(Shard::parse(&a["--shard=".len()..], "--shard")?);
                }
                _ if a == "--trace" || a.starts_with("--trace=") => {
                    let v = value_of(&a, "--trace", &mut it, "a trace mode, e.g. --trace on")?
                        .unwrap_or_default();
                    flags.trace = TraceMode::parse(&v).ok_or(FlagError::Trace { value: v })?;
                }
                _ if a == "--tag" || a.starts_with("--tag=") => {
                    let v = value_of(&a, "--tag", &mut it, "a tag name, e.g. --tag smoke")?;
                    flags.tags.any_of.push(parse_tag(&v.unwrap_or_default())?);
                }
                _ if a == "--tags" || a.starts_with("--tags=") => {
                    let v = value_of(
                        &a,
                        "--tags",
                        &mut it,
                        "a tag expression, e.g. --tags \"smoke and not slow\"",
                    )?;
                    flags.tags.expression = Some(parse_tags("--tags", &v.unwrap_or_default())?);
                }
                _ if a == "--repeat-each" || a.starts_with("--repeat-each=") => {
                    let v = value_of(&a, "--repeat-each", &mut it, REPEAT_EXPECTED)?;
                    let n = parse_count(
                        "--repeat-each",
                        &v.unwrap_or_default(),
                        1000,
                        REPEAT_EXPECTED,
                    )?;
                    flags.repeat_each = Some(n);
                }
                _ if a == "--max-failures" || a.starts_with("--max-failures=") => {
                    let v = value_of(&a, "--max-failures", &mut it, MAX_FAILURES_EXPECTED)?;
                    let n = parse_count(
                        "--max-failures",
                        &v.unwrap_or_default(),
                        1_000_000,
                        MAX_FAILURES_EXPECTED,
                    )?;
                    flags.max_failures = Some(n);
                }
                _ if a == "--browser" || a.starts_with("--browser=") => {
                    let v = value_of(
                        &a,
                        "--browser",
                        &mut it,
                        "a browser: chromium, firefox or webkit, e.g. --browser firefox",
                    )?
                    .unwrap_or_default();
                    let b = v
                        .parse::<BrowserKind>()
                        .map_err(|_| FlagError::Browser { value: v.clone() })?;
                    if !flags.browsers.contains(&b) {
                        flags.browsers.push(b);
                    }
                }
                _ => rest.push(a),
            }
        }
        if flags.resume && flags.last_failed {
            return Err(FlagError::Conflict {
                first: "--resume",
                second: "--last-failed",
                why: "--resume continues an interrupted invocation, --last-failed reruns what failed",
            });
        }
        if flags.rejudge && flags.rejudge_run.is_some() {
            return Err(FlagError::Conflict {
                first: "--rejudge",
                second: "--rejudge-run",
                why: "--rejudge re-judges the latest run of each selected scenario, --rejudge-run one run; use one of them",
            });
        }
        if flags.rejudging() && flags.resume {
            return Err(FlagError::Conflict {
                first: "--rejudge",
                second: "--resume",
                why: "--rejudge runs nothing (it re-makes verdicts from recorded evidence), --resume continues an interrupted invocation (and re-judges what it left unjudged); use one of them",
            });
        }
        Ok((rest, flags))
    }

    /// Whether this invocation re-judges instead of running (`--rejudge` or `--rejudge-run`).
    pub fn rejudging(&self) -> bool {
        self.rejudge || self.rejudge_run.is_some()
    }

    /// The defaults from `HARSHJUDGE_RETRIES`, `HARSHJUDGE_RESUME`,
    /// `HARSHJUDGE_LAST_FAILED`, `HARSHJUDGE_FLAKY`, `HARSHJUDGE_TAGS`,
    /// `HARSHJUDGE_REPEAT_EACH`, `HARSHJUDGE_MAX_FAILURES`, `HARSHJUDGE_TRACE`,
    /// `HARSHJUDGE_ONLY_CHANGED`, `HARSHJUDGE_HEADED` and `HARSHJUDGE_SLOW_MO`.
    pub fn from_env() -> Result<SuiteFlags, FlagError> {
        Ok(SuiteFlags {
            retries: env("HARSHJUDGE_RETRIES")?
                .map(|v| {
                    retries(&v).ok_or_else(|| SettingError {
                        name: "HARSHJUDGE_RETRIES",
                        expected: format!("expected {RETRIES_EXPECTED}"),
                        value: v,
                    })
                })
                .transpose()?,
            resume: env_bool("HARSHJUDGE_RESUME", false)?,
            last_failed: env_bool("HARSHJUDGE_LAST_FAILED", false)?,
            fail_on_flaky: match env("HARSHJUDGE_FLAKY")?.as_deref() {
                None | Some("pass") => false,
                Some("fail") => true,
                Some(other) => {
                    return Err(SettingError {
                        name: "HARSHJUDGE_FLAKY",
                        value: other.into(),
                        expected: "expected pass (flaky scenarios pass, the default) or fail"
                            .into(),
                    }
                    .into());
                }
            },
            shard: None,
            update_snapshots: env_bool("HARSHJUDGE_UPDATE_SNAPSHOTS", false)?,
            rejudge: false,
            rejudge_run: None,
            extra_filters: Vec::new(),
            tags: TagSelection {
                any_of: Vec::new(),
                expression: env("HARSHJUDGE_TAGS")?
                    .map(|v| parse_tags("HARSHJUDGE_TAGS", &v))
                    .transpose()?,
            },
            repeat_each: env("HARSHJUDGE_REPEAT_EACH")?
                .map(|v| parse_count("HARSHJUDGE_REPEAT_EACH", &v, 1000, REPEAT_EXPECTED))
                .transpose()?,
            max_failures: env("HARSHJUDGE_MAX_FAILURES")?
                .map(|v| {
                    parse_count(
                        "HARSHJUDGE_MAX_FAILURES",
                        &v,
                        1_000_000,
                        MAX_FAILURES_EXPECTED,
                    )
                })
                .transpose()?,
            browsers: Vec::new(),
            trace: TraceMode::from_env()?,
            only_changed: harshjudge_browser::settings::watch::only_changed()?,
            headed: harshjudge_browser::settings::watch::headed()?,
            slow_mo: harshjudge_browser::settings::watch::slow_mo()?.filter(|d| !d.is_zero()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn split(args: &[&str]) -> Result<(Vec<String>, SuiteFlags), FlagError> {
        SuiteFlags::split(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn trace_flag_takes_a_mode_and_a_bad_one_names_the_four() {
        let (rest, f) = split(&["bin", "--trace", "on", "web"]).unwrap();
        assert_eq!(
            (rest, f.trace),
            (vec!["bin".to_string(), "web".into()], TraceMode::On)
        );
        let (_, f) = split(&["bin", "--trace=on-first-retry"]).unwrap();
        assert_eq!(f.trace, TraceMode::OnFirstRetry);
        let e = split(&["bin", "--trace", "sometimes"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--trace \"sometimes\" is invalid")
                && e.contains("off, on, retain-on-failure or on-first-retry"),
            "{e}"
        );
        let e = split(&["bin", "--trace"]).unwrap_err().to_string();
        assert!(e.contains("--trace needs a trace mode"), "{e}");
    }

    #[test]
    fn browser_flags_repeat_and_a_bad_one_is_named() {
        let (rest, f) = split(&["bin", "--browser", "firefox", "web", "--browser=webkit"]).unwrap();
        assert_eq!(rest, ["bin", "web"]);
        assert_eq!(f.browsers, [BrowserKind::Firefox, BrowserKind::Webkit]);
        let (_, f) = split(&["bin", "--browser", "chromium", "--browser", "chromium"]).unwrap();
        assert_eq!(f.browsers, [BrowserKind::Chromium]);
        let e = split(&["bin", "--browser", "safari"]).unwrap_err();
        assert!(
            e.to_string().contains("--browser \"safari\" is invalid"),
            "{e}"
        );
        assert!(split(&["bin", "--browser"]).is_err());
    }

    #[test]
    fn our_flags_are_taken_out_of_libtests() {
        let (rest, f) =
            split(&["bin", "--retries", "2", "web", "--exact", "--last-failed"]).unwrap();
        assert_eq!(rest, ["bin", "web", "--exact"]);
        assert_eq!(f.retries, Some(2));
        assert!(f.last_failed && !f.resume);
        let (_, f) = split(&["bin", "--retries=1", "--fail-on-flaky"]).unwrap();
        assert_eq!((f.retries, f.fail_on_flaky), (Some(1), true));
        let (rest, f) = split(&["bin", "--shard", "2/3", "web"]).unwrap();
        assert_eq!(rest, ["bin", "web"]);
        assert_eq!(f.shard.map(|s| (s.index, s.count)), Some((2, 3)));
        let (_, f) = split(&["bin", "--shard=3/3"]).unwrap();
        assert_eq!(f.shard.map(|s| s.to_string()), Some("3/3".into()));
    }

    #[test]
    fn bad_flags_say_what_is_expected() {
        let e = split(&["bin", "--retries"]).unwrap_err().to_string();
        assert!(e.contains("--retries needs a number"), "{e}");
        let e = split(&["bin", "--retries", "many"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"many\"") && e.contains("0 to 10"), "{e}");
        let e = split(&["bin", "--resume", "--last-failed"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot be combined"), "{e}");
        let e = split(&["bin", "--shard"]).unwrap_err().to_string();
        assert!(e.contains("--shard needs a value i/n"), "{e}");
        let e = split(&["bin", "--shard", "3/2"]).unwrap_err().to_string();
        assert!(
            e.contains("--shard \"3/2\" is invalid") && e.contains("i/n"),
            "{e}"
        );
    }

    #[test]
    fn selection_flags() {
        let (rest, f) = split(&[
            "bin",
            "search",
            "--tag",
            "smoke",
            "--tag=@api",
            "--tags",
            "not (slow or flaky)",
            "--repeat-each",
            "3",
            "--max-failures=2",
            "bulk",
        ])
        .unwrap();
        assert_eq!(rest, ["bin", "search"]);
        assert_eq!(f.extra_filters, ["bulk"]);
        assert_eq!(f.tags.any_of, ["smoke", "@api"]);
        assert_eq!(
            f.tags
                .expression
                .as_ref()
                .map(|(t, e)| (t.as_str(), e.to_string())),
            Some(("not (slow or flaky)", "not (slow or flaky)".to_string()))
        );
        assert!(f.tags.selects(&["api"]) && !f.tags.selects(&["api", "slow"]));
        assert_eq!((f.repeat_each, f.max_failures), (Some(3), Some(2)));
        let (_, f) = split(&["bin", "--tags=@a and b", "--repeat-each=1"]).unwrap();
        assert!(f.tags.selects(&["a", "b"]) && !f.tags.selects(&["a"]));
        assert_eq!(f.repeat_each, Some(1));
    }

    #[test]
    fn bad_selection_flags_say_what_is_wrong() {
        let e = split(&["bin", "--tags", "smoke and"]).unwrap_err();
        assert!(
            matches!(&e, FlagError::Tags { flag: "--tags", source } if source.position == 10),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(
            text.starts_with("--tags: the tag expression \"smoke and\" is invalid at character 10"),
            "{text}"
        );
        let e = split(&["bin", "--tags"]).unwrap_err().to_string();
        assert!(e.contains("--tags needs a tag expression"), "{e}");
        let e = split(&["bin", "--tag", ""]).unwrap_err().to_string();
        assert!(
            e.contains("--tag \"\" is invalid: expected a tag name"),
            "{e}"
        );
        let e = split(&["bin", "--tag", "a b"]).unwrap_err().to_string();
        assert!(e.contains("--tag \"a b\" is invalid"), "{e}");
        for bad in ["0", "1001", "x", "-1"] {
            let e = split(&["bin", "--repeat-each", bad]).unwrap_err();
            assert!(
                matches!(&e, FlagError::Count { flag: "--repeat-each", value, .. } if value == bad),
                "{e:?}"
            );
            assert!(e.to_string().contains("from 1 to 1000"), "{e}");
        }
        let e = split(&["bin", "--max-failures=0"]).unwrap_err().to_string();
        assert!(
            e.contains("--max-failures \"0\" is invalid: expected a number of failed runs"),
            "{e}"
        );
        let e = split(&["bin", "--max-failures"]).unwrap_err().to_string();
        assert!(e.contains("--max-failures needs"), "{e}");
    }

    #[test]
    fn rejudge_flags_are_parsed_and_checked() {
        let (rest, f) = split(&["bin", "--rejudge", "notes"]).unwrap();
        assert_eq!(rest, ["bin", "notes"]);
        assert!(f.rejudge && f.rejudging() && f.rejudge_run.is_none());
        let (_, f) = split(&["bin", "--rejudge-run", "20261123T101500123Z-a1b2c3"]).unwrap();
        assert_eq!(f.rejudge_run.as_deref(), Some("20261123T101500123Z-a1b2c3"));
        let (_, f) = split(&["bin", "--rejudge-run=r1"]).unwrap();
        assert!(f.rejudging() && !f.rejudge);
        let e = split(&["bin", "--rejudge-run"]).unwrap_err().to_string();
        assert!(e.contains("--rejudge-run needs a run id"), "{e}");
        let e = split(&["bin", "--rejudge-run", "../etc"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--rejudge-run \"../etc\" is invalid"), "{e}");
        let e = split(&["bin", "--rejudge", "--resume"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot be combined"), "{e}");
        let e = split(&["bin", "--rejudge", "--rejudge-run", "r1"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot be combined"), "{e}");
    }

    #[test]
    fn a_caller_matches_on_what_was_wrong() {
        match split(&["bin", "--shard", "3/2"]) {
            Err(FlagError::Shard(ShardError { flag, value })) => {
                assert_eq!((flag, value.as_str()), ("--shard", "3/2"));
            }
            other => panic!("{other:?}"),
        }
        match split(&["bin", "--retries=many"]) {
            Err(FlagError::Retries { value }) => assert_eq!(value, "many"),
            other => panic!("{other:?}"),
        }
        match split(&["bin", "--rejudge-run"]) {
            Err(FlagError::MissingValue { flag, .. }) => assert_eq!(flag, "--rejudge-run"),
            other => panic!("{other:?}"),
        }
        let e = split(&["bin", "--rejudge-run", "../etc"]).unwrap_err();
        assert!(
            matches!(&e, FlagError::RunId { value, .. } if value == "../etc"),
            "{e:?}"
        );
        // The run id's own error is the cause.
        assert!(std::error::Error::source(&e).is_some());
        match split(&["bin", "--resume", "--last-failed"]) {
            Err(FlagError::Conflict { first, second, .. }) => {
                assert_eq!((first, second), ("--resume", "--last-failed"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn watch_flags_and_only_changed() {
        let (rest, f) = split(&["bin", "--headed", "web", "--slow-mo", "200"]).unwrap();
        assert_eq!(rest, ["bin", "web"]);
        assert!(f.headed);
        assert_eq!(f.slow_mo, Some(std::time::Duration::from_millis(200)));
        let (_, f) = split(&["bin", "--slow-mo=0"]).unwrap();
        assert_eq!(f.slow_mo, None);
        let (rest, f) = split(&["bin", "--only-changed", "web"]).unwrap();
        assert_eq!(rest, ["bin", "web"]);
        assert_eq!(f.only_changed.as_deref(), Some("HEAD"));
        let (_, f) = split(&["bin", "--only-changed=origin/main"]).unwrap();
        assert_eq!(f.only_changed.as_deref(), Some("origin/main"));
    }

    #[test]
    fn bad_watch_flags_name_the_accepted_forms() {
        let e = split(&["bin", "--slow-mo", "abc"]).unwrap_err();
        assert!(
            matches!(&e, FlagError::SlowMo { value } if value == "abc"),
            "{e:?}"
        );
        let text = e.to_string();
        assert!(
            text.contains("--slow-mo \"abc\" is invalid")
                && text.contains("milliseconds from 0 to 60000"),
            "{text}"
        );
        let e = split(&["bin", "--slow-mo"]).unwrap_err().to_string();
        assert!(
            e.contains("--slow-mo needs a number of milliseconds"),
            "{e}"
        );
        let e = split(&["bin", "--only-changed="]).unwrap_err().to_string();
        assert!(e.contains("needs a git ref"), "{e}");
    }
}
