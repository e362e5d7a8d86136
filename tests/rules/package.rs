//! The published crates (harshjudge-macros, harshjudge-browser,
//! harshjudge-store, harshjudge, harshjudge-mcp)
//! package, and build from their packaged files alone (issue 20.9): `cargo
//! package`, the `.crate` files unpacked, then a crate made of README.md's
//! install block and its first scenario (`tests/shop.rs`) built against them,
//! its `--list` compared with the README's.
//!
//! The build shares the tests' target directory (`support::target_dir`) and
//! the workspace's Cargo.lock, offline: the registry crates are the ones
//! already downloaded and, with harshjudge-mcp beside harshjudge, built with
//! the features the workspace's own tests unify, so only the five packaged
//! crates and the scenario compile here.

use crate::support;
use crate::support::markdown;

use std::path::{Path, PathBuf};
use std::process::Command;

const CRATES: [&str; 5] = [
    "harshjudge-macros",
    "harshjudge-browser",
    "harshjudge-store",
    "harshjudge",
    "harshjudge-mcp",
];

fn cargo(dir: &Path, args: &[&str]) -> String {
    let out = support::rlibs::fresh_env(&mut Command::new(env!("CARGO")))
        .current_dir(dir)
        .args(args)
        .env("CARGO_TARGET_DIR", support::target_dir())
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {} (in {}) failed:\n{}",
        args.join(" "),
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every file of a `.crate`, relative to its top folder.
fn crate_files(file: &Path) -> Vec<String> {
    let out = Command::new("tar").arg("tzf").arg(file).output().unwrap();
    assert!(out.status.success(), "tar tzf {}", file.display());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once('/').map(|(_, rest)| rest.to_string()))
        .filter(|l| !l.is_empty())
        .collect()
}

