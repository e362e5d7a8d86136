//! Checks of the workspace itself: dependencies and lints every crate shares.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `unsafe-libyaml` is unmaintained (RUSTSEC-2024-0449): no crate of the
/// workspace may pull it in, for any target (Cargo.lock lists them all).
#[test]
fn no_unmaintained_yaml_parser_in_the_lockfile() {
    let lock = std::fs::read_to_string(root().join("Cargo.lock")).unwrap();
    for name in ["unsafe-libyaml", "serde_yaml", "serde_yaml_ng", "serde_yml"] {
        assert!(
            !lock.contains(&format!("name = \"{name}\"\n")),
            "Cargo.lock holds {name}: read YAML through harshjudge::store::yaml::from_str (serde-saphyr)"
        );
    }
    // nor raw libc as a direct dependency: rustix and std cover our calls.
    for manifest in manifests() {
        let text = std::fs::read_to_string(&manifest).unwrap();
        assert!(
            !text.lines().any(|l| l.starts_with("libc ")),
            "{}: use rustix (or std) instead of libc",
            manifest.display()
        );
    }
}

fn manifests() -> Vec<std::path::PathBuf> {
    [
        "",
        "harshjudge",
        "harshjudge-macros",
        "harshjudge-mcp",
        "examples/demo-app",
        "xtask",
    ]
    .iter()
    .map(|d| root().join(d).join("Cargo.toml"))
    .collect()
}

/// Every crate takes `[workspace.lints]` (missing_docs, clippy's set).
#[test]
fn every_crate_uses_the_workspace_lints() {
    let root_manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    assert!(root_manifest.contains("[workspace.lints.rust]\nmissing_docs = "));
    assert!(root_manifest.contains("undocumented_unsafe_blocks = \"warn\""));
    let members = root_manifest
        .split("members = [")
        .nth(1)
        .and_then(|m| m.split(']').next())
        .unwrap()
        .split(',')
        .count();
    assert_eq!(
        manifests().len(),
        members,
        "a member is missing from this test"
    );
    for manifest in manifests() {
        let text = std::fs::read_to_string(&manifest).unwrap();
        assert!(
            text.contains("\n[lints]\nworkspace = true\n"),
            "{}: add `[lints] workspace = true`",
            manifest.display()
        );
    }
}
