//! The arguments of `#[scenario(...)]`, parsed into a configuration that keeps
//! the spans it needs for later validation.

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Lit, LitStr, Meta, Token};

use crate::Errors;
use crate::duration::duration_arg;
use crate::emulation::{self, EmulationArgs};

/// Every argument `#[scenario]` accepts, in the order the messages list them.
const ARGUMENTS: &str = "slug, title, tags, timeout, step_timeout, retries, skip, fixme, storage_state, setup, depends_on, before, after, trace, locale, timezone_id, geolocation, grant_permissions, color_scheme, reduced_motion, offline, user_agent, extra_http_headers, http_credentials, javascript_enabled, device";

/// The trace modes `trace = "…"` accepts (harshjudge's `TraceMode`, Playwright's names).
pub(crate) const TRACE_MODES: [&str; 4] = ["off", "on", "retain-on-failure", "on-first-retry"];

/// The parsed `#[scenario(...)]` arguments. Each one is `None` when not given (or invalid).
#[derive(Default)]
pub(crate) struct Args {
    /// `slug = "..."`.
    pub slug: Option<String>,
    /// `title = "..."`, trimmed.
    pub title: Option<String>,
    /// `tags = ["...", ...]`.
    pub tags: Vec<String>,
    /// `timeout = "..."`, in milliseconds.
    pub timeout: Option<u64>,
    /// `step_timeout = "..."`, in milliseconds.
    pub step_timeout: Option<u64>,
    /// `retries = N`: attempts after a failure (0 to 10).
    pub retries: Option<u32>,
    /// `storage_state = "admin"`.
    pub storage_state: Option<String>,
    /// `setup`: a setup scenario.
    pub setup: bool,
    /// `depends_on = [f, …]`: the setup scenarios' paths.
    pub depends_on: Vec<syn::Path>,
    /// `before = h`.
    pub before: Option<syn::Path>,
    /// `after = k`.
    pub after: Option<syn::Path>,
    /// `skip = "why"` (`Skip`) or `fixme = "why"` (`Fixme`): never run.
    pub skip: Option<Skip>,
    /// `trace = "on"`: one of [`TRACE_MODES`].
    pub trace: Option<&'static str>,
    /// `locale = "de-DE"`, `device = "iPhone 15"`, …: the emulation its
    /// pages open with.
    pub emulation: EmulationArgs,
}

/// `skip = "why"` or `fixme = "why"`, with its reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Skip {
    /// `skip = "why"`.
    Skip(String),
    /// `fixme = "why"`.
    Fixme(String),
}

impl Args {
    /// Parses and validates the attribute's arguments; every problem goes to `errors`.
    pub(crate) fn parse(tokens: TokenStream, errors: &mut Errors) -> Args {
        let mut args = Args::default();
        let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens) {
            Ok(metas) => metas,
            Err(e) => {
                errors.push(e);
                return args;
            }
        };
        let mut seen: Vec<String> = Vec::new();
        for meta in metas {
            let Some(ident) = meta.path().get_ident() else {
                errors.push(syn::Error::new_spanned(
                    meta.path(),
                    format!(
                        "unknown attribute argument `{}`; expected one of: {ARGUMENTS}",
                        path_text(meta.path())
                    ),
                ));
                continue;
            };
            let name = ident.to_string();
            if !ARGUMENTS.split(", ").any(|known| known == name) {
                errors.push(syn::Error::new(
                    ident.span(),
                    format!("unknown attribute argument `{name}`; expected one of: {ARGUMENTS}"),
                ));
                continue;
            }
            if seen.contains(&name) {
                errors.push(syn::Error::new(
                    ident.span(),
                    format!("`{name}` is set more than once"),
                ));
                continue;
            }
            seen.push(name.clone());
            let value = match &meta {
                Meta::Path(_) if name == "setup" => {
                    args.setup = true;
                    continue;
                }
                Meta::NameValue(nv) if name == "setup" => {
                    errors.push(syn::Error::new_spanned(
                        &nv.value,
                        "`setup` takes no value: write `#[scenario(setup)]`",
                    ));
                    continue;
                }
                Meta::NameValue(nv) => &nv.value,
                Meta::Path(_) => {
                    errors.push(syn::Error::new(
                        ident.span(),
                        format!(
                            "`{name}` needs a value: write `{name} = {}`",
                            example(&name)
                        ),
                    ));
                    continue;
                }
                Meta::List(list) => {
                    errors.push(syn::Error::new(
                        list.delimiter.span().open(),
                        format!(
                            "`{name}` takes its value after `=`: write `{name} = {}`",
                            example(&name)
                        ),
                    ));
                    continue;
                }
            };
            let result = match name.as_str() {
                "slug" => slug(value).map(|s| args.slug = Some(s)),
                "title" => title(value).map(|t| args.title = Some(t)),
                "tags" => tags(value).map(|t| args.tags = t),
                "timeout" => duration_arg("timeout", value).map(|d| args.timeout = Some(d)),
                "step_timeout" => {
                    duration_arg("step_timeout", value).map(|d| args.step_timeout = Some(d))
                }
                "retries" => retries(value).map(|n| args.retries = Some(n)),
                "skip" | "fixme" => reason(&name, value).map(|why| {
                    if let Some(other) = &args.skip {
                        let first = match other {
                            Skip::Skip(_) => "skip",
                            Skip::Fixme(_) => "fixme",
                        };
                        errors.push(syn::Error::new(
                            ident.span(),
                            format!("`{name}` and `{first}` cannot both be set: keep one reason why the scenario does not run"),
                        ));
                    } else if name == "skip" {
                        args.skip = Some(Skip::Skip(why));
                    } else {
                        args.skip = Some(Skip::Fixme(why));
                    }
                }),
                "storage_state" => storage_state(value).map(|n| args.storage_state = Some(n)),
                "depends_on" => depends_on(value).map(|d| args.depends_on = d),
                "before" => hook("before", value).map(|p| args.before = Some(p)),
                "after" => hook("after", value).map(|p| args.after = Some(p)),
                "trace" => trace(value).map(|m| args.trace = Some(m)),
                e if emulation::NAMES.contains(&e) => args.emulation.set(e, value),
                _ => unreachable!("checked against ARGUMENTS"),
            };
            if let Err(e) = result {
                errors.push(e);
            }
        }
        args
    }
}

