//! `knowledge_search` and `knowledge_similar`: the MCP tools over
//! [`crate::knowledge`]'s store (their arguments, checks and results).

use std::io;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::error::{Code, ToolError};
use crate::knowledge::{
    DEFAULT_LIMIT, KnowledgeStore, MAX_LIMIT, MAX_QUERY_TOKENS, Outcome, PageState, Scope,
    SearchQuery, SearchResult, tokenize,
};

/// What `knowledge_search` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct KnowledgeFound {
    /// The hits.
    #[serde(flatten)]
    pub result: SearchResult,
    /// The query's searchable words, as matched.
    pub tokens: Vec<String>,
}

/// What `knowledge_similar` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SimilarFound {
    /// The hits.
    #[serde(flatten)]
    pub result: SearchResult,
    /// The page compared with.
    pub state: PageState,
}

crate::plain_output!(KnowledgeFound, SimilarFound);

/// Arguments of `knowledge_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KnowledgeSearch {
    /// What to look for: words, test ids (`checkout-button`), tool names
    /// (`browser_click`), URL paths (`/cart`), error codes (`WAIT_TIMEOUT`).
    pub query: String,
    /// Most hits, 1 to 100 (default 10).
    pub limit: Option<usize>,
    /// `all` sessions (default) or only this `session`.
    pub scope: Option<Scope>,
    /// Only steps of this tool (exact name, e.g. `browser_click`).
    pub tool: Option<String>,
    /// Only steps that succeeded (`ok`) or failed (`error`).
    pub outcome: Option<Outcome>,
    /// Only steps whose page URL contains this text (e.g. `/checkout`).
    pub url: Option<String>,
}

fn limit_of(limit: Option<usize>) -> Result<usize, ToolError> {
    match limit {
        None => Ok(DEFAULT_LIMIT),
        Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
        Some(n) => Err(ToolError::invalid(format!(
            "limit {n} is out of range: give 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})"
        ))),
    }
}

fn io_error(store: &KnowledgeStore, e: io::Error) -> ToolError {
    ToolError::new(
        Code::Internal,
        format!(
            "the knowledge store in {} could not be read: {e}",
            store.dir().display()
        ),
    )
}

/// `knowledge_search`: past steps (this and earlier sessions) matching a
/// query, best first, with a confidence and what matched.
pub fn knowledge_search(
    store: &KnowledgeStore,
    a: KnowledgeSearch,
) -> Result<KnowledgeFound, ToolError> {
    if a.query.trim().is_empty() {
        return Err(ToolError::invalid(
            "query is empty: give words to look for, e.g. a test id (\"checkout-button\"), a tool (\"browser_click\"), a page (\"/cart\") or an error code",
        ));
    }
    let limit = limit_of(a.limit)?;
    let tokens = tokenize(&a.query);
    if tokens.is_empty() {
        return Err(ToolError::invalid(format!(
            "query {:?} has no searchable words (words of 2 or more letters or digits, other than stopwords like \"the\", \"and\")",
            a.query
        )));
    }
    let q = SearchQuery {
        query: a.query,
        limit,
        scope: a.scope.unwrap_or_default(),
        tool: a.tool,
        outcome: a.outcome,
        url: a.url,
    };
    let result = store.search(&q).map_err(|e| io_error(store, e))?;
    let mut shown: Vec<String> = Vec::new();
    for t in tokens {
        if !shown.contains(&t) && shown.len() < MAX_QUERY_TOKENS {
            shown.push(t);
        }
    }
    Ok(KnowledgeFound {
        result,
        tokens: shown,
    })
}

/// Arguments of `knowledge_similar`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KnowledgeSimilar {
    /// A page URL (only the path counts). With none of url, title, testIds the open browser's page is used.
    pub url: Option<String>,
    /// A page title.
    pub title: Option<String>,
    /// `data-testid`s on the page.
    pub test_ids: Option<Vec<String>>,
    /// The tool about to be called (steps of the same tool rank higher).
    pub tool: Option<String>,
    /// Most hits, 1 to 100 (default 10).
    pub limit: Option<usize>,
    /// `all` sessions (default) or only this `session`.
    pub scope: Option<Scope>,
}

/// `knowledge_similar`: past steps taken on pages like the given one (or the
/// open browser's page, `current`), best first. The page is described by the
/// arguments when any of `url`, `title`, `testIds` is given (the current page
/// is then ignored, so two pages are never mixed), else by `current`; `tool`
/// comes from the arguments, else from `current`.
pub fn knowledge_similar(
    store: &KnowledgeStore,
    a: KnowledgeSimilar,
    current: Option<PageState>,
) -> Result<SimilarFound, ToolError> {
    let limit = limit_of(a.limit)?;
    let given = |s: Option<String>| s.filter(|x| !x.trim().is_empty());
    let url = given(a.url);
    let title = given(a.title);
    let ids: Vec<String> = a
        .test_ids
        .unwrap_or_default()
        .into_iter()
        .filter(|t| !t.is_empty())
        .collect();
    let current = current.unwrap_or_default();
    let mut state = if url.is_some() || title.is_some() || !ids.is_empty() {
        PageState {
            url,
            title,
            test_ids: ids,
            tool: None,
        }
    } else {
        PageState {
            url: given(current.url),
            title: given(current.title),
            test_ids: current
                .test_ids
                .into_iter()
                .filter(|t| !t.is_empty())
                .collect(),
            tool: None,
        }
    };
    state.tool = given(a.tool).or(given(current.tool));
    if state.url.is_none() && state.title.is_none() && state.test_ids.is_empty() {
        return Err(ToolError::invalid(
            "no page to compare with: give url, title or testIds, or open a page with browser_launch / browser_navigate so the current page is used",
        ));
    }
    let result = store
        .similar(&state, limit, a.scope.unwrap_or_default())
        .map_err(|e| io_error(store, e))?;
    Ok(SimilarFound { result, state })
}

/// The `knowledge_search` tool: the project's store, searched.
pub fn search(ctx: &Context, a: KnowledgeSearch) -> Result<KnowledgeFound, ToolError> {
    let store = ctx.require_init()?;
    knowledge_search(ctx.agent().knowledge(store), a)
}

/// The `knowledge_similar` tool: compared with the open page unless the
/// arguments describe one.
pub fn similar(ctx: &Context, a: KnowledgeSimilar) -> Result<SimilarFound, ToolError> {
    let store = ctx.require_init()?;
    let current = super::browser::page_state(ctx).map(|(url, title, test_ids)| PageState {
        url: Some(url),
        title: Some(title),
        test_ids,
        tool: None,
    });
    knowledge_similar(ctx.agent().knowledge(store), a, current)
}
