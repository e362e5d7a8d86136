//! `step!(...)` invocations: recognising them, parsing their arguments, finding
//! the ones that are not top-level statements, and replacing them by their body.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Ident, Lit, LitStr, Macro, Stmt, Token};

use crate::Errors;
use crate::duration::duration_arg;

/// The usage shown by the messages about a malformed `step!`.
const USAGE: &str = "write `step!(\"title\", { ... })`, `step!(\"title\", timeout = \"5s\", { ... })` or `step!(\"title\", expect = \"what must be seen\", { ... })`";

/// Whether the macro is `step!`, `harshjudge::step!` or `::harshjudge::step!`.
pub(crate) fn is_step(mac: &Macro) -> bool {
    let segments: Vec<&syn::PathSegment> = mac.path.segments.iter().collect();
    if segments.iter().any(|s| !s.arguments.is_none()) {
        return false;
    }
    match segments.as_slice() {
        [step] => mac.path.leading_colon.is_none() && step.ident == "step",
        [krate, step] => krate.ident == "harshjudge" && step.ident == "step",
        _ => false,
    }
}

/// The `step` of an invocation written `step!` (not `harshjudge::step!`).
pub(crate) fn bare_step(mac: &Macro) -> Option<Ident> {
    match mac.path.segments.first() {
        Some(first) if mac.path.segments.len() == 1 && mac.path.leading_colon.is_none() => {
            Some(first.ident.clone())
        }
        _ => None,
    }
}

/// `step!(@used);`, for the body of a function whose `step!`s were removed.
///
/// The attribute removes the `step!` invocations before names are resolved, so the
/// user's `use harshjudge::step;` would be reported as an unused import. Invoking
/// the runtime's no-op arm of the same macro (with the user's span, so that it
/// resolves in the user's scope) marks the import used; a missing import gets
/// rustc's usual "cannot find macro `step`" with its import hint.
pub(crate) fn use_step(bare_step: Option<&Ident>, _param: Option<&Ident>) -> TokenStream {
    match bare_step {
        Some(step) => quote_spanned!(step.span()=> #step!(@used);),
        None => TokenStream::new(),
    }
}

/// The arguments of a `step!`, parsed without judging them:
/// `title, (name = value,)* body (,)?`.
pub(crate) struct StepArgs {
    pub title: Expr,
    pub options: Vec<(Ident, Expr)>,
    pub body: Option<Expr>,
}

impl Parse for StepArgs {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        if input.is_empty() {
            return Err(input.error(format!("`step!` needs a title and a body: {USAGE}")));
        }
        let title: Expr = input.parse()?;
        let mut options = Vec::new();
        let mut body = None;
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            if body.is_some() {
                return Err(input.error(format!(
                    "unexpected argument after the step body: the body must be the last argument of `step!`; {USAGE}"
                )));
            }
            if input.peek(Ident) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
                let name: Ident = input.parse()?;
                input.parse::<Token![=]>()?;
                options.push((name, input.parse()?));
            } else {
                body = Some(input.parse()?);
                if !input.is_empty() && !input.peek(Token![,]) {
                    return Err(input.error(format!(
                        "expected `,` or the end of `step!` after the step body; {USAGE}"
                    )));
                }
            }
        }
        Ok(StepArgs {
            title,
            options,
            body,
        })
    }
}

impl StepArgs {
    /// Parses the arguments of a `step!` invocation.
    pub(crate) fn of(mac: &Macro) -> syn::Result<StepArgs> {
        mac.parse_body()
    }
}

/// A valid top-level step, ready for the expansion.
pub(crate) struct Step {
    /// The title, trimmed.
    pub title: String,
    /// Span of the title literal (duplicate titles point there).
    pub title_span: Span,
    /// Span of the `step!` invocation (for `line!()`).
    pub span: Span,
    /// The body as written.
    pub source: String,
    /// `timeout = "..."`, in milliseconds.
    pub timeout: Option<u64>,
    /// `expect = "..."`: what a judge must see in the step's evidence, trimmed.
    pub expect: Option<String>,
    /// The expression that replaces the invocation.
    pub body: Expr,
}

