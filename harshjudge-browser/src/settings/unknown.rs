//! The variables named `HARSHJUDGE_*` that are no setting: a warning for
//! each, naming the closest known one.

use super::VARIABLES;

/// Variables named `HARSHJUDGE_*` that are no setting of a run, so no warning
/// names them unknown: read at build time or by this workspace's own examples
/// and tests. The rule: a build-time variable or an example's is listed here
/// by name; every variable of the workspace's tests starts with
/// [`TEST_PREFIX`]. A test checks every `HARSHJUDGE_*` name of the workspace
/// against [`VARIABLES`], this list and that prefix.
pub const NOT_SETTINGS: &[&str] = &[
    // The demo example's failure on purpose (docs/src/introduction.md, The demo).
    "HARSHJUDGE_DEMO_FAIL",
];

/// The guide's chapter whose table lists every setting (a unit test reads it).
pub const SETTINGS_CHAPTER: &str = "docs/src/settings.md";

/// The prefix of the variables the workspace's own tests read
/// (`HARSHJUDGE_TEST_PYTHON`, …): never warned about.
pub const TEST_PREFIX: &str = "HARSHJUDGE_TEST_";

/// One warning per `HARSHJUDGE_*` variable of the environment that is no
/// setting ([`VARIABLES`], [`NOT_SETTINGS`], [`TEST_PREFIX`]): a typo such
/// as `HARSHJUDGE_BASEURL` is otherwise ignored without a word. Names the
/// closest known variable when one is close.
pub fn unknown_variables() -> Vec<String> {
    let mut names: Vec<String> = std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| k.starts_with("HARSHJUDGE_"))
        .collect();
    names.sort();
    names.iter().filter_map(|n| unknown_variable(n)).collect()
}

/// The warning for `name` when it is no known variable, else `None`.
pub(super) fn unknown_variable(name: &str) -> Option<String> {
    let known = VARIABLES
        .iter()
        .map(|v| v.name)
        .chain(NOT_SETTINGS.iter().copied());
    if name.starts_with(TEST_PREFIX) || known.clone().any(|k| k == name) {
        return None;
    }
    let closest = known
        .map(|k| (edit_distance(name, k), k))
        .min()
        .filter(|(d, k)| *d <= 3.max(k.len() / 5));
    let hint = match closest {
        Some((_, k)) => format!("did you mean {k}?"),
        None => format!(
            "the settings are listed in the guide's Settings chapter \
             ({SETTINGS_CHAPTER} in harshjudge's repository)"
        ),
    };
    Some(format!(
        "warning: {name} is not a harshjudge setting and is ignored; {hint}"
    ))
}

/// Levenshtein distance of two ASCII-ish names (by `char`).
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
