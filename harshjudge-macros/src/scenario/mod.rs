//! `#[scenario]`: validation of the function and the expansion.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, FnArg, Ident, ItemFn, Pat, ReturnType, Signature, Stmt, Type};

use crate::Errors;
use crate::args::{Args, Skip, is_valid_slug};
use crate::step::{NestedSteps, Step, StripSteps, bare_step, is_step, use_step};
use cases::{Case, take_cases};

/// Most steps a scenario may have: step ids are two digits.
const MAX_STEPS: usize = 99;

/// The signature users are told to write.
const SIGNATURE: &str = "`async fn name(s: Scenario) -> harshjudge::Result`";

/// Expands `#[scenario(args)] item`.
pub(crate) fn scenario(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut function: ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        Err(e) => {
            let e = syn::Error::new(
                e.span(),
                format!("#[scenario] applies to an async fn: {SIGNATURE} ({e})"),
            );
            return with_errors(item, e.into_compile_error());
        }
    };
    let mut errors = Errors::default();
    let args = Args::parse(args, &mut errors);
    // `#[case]`s are ours: taken out of the function whatever else is wrong.
    let cases = take_cases(&mut function.attrs, &mut errors);
    match Scenario::analyse(&function, &args, cases, &mut errors) {
        Some(scenario) if errors.is_empty() => scenario.expand(function),
        _ => fallback(function, errors.into_compile_error()),
    }
}

