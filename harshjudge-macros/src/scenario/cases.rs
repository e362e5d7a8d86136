//! `#[case::name(value, …)]` under `#[scenario]`: rstest's form of a
//! parameterized scenario. Each case is a scenario of its own.

use proc_macro2::Span;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Meta, Token};

use crate::Errors;

/// One `#[case(…)]` or `#[case::name(…)]`.
pub(crate) struct Case {
    /// `admin`, or `case_1`, `case_2`, … (its position) when unnamed.
    pub name: String,
    /// The attribute: errors about the case point there.
    pub span: Span,
    /// The values, one per parameter after the scenario handle.
    pub values: Vec<Expr>,
}

impl Case {
    /// The case's part of the slug (`_` becomes `-`).
    pub fn slug(&self) -> String {
        self.name.replace('_', "-")
    }
}

/// Whether `attr` is `#[case…]`.
fn is_case(attr: &Attribute) -> bool {
    let path = attr.path();
    path.leading_colon.is_none()
        && path.segments.first().is_some_and(|s| s.ident == "case")
        && path.segments.len() <= 2
}

/// Whether a case name makes a valid slug part: `^[a-z0-9_]+$`.
fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// Takes the `#[case]` attributes out of `attrs` and parses them; every
/// problem goes to `errors`.
pub(crate) fn take_cases(attrs: &mut Vec<Attribute>, errors: &mut Errors) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    let mut kept = Vec::new();
    let mut position = 0;
    for attr in std::mem::take(attrs) {
        if !is_case(&attr) {
            kept.push(attr);
            continue;
        }
        position += 1;
        let path = attr.path();
        let named = path.segments.get(1).map(|s| s.ident.to_string());
        let name = named.clone().unwrap_or_else(|| format!("case_{position}"));
        let shown = match &named {
            Some(n) => format!("case::{n}"),
            None => "case".to_string(),
        };
        let list = match &attr.meta {
            Meta::List(list) => list,
            _ => {
                errors.push(syn::Error::new(
                    attr.span(),
                    format!(
                        "`#[{shown}]` needs its values in parentheses, one per parameter after the scenario handle: write `#[{shown}(\"admin\", \"s3cret\")]`"
                    ),
                ));
                continue;
            }
        };
        let values = match list.parse_args_with(Punctuated::<Expr, Token![,]>::parse_terminated) {
            Ok(values) => values.into_iter().collect(),
            Err(e) => {
                errors.push(syn::Error::new(
                    e.span(),
                    format!(
                        "case `{name}`: its values must be expressions separated by commas ({e})"
                    ),
                ));
                continue;
            }
        };
        if let Some(n) = &named
            && !is_valid_name(n)
        {
            errors.push(syn::Error::new(
                path.segments[1].ident.span(),
                format!(
                    "invalid case name `{n}`: it becomes part of the slug and the test names; use lowercase letters, digits and `_`, e.g. `#[case::admin(…)]`"
                ),
            ));
            continue;
        }
        if cases.iter().any(|c| c.name == name) {
            errors.push(syn::Error::new(
                attr.span(),
                format!("duplicate case name `{name}`: each case needs its own name"),
            ));
            continue;
        }
        cases.push(Case {
            name,
            span: attr.span(),
            values,
        });
    }
    *attrs = kept;
    cases
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(item: &str) -> (Vec<Case>, Vec<String>, usize) {
        let mut function: syn::ItemFn = syn::parse_str(item).unwrap();
        let mut errors = Errors::default();
        let cases = take_cases(&mut function.attrs, &mut errors);
        (cases, errors.messages(), function.attrs.len())
    }

    #[test]
    fn named_and_unnamed_cases() {
        let (cases, errors, left) = take(
            r#"#[doc = "x"] #[case::admin("admin", "s3cret")] #[case("editor", 2 + 3)] #[case::read_only()] async fn f() {}"#,
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(left, 1, "only the doc attribute stays");
        let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["admin", "case_2", "read_only"]);
        assert_eq!(cases[1].slug(), "case-2");
        assert_eq!(
            cases.iter().map(|c| c.values.len()).collect::<Vec<_>>(),
            [2, 2, 0]
        );
    }

    #[test]
    fn bad_cases() {
        for (item, expected) in [
            (
                "#[case::admin] async fn f() {}",
                "`#[case::admin]` needs its values in parentheses",
            ),
            (
                "#[case::Admin(1)] async fn f() {}",
                "invalid case name `Admin`",
            ),
            (
                "#[case::a(1)] #[case::a(2)] async fn f() {}",
                "duplicate case name `a`",
            ),
            (
                "#[case::a(1 2)] async fn f() {}",
                "case `a`: its values must be expressions",
            ),
            (
                "#[case = 1] async fn f() {}",
                "`#[case]` needs its values in parentheses",
            ),
        ] {
            let (_, errors, _) = take(item);
            assert!(
                errors.iter().any(|e| e.contains(expected)),
                "{item}: {errors:?}"
            );
        }
    }
}