fn example(name: &str) -> &'static str {
    match name {
        "slug" => "\"checkout-saved-card\"",
        "title" => "\"Checkout with a saved card\"",
        "tags" => "[\"smoke\", \"checkout\"]",
        "retries" => "2",
        "skip" => "\"the payment sandbox is down\"",
        "fixme" => "\"fails since the new login page (#123)\"",
        "storage_state" => "\"admin\"",
        "depends_on" => "[signed_in_as_admin]",
        "before" => "seed_data",
        "after" => "clean_up",
        "setup" => "true",
        "trace" => "\"on\"",
        other => emulation::example(other).unwrap_or("\"30s\""),
    }
}

fn path_text(path: &syn::Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let lead = if path.leading_colon.is_some() {
        "::"
    } else {
        ""
    };
    format!("{lead}{}", segments.join("::"))
}

/// `retries = N`: an integer literal from 0 to 10.
fn retries(value: &syn::Expr) -> syn::Result<u32> {
    let bad = |span| {
        syn::Error::new(
            span,
            "`retries` takes a whole number of retries from 0 to 10, e.g. `retries = 2`",
        )
    };
    match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => match i.base10_parse::<u32>() {
            Ok(n) if n <= 10 => Ok(n),
            _ => Err(bad(i.span())),
        },
        other => Err(bad(syn::spanned::Spanned::span(other))),
    }
}

/// `trace = "on"`: one of the four trace modes.
fn trace(value: &Expr) -> syn::Result<&'static str> {
    let bad = |span| {
        syn::Error::new(
            span,
            "`trace` takes a trace mode: \"off\", \"on\", \"retain-on-failure\" or \"on-first-retry\", e.g. `trace = \"on\"`",
        )
    };
    let lit = match value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(lit), ..
        }) => lit,
        Expr::Group(group) => return trace(&group.expr),
        other => return Err(bad(other.span())),
    };
    let v = lit.value();
    TRACE_MODES
        .into_iter()
        .find(|m| *m == v)
        .ok_or_else(|| bad(lit.span()))
}

/// `storage_state = "admin"`: a name that becomes `.harshJudge/.auth/admin.json`.
fn storage_state(value: &Expr) -> syn::Result<String> {
    let lit = string_literal("storage_state", value)?;
    let name = lit.value();
    let ok = (1..=64).contains(&name.len())
        && name.as_bytes()[0].is_ascii_alphanumeric()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if !ok {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "invalid `storage_state` \"{name}\": a name of letters, digits, `_`, `-` and `.` (1 to 64, starting with a letter or a digit), as given to `page.save_storage_state(\"admin\")`"
            ),
        ));
    }
    Ok(name)
}

/// A path to a function (`h`, `hooks::h`).
fn fn_path(value: &Expr) -> Option<syn::Path> {
    match value {
        Expr::Path(p) if p.qself.is_none() && p.attrs.is_empty() => Some(p.path.clone()),
        Expr::Group(group) => fn_path(&group.expr),
        _ => None,
    }
}