impl Step {
    /// Parses and validates a top-level `step!`. Every problem goes to `errors`; the
    /// result is `None` when the invocation cannot be used.
    pub(crate) fn parse(mac: &Macro, errors: &mut Errors) -> Option<Step> {
        let args = match StepArgs::of(mac) {
            Ok(args) => args,
            Err(e) => {
                errors.push(e);
                return None;
            }
        };
        let mut ok = true;
        let mut fail = |e: syn::Error| {
            errors.push(e);
            ok = false;
        };
        let title = match title_literal(&args.title) {
            Some(lit) if lit.value().trim().is_empty() => {
                fail(syn::Error::new(
                    lit.span(),
                    "step titles must not be empty: say what the step does, e.g. `step!(\"Open the login page\", { ... })`",
                ));
                None
            }
            Some(lit) => Some(lit),
            None => {
                fail(syn::Error::new_spanned(
                    &args.title,
                    "step titles must be string literals, e.g. `step!(\"Open the login page\", { ... })`: titles are read at compile time so that the steps can be listed without running anything",
                ));
                None
            }
        };
        let mut timeout = None;
        let mut expect = None;
        let mut seen: Vec<String> = Vec::new();
        for (name, value) in &args.options {
            let key = name.to_string();
            if key != "timeout" && key != "expect" {
                fail(syn::Error::new(
                    name.span(),
                    format!(
                        "unknown `step!` argument `{name}`; the named arguments are `timeout` and `expect`, e.g. `step!(\"title\", timeout = \"5s\", expect = \"a receipt is shown\", {{ ... }})`"
                    ),
                ));
                continue;
            }
            if seen.contains(&key) {
                fail(syn::Error::new(
                    name.span(),
                    format!("`{key}` is set more than once"),
                ));
                continue;
            }
            seen.push(key.clone());
            if key == "timeout" {
                match duration_arg("timeout", value) {
                    Ok(ms) => timeout = Some(ms),
                    Err(e) => fail(e),
                }
            } else {
                match expectation_arg(value) {
                    Ok(text) => expect = Some(text),
                    Err(e) => fail(e),
                }
            }
        }
        let Some(body) = args.body else {
            let span = match &mac.delimiter {
                syn::MacroDelimiter::Paren(p) => p.span.close(),
                syn::MacroDelimiter::Brace(b) => b.span.close(),
                syn::MacroDelimiter::Bracket(b) => b.span.close(),
            };
            fail(syn::Error::new(
                span,
                format!("`step!` is missing its body: {USAGE}"),
            ));
            return None;
        };
        let title = title?;
        if !ok {
            return None;
        }
        Some(Step {
            title: title.value().trim().to_string(),
            title_span: title.span(),
            span: mac.path.span(),
            source: source_text(&body),
            timeout,
            expect,
            body,
        })
    }
}

/// The longest expectation accepted (it is sent to judges with every step).
const MAX_EXPECTATION: usize = 4096;

/// `expect = "..."`: a non-empty string literal of at most [`MAX_EXPECTATION`] bytes.
fn expectation_arg(value: &Expr) -> syn::Result<String> {
    let Some(lit) = title_literal(value) else {
        return Err(syn::Error::new_spanned(
            value,
            "`expect` must be a string literal saying in words what the step's evidence must show, e.g. `expect = \"a receipt with the total is shown and no error is visible\"`",
        ));
    };
    let text = lit.value().trim().to_string();
    if text.is_empty() {
        return Err(syn::Error::new(
            lit.span(),
            "`expect` must not be empty: say what a judge must see, e.g. `expect = \"the cart shows 2 items\"`",
        ));
    }
    if text.len() > MAX_EXPECTATION {
        return Err(syn::Error::new(
            lit.span(),
            format!(
                "`expect` is {} bytes long; keep it under {MAX_EXPECTATION} bytes (it is sent to the judge with every step)",
                text.len()
            ),
        ));
    }
    Ok(text)
}

/// The title if it is a string literal.
fn title_literal(title: &Expr) -> Option<LitStr> {
    match title {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s),
            attrs,
        }) if attrs.is_empty() => Some(s.clone()),
        Expr::Group(group) => title_literal(&group.expr),
        _ => None,
    }
}

