//! What teaches an agent the workflow: the skill folder that `init-agent`
//! writes (`SKILL.md` and one reference per workflow), the same workflows as
//! MCP prompts, and the server's `instructions`. One text per workflow
//! ([`texts`]) feeds all three, so they cannot say different things.

pub mod texts;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

/// The skill's name (its folder under `.claude/skills/`).
pub const SKILL_NAME: &str = "harshjudge";
/// Where `init-agent` puts the skill folder by default, relative to the project.
pub const DEFAULT_SKILLS_DIR: &str = ".claude/skills";
/// The MCP client configuration `init-agent` writes, relative to the project.
pub const MCP_JSON: &str = ".mcp.json";
/// The server's name in `.mcp.json`.
pub const SERVER_NAME: &str = "harshjudge";
/// What the skill's texts are written for: a server that lists the start set
/// and lists more on `enable_tools` (they say so). `init-agent` writes it
/// into `.mcp.json` as `--tools`, so a `HARSHJUDGE_MCP_TOOLS` in the client's
/// environment cannot make the server and the skill disagree.
pub const SKILL_TOOLS: crate::tool_sets::Tools = crate::tool_sets::Tools::Start;

/// An argument of a workflow's prompt.
#[derive(Debug, Clone, Copy)]
pub struct PromptArg {
    /// Its name in `prompts/get`'s `arguments`.
    pub name: &'static str,
    /// What it is.
    pub description: &'static str,
    /// Whether `prompts/get` needs it.
    pub required: bool,
    /// What its value must be.
    pub kind: ArgKind,
}

/// What a prompt argument's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// A scenario slug (the store's rule).
    Slug,
    /// Any text of 1 to 500 characters on one line.
    Text,
}

/// One workflow: a reference file of the skill and an MCP prompt.
#[derive(Debug, Clone, Copy)]
pub struct Workflow {
    /// The prompt's name (`hj-…`).
    pub prompt: &'static str,
    /// The reference's file name under `references/`.
    pub file: &'static str,
    /// A title.
    pub title: &'static str,
    /// When to use it (one line).
    pub when: &'static str,
    /// The prompt's arguments.
    pub arguments: &'static [PromptArg],
    /// The text.
    pub body: &'static str,
}

const SCENARIO_REQUIRED: PromptArg = PromptArg {
    name: "scenario",
    description: "The scenario's slug (getStatus lists them).",
    required: true,
    kind: ArgKind::Slug,
};
const SCENARIO_OPTIONAL: PromptArg = PromptArg {
    required: false,
    description: "Only this scenario (its slug); default: every scenario.",
    ..SCENARIO_REQUIRED
};

/// Every workflow, in the order the skill lists them.
pub const WORKFLOWS: &[Workflow] = &[
    Workflow {
        prompt: "hj-setup",
        file: "setup.md",
        title: "Set up a project",
        when: "once per project, before anything else",
        arguments: &[
            PromptArg {
                name: "projectName",
                description: "The project's name.",
                required: false,
                kind: ArgKind::Text,
            },
            PromptArg {
                name: "baseUrl",
                description: "Where the app under test listens, e.g. http://127.0.0.1:3000.",
                required: false,
                kind: ArgKind::Text,
            },
        ],
        body: texts::SETUP,
    },
    Workflow {
        prompt: "hj-write-scenario",
        file: "write-scenario.md",
        title: "Write a scenario in Rust from an exploration",
        when: "a new end-to-end test: explore, record, export",
        arguments: &[PromptArg {
            name: "goal",
            description: "What the scenario checks, in words (e.g. \"add three todos and complete one\").",
            required: true,
            kind: ArgKind::Text,
        }],
        body: texts::WRITE_SCENARIO,
    },
    Workflow {
        prompt: "hj-run",
        file: "run.md",
        title: "Run a scenario and read its evidence",
        when: "to run a scenario, by cargo test or step by step through MCP",
        arguments: &[SCENARIO_REQUIRED],
        body: texts::RUN,
    },
    Workflow {
        prompt: "hj-judge",
        file: "judge.md",
        title: "Judge pending steps",
        when: "steps whose expectation is in words wait for a verdict",
        arguments: &[SCENARIO_OPTIONAL],
        body: texts::JUDGE,
    },
    Workflow {
        prompt: "hj-heal",
        file: "heal.md",
        title: "Heal a failing scenario",
        when: "a scenario fails: fix a locator, never an expectation",
        arguments: &[SCENARIO_REQUIRED],
        body: texts::HEAL,
    },
    Workflow {
        prompt: "hj-status",
        file: "status.md",
        title: "Status",
        when: "what passes, what fails, what waits for a verdict",
        arguments: &[SCENARIO_OPTIONAL],
        body: texts::STATUS,
    },
];