/// `depends_on = [f, m::g]`: setup scenarios by their function.
fn depends_on(value: &Expr) -> syn::Result<Vec<syn::Path>> {
    let bad = |span| {
        syn::Error::new(
            span,
            "`depends_on` takes a list of setup scenarios' functions: write `depends_on = [signed_in_as_admin]`",
        )
    };
    let array = match value {
        Expr::Array(array) => array,
        Expr::Group(group) => return depends_on(&group.expr),
        other => return Err(bad(other.span())),
    };
    let mut paths: Vec<syn::Path> = Vec::new();
    let mut errors = Errors::default();
    for elem in &array.elems {
        match fn_path(elem) {
            Some(path) => {
                let text = path_text(&path);
                if paths.iter().any(|p| path_text(p) == text) {
                    errors.push(syn::Error::new(
                        elem.span(),
                        format!("`depends_on` names `{text}` twice: list each setup once"),
                    ));
                } else {
                    paths.push(path);
                }
            }
            None => errors.push(bad(elem.span())),
        }
    }
    if array.elems.is_empty() {
        errors.push(bad(array.span()));
    }
    errors.into_result().map(|()| paths)
}

/// `before = h` / `after = k`: a hook function.
fn hook(name: &str, value: &Expr) -> syn::Result<syn::Path> {
    fn_path(value).ok_or_else(|| {
        syn::Error::new(
            value.span(),
            format!(
                "`{name}` takes a function `async fn {}(s: &Scenario) -> harshjudge::Result`: write `{name} = {}`",
                example(name),
                example(name)
            ),
        )
    })
}

/// The text of a path, `a::b`.
pub(crate) fn path_string(path: &syn::Path) -> String {
    path_text(path)
}

/// The string literal of an argument, or an error telling how to write it.
fn string_literal<'a>(name: &str, value: &'a Expr) -> syn::Result<&'a LitStr> {
    match value {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(s),
        Expr::Group(group) => string_literal(name, &group.expr),
        _ => Err(syn::Error::new_spanned(
            value,
            format!(
                "`{name}` must be a string literal: write `{name} = {}`",
                example(name)
            ),
        )),
    }
}

/// Whether a slug matches `^[a-z0-9-]+$`.
pub(crate) fn is_valid_slug(slug: &str) -> bool {
    !slug.is_empty()
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

fn slug(value: &Expr) -> syn::Result<String> {
    let lit = string_literal("slug", value)?;
    let slug = lit.value();
    if !is_valid_slug(&slug) {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "invalid slug \"{slug}\": a slug must match ^[a-z0-9-]+$ (lowercase letters, digits and `-`), e.g. `slug = \"checkout-saved-card\"`"
            ),
        ));
    }
    Ok(slug)
}

/// `skip = "why"` / `fixme = "why"`: a non-empty string literal, trimmed.
fn reason(name: &str, value: &Expr) -> syn::Result<String> {
    let lit = string_literal(name, value)?;
    let why = lit.value().trim().to_string();
    if why.is_empty() {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`{name}` needs a reason, reported instead of running the scenario: write `{name} = {}`",
                example(name)
            ),
        ));
    }
    Ok(why)
}

fn title(value: &Expr) -> syn::Result<String> {
    let lit = string_literal("title", value)?;
    let title = lit.value().trim().to_string();
    if title.is_empty() {
        return Err(syn::Error::new(
            lit.span(),
            "`title` must not be empty: describe the scenario, or remove `title` to use the doc comment's first line",
        ));
    }
    Ok(title)
}