/// The source text of an expression as written, else its tokens printed.
///
/// Only a single token tree (a `{ ... }` block, the usual body) has one span that
/// covers all of it on a stable compiler; otherwise joining the first and last
/// spans works on nightly only.
pub(crate) fn source_text(expr: &Expr) -> String {
    let tokens: Vec<proc_macro2::TokenTree> = expr.to_token_stream().into_iter().collect();
    let span = match tokens.as_slice() {
        [] => None,
        [single] => Some(single.span()),
        [first, .., last] => first.span().join(last.span()),
    };
    span.and_then(|span| span.source_text())
        .unwrap_or_else(|| expr.to_token_stream().to_string())
}

/// Where a nested `step!` was found.
#[derive(Clone)]
enum Context {
    /// A plain `{ ... }` block: named only when nothing more telling encloses the step.
    Block,
    /// Any other enclosing construct, as the message names it ("a `for` loop").
    Named(String),
}

/// Reports every `step!` it reaches: used on code that must not contain steps
/// (statements between steps, and the arguments of the top-level steps).
pub(crate) struct NestedSteps<'a> {
    contexts: Vec<Context>,
    errors: &'a mut Errors,
}

impl<'a> NestedSteps<'a> {
    pub(crate) fn new(errors: &'a mut Errors) -> Self {
        NestedSteps {
            contexts: Vec::new(),
            errors,
        }
    }

    /// Checks the arguments of a top-level step (a step inside a step is an error).
    pub(crate) fn visit_step_args(&mut self, mac: &Macro) {
        if let Ok(args) = StepArgs::of(mac) {
            self.within(Context::Named("another step".into()), |v| {
                v.visit_args(&args)
            });
        }
    }

    fn visit_args(&mut self, args: &StepArgs) {
        self.visit_expr(&args.title);
        for (_, value) in &args.options {
            self.visit_expr(value);
        }
        if let Some(body) = &args.body {
            self.visit_expr(body);
        }
    }

    fn within(&mut self, context: Context, f: impl FnOnce(&mut Self)) {
        self.contexts.push(context);
        f(self);
        self.contexts.pop();
    }

    fn named(&mut self, name: &str, f: impl FnOnce(&mut Self)) {
        self.within(Context::Named(name.to_string()), f);
    }

    fn report(&mut self, mac: &Macro) {
        let named = self.contexts.iter().rev().find_map(|c| match c {
            Context::Named(name) => Some(name.as_str()),
            Context::Block => None,
        });
        let place = match (named, self.contexts.is_empty()) {
            (Some(name), _) => format!("not inside {name}"),
            (None, false) => "not inside a nested block".to_string(),
            (None, true) => "not part of a larger expression".to_string(),
        };
        self.errors.push(syn::Error::new_spanned(
            &mac.path,
            format!(
                "`step!` must be a top-level statement of the scenario body, {place}; steps must run in a fixed order so they can be listed before running. Move it to the top level (`step!(\"title\", {{ ... }});` or `let x = step!(\"title\", {{ ... }});`), or do the work inside one step."
            ),
        ));
    }
}

