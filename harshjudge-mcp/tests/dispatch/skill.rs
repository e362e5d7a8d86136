//! The skill, the prompts and the instructions (issue 24.1): every tool,
//! argument, prompt and `.harshJudge/` path they mention exists (against
//! `tools/list` and a real tree the tools wrote), so they cannot drift;
//! `init-agent` writes the skill folder and `.mcp.json`; the real Python MCP
//! SDK lists and gets every prompt from the server `.mcp.json` starts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use harshjudge_mcp::{Context, call, skill};
use serde_json::{Map, Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_harshjudge-mcp");

/// The inline code spans of a markdown text (fenced blocks left out).
fn code_spans(text: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(inside), Some(_)) = (parts.next(), parts.next()) {
            spans.push(inside.to_string());
        }
    }
    spans
}

/// A word shaped like a tool name: camelCase, or a toolkit prefix and `_`.
fn tool_shaped(word: &str) -> bool {
    let camel = word.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && word.chars().any(|c| c.is_ascii_uppercase())
        && word.chars().all(|c| c.is_ascii_alphanumeric());
    let snake = ["browser_", "record_", "knowledge_", "run_"]
        .iter()
        .any(|p| word.starts_with(p))
        && word.chars().all(|c| c.is_ascii_lowercase() || c == '_');
    camel || snake
}

/// What the texts mention: tool calls with their arguments, bare names,
/// prompt names and layout paths.
#[derive(Default, Debug)]
struct Mentions {
    calls: Vec<(String, Vec<String>)>,
    bare: BTreeSet<String>,
    prompts: BTreeSet<String>,
    paths: BTreeSet<String>,
}

fn mentions(text: &str, m: &mut Mentions) {
    for span in code_spans(text) {
        let span = span.trim();
        if let Some(path) = span.strip_prefix(".harshJudge/") {
            m.paths.insert(path.to_string());
            continue;
        }
        if let Some((name, rest)) = span.split_once('(')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.is_empty()
            && rest.ends_with(')')
        {
            let args = rest[..rest.len() - 1]
                .split(',')
                .map(|a| a.split(['=', ':']).next().unwrap_or("").trim().to_string())
                .filter(|a| !a.is_empty())
                .collect();
            m.calls.push((name.to_string(), args));
            continue;
        }
        if tool_shaped(span) {
            m.bare.insert(span.to_string());
        }
    }
    for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')) {
        if word.starts_with("hj-") {
            m.prompts.insert(word.to_string());
        }
    }
}