/// The workflow whose prompt is `name`.
pub fn workflow(name: &str) -> Option<&'static Workflow> {
    WORKFLOWS.iter().find(|w| w.prompt == name)
}

/// `SKILL.md`: front matter, the overview, and a table of the workflows with
/// their references.
pub fn skill_md() -> String {
    let mut s = format!(
        "---\nname: {SKILL_NAME}\ndescription: {}\n---\n\n{}\n## Workflows\n\n\
         Read the reference of the task at hand (the same text is the MCP prompt named \
         beside it).\n\n| task | when | reference | prompt |\n| --- | --- | --- | --- |\n",
        texts::SKILL_DESCRIPTION,
        texts::SKILL_INTRO
    );
    for w in WORKFLOWS {
        s.push_str(&format!(
            "| {} | {} | [references/{f}](references/{f}) | {} |\n",
            w.title,
            w.when,
            w.prompt,
            f = w.file
        ));
    }
    s
}

/// A reference file: the workflow's title and text.
pub fn reference_md(w: &Workflow) -> String {
    let mut s = format!("# {}\n\nUse: {}.", w.title, w.when);
    if !w.arguments.is_empty() {
        s.push_str(" Inputs: ");
        let args: Vec<String> = w
            .arguments
            .iter()
            .map(|a| format!("{} ({})", a.name, a.description.trim_end_matches('.')))
            .collect();
        s.push_str(&args.join("; "));
        s.push('.');
    }
    s.push_str("\n\n");
    s.push_str(w.body);
    s
}

/// Why `prompts/get` cannot give a prompt.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    /// No prompt has this name.
    #[error("unknown prompt {name:?}: the prompts are {}", names())]
    Unknown {
        /// The name asked for.
        name: String,
    },
    /// A required argument is missing.
    #[error("prompt {prompt} needs the argument {argument:?} ({description})")]
    Missing {
        /// The prompt.
        prompt: &'static str,
        /// The argument.
        argument: &'static str,
        /// What it is.
        description: &'static str,
    },
    /// An argument the prompt does not take.
    #[error("prompt {prompt} takes no argument {argument:?}; it takes: {accepted}")]
    UnknownArgument {
        /// The prompt.
        prompt: &'static str,
        /// The argument given.
        argument: String,
        /// The arguments it takes.
        accepted: String,
    },
    /// An argument's value does not fit.
    #[error("prompt {prompt}: argument {argument} = {value:?} {why}")]
    BadValue {
        /// The prompt.
        prompt: &'static str,
        /// The argument.
        argument: &'static str,
        /// The value (at most 100 characters of it).
        value: String,
        /// What it must be.
        why: String,
    },
}

