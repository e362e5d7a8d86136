//! `browser_route`: the page's requests matching a pattern fulfilled, aborted
//! or continued (`harshjudge`'s `page.route`), or the route removed
//! (`page.unroute`). Routed requests are marked in the step's `network.json`
//! (`"intercepted"`) and in `browser_network`; the call is recorded and
//! exported as `page.route(…)` like every tool call.

use std::collections::BTreeMap;

use harshjudge_browser::{Response, UrlPattern};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::Context;
use crate::error::ToolError;

use super::{classify, page};

/// Arguments of `browser_route`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Route {
    /// A Playwright URL glob (`**/api/items`, `/api/*`), or a regex written `/…/`.
    pub pattern: String,
    /// fulfill (answer without the server), abort, continue (to the server,
    /// with `headers` added), or remove (the routes of this pattern).
    pub action: String,
    /// fulfill: the status (default 200).
    #[serde(default)]
    pub status: Option<u16>,
    /// fulfill: a JSON body (sent with content-type application/json).
    #[serde(default)]
    #[schemars(schema_with = "crate::tools::browser::any_json")]
    pub json: Option<Value>,
    /// fulfill: a text body.
    #[serde(default)]
    pub body: Option<String>,
    /// fulfill or continue: headers to set.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
}

/// What `browser_route` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Routed {
    /// Always true.
    pub success: bool,
    /// The pattern.
    pub pattern: String,
    /// What matching requests get (or `remove`).
    pub action: String,
}

crate::plain_output!(Routed);

/// The pattern as the library reads it: `/…/` is a regex, else a glob.
fn url_pattern(p: &str) -> Result<UrlPattern, ToolError> {
    if p.trim().is_empty() {
        return Err(ToolError::invalid(
            "pattern is empty: give a URL glob such as **/api/items or a regex written /…/",
        ));
    }
    if p.len() > 2 && p.starts_with('/') && p.ends_with('/') {
        let re = harshjudge_browser::regex::Regex::new(&p[1..p.len() - 1]).map_err(|e| {
            ToolError::invalid(format!(
                "pattern {p:?} is not a valid regular expression: {e}"
            ))
        })?;
        return Ok(UrlPattern::from(re));
    }
    Ok(UrlPattern::from(p))
}

/// Adds (or removes) a route of the open page.
pub fn route(ctx: &Context, a: Route) -> Result<Routed, ToolError> {
    let pattern = url_pattern(&a.pattern)?;
    let action = a.action.as_str();
    if !matches!(action, "fulfill" | "abort" | "continue" | "remove") {
        return Err(ToolError::invalid(format!(
            "action {:?} is not one of fulfill, abort, continue, remove",
            action.chars().take(40).collect::<String>()
        )));
    }
    if action != "fulfill" && (a.status.is_some() || a.json.is_some() || a.body.is_some()) {
        return Err(ToolError::invalid(format!(
            "status, json and body answer a request (action fulfill), not {action}: drop them"
        )));
    }
    if a.json.is_some() && a.body.is_some() {
        return Err(ToolError::invalid("give json or body, not both"));
    }
    if matches!(action, "abort" | "remove") && !a.headers.is_empty() {
        return Err(ToolError::invalid(format!(
            "headers go with fulfill and continue, not {action}: drop them"
        )));
    }
    if let Some(s) = a.status
        && !(100..=599).contains(&s)
    {
        return Err(ToolError::invalid(format!(
            "status {s} is not an HTTP status: give 100 to 599"
        )));
    }
    let page = page(ctx)?;
    let headers: Vec<(String, String)> = a.headers.into_iter().collect();
    let (status, json, body) = (a.status, a.json, a.body);
    let act = action.to_string();
    ctx.agent()
        .block_on(async move {
            match act.as_str() {
                "remove" => page.unroute(pattern).await,
                "abort" => {
                    page.route(pattern, |r| async move { r.abort().await })
                        .await
                }
                "continue" => {
                    page.route(pattern, move |r| {
                        let headers = headers.clone();
                        async move {
                            let mut c = r.continue_();
                            for (k, v) in headers {
                                c = c.header(k, v);
                            }
                            c.await
                        }
                    })
                    .await
                }
                _ => {
                    page.route(pattern, move |r| {
                        let mut resp = Response::new().status(status.unwrap_or(200));
                        resp = match (&json, &body) {
                            (Some(j), _) => resp.json(j),
                            (None, Some(b)) => resp.body(b.clone().into_bytes()),
                            (None, None) => resp,
                        };
                        for (k, v) in &headers {
                            resp = resp.header(k.clone(), v.clone());
                        }
                        async move { r.fulfill(resp).await }
                    })
                    .await
                }
            }
        })?
        .map_err(classify)?;
    Ok(Routed {
        success: true,
        pattern: a.pattern,
        action: action.to_string(),
    })
}
