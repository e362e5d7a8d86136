//! The tool sets: which tools `tools/list` names at first ([`Tools`]:
//! `--tools`, `HARSHJUDGE_MCP_TOOLS`) and which come with `enable_tools`
//! ([`TOOL_SETS`]). The server lists by them; the skill says which its texts
//! are written for.

/// The tool that lists more tools (with [`Tools::Start`] only `start` is listed).
pub const ENABLE_TOOLS: &str = "enable_tools";

/// The tool sets, in order, with their tools. With [`Tools::Start`], `start` is
/// listed from the beginning; the others when `enable_tools` asks for them.
/// Every tool can be called whether listed or not.
pub const TOOL_SETS: &[(&str, &[&str])] = &[
    (
        "start",
        &[
            "browser_navigate",
            "browser_snapshot",
            "browser_click",
            "browser_type",
            "browser_expect",
            "browser_close",
            ENABLE_TOOLS,
        ],
    ),
    ("project", &["initProject", "getStatus"]),
    (
        "run",
        &[
            "startRun",
            "recordEvidence",
            "completeStep",
            "completeRun",
            "getRunState",
            "getStepTrace",
            "pruneRuns",
        ],
    ),
    (
        "scenario",
        &["createScenario", "saveScenario", "toggleStar"],
    ),
    ("judge", &["getPendingJudgments", "recordVerdict", "heal"]),
    (
        "browser",
        &[
            "browser_launch",
            "browser_route",
            "browser_handle_dialog",
            "browser_press",
            "browser_wait_for",
            "browser_screenshot",
            "browser_console",
            "browser_network",
            "run_steps",
        ],
    ),
    (
        "record",
        &[
            "record_start",
            "record_stop",
            "record_list",
            "record_get",
            "record_delete",
            "record_replay",
            "record_export",
        ],
    ),
    (
        "knowledge",
        &[
            "knowledge_search",
            "knowledge_similar",
            "discoverTree",
            "discoverSearch",
        ],
    ),
    (
        "dashboard",
        &["openDashboard", "closeDashboard", "getDashboardStatus"],
    ),
];

/// The set `tool` belongs to.
pub fn tool_set(tool: &str) -> Option<&'static str> {
    TOOL_SETS
        .iter()
        .find(|(_, tools)| tools.contains(&tool))
        .map(|(set, _)| *set)
}

/// Which tools `tools/list` gives at first (`--tools`, `HARSHJUDGE_MCP_TOOLS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tools {
    /// The start set (7 tools); `enable_tools` lists more. What the skill
    /// `init-agent` writes is written for, and the default.
    Start,
    /// Every tool, as the original HarshJudge listed them: what a client
    /// configured for the original (and its skill) needs.
    All,
}

impl Tools {
    /// The accepted values, as errors name them.
    pub const ACCEPTED: &'static str = "all or start";

    /// `all` or `start` (any case, blanks around ignored).
    pub fn parse(value: &str) -> Option<Tools> {
        match value.trim().to_ascii_lowercase().as_str() {
            "start" => Some(Tools::Start),
            "all" => Some(Tools::All),
            _ => None,
        }
    }

    /// The value as written on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Tools::Start => "start",
            Tools::All => "all",
        }
    }
}