fn names() -> String {
    WORKFLOWS
        .iter()
        .map(|w| w.prompt)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The text of prompt `name` with `args` (string values): the task's inputs
/// on top, then the workflow.
pub fn prompt_text(name: &str, args: &Map<String, Value>) -> Result<String, PromptError> {
    let w = workflow(name).ok_or_else(|| PromptError::Unknown {
        name: name.chars().take(100).collect(),
    })?;
    for key in args.keys() {
        if !w.arguments.iter().any(|a| a.name == key) {
            return Err(PromptError::UnknownArgument {
                prompt: w.prompt,
                argument: key.chars().take(100).collect(),
                accepted: if w.arguments.is_empty() {
                    "none".into()
                } else {
                    w.arguments
                        .iter()
                        .map(|a| a.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            });
        }
    }
    let mut inputs = Vec::new();
    for a in w.arguments {
        let value = match args.get(a.name) {
            None | Some(Value::Null) => {
                if a.required {
                    return Err(PromptError::Missing {
                        prompt: w.prompt,
                        argument: a.name,
                        description: a.description,
                    });
                }
                continue;
            }
            Some(Value::String(s)) => s.as_str(),
            Some(other) => {
                return Err(PromptError::BadValue {
                    prompt: w.prompt,
                    argument: a.name,
                    value: other.to_string().chars().take(100).collect(),
                    why: "is not a string (prompt arguments are strings)".into(),
                });
            }
        };
        let bad = |why: String| PromptError::BadValue {
            prompt: w.prompt,
            argument: a.name,
            value: value.chars().take(100).collect(),
            why,
        };
        match a.kind {
            ArgKind::Slug => {
                harshjudge_store::store::Slug::new(value).map_err(|e| bad(format!("({e})")))?;
            }
            ArgKind::Text => {
                let n = value.chars().count();
                if n == 0 || n > 500 || value.contains(['\n', '\r']) {
                    return Err(bad(format!(
                        "must be one line of 1 to 500 characters (got {n} characters)"
                    )));
                }
            }
        }
        inputs.push(format!("- {}: {value}", a.name));
    }
    let mut s = String::new();
    if !inputs.is_empty() {
        s.push_str("Inputs:\n");
        s.push_str(&inputs.join("\n"));
        s.push_str("\n\n");
    }
    s.push_str(w.body);
    Ok(s)
}

/// What `init-agent` did to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileStatus {
    /// It did not exist.
    Created,
    /// It held something else.
    Updated,
    /// It already held this.
    Unchanged,
}

/// Why `init-agent` wrote nothing (or stopped).
#[derive(Debug, thiserror::Error)]
pub enum InitAgentError {
    /// A skill file exists with other content and `--force` was not given.
    #[error(
        "{} exists and differs from the skill's text: pass --force to replace it (nothing was written)",
        path.display()
    )]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// `.mcp.json` is not a JSON object with an object `mcpServers`.
    #[error(
        "{} is not an MCP client configuration ({why}): fix or remove it (nothing was written)",
        path.display()
    )]
    BadMcpJson {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// A path to write is a symbolic link.
    #[error("{} is a symbolic link: init-agent does not write through links (nothing was written)", path.display())]
    Symlink {
        /// The link.
        path: PathBuf,
    },
    /// The skills folder is not inside the project.
    #[error("--dir {} must be a relative path inside the project, without '..'", dir.display())]
    OutsideProject {
        /// The folder given.
        dir: PathBuf,
    },
    /// Reading or writing failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

impl InitAgentError {
    /// The stable code: a failed read or write is `INTERNAL`, the rest bad input.
    pub fn code(&self) -> crate::error::Code {
        match self {
            InitAgentError::Io { .. } => crate::error::Code::Internal,
            _ => crate::error::Code::InvalidInput,
        }
    }
}

/// What `init-agent` is asked to do.
#[derive(Debug, Clone)]
pub struct InitAgent {
    /// The skills folder, relative to the project (default [`DEFAULT_SKILLS_DIR`]).
    pub skills_dir: PathBuf,
    /// The command `.mcp.json` starts the server with.
    pub command: String,
    /// Replace skill files that differ.
    pub force: bool,
}

impl Default for InitAgent {
    fn default() -> Self {
        InitAgent {
            skills_dir: PathBuf::from(DEFAULT_SKILLS_DIR),
            command: "harshjudge-mcp".into(),
            force: false,
        }
    }
}

/// The files of the skill folder: (path relative to the folder, content).
pub fn skill_files() -> Vec<(String, String)> {
    let mut files = vec![("SKILL.md".to_string(), skill_md())];
    for w in WORKFLOWS {
        files.push((format!("references/{}", w.file), reference_md(w)));
    }
    files
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> InitAgentError + '_ {
    move |source| InitAgentError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Refuses a symbolic link at `path` or at any folder between `root` and it.
fn no_link(root: &Path, rel: &Path) -> Result<(), InitAgentError> {
    let mut p = root.to_path_buf();
    for c in rel.components() {
        p.push(c);
        if let Ok(m) = std::fs::symlink_metadata(&p)
            && m.file_type().is_symlink()
        {
            return Err(InitAgentError::Symlink { path: p });
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file and a rename.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), InitAgentError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        io(path)(e)
    })
}

/// `.mcp.json` with the server's entry added (or replaced); other servers kept.
fn mcp_json(path: &Path, root: &Path, command: &str) -> Result<(String, bool), InitAgentError> {
    let bad = |why: String| InitAgentError::BadMcpJson {
        path: path.to_path_buf(),
        why,
    };
    let mut doc = match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str::<Value>(&text).map_err(|e| bad(e.to_string()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) => return Err(io(path)(e)),
    };
    let existed = path.exists();
    let obj = doc
        .as_object_mut()
        .ok_or_else(|| bad("the top level is not an object".into()))?;
    let servers = obj
        .entry("mcpServers")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or_else(|| bad("\"mcpServers\" is not an object".into()))?;
    servers.insert(
        SERVER_NAME.into(),
        json!({
            "command": command,
            "args": ["--cwd", root.to_string_lossy(), "--tools", SKILL_TOOLS.as_str()],
        }),
    );
    let mut text = serde_json::to_string_pretty(&doc).expect("JSON serializes");
    text.push('\n');
    Ok((text, existed))
}

/// Writes the skill folder and `.mcp.json` (starting the server with the
/// tools the skill is written for, [`SKILL_TOOLS`]) into the project at `root`. Checks
/// everything first: when it fails, nothing was written.
pub fn init_agent(root: &Path, opts: &InitAgent) -> Result<Value, InitAgentError> {
    use std::path::Component;
    if opts.skills_dir.is_absolute()
        || opts
            .skills_dir
            .components()
            .any(|c| !matches!(c, Component::Normal(_)))
    {
        return Err(InitAgentError::OutsideProject {
            dir: opts.skills_dir.clone(),
        });
    }
    let folder = opts.skills_dir.join(SKILL_NAME);
    let mut plan: Vec<(PathBuf, String, FileStatus)> = Vec::new();
    for (rel, text) in skill_files() {
        let rel = folder.join(rel);
        no_link(root, &rel)?;
        let path = root.join(&rel);
        let status = match std::fs::read(&path) {
            Ok(old) if old == text.as_bytes() => FileStatus::Unchanged,
            Ok(_) if !opts.force => return Err(InitAgentError::Exists { path }),
            Ok(_) => FileStatus::Updated,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => FileStatus::Created,
            Err(e) => return Err(io(&path)(e)),
        };
        plan.push((rel, text, status));
    }
    no_link(root, Path::new(MCP_JSON))?;
    let mcp_path = root.join(MCP_JSON);
    let (text, existed) = mcp_json(&mcp_path, root, &opts.command)?;
    let status = match std::fs::read(&mcp_path) {
        Ok(old) if old == text.as_bytes() => FileStatus::Unchanged,
        _ if existed => FileStatus::Updated,
        _ => FileStatus::Created,
    };
    plan.push((PathBuf::from(MCP_JSON), text, status));
    let mut files = Vec::new();
    for (rel, text, status) in plan {
        if status != FileStatus::Unchanged {
            write_atomic(&root.join(&rel), text.as_bytes())?;
        }
        files.push(json!({"path": rel.to_string_lossy(), "status": status}));
    }
    Ok(json!({
        "skill": folder.to_string_lossy(),
        "prompts": WORKFLOWS.iter().map(|w| w.prompt).collect::<Vec<_>>(),
        "files": files,
    }))
}