fn with_errors(item: TokenStream, errors: TokenStream) -> TokenStream {
    quote!(#errors #item)
}

/// The function as the user wrote it, with every `step!` replaced by its body,
/// next to the errors (and without the registration).
fn fallback(mut function: ItemFn, errors: TokenStream) -> TokenStream {
    let mut strip = StripSteps::default();
    strip.visit_item_fn_mut(&mut function);
    let param = match function.sig.inputs.first() {
        Some(FnArg::Typed(typed)) => match &*typed.pat {
            Pat::Ident(pat) => Some(pat.ident.clone()),
            _ => None,
        },
        _ => None,
    };
    let mut prelude: Vec<Stmt> = Vec::new();
    let use_step = use_step(strip.bare_step.as_ref(), param.as_ref());
    if !use_step.is_empty() {
        prelude.push(syn::parse_quote!(#use_step));
    }
    if let Some(param) = &param {
        // The expansion uses the parameter: no "unused variable" warning next to the errors.
        prelude.push(syn::parse_quote!(let _ = &#param;));
    }
    function.block.stmts.splice(0..0, prelude);
    // A step without a body became `unreachable!()`: the code after it is unreachable.
    function
        .attrs
        .push(syn::parse_quote!(#[allow(unreachable_code)]));
    with_errors(function.into_token_stream(), errors)
}

/// A statement of the body, after the steps were recognised.
enum Part {
    /// Any statement: kept as it is.
    Code(TokenStream),
    /// A top-level step statement, rewritten with the step's body.
    Step(TokenStream),
    /// A top-level step with errors (counted, not expanded).
    BadStep,
}

/// A valid scenario function.
struct Scenario {
    /// The scenario parameter (`s`).
    param: Ident,
    /// Span of the parameter's type: type errors of the generated calls point there.
    param_ty: Span,
    /// Span of the return type: errors about the returned future point there.
    output: Span,
    fn_name: String,
    slug: String,
    title: String,
    tags: Vec<String>,
    timeout: Option<u64>,
    step_timeout: Option<u64>,
    retries: Option<u32>,
    /// `trace = "on"`: a trace mode's name.
    trace: Option<&'static str>,
    /// `skip = "why"` / `fixme = "why"`.
    skip: Option<Skip>,
    /// `#[case]`s: one scenario each (none: the function is the scenario).
    cases: Vec<Case>,
    /// The parameters after the case values: the fixtures they ask for (the
    /// fixture's type, at the parameter's name) and the span of their types.
    fixtures: Vec<(Ident, Span)>,
    parts: Vec<Part>,
    steps: Vec<Step>,
    /// The first `step` of a `step!` written without `harshjudge::`.
    bare_step: Option<Ident>,
    storage_state: Option<String>,
    setup: bool,
    depends_on: Vec<syn::Path>,
    before: Option<syn::Path>,
    after: Option<syn::Path>,
    /// Its body calls `.page(…)` or it starts from a storage state: the
    /// harness starts the browser while it prepares.
    opens_page: bool,
    /// The `ScenarioDef`'s `emulation` (`locale = …`, `device = …`).
    emulation: TokenStream,
}

impl Scenario {
    /// Checks the function; every problem goes to `errors`.
    fn analyse(
        function: &ItemFn,
        args: &Args,
        cases: Vec<Case>,
        errors: &mut Errors,
    ) -> Option<Scenario> {
        let case_values = cases.iter().map(|c| c.values.len()).max();
        let (param, case_params, fixtures) = check_signature(&function.sig, case_values, errors);
        let ident = &function.sig.ident;
        let fn_name = ident.unraw().to_string();

        let slug = match &args.slug {
            Some(slug) => slug.clone(),
            None => {
                let slug = fn_name.replace('_', "-");
                if !is_valid_slug(&slug) {
                    errors.push(syn::Error::new(
                        ident.span(),
                        format!(
                            "the slug \"{slug}\" made from the function name is invalid: a slug must match ^[a-z0-9-]+$; name the function in snake_case or set `slug = \"...\"`"
                        ),
                    ));
                }
                slug
            }
        };
        let title = args
            .title
            .clone()
            .or_else(|| doc_title(&function.attrs))
            .unwrap_or_else(|| fn_name.clone());

        let (parts, steps) = split_steps(&function.block.stmts, errors);
        if steps.is_empty() && !parts.iter().any(|p| matches!(p, Part::BadStep)) {
            errors.push(syn::Error::new(
                ident.span(),
                format!("scenario `{fn_name}` has no steps: add at least one `step!(\"title\", {{ ... }})` statement"),
            ));
        }
        let count = parts.iter().filter(|p| !matches!(p, Part::Code(_))).count();
        if count > MAX_STEPS {
            errors.push(syn::Error::new(
                ident.span(),
                format!(
                    "scenario `{fn_name}` has {count} steps; at most {MAX_STEPS} are supported (step ids are two digits): split it into several scenarios"
                ),
            ));
        }
        for case in &cases {
            check_case(case, &fn_name, &case_params, errors);
        }
        for dep in &args.depends_on {
            if dep.segments.last().is_some_and(|last| last.ident == *ident)
                && dep.segments.len() == 1
            {
                errors.push(syn::Error::new_spanned(
                    dep,
                    format!("`{fn_name}` depends on itself: a setup cannot be its own `depends_on`; remove it"),
                ));
            }
        }
        if args.setup && !cases.is_empty() {
            errors.push(syn::Error::new(
                ident.span(),
                format!("setup scenario `{fn_name}` has cases: a setup runs once and saves one state; make a setup per state instead"),
            ));
        }
        let (param, param_ty) = param?;
        let ReturnType::Type(_, output) = &function.sig.output else {
            return None;
        };
        let bare_step = function
            .block
            .stmts
            .iter()
            .filter_map(top_level_step)
            .find_map(bare_step);
        Some(Scenario {
            param,
            param_ty,
            output: output.span(),
            fn_name,
            slug,
            title,
            tags: args.tags.clone(),
            timeout: args.timeout,
            step_timeout: args.step_timeout,
            retries: args.retries,
            trace: args.trace,
            skip: args.skip.clone(),
            cases,
            fixtures,
            parts,
            steps,
            bare_step,
            storage_state: args.storage_state.clone(),
            setup: args.setup,
            depends_on: args.depends_on.clone(),
            before: args.before.clone(),
            after: args.after.clone(),
            opens_page: args.storage_state.is_some()
                || calls_page(function.block.to_token_stream()),
            emulation: args.emulation.expand(),
        })
    }

    /// The function with its body rewritten, then its registration.
    fn expand(self, function: ItemFn) -> TokenStream {
        let hj = Ident::new("__hj", Span::mixed_site());
        let param = &self.param;
        let steps_of = quote_spanned!(self.param_ty=> ::harshjudge::__private::steps(&#param));
        let mut body = vec![
            use_step(self.bare_step.as_ref(), Some(param)),
            quote!(let #hj = #steps_of;),
        ];
        let begin = |k: usize| {
            let k = Literal::usize_suffixed(k);
            quote!(#hj.begin(#k).await;)
        };
        body.push(begin(1));
        let mut k = 1;
        for part in self.parts {
            match part {
                Part::Code(tokens) => body.push(tokens),
                Part::Step(tokens) => {
                    body.push(tokens);
                    // The next statements (up to the next step) belong to the next step;
                    // those after the last step belong to the last one.
                    if k < self.steps.len() {
                        k += 1;
                        body.push(begin(k));
                    }
                }
                Part::BadStep => unreachable!("no expansion with errors"),
            }
        }

        let ItemFn {
            attrs,
            vis,
            sig,
            block,
        } = function;
        let inner_attrs = attrs
            .iter()
            .filter(|a| matches!(a.style, syn::AttrStyle::Inner(_)));
        let outer_attrs = attrs
            .iter()
            .filter(|a| matches!(a.style, syn::AttrStyle::Outer));
        let mut new_block = TokenStream::new();
        block.brace_token.surround(&mut new_block, |out| {
            out.extend(quote!(#(#inner_attrs)* #(#body)*))
        });

        let ident = &sig.ident;
        let fn_line = quote_spanned!(ident.span()=> ::core::line!());
        let tags = &self.tags;
        let timeout = duration(self.timeout);
        let step_timeout = duration(self.step_timeout);
        let retries = match self.retries {
            Some(n) => quote!(::core::option::Option::Some(#n)),
            None => quote!(::core::option::Option::None),
        };
        let trace = match self.trace {
            Some(mode) => {
                let variant = match mode {
                    "off" => quote!(Off),
                    "on" => quote!(On),
                    "on-first-retry" => quote!(OnFirstRetry),
                    _ => quote!(RetainOnFailure),
                };
                quote!(::core::option::Option::Some(::harshjudge::__private::TraceMode::#variant))
            }
            None => quote!(::core::option::Option::None),
        };
        let skip = match &self.skip {
            Some(Skip::Skip(why)) => {
                quote!(::core::option::Option::Some(::harshjudge::__private::Skip::Skip(#why)))
            }
            Some(Skip::Fixme(why)) => {
                quote!(::core::option::Option::Some(::harshjudge::__private::Skip::Fixme(#why)))
            }
            None => quote!(::core::option::Option::None),
        };
        let step_defs: Vec<TokenStream> = self.steps.iter().map(|step| {
            let line = quote_spanned!(step.span=> ::core::line!());
            let (title, source, timeout) = (&step.title, &step.source, duration(step.timeout));
            let expect = match &step.expect {
                Some(text) => quote!(::core::option::Option::Some(#text)),
                None => quote!(::core::option::Option::None),
            };
            quote! {
                ::harshjudge::__private::StepDef { title: #title, line: #line, source: #source, timeout: #timeout, expect: #expect }
            }
        }).collect();
        // Hygienic, but located at the parameter's type: a type mismatch of the call
        // points at the type rather than at the attribute.
        let s = Ident::new("s", Span::mixed_site().located_at(self.param_ty));
        // One registration, or one per case.
        let registrations: Vec<Registration<'_>> = if self.cases.is_empty() {
            vec![Registration {
                fn_name: self.fn_name.clone(),
                slug: self.slug.clone(),
                title: self.title.clone(),
                case: None,
                values: vec![],
            }]
        } else {
            self.cases
                .iter()
                .map(|case| Registration {
                    fn_name: format!("{}::{}", self.fn_name, case.name),
                    slug: format!("{}-{}", self.slug, case.slug()),
                    title: format!("{} ({})", self.title, case.name),
                    case: Some(case.name.clone()),
                    values: case.values.iter().collect(),
                })
                .collect()
        };
        let storage_state = match &self.storage_state {
            Some(name) => quote!(::core::option::Option::Some(#name)),
            None => quote!(::core::option::Option::None),
        };
        let setup = self.setup;
        let opens_page = self.opens_page;
        let emulation = &self.emulation;
        let depends_on: Vec<TokenStream> = self
            .depends_on
            .iter()
            .map(|path| quote_spanned!(path.span()=> <#path as ::harshjudge::__private::Setup>::FN_NAME))
            .collect();
        let before = hook(self.before.as_ref());
        let after = hook(self.after.as_ref());
        // A type beside the function, same name (types and functions do not
        // clash): `depends_on = [f]` names it, a compile error when `f` is no
        // scenario, or not a setup (the trait is implemented for setups only).
        let marker_attrs = quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
        };
        let marker = quote!(#marker_attrs #vis enum #ident {});
        let setup_fn_name = &self.fn_name;
        let setup_impl = self.setup.then(|| {
            quote! {
                impl ::harshjudge::__private::Setup for #ident {
                    const FN_NAME: &'static str = #setup_fn_name;
                }
            }
        });

        let fixture_keys: Vec<TokenStream> = self
            .fixtures
            .iter()
            .map(|(f, _)| quote_spanned!(f.span()=> <#f as ::harshjudge::__private::Fixture>::KEY))
            .collect();
        let submits = registrations.iter().map(|r| {
            let (fn_name, slug, title, values) = (&r.fn_name, &r.slug, &r.title, &r.values);
            // The values keep their spans: a value of the wrong type is
            // reported where the case writes it.
            let taken: Vec<Ident> = (self.fixtures.iter().enumerate())
                .map(|(i, (_, ty))| {
                    Ident::new(&format!("__hj_f{i}"), Span::mixed_site().located_at(*ty))
                })
                .collect();
            let passed = taken
                .iter()
                .zip(&self.fixtures)
                .map(|(v, (_, ty))| quote_spanned!(*ty=> &*#v));
            let call = quote_spanned!(self.param_ty=> #ident(#s #(, #values)* #(, #passed)*));
            let future = if self.fixtures.is_empty() {
                quote_spanned!(self.output=> ::std::boxed::Box::pin(#call))
            } else {
                // The values live in the future, borrowed by the call.
                let types = self.fixtures.iter().map(|(f, _)| f);
                quote_spanned!(self.output=> ::std::boxed::Box::pin(async move {
                    #(let #taken = ::harshjudge::__private::fixture_value::<#types>(&#s)?;)*
                    #call.await
                }))
            };
            let case = match &r.case {
                Some(name) => quote!(::core::option::Option::Some(#name)),
                None => quote!(::core::option::Option::None),
            };
            quote! {
                ::harshjudge::__private::inventory::submit! {
                    ::harshjudge::__private::ScenarioDef {
                        fn_name: #fn_name,
                        slug: #slug,
                        title: #title,
                        tags: &[#(#tags),*],
                        timeout: #timeout,
                        step_timeout: #step_timeout,
                        retries: #retries,
                        trace: #trace,
                        file: ::core::file!(),
                        line: #fn_line,
                        module_path: ::core::module_path!(),
                        steps: &[#(#step_defs),*],
                        run: |#s| #future,
                        case: #case,
                        skip: #skip,
                        storage_state: #storage_state,
                        setup: #setup,
                        depends_on: &[#(#depends_on),*],
                        before: #before,
                        after: #after,
                        browser: ::core::option::Option::None,
                        opens_page: #opens_page,
                        emulation: #emulation,
                        fixtures: &[#(#fixture_keys),*],
                    }
                }
            }
        });

        quote! {
            #(#outer_attrs)*
            #vis #sig #new_block

            #marker
            #setup_impl

            #(#submits)*
        }
    }
}

/// Whether `tokens` call a method `page` (`s.page()`, `scenario.page().await`),
/// at any depth (inside `step!` too): the scenario opens a page, so the harness
/// may start the browser early. A hint only: a page opened by a helper
/// function is not seen, and opens when it is asked for.
fn calls_page(tokens: TokenStream) -> bool {
    use proc_macro2::{Delimiter, TokenTree};
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    tokens.iter().enumerate().any(|(i, t)| match t {
        TokenTree::Group(g) => calls_page(g.stream()),
        TokenTree::Ident(id) => {
            id == "page"
                && matches!(i.checked_sub(1).map(|p| &tokens[p]), Some(TokenTree::Punct(p)) if p.as_char() == '.')
                && matches!(tokens.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
        }
        _ => false,
    })
}

/// One `ScenarioDef` to emit: the function's, or one case's.
struct Registration<'a> {
    fn_name: String,
    slug: String,
    title: String,
    /// The case's name, for a case.
    case: Option<String>,
    /// The case's values, in order.
    values: Vec<&'a Expr>,
}

/// A case gives one value per parameter after the scenario handle.
fn check_case(case: &Case, fn_name: &str, params: &[String], errors: &mut Errors) {
    let given = case.values.len();
    if given == params.len() {
        return;
    }
    let values = if given == 1 { "value" } else { "values" };
    let message = if params.is_empty() {
        format!(
            "case `{}` gives {given} {values} but `{fn_name}` takes no parameter after the scenario handle: add one per value, e.g. `async fn {fn_name}(s: Scenario, user: &str) -> harshjudge::Result`",
            case.name
        )
    } else {
        let names: Vec<String> = params.iter().map(|p| format!("`{p}`")).collect();
        format!(
            "case `{}` gives {given} {values} but `{fn_name}` takes {} after the scenario handle ({}): give one value per parameter, in order",
            case.name,
            params.len(),
            names.join(", ")
        )
    };
    errors.push(syn::Error::new(case.span, message));
}

/// `Option<Hook>` tokens: the hook called through a function of the right
/// signature, so that a hook of another shape is an error at its name.
fn hook(path: Option<&syn::Path>) -> TokenStream {
    let Some(path) = path else {
        return quote!(::core::option::Option::None);
    };
    let name = crate::args::path_string(path);
    let line = quote_spanned!(path.span()=> ::core::line!());
    let call = quote_spanned!(path.span()=> ::std::boxed::Box::pin(#path(s)));
    quote! {
        ::core::option::Option::Some(::harshjudge::__private::Hook {
            name: #name,
            file: ::core::file!(),
            line: #line,
            run: {
                fn hook(s: &::harshjudge::Scenario) -> ::harshjudge::__private::HookFuture<'_> {
                    #call
                }
                hook
            },
        })
    }
}

/// `Option<Duration>` tokens for a limit in milliseconds.
fn duration(millis: Option<u64>) -> TokenStream {
    match millis {
        Some(ms) => {
            let ms = Literal::u64_suffixed(ms);
            quote!(::core::option::Option::Some(::core::time::Duration::from_millis(#ms)))
        }
        None => quote!(::core::option::Option::None),
    }
}

/// The doc comment's first paragraph (its lines up to the first blank line,
/// each trimmed, joined with spaces): a sentence wrapped over several `///`
/// lines is one title.
fn doc_title(attrs: &[syn::Attribute]) -> Option<String> {
    let docs: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    // `split`, not `lines`: an empty `///` line is a blank line that ends the paragraph.
    first_paragraph(docs.iter().flat_map(|doc| doc.split('\n')))
}

/// The first paragraph of `lines`: the trimmed lines from the first non-blank
/// one up to the next blank one, joined with spaces.
fn first_paragraph<'a>(lines: impl Iterator<Item = &'a str>) -> Option<String> {
    let paragraph: Vec<&str> = lines
        .map(str::trim)
        .skip_while(|line| line.is_empty())
        .take_while(|line| !line.is_empty())
        .collect();
    (!paragraph.is_empty()).then(|| paragraph.join(" "))
}

/// The scenario parameter's name and the span of its type.
type Param = Option<(Ident, Span)>;

/// Checks the signature; returns the scenario parameter (its name and the span
/// of its type), the names of the parameters the cases give values to (the
/// first `case_values` after it), and the fixtures the others ask for.
fn check_signature(
    sig: &Signature,
    case_values: Option<usize>,
    errors: &mut Errors,
) -> (Param, Vec<String>, Vec<(Ident, Span)>) {
    let mut ok = true;
    let mut fail = |span: Span, msg: String| {
        errors.push(syn::Error::new(span, msg));
        ok = false;
    };
    if let Some(constness) = &sig.constness {
        fail(
            constness.span,
            format!("#[scenario] functions cannot be `const`: write {SIGNATURE}"),
        );
    }
    if sig.asyncness.is_none() {
        fail(
            sig.fn_token.span,
            format!("#[scenario] functions must be async: write {SIGNATURE}"),
        );
    }
    if let Some(unsafety) = &sig.unsafety {
        fail(
            unsafety.span,
            format!(
                "#[scenario] functions cannot be `unsafe`: the runner calls them; write {SIGNATURE}"
            ),
        );
    }
    if let Some(abi) = &sig.abi {
        fail(
            abi.extern_token.span,
            format!("#[scenario] functions cannot have an ABI: remove `extern`; write {SIGNATURE}"),
        );
    }
    if let Some(param) = sig.generics.params.first() {
        fail(
            param.span(),
            format!(
                "#[scenario] functions cannot be generic: the runner calls them with a `Scenario` only; remove `<...>` and write {SIGNATURE}"
            ),
        );
    }
    if let Some(where_clause) = &sig.generics.where_clause {
        fail(
            where_clause.where_token.span,
            format!(
                "#[scenario] functions cannot have a `where` clause: remove it and write {SIGNATURE}"
            ),
        );
    }
    if let Some(variadic) = &sig.variadic {
        fail(
            variadic.dots.spans[0],
            format!("#[scenario] functions cannot be variadic: write {SIGNATURE}"),
        );
    }
    let param = match sig.inputs.first() {
        None => {
            fail(
                sig.paren_token.span.join(),
                format!(
                    "#[scenario] functions take one parameter, the scenario handle: write {SIGNATURE}"
                ),
            );
            None
        }
        Some(FnArg::Receiver(receiver)) => {
            fail(
                receiver.self_token.span,
                format!(
                    "#[scenario] functions cannot take `self`: write a free function {SIGNATURE}"
                ),
            );
            None
        }
        Some(FnArg::Typed(typed)) => match &*typed.pat {
            Pat::Ident(pat) if pat.subpat.is_none() => match scenario_type_problem(&typed.ty) {
                None => Some((pat.ident.clone(), typed.ty.span())),
                Some(problem) => {
                    fail(typed.ty.span(), problem);
                    None
                }
            },
            Pat::Wild(wild) => {
                fail(
                    wild.underscore_token.span,
                    "the scenario parameter needs a name, as the generated code uses it: write `_s: Scenario` instead of `_: Scenario`".to_string(),
                );
                None
            }
            pat => {
                fail(
                    pat.span(),
                    "the scenario parameter must be a plain name, as the generated code uses it: write `s: Scenario` (or `_s: Scenario` if unused)".to_string(),
                );
                None
            }
        },
    };
    let mut case_params = Vec::new();
    let mut fixtures = Vec::new();
    for (i, extra) in sig.inputs.iter().skip(1).enumerate() {
        if i >= case_values.unwrap_or(0) {
            match extra {
                FnArg::Typed(typed) => {
                    let mut found = Errors::default();
                    match crate::fixture::fixture_param(typed, &mut found) {
                        Some(name) => {
                            fixtures.push((Ident::new(&name, typed.pat.span()), typed.ty.span()))
                        }
                        None => {
                            for e in found.0 {
                                fail(e.span(), e.to_string());
                            }
                        }
                    }
                }
                FnArg::Receiver(r) => fail(
                    r.self_token.span,
                    "#[scenario] functions cannot take `self`".to_string(),
                ),
            }
            continue;
        }
        match extra {
            FnArg::Typed(typed) => match &*typed.pat {
                Pat::Ident(pat) if pat.subpat.is_none() => {
                    case_params.push(pat.ident.unraw().to_string())
                }
                pat => fail(
                    pat.span(),
                    "a parameter that a `#[case]` gives a value to must be a plain name, e.g. `user: &str`".to_string(),
                ),
            },
            FnArg::Receiver(r) => fail(r.self_token.span, "#[scenario] functions cannot take `self`".to_string()),
        }
    }
    if let ReturnType::Default = sig.output {
        fail(
            sig.paren_token.span.close(),
            "#[scenario] functions must return `harshjudge::Result`: add `-> harshjudge::Result` and end the body with `Ok(())`".to_string(),
        );
    }
    (param.filter(|_| ok), case_params, fixtures)
}

/// Why `ty` is not the scenario handle's type, if it is not: the type must be
/// written `Scenario` (or a path ending in it, such as `harshjudge::Scenario`).
/// Checked here, at the parameter, so that a wrong type is the macro's own
/// message rather than rustc's type errors inside the generated code.
fn scenario_type_problem(ty: &Type) -> Option<String> {
    let ty = match ty {
        Type::Group(g) => return scenario_type_problem(&g.elem),
        Type::Paren(p) => return scenario_type_problem(&p.elem),
        ty => ty,
    };
    let written = ty
        .to_token_stream()
        .to_string()
        .replace(" :: ", "::")
        .replace("& ", "&");
    let hint = match ty {
        Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?;
            if last.ident == "Scenario" && last.arguments.is_empty() {
                return None;
            }
            if last.ident == "Scenario" {
                "`Scenario` takes no generic arguments".to_string()
            } else if last.ident == "Page" {
                "the scenario opens its page itself: `let page = s.page().await?;`".to_string()
            } else {
                "everything else a scenario needs comes from the handle (`s.page()`, `s.base_url()`, ...)"
                    .to_string()
            }
        }
        Type::Reference(_) => "the runner passes the handle by value: remove the `&`".to_string(),
        _ => "everything else a scenario needs comes from the handle".to_string(),
    };
    Some(format!(
        "the parameter must be `s: Scenario` (the handle `harshjudge::Scenario`), not `{written}`: {hint}; write {SIGNATURE}"
    ))
}

/// Whether a statement is a top-level step: returns the `step!` invocation.
fn top_level_step(stmt: &Stmt) -> Option<&syn::Macro> {
    let mac = match stmt {
        Stmt::Macro(m) => &m.mac,
        Stmt::Expr(Expr::Macro(m), _) => &m.mac,
        Stmt::Local(syn::Local {
            init: Some(init), ..
        }) => match &*init.expr {
            Expr::Macro(m) => &m.mac,
            _ => return None,
        },
        _ => return None,
    };
    is_step(mac).then_some(mac)
}

/// The statement of a top-level step, with the invocation replaced by the body.
/// `last` tells whether it is the body's last statement (then it may be its value).
fn rewrite_step(stmt: &Stmt, body: Expr, last: bool) -> TokenStream {
    match stmt {
        Stmt::Local(local) => {
            let mut local = local.clone();
            if let Some(init) = &mut local.init {
                *init.expr = body;
            }
            local.into_token_stream()
        }
        Stmt::Macro(m) => {
            let attrs = &m.attrs;
            let semi = m.semi_token.or_else(|| (!last).then(Default::default));
            quote!(#(#attrs)* #body #semi)
        }
        Stmt::Expr(Expr::Macro(m), semi) => {
            let attrs = &m.attrs;
            let semi = semi.or_else(|| (!last).then(Default::default));
            quote!(#(#attrs)* #body #semi)
        }
        _ => unreachable!("not a top-level step"),
    }
}

/// Splits the body's statements into code and steps, checking every step, the
/// titles, and that no `step!` is nested anywhere.
fn split_steps(stmts: &[Stmt], errors: &mut Errors) -> (Vec<Part>, Vec<Step>) {
    let mut parts = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let last = stmts.len().saturating_sub(1);
    for (i, stmt) in stmts.iter().enumerate() {
        let Some(mac) = top_level_step(stmt) else {
            NestedSteps::new(errors).visit_stmt(stmt);
            parts.push(Part::Code(stmt.to_token_stream()));
            continue;
        };
        NestedSteps::new(errors).visit_step_args(mac);
        if let Stmt::Local(local) = stmt {
            NestedSteps::new(errors).visit_pat(&local.pat);
            if let Some((_, diverge)) = local.init.as_ref().and_then(|init| init.diverge.as_ref()) {
                NestedSteps::new(errors).visit_expr(diverge);
            }
        }
        if let Some(cfg) = stmt_attrs(stmt)
            .iter()
            .find(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr"))
        {
            errors.push(syn::Error::new_spanned(
                cfg,
                "steps cannot be conditionally compiled: the list of steps must be the same in every build; put the condition inside the step",
            ));
        }
        let Some(step) = Step::parse(mac, errors) else {
            parts.push(Part::BadStep);
            continue;
        };
        if let Some(first) = steps.iter().position(|s| s.title == step.title) {
            errors.push(syn::Error::new(
                step.title_span,
                format!(
                    "duplicate step title \"{}\": step titles must be unique within a scenario (first used at step {:02})",
                    step.title,
                    first + 1
                ),
            ));
        }
        parts.push(Part::Step(rewrite_step(stmt, step.body.clone(), i == last)));
        steps.push(step);
    }
    (parts, steps)
}

fn stmt_attrs(stmt: &Stmt) -> &[syn::Attribute] {
    match stmt {
        Stmt::Local(local) => &local.attrs,
        Stmt::Macro(m) => &m.attrs,
        Stmt::Expr(Expr::Macro(m), _) => &m.attrs,
        _ => &[],
    }
}

mod cases;
#[cfg(test)]
mod tests;