fn tags(value: &Expr) -> syn::Result<Vec<String>> {
    let array = match value {
        Expr::Array(array) => array,
        Expr::Group(group) => return tags(&group.expr),
        _ => {
            return Err(syn::Error::new_spanned(
                value,
                "`tags` must be a list of string literals: write `tags = [\"smoke\", \"checkout\"]`",
            ));
        }
    };
    let mut tags: Vec<String> = Vec::new();
    let mut errors = Errors::default();
    for elem in &array.elems {
        let lit = match string_literal("tags", elem) {
            Ok(lit) => lit,
            Err(_) => {
                errors.push(syn::Error::new(
                    elem.span(),
                    "each tag must be a string literal: write `tags = [\"smoke\", \"checkout\"]`",
                ));
                continue;
            }
        };
        let tag = lit.value();
        if tag.trim().is_empty() {
            errors.push(syn::Error::new(
                lit.span(),
                "tags must not be empty: remove it or name the tag",
            ));
        } else if tag.trim() != tag {
            errors.push(syn::Error::new(
                lit.span(),
                format!(
                    "tag \"{tag}\" has leading or trailing spaces: write \"{}\"",
                    tag.trim()
                ),
            ));
        } else if tags.contains(&tag) {
            errors.push(syn::Error::new(
                lit.span(),
                format!("duplicate tag \"{tag}\": list each tag once"),
            ));
        } else {
            tags.push(tag);
        }
    }
    errors.into_result().map(|()| tags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn parse(tokens: TokenStream) -> (Args, Vec<String>) {
        let mut errors = Errors::default();
        let args = Args::parse(tokens, &mut errors);
        (args, errors.messages())
    }

    #[test]
    fn all_arguments() {
        let (args, errors) = parse(quote! {
            slug = "check-out-2", title = "  Checkout  ", tags = ["smoke", "checkout"], timeout = "2m", step_timeout = 30,
        });
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(args.slug.as_deref(), Some("check-out-2"));
        assert_eq!(args.title.as_deref(), Some("Checkout"));
        assert_eq!(args.tags, ["smoke", "checkout"]);
        assert_eq!(args.timeout, Some(120_000));
        assert_eq!(args.step_timeout, Some(30_000));
    }

    #[test]
    fn skip_and_fixme() {
        let (args, errors) = parse(quote!(skip = " sandbox down "));
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(args.skip, Some(Skip::Skip("sandbox down".into())));
        let (args, _) = parse(quote!(fixme = "broken since #12"));
        assert_eq!(args.skip, Some(Skip::Fixme("broken since #12".into())));
    }

    #[test]
    fn trace_modes() {
        for mode in TRACE_MODES {
            let (args, errors) = parse(quote!(trace = #mode));
            assert!(errors.is_empty(), "{errors:?}");
            assert_eq!(args.trace, Some(mode));
        }
        assert_eq!(parse(quote!()).0.trace, None);
    }

    #[test]
    fn empty() {
        let (args, errors) = parse(quote! {});
        assert!(errors.is_empty());
        assert!(args.slug.is_none() && args.title.is_none() && args.tags.is_empty());
        assert!(args.timeout.is_none() && args.step_timeout.is_none());
    }

    #[test]
    fn errors() {
        for (tokens, expected) in [
            (
                quote!(attempts = 2),
                "unknown attribute argument `attempts`; expected one of: slug, title, tags, timeout, step_timeout, retries, skip, fixme",
            ),
            (
                quote!(retries = 11),
                "`retries` takes a whole number of retries from 0 to 10, e.g. `retries = 2`",
            ),
            (
                quote!(retries = "2"),
                "`retries` takes a whole number of retries from 0 to 10, e.g. `retries = 2`",
            ),
            (quote!(a::b = 2), "unknown attribute argument `a::b`"),
            (
                quote!(timeout = "1s", timeout = "2s"),
                "`timeout` is set more than once",
            ),
            (
                quote!(slug = "Check_Out"),
                "invalid slug \"Check_Out\": a slug must match ^[a-z0-9-]+$",
            ),
            (quote!(slug = ""), "invalid slug \"\""),
            (quote!(slug = checkout), "`slug` must be a string literal"),
            (quote!(title = " "), "`title` must not be empty"),
            (
                quote!(tags = "smoke"),
                "`tags` must be a list of string literals",
            ),
            (quote!(tags = ["a", 1]), "each tag must be a string literal"),
            (quote!(tags = ["a", "a"]), "duplicate tag \"a\""),
            (quote!(tags = [""]), "tags must not be empty"),
            (quote!(tags), "`tags` needs a value"),
            (quote!(tags("a")), "`tags` takes its value after `=`"),
            (quote!(timeout = "1.5s"), "fractions are not supported"),
            (
                quote!(step_timeout = 0),
                "`step_timeout` must be greater than zero",
            ),
            (quote!(timeout "1s"), "expected `,`"),
            (quote!(skip = ""), "`skip` needs a reason"),
            (quote!(fixme = 2), "`fixme` must be a string literal"),
            (quote!(skip), "`skip` needs a value"),
            (
                quote!(trace = "sometimes"),
                "`trace` takes a trace mode: \"off\", \"on\", \"retain-on-failure\" or \"on-first-retry\"",
            ),
            (quote!(trace = on), "`trace` takes a trace mode"),
            (
                quote!(skip = "a", fixme = "b"),
                "`fixme` and `skip` cannot both be set",
            ),
        ] {
            let (_, errors) = parse(tokens.clone());
            assert!(
                errors.iter().any(|e| e.contains(expected)),
                "{tokens}: {errors:?}"
            );
        }
    }

    #[test]
    fn slugs() {
        assert!(is_valid_slug("a-b-0"));
        assert!(!is_valid_slug(""));
        assert!(!is_valid_slug("a_b"));
        assert!(!is_valid_slug("A"));
        assert!(!is_valid_slug("é"));
    }
}
