//! `discoverTree` and `discoverSearch`: what is in `.harshJudge/`, for agents
//! that look for what earlier runs recorded.

use std::path::{Component, Path, PathBuf};

use harshjudge_store::store::Store;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::context::Context;
use crate::error::{Code, ToolError};

/// At most this many matches are returned by a search.
pub const MAX_MATCHES: usize = 1000;

/// A folder under `.harshJudge/`, checked never to leave it.
fn sub_folder(ctx: &Context, path: Option<&str>) -> Result<PathBuf, ToolError> {
    let store = ctx.require_init()?;
    let base = store.dir().to_path_buf();
    let Some(p) = path.filter(|p| !p.is_empty() && *p != ".") else {
        return Ok(base);
    };
    let rel = Path::new(p);
    if rel.is_absolute()
        || rel
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(ToolError::new(
            Code::AccessDenied,
            format!(
                "path {p:?} must be relative to .harshJudge/ and stay inside it (no '..', no absolute paths)"
            ),
        ));
    }
    let full = base.join(rel);
    if !full.exists() {
        return Err(ToolError::not_found(format!(
            "{p:?} does not exist under .harshJudge/"
        )));
    }
    // A symbolic link inside could still point outside.
    let real =
        std::fs::canonicalize(&full).map_err(|e| ToolError::not_found(format!("{p}: {e}")))?;
    let real_base =
        std::fs::canonicalize(&base).map_err(|e| ToolError::new(Code::Internal, e.to_string()))?;
    if !real.starts_with(&real_base) {
        return Err(ToolError::new(
            Code::AccessDenied,
            format!("path {p:?} leads outside .harshJudge/"),
        ));
    }
    Ok(full)
}

/// Internal files of harshjudge (locks, half-written temporaries).
fn internal(name: &str) -> bool {
    name.starts_with('.') && (name.ends_with(".lock") || name.ends_with(".tmp"))
}

/// Arguments of `discoverTree`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DiscoverTree {
    /// A folder relative to .harshJudge/ (default: all of it).
    #[serde(default)]
    pub path: Option<String>,
}

fn tree(store: &Store, dir: &Path, budget: &mut usize) -> Map<String, Value> {
    let mut entries: Vec<(String, PathBuf, bool)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                // Symbolic links are never followed: they could lead outside.
                .filter(|e| e.file_type().is_ok_and(|t| !t.is_symlink()))
                .map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
                    (name, e.path(), is_dir)
                })
                .filter(|(n, _, _)| !internal(n))
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    let mut m = Map::new();
    for (name, path, is_dir) in entries {
        if *budget == 0 {
            m.insert(
                "…".into(),
                json!("truncated: ask for a sub-folder with path"),
            );
            break;
        }
        *budget -= 1;
        if is_dir {
            m.insert(
                format!("{name}/"),
                Value::Object(tree(store, &path, budget)),
            );
        } else {
            // The store reads the files it knows (meta.yaml, config.yaml, result.json).
            m.insert(name, store.file_facts(&path).unwrap_or(Value::Bool(true)));
        }
    }
    m
}

/// What `discoverTree` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Tree {
    /// The folder, relative to the project, ending in `/`.
    pub root: String,
    /// Open by nature: each entry of the folder by name, a folder (`name/`) as
    /// an object of its own entries, a file as `true` or, for the files the
    /// store knows (meta.yaml, config.yaml, result.json), an object of its key
    /// facts; `"…"` when the listing was cut.
    pub tree: Map<String, Value>,
}

/// What `discoverSearch` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchMatches {
    /// One per matching line, in file order.
    pub matches: Vec<Match>,
    /// Set when the search stopped at [`MAX_MATCHES`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// A line that matched.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Match {
    /// The file (absolute path).
    pub file: String,
    /// The line, trimmed.
    #[serde(rename = "match")]
    pub line: String,
}

crate::plain_output!(Tree, SearchMatches);

/// The folder as a tree.
pub fn discover_tree(ctx: &Context, a: DiscoverTree) -> Result<Tree, ToolError> {
    let dir = sub_folder(ctx, a.path.as_deref())?;
    if !dir.is_dir() {
        return Err(ToolError::invalid(format!(
            "{} is a file, not a folder",
            ctx.rel(&dir)
        )));
    }
    let mut budget = 20_000;
    Ok(Tree {
        root: format!("{}/", ctx.rel(&dir)),
        tree: tree(ctx.store(), &dir, &mut budget),
    })
}

/// Arguments of `discoverSearch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DiscoverSearch {
    /// Text to find (case-insensitive, not a regex).
    pub pattern: String,
    /// A folder relative to .harshJudge/ to search in (default: all of it).
    #[serde(default)]
    pub path: Option<String>,
}

fn searchable(name: &str) -> bool {
    matches!(
        Path::new(name).extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml" | "json" | "md")
    )
}

fn search(dir: &Path, needle: &str, out: &mut Vec<Match>) -> bool {
    let mut entries: Vec<std::fs::DirEntry> = match std::fs::read_dir(dir) {
        Ok(rd) => rd.filter_map(|e| e.ok()).collect(),
        Err(_) => return false,
    };
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        if internal(&name) {
            continue;
        }
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        // Symbolic links are never followed: they could lead outside.
        if kind.is_symlink() {
            continue;
        }
        if kind.is_dir() {
            if search(&path, needle, out) {
                return true;
            }
        } else if searchable(&name)
            && let Ok(text) = std::fs::read_to_string(&path)
        {
            for line in text.lines() {
                if line.to_lowercase().contains(needle) {
                    if out.len() == MAX_MATCHES {
                        return true;
                    }
                    out.push(Match {
                        file: path.display().to_string(),
                        line: line.trim().to_string(),
                    });
                }
            }
        }
    }
    false
}

/// Searches the text files.
pub fn discover_search(ctx: &Context, a: DiscoverSearch) -> Result<SearchMatches, ToolError> {
    if a.pattern.is_empty() {
        return Err(ToolError::invalid("pattern must not be empty"));
    }
    let dir = sub_folder(ctx, a.path.as_deref())?;
    let mut matches = vec![];
    let truncated = search(&dir, &a.pattern.to_lowercase(), &mut matches);
    Ok(SearchMatches { matches, truncated })
}
