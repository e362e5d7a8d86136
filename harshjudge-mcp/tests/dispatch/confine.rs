//! Issue 11 point 16, the rest of the store's neighbours: the knowledge store
//! (`knowledge/`, `knowledge/steps/`) and the recordings (`sequences/`,
//! `exports/`) never follow a symbolic link that leaves `.harshJudge/`, for
//! writes nor reads. Each probe counts the files written or changed outside
//! and the answers that carry a secret kept outside: both must be 0.

use std::path::{Path, PathBuf};

use harshjudge_mcp::knowledge::{KnowledgeStore, SearchQuery, StepRecord};
use harshjudge_mcp::{Context, call};
use serde_json::{Value, json};

const SECRET: &str = "TOPSECRET-outside-the-project";

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out: Vec<_> = walk(dir)
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap_or_default();
            (p, b)
        })
        .collect();
    out.sort();
    out
}

/// Files added or changed between two snapshots.
fn writes(before: &[(PathBuf, Vec<u8>)], after: &[(PathBuf, Vec<u8>)]) -> usize {
    after.iter().filter(|a| !before.contains(a)).count()
}

/// A secret session file, as `knowledge/steps/{session}.jsonl` would hold it.
fn secret_steps(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    let mut s = StepRecord::new("browser_navigate", json!({"url": SECRET}));
    s.session = "old".into();
    s.id = "old-1".into();
    s.timestamp = "2024-05-01T10:00:00.000Z".into();
    let mut line = serde_json::to_string(&s).unwrap();
    line.push('\n');
    std::fs::write(dir.join("old.jsonl"), line).unwrap();
}

#[test]
fn the_knowledge_store_never_follows_links_out_of_harshjudge() {
    use std::os::unix::fs::symlink;
    let mut probes = 0;
    let (mut writes_outside, mut reads_outside, mut refused) = (0, 0, 0);
    for linked in ["knowledge", "knowledge/steps"] {
        let project = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let hj = project.path().join(".harshJudge");
        std::fs::create_dir_all(&hj).unwrap();
        // The folder the link points to holds a session of its own.
        let target = outside.path().join("k");
        secret_steps(&if linked == "knowledge" {
            target.join("steps")
        } else {
            target.clone()
        });
        std::fs::create_dir_all(hj.join(linked).parent().unwrap()).unwrap();
        symlink(&target, hj.join(linked)).unwrap();
        let before = snapshot(outside.path());

        let store = KnowledgeStore::open(hj.join("knowledge"), "s1".into());
        let mut step = StepRecord::new("browser_click", json!({"selector": "#go"}));
        step.ok = true;
        let written = store.record(step);
        probes += 1;
        if let Err(e) = &written {
            assert!(e.to_string().contains("symbolic link"), "{linked}: {e}");
            refused += 1;
        }
        let answer = match store.search(&SearchQuery::new(SECRET)) {
            Ok(r) => format!("{:?}", r.hits),
            Err(e) => e.to_string(),
        };
        probes += 1;
        reads_outside +=
            usize::from(answer.contains("old-1") || answer.contains("browser_navigate"));
        writes_outside += writes(&before, &snapshot(outside.path()));
    }
    eprintln!(
        "knowledge symlink probes: {probes} calls, {refused} writes refused, \
         {writes_outside} writes and {reads_outside} reads outside .harshJudge/"
    );
    assert_eq!((writes_outside, reads_outside), (0, 0));
    assert_eq!(refused, 2);
}

fn project() -> (tempfile::TempDir, Context) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = Context::new(dir.path()).unwrap();
    let out = call(
        &ctx,
        "initProject",
        Some(json!({"projectName": "Links", "baseUrl": "http://127.0.0.1:9"})),
    );
    assert!(!out.is_error(), "{}", out.value);
    (dir, ctx)
}

fn ok(ctx: &Context, tool: &str, args: Value) -> Value {
    let out = call(ctx, tool, Some(args));
    assert!(!out.is_error(), "{tool} failed: {}", out.value);
    out.value
}

#[test]
fn recordings_and_exports_never_follow_links_out_of_harshjudge() {
    use std::os::unix::fs::symlink;
    let (_dir, ctx) = project();
    let hj = ctx.root().join(".harshJudge");
    let outside = tempfile::tempdir().unwrap();
    let o = outside.path();
    // A saved sequence, while sequences/ is still a real folder.
    let id = ok(&ctx, "record_start", json!({"name": "real"}))["sequenceId"]
        .as_str()
        .unwrap()
        .to_string();
    ok(&ctx, "record_stop", json!({}));
    // The outside holds a sequence of its own and an exports folder.
    std::fs::create_dir_all(o.join("sequences")).unwrap();
    std::fs::create_dir_all(o.join("exports")).unwrap();
    let mut secret: Value =
        serde_json::from_slice(&std::fs::read(hj.join(format!("sequences/{id}.json"))).unwrap())
            .unwrap();
    secret["id"] = "secretseq".into();
    secret["name"] = SECRET.into();
    std::fs::write(
        o.join("sequences/secretseq.json"),
        serde_json::to_vec(&secret).unwrap(),
    )
    .unwrap();
    let before = snapshot(o);

    let mut outputs = vec![];
    let mut refused = 0;
    let mut expect_refused =
        |out: harshjudge_mcp::Outcome, what: &str, outputs: &mut Vec<String>| {
            assert!(out.is_error(), "{what} must be refused: {}", out.value);
            assert!(
                out.value.to_string().contains("symbolic link"),
                "{what}: {}",
                out.value
            );
            outputs.push(out.value.to_string());
            refused += 1;
        };

    // exports/ is a link: the export is refused.
    symlink(o.join("exports"), hj.join("exports")).unwrap();
    let out = call(
        &ctx,
        "record_export",
        Some(json!({"sequenceId": id, "functionName": "linked"})),
    );
    expect_refused(out, "record_export into a linked exports/", &mut outputs);

    // sequences/ is a link: nothing is listed, read, saved or deleted there.
    std::fs::rename(hj.join("sequences"), ctx.root().join("sequences-moved")).unwrap();
    symlink(o.join("sequences"), hj.join("sequences")).unwrap();
    let list = call(&ctx, "record_list", Some(json!({})));
    outputs.push(list.value.to_string());
    let out = call(&ctx, "record_get", Some(json!({"sequenceId": "secretseq"})));
    expect_refused(out, "record_get through a linked sequences/", &mut outputs);
    let out = call(
        &ctx,
        "record_delete",
        Some(json!({"sequenceId": "secretseq"})),
    );
    expect_refused(
        out,
        "record_delete through a linked sequences/",
        &mut outputs,
    );
    ok(&ctx, "record_start", json!({"name": "second"}));
    let out = call(&ctx, "record_stop", Some(json!({})));
    expect_refused(out, "record_stop into a linked sequences/", &mut outputs);

    let after = snapshot(o);
    let writes_outside = writes(&before, &after) + before.len().saturating_sub(after.len());
    let reads_outside = outputs.iter().filter(|o| o.contains(SECRET)).count();
    eprintln!(
        "recording symlink probes: {refused} refused, {writes_outside} writes and \
         {reads_outside} reads outside .harshJudge/"
    );
    assert_eq!((writes_outside, reads_outside), (0, 0), "{outputs:#?}");
    assert_eq!(refused, 4);
}