/// Every property name in the output schemas of `tools/list` (result fields
/// a text may name, like `nextStepId`).
fn result_fields() -> BTreeSet<String> {
    fn walk(v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::Object(o) => {
                if let Some(Value::Object(props)) = o.get("properties") {
                    out.extend(props.keys().cloned());
                }
                o.values().for_each(|x| walk(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for t in harshjudge_mcp::server::tool_list() {
        if let Some(s) = &t.output_schema {
            walk(&Value::Object((**s).clone()), &mut out);
        }
    }
    out
}

/// Tool name → its input properties, from what `tools/list` answers.
fn tools() -> BTreeMap<String, BTreeSet<String>> {
    harshjudge_mcp::server::tool_list()
        .into_iter()
        .map(|t| {
            let props = t
                .input_schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            (t.name.to_string(), props)
        })
        .collect()
}

fn ok(ctx: &Context, tool: &str, args: Value) -> Value {
    let out = call(ctx, tool, Some(args));
    assert!(!out.is_error(), "{tool} failed: {}", out.value);
    out.value
}

/// A real `.harshJudge/` tree written by the tools: a project, a scenario, a
/// judged run with evidence, a recording and its export.
fn real_tree() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut ctx = Context::new(dir.path()).unwrap();
    ctx.allowed_roots = vec![ctx.root().to_path_buf()];
    ok(
        &ctx,
        "initProject",
        json!({"projectName": "Skill", "baseUrl": "http://127.0.0.1:9"}),
    );
    ok(
        &ctx,
        "createScenario",
        json!({"slug": "todos", "title": "Todos", "steps": [
            {"title": "Add a todo", "actions": "type and press Enter", "expectedOutcome": "the todo is listed"}
        ]}),
    );
    ok(&ctx, "record_start", json!({"name": "explore"}));
    let run = ok(&ctx, "startRun", json!({"scenarioSlug": "todos"}));
    let run_id = run["runId"].as_str().unwrap().to_string();
    ok(
        &ctx,
        "recordEvidence",
        json!({"runId": run_id, "stepId": "01", "type": "console_log", "name": "console", "data": "no errors"}),
    );
    ok(
        &ctx,
        "completeStep",
        json!({"runId": run_id, "stepId": "01", "status": "pass", "duration": 10}),
    );
    ok(&ctx, "completeRun", json!({"runId": run_id}));
    ok(
        &ctx,
        "recordVerdict",
        json!({"runId": run_id, "stepId": "01", "verdict": "pass", "reasoning": "the console shows no error"}),
    );
    let stopped = ok(&ctx, "record_stop", json!({}));
    let seq = stopped["sequenceId"]
        .as_str()
        .or_else(|| stopped["id"].as_str())
        .unwrap_or_else(|| panic!("record_stop gives the sequence id: {stopped}"))
        .to_string();
    ok(
        &ctx,
        "record_export",
        json!({"sequenceId": seq, "functionName": "explore"}),
    );
    let hj = dir.path().join(".harshJudge");
    let mut paths = Vec::new();
    let mut stack = vec![hj.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(&hj).unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                paths.push(format!("{rel}/"));
                stack.push(p);
            } else {
                paths.push(rel);
            }
        }
    }
    (dir, paths)
}

/// Whether the mentioned `path` (`{…}` a name, `NN` two digits) is one of `tree`.
fn in_tree(path: &str, tree: &[String]) -> bool {
    let want: Vec<&str> = path.split('/').collect();
    tree.iter().any(|have| {
        let have: Vec<&str> = have.split('/').collect();
        want.len() == have.len()
            && want.iter().zip(&have).all(|(w, h)| {
                if w.is_empty() || w == h {
                    return true;
                }
                // A component with placeholders: `{x}` any name, `NN` two digits.
                let mut pattern = String::from("^");
                let mut rest = *w;
                while !rest.is_empty() {
                    if let Some(after) = rest.strip_prefix('{') {
                        let end = after.find('}').expect("a closed placeholder");
                        pattern.push_str("[^/]+");
                        rest = &after[end + 1..];
                    } else if let Some(after) = rest.strip_prefix("NN") {
                        pattern.push_str("[0-9]{2}");
                        rest = after;
                    } else {
                        let c = rest.chars().next().unwrap();
                        if c.is_ascii_alphanumeric() {
                            pattern.push(c);
                        } else {
                            pattern.push('\\');
                            pattern.push(c);
                        }
                        rest = &rest[c.len_utf8()..];
                    }
                }
                pattern.push('$');
                simple_match(&pattern, h)
            })
    })
}

/// A tiny matcher for the patterns [`in_tree`] builds: literals, `\x`,
/// `[^/]+` and `[0-9]{2}`.
fn simple_match(pattern: &str, s: &str) -> bool {
    fn go(p: &[u8], s: &[u8]) -> bool {
        if p == b"$" {
            return s.is_empty();
        }
        if let Some(rest) = p.strip_prefix(b"[^/]+") {
            return (1..=s.len()).any(|n| !s[..n].contains(&b'/') && go(rest, &s[n..]));
        }
        if let Some(rest) = p.strip_prefix(b"[0-9]{2}") {
            return s.len() >= 2 && s[..2].iter().all(u8::is_ascii_digit) && go(rest, &s[2..]);
        }
        let (c, rest) = if p[0] == b'\\' {
            (p[1], &p[2..])
        } else {
            (p[0], &p[1..])
        };
        !s.is_empty() && s[0] == c && go(rest, &s[1..])
    }
    go(&pattern.as_bytes()[1..], s.as_bytes())
}

/// Every text an agent is given: SKILL.md and its references, each prompt
/// (with sample arguments), and the instructions.
fn all_texts() -> Vec<(String, String)> {
    let mut texts: Vec<(String, String)> = skill::skill_files();
    for w in skill::WORKFLOWS {
        let mut args = Map::new();
        for a in w.arguments {
            let v = match a.kind {
                skill::ArgKind::Slug => "todos",
                skill::ArgKind::Text => "add three todos",
            };
            args.insert(a.name.into(), json!(v));
        }
        let text = skill::prompt_text(w.prompt, &args).unwrap();
        texts.push((format!("prompt {}", w.prompt), text));
    }
    texts.push((
        "instructions".into(),
        skill::texts::INSTRUCTIONS.to_string(),
    ));
    texts
}

#[test]
fn every_tool_argument_prompt_and_path_the_skill_and_prompts_mention_exists() {
    let tools = tools();
    let (_dir, tree) = real_tree();
    let prompts: BTreeSet<&str> = skill::WORKFLOWS.iter().map(|w| w.prompt).collect();
    let all_args: BTreeSet<&String> = tools.values().flatten().collect();
    let fields = result_fields();
    let mut problems = Vec::new();
    let mut counted = (0, 0, 0);
    for (source, text) in all_texts() {
        let mut m = Mentions::default();
        mentions(&text, &mut m);
        if source == "instructions" {
            // Plain text: every tool-shaped word counts.
            let plain = text.replace(".harshJudge", "");
            for w in plain.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if tool_shaped(w) {
                    m.bare.insert(w.to_string());
                }
            }
        }
        for (name, args) in &m.calls {
            counted.0 += 1;
            match tools.get(name) {
                None => problems.push(format!("{source}: `{name}(…)` is not a tool")),
                Some(props) => {
                    for a in args {
                        counted.1 += 1;
                        if !props.contains(a) {
                            problems.push(format!(
                                "{source}: `{name}` has no argument {a:?} (it has {props:?})"
                            ));
                        }
                    }
                }
            }
        }
        for b in &m.bare {
            if !tools.contains_key(b) && !all_args.contains(b) && !fields.contains(b) {
                problems.push(format!(
                    "{source}: `{b}` is neither a tool, a tool's argument nor a result field"
                ));
            }
        }
        for p in &m.prompts {
            if !prompts.contains(p.as_str()) {
                problems.push(format!("{source}: prompt {p} does not exist"));
            }
        }
        for p in &m.paths {
            counted.2 += 1;
            if !in_tree(p, &tree) {
                problems.push(format!(
                    "{source}: .harshJudge/{p} is not in the layout the tools write"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "drift:\n{}", problems.join("\n"));
    // The check saw something: calls, arguments and paths in every workflow.
    assert!(
        counted.0 >= 25 && counted.1 >= 30 && counted.2 >= 8,
        "calls, arguments, paths checked: {counted:?}"
    );
}

#[test]
fn the_drift_check_catches_a_wrong_tool_argument_and_path() {
    let mut m = Mentions::default();
    mentions(
        "Call `record_stop(name)`, then `startRunn(scenarioSlug)`; see `.harshJudge/scenarios/{slug}/runz/`.",
        &mut m,
    );
    let tools = tools();
    assert_eq!(m.calls.len(), 2);
    assert!(
        !tools["record_stop"].contains("name"),
        "record_stop takes no name"
    );
    assert!(!tools.contains_key("startRunn"));
    let (_dir, tree) = real_tree();
    assert!(in_tree("scenarios/{slug}/runs/", &tree));
    assert!(in_tree(
        "scenarios/{slug}/runs/{runId}/step-NN/evidence/",
        &tree
    ));
    assert!(!in_tree("scenarios/{slug}/runz/", &tree));
    assert!(!in_tree(
        "scenarios/{slug}/runs/{runId}/step-N/evidence/",
        &tree
    ));
}

#[test]
fn prompts_refuse_bad_arguments_naming_them() {
    let none = Map::new();
    let e = skill::prompt_text("hj-heal", &none)
        .unwrap_err()
        .to_string();
    assert!(e.contains("hj-heal") && e.contains("\"scenario\""), "{e}");
    let mut bad = Map::new();
    bad.insert("scenario".into(), json!("Not A Slug"));
    let e = skill::prompt_text("hj-heal", &bad).unwrap_err().to_string();
    assert!(e.contains("Not A Slug") && e.contains("scenario"), "{e}");
    let mut extra = Map::new();
    extra.insert("scenario".into(), json!("todos"));
    extra.insert("sceanrio".into(), json!("todos"));
    let e = skill::prompt_text("hj-heal", &extra)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("sceanrio") && e.contains("takes: scenario"),
        "{e}"
    );
    let e = skill::prompt_text("hj-nope", &none)
        .unwrap_err()
        .to_string();
    assert!(e.contains("hj-nope") && e.contains("hj-setup"), "{e}");
    let mut number = Map::new();
    number.insert("scenario".into(), json!(3));
    let e = skill::prompt_text("hj-run", &number)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a string"), "{e}");
}

fn cli(project: &Path, args: &[&str]) -> (bool, Value) {
    let out = Command::new(BIN)
        .args(["--cwd", project.to_str().unwrap()])
        .args(args)
        .env("HARSHJUDGE_LOG", "warn")
        .output()
        .unwrap();
    let text = if out.status.success() {
        &out.stdout
    } else {
        &out.stderr
    };
    let v = serde_json::from_slice(text).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.success(), v)
}

fn statuses(v: &Value) -> BTreeMap<String, String> {
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn init_agent_writes_the_skill_and_the_mcp_entry_and_refuses_to_clobber() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // A client configuration with another server already in it.
    std::fs::write(
        root.join(".mcp.json"),
        r#"{"mcpServers": {"other": {"command": "other-mcp"}}}"#,
    )
    .unwrap();
    let (ok, v) = cli(root, &["init-agent"]);
    assert!(ok, "{v}");
    let s = statuses(&v);
    let skill_dir = root.join(".claude/skills/harshjudge");
    assert_eq!(s[".claude/skills/harshjudge/SKILL.md"], "created");
    assert_eq!(s[".mcp.json"], "updated");
    for w in skill::WORKFLOWS {
        let f = skill_dir.join("references").join(w.file);
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(text.contains(w.body), "{} holds the workflow", f.display());
        assert_eq!(
            s[&format!(".claude/skills/harshjudge/references/{}", w.file)],
            "created"
        );
    }
    let skill_md = std::fs::read_to_string(skill_dir.join("SKILL.md")).unwrap();
    assert!(skill_md.starts_with("---\nname: harshjudge\ndescription: "));
    for w in skill::WORKFLOWS {
        assert!(
            skill_md.contains(&format!("(references/{})", w.file)),
            "SKILL.md links {}",
            w.file
        );
    }
    let mcp: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(mcp["mcpServers"]["other"]["command"], "other-mcp", "kept");
    assert_eq!(mcp["mcpServers"]["harshjudge"]["command"], "harshjudge-mcp");
    // The skill is written for the start set and enable_tools: the entry
    // says so, whatever HARSHJUDGE_MCP_TOOLS the client's environment holds.
    assert_eq!(
        mcp["mcpServers"]["harshjudge"]["args"],
        json!(["--cwd", root.to_str().unwrap(), "--tools", "start"])
    );
    assert_eq!(skill::SKILL_TOOLS.as_str(), "start");
    assert!(
        skill_md.contains("enable_tools(sets)"),
        "the skill relies on enable_tools"
    );

    // Again: nothing changes.
    let (ok, v) = cli(root, &["init-agent"]);
    assert!(ok, "{v}");
    assert!(statuses(&v).values().all(|s| s == "unchanged"), "{v}");

    // An edited reference is not overwritten without --force, and nothing is written.
    let edited = skill_dir.join("references/heal.md");
    std::fs::write(&edited, "my own notes").unwrap();
    std::fs::remove_file(root.join(".mcp.json")).unwrap();
    let (ok, v) = cli(root, &["init-agent"]);
    assert!(!ok);
    assert_eq!(v["code"], "INVALID_INPUT");
    let msg = v["error"].as_str().unwrap();
    assert!(msg.contains("heal.md") && msg.contains("--force"), "{msg}");
    assert!(!root.join(".mcp.json").exists(), "nothing was written");
    let (ok, v) = cli(root, &["init-agent", "--force"]);
    assert!(ok, "{v}");
    let s = statuses(&v);
    assert_eq!(s[".claude/skills/harshjudge/references/heal.md"], "updated");
    assert_eq!(s[".mcp.json"], "created");

    // A .mcp.json that is not a configuration: a clear error, nothing written.
    std::fs::write(root.join(".mcp.json"), "[1, 2]").unwrap();
    std::fs::remove_file(skill_dir.join("SKILL.md")).unwrap();
    let (ok, v) = cli(root, &["init-agent"]);
    assert!(!ok);
    assert!(v["error"].as_str().unwrap().contains(".mcp.json"), "{v}");
    assert!(!skill_dir.join("SKILL.md").exists(), "nothing was written");

    // A folder outside the project is refused.
    let (ok, v) = cli(root, &["init-agent", "--dir", "../elsewhere"]);
    assert!(!ok);
    assert!(v["error"].as_str().unwrap().contains("--dir"), "{v}");
}

#[cfg(unix)]
#[test]
fn init_agent_does_not_write_through_a_symbolic_link() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join(".claude/skills")).unwrap();
    let (ok, v) = cli(dir.path(), &["init-agent"]);
    assert!(!ok);
    assert!(
        v["error"].as_str().unwrap().contains("symbolic link"),
        "{v}"
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

/// The Python that drives the MCP SDK: `HARSHJUDGE_TEST_PYTHON`, else the
/// workspace's target/py-venv, else `python3`.
fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("HARSHJUDGE_TEST_PYTHON").filter(|p| !p.is_empty()) {
        return p.into();
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/py-venv/bin/python");
    if venv.exists() {
        return venv;
    }
    "python3".into()
}

#[test]
fn the_python_mcp_client_lists_and_gets_every_prompt_from_the_server_mcp_json_starts() {
    let dir = tempfile::tempdir().unwrap();
    let (ok, v) = cli(dir.path(), &["init-agent", "--command", BIN]);
    assert!(ok, "{v}");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agent/prompts.py");
    let out = Command::new(python())
        .arg(&script)
        .arg(dir.path())
        .output()
        .expect("python with the MCP SDK (target/py-venv)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the Python MCP client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    let names: Vec<&str> = skill::WORKFLOWS.iter().map(|w| w.prompt).collect();
    assert_eq!(report["prompts"], json!(names));
    // Each prompt's text, as the client got it, is its reference's workflow.
    for w in skill::WORKFLOWS {
        let got = report["texts"][w.prompt].as_str().unwrap();
        assert!(got.ends_with(w.body), "{}: {got}", w.prompt);
    }
    assert_eq!(
        report["instructions"].as_str().unwrap(),
        skill::texts::INSTRUCTIONS
    );
    let missing = report["missing"].as_str().unwrap();
    assert!(missing.contains("\"scenario\""), "{missing}");
    let unknown = report["unknown"].as_str().unwrap();
    assert!(unknown.contains("hj-nope"), "{unknown}");
    // The start set the skill is written for, though the client's
    // environment says HARSHJUDGE_MCP_TOOLS=all.
    let mut tools: Vec<&str> = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    tools.sort();
    let mut start = harshjudge_mcp::server::TOOL_SETS[0].1.to_vec();
    start.sort();
    assert_eq!(tools, start);
}