impl<'ast> Visit<'ast> for NestedSteps<'_> {
    fn visit_macro(&mut self, mac: &'ast Macro) {
        if is_step(mac) {
            self.report(mac);
            self.visit_step_args(mac);
        } else if let Some(inner) = MacroArgs::parse(mac) {
            let name = format!("the arguments of `{}!`", path_name(&mac.path));
            self.named(&name, |v| inner.visit(v));
        }
    }

    fn visit_expr_for_loop(&mut self, e: &'ast syn::ExprForLoop) {
        self.named("a `for` loop", |v| visit::visit_expr_for_loop(v, e));
    }
    fn visit_expr_while(&mut self, e: &'ast syn::ExprWhile) {
        self.named("a `while` loop", |v| visit::visit_expr_while(v, e));
    }
    fn visit_expr_loop(&mut self, e: &'ast syn::ExprLoop) {
        self.named("a `loop`", |v| visit::visit_expr_loop(v, e));
    }
    fn visit_expr_if(&mut self, e: &'ast syn::ExprIf) {
        self.named("an `if` branch", |v| visit::visit_expr_if(v, e));
    }
    fn visit_expr_match(&mut self, e: &'ast syn::ExprMatch) {
        self.named("a `match`", |v| visit::visit_expr_match(v, e));
    }
    fn visit_expr_closure(&mut self, e: &'ast syn::ExprClosure) {
        self.named("a closure", |v| visit::visit_expr_closure(v, e));
    }
    fn visit_expr_async(&mut self, e: &'ast syn::ExprAsync) {
        self.named("an `async` block", |v| visit::visit_expr_async(v, e));
    }
    fn visit_expr_unsafe(&mut self, e: &'ast syn::ExprUnsafe) {
        self.named("an `unsafe` block", |v| visit::visit_expr_unsafe(v, e));
    }
    fn visit_expr_const(&mut self, e: &'ast syn::ExprConst) {
        self.named("a `const` block", |v| visit::visit_expr_const(v, e));
    }
    fn visit_expr_try_block(&mut self, e: &'ast syn::ExprTryBlock) {
        self.named("a `try` block", |v| visit::visit_expr_try_block(v, e));
    }
    fn visit_expr_block(&mut self, e: &'ast syn::ExprBlock) {
        self.within(Context::Block, |v| visit::visit_expr_block(v, e));
    }
    fn visit_item_fn(&mut self, i: &'ast syn::ItemFn) {
        self.named("a nested `fn`", |v| visit::visit_item_fn(v, i));
    }
    fn visit_impl_item_fn(&mut self, i: &'ast syn::ImplItemFn) {
        self.named("a method", |v| visit::visit_impl_item_fn(v, i));
    }
    fn visit_trait_item_fn(&mut self, i: &'ast syn::TraitItemFn) {
        self.named("a method", |v| visit::visit_trait_item_fn(v, i));
    }
    fn visit_item(&mut self, i: &'ast syn::Item) {
        match i {
            syn::Item::Fn(_) => visit::visit_item(self, i),
            _ => self.named("a nested item", |v| visit::visit_item(v, i)),
        }
    }
}

/// The printable path of a macro (`println`, `tokio::select`).
fn path_name(path: &syn::Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    segments.join("::")
}

/// The arguments of another macro, when they parse as expressions (`vec![a, b]`,
/// `println!("{}", x)`) or as statements: then `step!`s inside can be found and
/// replaced.
enum MacroArgs {
    Exprs(Punctuated<Expr, Token![,]>),
    Stmts(Vec<Stmt>),
}

impl MacroArgs {
    fn parse(mac: &Macro) -> Option<MacroArgs> {
        if let Ok(exprs) = mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated) {
            return Some(MacroArgs::Exprs(exprs));
        }
        mac.parse_body_with(syn::Block::parse_within)
            .ok()
            .map(MacroArgs::Stmts)
    }

    fn visit<'ast>(&'ast self, v: &mut impl Visit<'ast>) {
        match self {
            MacroArgs::Exprs(exprs) => exprs.iter().for_each(|e| v.visit_expr(e)),
            MacroArgs::Stmts(stmts) => stmts.iter().for_each(|s| v.visit_stmt(s)),
        }
    }

    fn to_tokens(&self) -> TokenStream {
        match self {
            MacroArgs::Exprs(exprs) => exprs.to_token_stream(),
            MacroArgs::Stmts(stmts) => quote!(#(#stmts)*),
        }
    }
}

/// Whether any `step!` occurs in the tokens (a cheap pre-check).
fn mentions_step(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(ident) => ident == "step",
        proc_macro2::TokenTree::Group(group) => mentions_step(&group.stream()),
        _ => false,
    })
}

/// Replaces every `step!(...)` by its body, wherever it is: the code emitted next
/// to compile errors, so that analysis of the function keeps working and the
/// fallback `step!` of the runtime crate adds no second error.
#[derive(Default)]
pub(crate) struct StripSteps {
    /// The first `step` path written without `harshjudge::` (see [`use_step`]).
    pub bare_step: Option<Ident>,
}