/// The `[profile.*]` tables of a manifest, as written.
fn profiles(manifest: &str) -> String {
    let mut kept = String::new();
    let mut inside = false;
    for line in manifest.lines() {
        if line.starts_with('[') {
            inside = line.starts_with("[profile.");
        }
        if inside {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    kept
}

fn version() -> String {
    let manifest = std::fs::read_to_string(support::workspace().join("Cargo.toml")).unwrap();
    let line = manifest
        .lines()
        .find(|l| l.starts_with("version = "))
        .expect("[workspace.package] version");
    line.trim_start_matches("version = ")
        .trim_matches('"')
        .to_string()
}

#[test]
fn the_packaged_crates_build_the_readme_scenario() {
    let started = std::time::Instant::now();
    let ws = support::workspace();
    let mut args = vec!["package", "--offline", "--allow-dirty", "--no-verify"];
    for c in CRATES {
        args.extend(["-p", c]);
    }
    cargo(&ws, &args);
    let packaged = support::target_dir().join("package");
    // A folder of fixed name, so that the next run rebuilds in place.
    let root = support::target_dir().join("packaged");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let version = version();
    let mut dirs = vec![];
    for c in CRATES {
        let file = packaged.join(format!("{c}-{version}.crate"));
        let files = crate_files(&file);
        for f in &files {
            assert!(
                !f.starts_with("tests/") && !f.starts_with("benches/") && !f.contains("snapshots/"),
                "{c}: test data is packaged: {f}"
            );
        }
        assert!(files.contains(&"README.md".to_string()), "{c}: {files:?}");
        if c == "harshjudge-browser" {
            for asset in ["roles", "names", "engine", "actions", "assertions"] {
                let js = format!("src/injected/{asset}.js");
                assert!(files.contains(&js), "{c}: {js} is not packaged");
            }
        }
        if c == "harshjudge-store" {
            let page = "src/report/html/page.html".to_string();
            assert!(files.contains(&page), "{c}: {page} is not packaged");
        }
        // `m`: the files get the time of unpacking, not the archive's. With
        // the archive's (older than the last build here), cargo took a crate
        // whose sources changed since for fresh, and built the user's crate
        // against the previous macros.
        let out = Command::new("tar")
            .arg("xzmf")
            .arg(&file)
            .arg("-C")
            .arg(&root)
            .output()
            .unwrap();
        assert!(out.status.success(), "unpacking {}", file.display());
        dirs.push((c, root.join(format!("{c}-{version}"))));
    }

    // The user's crate: README.md's install block and first scenario.
    let readme = std::fs::read_to_string(ws.join("README.md")).unwrap();
    let blocks = markdown::code_blocks(&readme);
    let install = markdown::block_after(&blocks, &readme, "## Writing a scenario", "toml");
    let shop = markdown::block_after(&blocks, &readme, "## Writing a scenario", "rust");
    let listed =
        markdown::block_after(&blocks, &readme, "cargo test --test shop -- --list", "text");
    let dep = "harshjudge = \"0.1\"\n";
    assert!(
        install.code.contains(dep),
        "README.md:{}: {dep}",
        install.fence
    );
    // harshjudge-mcp beside it: its packaged files build in the same graph
    // (and the registry crates with the features of the workspace's tests).
    let install = format!(
        "{}\n[dependencies]\nharshjudge-mcp = \"0.1\"\n",
        install.code
    );
    let mut patch = String::from("[patch.crates-io]\n");
    for (c, dir) in &dirs {
        patch.push_str(&format!(
            "{c} = {{ path = {:?} }}\n",
            dir.display().to_string()
        ));
    }
    // The workspace's profiles: with cargo's defaults instead (full debug
    // information for every crate), the registry crates' fingerprints
    // differed from the tests' build, and every one of them compiled again
    // here (tokio, ring, fantoccini …: most of this test's minutes).
    let profiles = profiles(&std::fs::read_to_string(ws.join("Cargo.toml")).unwrap());
    assert!(
        profiles.contains("[profile.dev"),
        "the workspace's Cargo.toml sets the dev profile: {profiles:?}"
    );
    let user = user_crate(&root.join("shop"), &install, &patch, &profiles);
    std::fs::create_dir_all(user.join("tests")).unwrap();
    std::fs::write(user.join("tests/shop.rs"), &shop.code).unwrap();

    // The registry crates compile here only where the user's crate unifies
    // other features than the tests' build (about 20 of them: tokio, hyper,
    // serde_json …), and then with the workspace's profile: with cargo's
    // defaults (full debug information) every registry crate compiled again.
    let built = cargo(
        &user,
        &[
            "test",
            "--offline",
            "--no-run",
            "--test",
            "shop",
            "--message-format=json",
        ],
    );
    let with_debuginfo: Vec<String> = built
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["fresh"] == false)
        .filter(|m| m["package_id"].as_str().is_some_and(|id| id.starts_with("registry+")))
        .filter(|m| !matches!(&m["profile"]["debuginfo"], serde_json::Value::Number(n) if n.as_u64() == Some(0)))
        .filter_map(|m| m["package_id"].as_str().map(String::from))
        .collect();
    assert!(
        with_debuginfo.is_empty(),
        "the build of the packaged crates compiled registry crates with \
         debug information: not with the workspace's profiles, which their \
         build in the tests' target folder would share: {with_debuginfo:?}"
    );
    let list = cargo(
        &user,
        &["test", "--offline", "-q", "--test", "shop", "--", "--list"],
    );
    assert_eq!(
        list.trim(),
        listed.code.trim(),
        "README.md:{}: `--list` of the README's scenario",
        listed.fence
    );
    // The MCP server's binary, from its packaged files too.
    let built = cargo(
        &user,
        &[
            "build",
            "--offline",
            "-p",
            "harshjudge-mcp",
            "--bins",
            "--message-format=json",
        ],
    );
    let bin = built
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the harshjudge-mcp binary");
    let help = Command::new(&bin).arg("--help").output().unwrap();
    assert!(help.status.success(), "{}: {help:?}", bin.display());

    standalone_browser(&root, &patch, &profiles);
    eprintln!("packaged, unpacked and built in {:.1?}", started.elapsed());
}

/// A user's crate at `dir`, named after it: `dependencies` (a manifest's
/// `[dependencies]` table, as a README's install block writes it) taken from
/// the packaged crates (`patch`), built with the workspace's `profiles` and
/// Cargo.lock. Returns `dir`.
fn user_crate(dir: &Path, dependencies: &str, patch: &str, profiles: &str) -> PathBuf {
    let name = dir.file_name().unwrap().to_string_lossy();
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             {dependencies}\n[workspace]\n\n{patch}\n{profiles}"
        ),
    )
    .unwrap();
    std::fs::copy(
        support::workspace().join("Cargo.lock"),
        dir.join("Cargo.lock"),
    )
    .unwrap();
    dir.to_path_buf()
}

/// The browser crate on its own (issue 43, point 1): a program made of
/// harshjudge-browser's README (its install block and its program), built
/// from the packaged files with no harshjudge in its graph, runs against the
/// demo app and prints what the page shows.
fn standalone_browser(root: &Path, patch: &str, profiles: &str) {
    let ws = support::workspace();
    let readme_path = ws.join("harshjudge-browser/README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let blocks = markdown::code_blocks(&readme);
    let install = markdown::block_after(&blocks, &readme, "# harshjudge-browser", "toml");
    let program = markdown::block_after(&blocks, &readme, "# harshjudge-browser", "rust");
    let app = user_crate(&root.join("standalone"), &install.code, patch, profiles);
    std::fs::create_dir_all(app.join("src")).unwrap();
    std::fs::write(app.join("src/main.rs"), &program.code).unwrap();
    let built = cargo(&app, &["build", "--offline", "--message-format=json"]);
    let packages: Vec<String> = built
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .filter_map(|m| m["target"]["name"].as_str().map(String::from))
        .collect();
    assert!(
        packages.iter().any(|p| p == "harshjudge_browser")
            && !packages
                .iter()
                .any(|p| p == "harshjudge" || p == "harshjudge_macros"),
        "{}: the program builds on harshjudge-browser alone: {packages:?}",
        readme_path.display()
    );
    let bin = built
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the program");
    let base = demo_app::start_in_background().expect("the demo app");
    let out = Command::new(&bin).arg(&base).output().unwrap();
    assert!(
        out.status.success(),
        "{} (the program of {}) failed: {}",
        bin.display(),
        readme_path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "1 item left",
        "{}: what the program prints",
        readme_path.display()
    );
}