impl StripSteps {
    /// The expression standing for a `step!`: its body, else an expression of any type.
    fn replacement(&mut self, mac: &Macro) -> Expr {
        if self.bare_step.is_none() {
            self.bare_step = bare_step(mac);
        }
        match StepArgs::of(mac) {
            Ok(StepArgs {
                body: Some(body), ..
            }) => body,
            _ => syn::parse_quote_spanned!(mac.path.span()=> ::core::unreachable!()),
        }
    }
}

impl VisitMut for StripSteps {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Macro(m) = expr
            && is_step(&m.mac)
        {
            *expr = self.replacement(&m.mac);
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let last = block.stmts.len().saturating_sub(1);
        for (i, stmt) in block.stmts.iter_mut().enumerate() {
            if let Stmt::Macro(m) = stmt
                && is_step(&m.mac)
            {
                let semi = m.semi_token.or_else(|| (i != last).then(Default::default));
                *stmt = Stmt::Expr(self.replacement(&m.mac), semi);
            }
        }
        visit_mut::visit_block_mut(self, block);
    }

    fn visit_macro_mut(&mut self, mac: &mut Macro) {
        if is_step(mac) || !mentions_step(&mac.tokens) {
            return;
        }
        if let Some(mut inner) = MacroArgs::parse(mac) {
            match &mut inner {
                MacroArgs::Exprs(exprs) => exprs.iter_mut().for_each(|e| self.visit_expr_mut(e)),
                MacroArgs::Stmts(stmts) => {
                    let mut block = syn::Block {
                        brace_token: Default::default(),
                        stmts: std::mem::take(stmts),
                    };
                    self.visit_block_mut(&mut block);
                    *stmts = block.stmts;
                }
            }
            mac.tokens = inner.to_tokens();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse::Parser;

    fn parse_args(tokens: &str) -> syn::Result<StepArgs> {
        StepArgs::parse.parse_str(tokens)
    }

    fn mac(tokens: &str) -> Macro {
        syn::parse_str(tokens).unwrap()
    }

    #[test]
    fn recognises_step_paths() {
        assert!(is_step(&mac("step!()")));
        assert!(is_step(&mac("harshjudge::step!()")));
        assert!(is_step(&mac("::harshjudge::step!()")));
        assert!(!is_step(&mac("::step!()")));
        assert!(!is_step(&mac("other::step!()")));
        assert!(!is_step(&mac("steps!()")));
        assert!(!is_step(&mac("harshjudge::step::inner!()")));
    }

    #[test]
    fn parses_arguments() {
        let args = parse_args(r#""Pay", timeout = "5s", { pay(); },"#).unwrap();
        assert_eq!(args.options.len(), 1);
        assert_eq!(args.options[0].0, "timeout");
        assert!(matches!(args.body, Some(Expr::Block(_))));

        let args = parse_args(r#""Pay""#).unwrap();
        assert!(args.body.is_none());

        let args = parse_args(r#""Pay", x == 1"#).unwrap();
        assert!(matches!(args.body, Some(Expr::Binary(_))));

        let err = parse_args(r#""Pay", { a }, { b }"#)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("unexpected argument after the step body"),
            "{err}"
        );
        let err = parse_args("").err().unwrap().to_string();
        assert!(err.contains("needs a title and a body"), "{err}");
    }

    #[test]
    fn validates_steps() {
        let check = |tokens: &str| {
            let mut errors = Errors::default();
            let step = Step::parse(&mac(tokens), &mut errors);
            (step, errors.messages())
        };
        let (step, errors) = check(r#"step!("  Pay  ", timeout = "5s", { pay() })"#);
        let step = step.unwrap();
        assert!(errors.is_empty());
        assert_eq!(step.title, "Pay");
        assert_eq!(step.timeout, Some(5_000));
        assert_eq!(step.source, "{ pay () }");

        for (tokens, expected) in [
            (r#"step!(title, {})"#, "step titles must be string literals"),
            (r#"step!(" ", {})"#, "step titles must not be empty"),
            (
                r#"step!("t", retries = 2, {})"#,
                "unknown `step!` argument `retries`",
            ),
            (
                r#"step!("t", timeout = "1s", timeout = "2s", {})"#,
                "`timeout` is set more than once",
            ),
            (
                r#"step!("t", timeout = "soon", {})"#,
                "invalid duration \"soon\"",
            ),
            (r#"step!("t")"#, "`step!` is missing its body"),
            (
                r#"step!("t", timeout = "5s")"#,
                "`step!` is missing its body",
            ),
            (r#"step!()"#, "`step!` needs a title and a body"),
        ] {
            let (step, errors) = check(tokens);
            assert!(step.is_none(), "{tokens}");
            assert!(
                errors.iter().any(|e| e.contains(expected)),
                "{tokens}: {errors:?}"
            );
        }
    }

    fn nested(code: &str) -> Vec<String> {
        let block: syn::Block = syn::parse_str(&format!("{{ {code} }}")).unwrap();
        let mut errors = Errors::default();
        let mut v = NestedSteps::new(&mut errors);
        for stmt in &block.stmts {
            v.visit_stmt(stmt);
        }
        errors.messages()
    }

    #[test]
    fn finds_nested_steps() {
        for (code, place) in [
            (
                "for x in y { step!(\"a\", {}); }",
                "not inside a `for` loop",
            ),
            ("while c { step!(\"a\", {}); }", "not inside a `while` loop"),
            ("loop { step!(\"a\", {}); }", "not inside a `loop`"),
            (
                "if c { } else { step!(\"a\", {}); }",
                "not inside an `if` branch",
            ),
            (
                "match c { _ => { step!(\"a\", {}) } }",
                "not inside a `match`",
            ),
            ("let f = || step!(\"a\", {});", "not inside a closure"),
            (
                "let f = async { step!(\"a\", {}) };",
                "not inside an `async` block",
            ),
            ("{ step!(\"a\", {}); }", "not inside a nested block"),
            (
                "{ { harshjudge::step!(\"a\", {}); } }",
                "not inside a nested block",
            ),
            ("fn f() { step!(\"a\", {}); }", "not inside a nested `fn`"),
            (
                "let x = f(step!(\"a\", {}));",
                "not part of a larger expression",
            ),
            (
                "println!(\"{}\", step!(\"a\", {}));",
                "not inside the arguments of `println!`",
            ),
            (
                "for x in y { { step!(\"a\", {}); } }",
                "not inside a `for` loop",
            ),
        ] {
            let errors = nested(code);
            assert_eq!(errors.len(), 1, "{code}: {errors:?}");
            assert!(errors[0].contains(place), "{code}: {errors:?}");
            assert!(
                errors[0].starts_with("`step!` must be a top-level statement of the scenario body")
            );
        }
        assert!(nested("let x = 1; println!(\"{}\", x); m!(not rust %%);").is_empty());
    }

    #[test]
    fn step_inside_step() {
        let mut errors = Errors::default();
        NestedSteps::new(&mut errors).visit_step_args(&mac(
            r#"step!("a", { if x { step!("b", {}); } step!("c", {}) })"#,
        ));
        let errors = errors.messages();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(errors[0].contains("not inside an `if` branch"));
        assert!(errors[1].contains("not inside another step"));
    }

    #[test]
    fn strips_every_step() {
        let mut f: syn::ItemFn = syn::parse_str(
            r#"fn f() {
                step!("a", { 1 });
                let x: u8 = step!("b", timeout = "1s", { 2 });
                for i in 0..3 { harshjudge::step!("c", { i }); }
                let v = vec![step!("d", { 3 }), 4];
                step!{"e", f()}
                step!("f")
            }"#,
        )
        .unwrap();
        StripSteps::default().visit_item_fn_mut(&mut f);
        let text = f.to_token_stream().to_string();
        assert!(!text.contains("step"), "{text}");
        assert!(text.contains("let x : u8 = { 2 } ;"), "{text}");
        assert!(text.contains("vec ! [{ 3 } , 4]"), "{text}");
        assert!(text.contains("f () ;"), "{text}");
        assert!(text.contains(":: core :: unreachable ! ()"), "{text}");
    }
}
