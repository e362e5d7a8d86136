//! `#[fixture]` and `#[teardown(name)]`: a typed value a scenario asks for by
//! parameter name, and the function that takes it back after the scenario.
//!
//! Beside the fixture function `shop` the expansion declares a type of the
//! same name (`enum shop {}`: types and functions do not clash) implementing
//! `harshjudge::__private::Fixture`. A scenario's (or another fixture's)
//! parameter `shop: &Shop` names that type: an unknown fixture is rustc's
//! "cannot find type `shop` in this scope" at the parameter, a value of
//! another type a type error at the parameter's type.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ext::IdentExt;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, FnArg, Ident, ItemFn, Lit, Meta, Pat, ReturnType, Token, Type};

use crate::Errors;

/// The signature users are told to write.
const SIGNATURE: &str = "`async fn name(s: &Scenario, other: &Other) -> harshjudge::Result<Value>`";

/// Expands `#[fixture(args)] item`.
pub(crate) fn fixture(args: TokenStream, item: TokenStream) -> TokenStream {
    let function: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let e = syn::Error::new(
                e.span(),
                format!("#[fixture] applies to an async fn: {SIGNATURE} ({e})"),
            );
            let e = e.into_compile_error();
            return quote!(#e #item);
        }
    };
    let mut errors = Errors::default();
    let invocation = scope(args, &mut errors);
    common_checks(&function, "#[fixture]", &mut errors);
    let fn_name = function.sig.ident.unraw().to_string();
    let mut needs: Vec<Ident> = Vec::new();
    let mut call_args: Vec<TokenStream> = Vec::new();
    let s = Ident::new("__hj_s", Span::mixed_site());
    for input in &function.sig.inputs {
        let FnArg::Typed(typed) = input else {
            continue;
        };
        if is_scenario_ref(&typed.ty) {
            call_args.push(quote!(&#s));
            continue;
        }
        if is_scenario(&typed.ty) {
            errors.push(syn::Error::new(
                typed.ty.span(),
                "a fixture borrows the scenario it is set up for: write `s: &Scenario`",
            ));
            continue;
        }
        match fixture_param(typed, &mut errors) {
            Some(dep) if dep == fn_name => errors.push(syn::Error::new(
                typed.pat.span(),
                format!("fixture `{fn_name}` asks for itself: a fixture cannot use its own value; rename the parameter or the function"),
            )),
            Some(dep) => {
                let dep = Ident::new(&dep, typed.pat.span());
                let value = Ident::new(&format!("__hj_{}", needs.len()), Span::mixed_site());
                call_args.push(quote_spanned!(typed.ty.span()=> &*#value));
                needs.push(dep);
            }
            None => {}
        }
    }
    let ret = match &function.sig.output {
        ReturnType::Type(_, ty) => Some(ty.clone()),
        ReturnType::Default => {
            errors.push(syn::Error::new(
                function.sig.paren_token.span.close(),
                format!(
                    "a fixture returns its value as `harshjudge::Result<Value>`: write {SIGNATURE}"
                ),
            ));
            None
        }
    };
    let (Some(ret), true) = (ret, errors.is_empty()) else {
        let e = errors.into_compile_error();
        return quote!(#e #function);
    };
    let ident = &function.sig.ident;
    let vis = &function.vis;
    let scope = match invocation {
        true => quote!(Invocation),
        false => quote!(Scenario),
    };
    // An invocation fixture crosses cargo-nextest's processes as JSON: its
    // value must be `Serialize + DeserializeOwned` (an error at its return type).
    let share = match invocation {
        true => {
            quote_spanned!(ret.span()=> ::core::option::Option::Some(::harshjudge::__private::share_fixture::<#ident>()))
        }
        false => quote!(::core::option::Option::None),
    };
    let line = quote_spanned!(ident.span()=> ::core::line!());
    let values: Vec<Ident> = (0..needs.len())
        .map(|i| Ident::new(&format!("__hj_{i}"), Span::mixed_site()))
        .collect();
    let call = quote_spanned!(ident.span()=> #ident(#(#call_args),*));
    let out = Ident::new("__hj_out", Span::mixed_site());
    quote! {
        #function

        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis enum #ident {}

        impl ::harshjudge::__private::Fixture for #ident {
            type Value = <#ret as ::harshjudge::__private::FixtureOutput>::Value;
            const KEY: &'static str = ::core::concat!(::core::module_path!(), "::", #fn_name);
            const NAME: &'static str = #fn_name;
        }

        ::harshjudge::__private::inventory::submit! {
            ::harshjudge::__private::FixtureDef {
                name: #fn_name,
                key: <#ident as ::harshjudge::__private::Fixture>::KEY,
                scope: ::harshjudge::__private::FixtureScope::#scope,
                needs: &[#(<#needs as ::harshjudge::__private::Fixture>::KEY),*],
                file: ::core::file!(),
                line: #line,
                set_up: {
                    fn set_up(#s: ::harshjudge::Scenario) -> ::harshjudge::__private::SetUpFuture {
                        ::std::boxed::Box::pin(async move {
                            #(let #values = ::harshjudge::__private::fixture_value::<#needs>(&#s)?;)*
                            let #out = ::harshjudge::__private::FixtureOutput::into_result(#call.await)?;
                            ::core::result::Result::Ok(::harshjudge::__private::keep_fixture::<#ident>(#out))
                        })
                    }
                    set_up
                },
                share: #share,
            }
        }
    }
}

/// Expands `#[teardown(fixture)] item`.
pub(crate) fn teardown(args: TokenStream, item: TokenStream) -> TokenStream {
    let function: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let e = syn::Error::new(
                e.span(),
                format!(
                    "#[teardown(fixture)] applies to an async fn: `async fn name(value: Value) -> harshjudge::Result` ({e})"
                ),
            );
            let e = e.into_compile_error();
            return quote!(#e #item);
        }
    };
    let mut errors = Errors::default();
    let fixture: Option<syn::Path> = match syn::parse2::<syn::Path>(args.clone()) {
        Ok(path) => Some(path),
        Err(_) => {
            errors.push(syn::Error::new(
                if args.is_empty() { Span::call_site() } else { args.span() },
                "#[teardown] names the fixture it tears down: write `#[teardown(shop)]` over `async fn close_shop(shop: Shop) -> harshjudge::Result`",
            ));
            None
        }
    };
    common_checks(&function, "#[teardown]", &mut errors);
    let param = match function.sig.inputs.len() {
        1 => match &function.sig.inputs[0] {
            FnArg::Typed(t) => Some(t.ty.span()),
            FnArg::Receiver(_) => None,
        },
        _ => {
            errors.push(syn::Error::new(
                function.sig.inputs.span(),
                "a teardown takes one parameter, the fixture's value (by value): write `async fn close_shop(shop: Shop) -> harshjudge::Result`",
            ));
            None
        }
    };
    let (Some(fixture), Some(param), true) = (fixture, param, errors.is_empty()) else {
        let e = errors.into_compile_error();
        return quote!(#e #function);
    };
    let ident = &function.sig.ident;
    let name = ident.unraw().to_string();
    let line = quote_spanned!(ident.span()=> ::core::line!());
    let value = Ident::new("__hj_value", Span::mixed_site());
    let taken = quote_spanned!(param=> ::harshjudge::__private::take_fixture::<#fixture>(#value)?);
    let ret = match &function.sig.output {
        ReturnType::Type(_, ty) => ty.span(),
        ReturnType::Default => ident.span(),
    };
    let call = quote_spanned!(ret=> #ident(#taken).await);
    let key = quote_spanned!(fixture.span()=> <#fixture as ::harshjudge::__private::Fixture>::KEY);
    quote! {
        #function

        ::harshjudge::__private::inventory::submit! {
            ::harshjudge::__private::TeardownDef {
                fixture: #key,
                name: #name,
                file: ::core::file!(),
                line: #line,
                run: {
                    fn run(#value: ::harshjudge::__private::FixtureValue) -> ::harshjudge::__private::TeardownFuture {
                        ::std::boxed::Box::pin(async move { #call })
                    }
                    run
                },
            }
        }
    }
}

/// `scope = "invocation"` (true) or `scope = "scenario"` (the default).
fn scope(args: TokenStream, errors: &mut Errors) -> bool {
    let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args) {
        Ok(m) => m,
        Err(e) => {
            errors.push(e);
            return false;
        }
    };
    let mut invocation = false;
    for meta in metas {
        let value = match &meta {
            Meta::NameValue(nv) if nv.path.is_ident("scope") => &nv.value,
            _ => {
                errors.push(syn::Error::new_spanned(
                    meta.path(),
                    "#[fixture] takes one argument, `scope = \"scenario\"` (the default) or `scope = \"invocation\"`",
                ));
                continue;
            }
        };
        match value {
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) if s.value() == "invocation" => invocation = true,
            Expr::Lit(syn::ExprLit { lit: Lit::Str(s), .. }) if s.value() == "scenario" => invocation = false,
            other => errors.push(syn::Error::new_spanned(
                other,
                "a fixture's scope is \"scenario\" (set up for each scenario, the default) or \"invocation\" (once per test process)",
            )),
        }
    }
    invocation
}

/// Async, not const, unsafe, generic, variadic, nor a method.
fn common_checks(function: &ItemFn, what: &str, errors: &mut Errors) {
    let sig = &function.sig;
    if sig.asyncness.is_none() {
        errors.push(syn::Error::new(
            sig.fn_token.span,
            format!("{what} functions must be async"),
        ));
    }
    if let Some(c) = &sig.constness {
        errors.push(syn::Error::new(
            c.span,
            format!("{what} functions cannot be `const`"),
        ));
    }
    if let Some(u) = &sig.unsafety {
        errors.push(syn::Error::new(
            u.span,
            format!("{what} functions cannot be `unsafe`"),
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.push(syn::Error::new(
            sig.generics.span(),
            format!("{what} functions cannot be generic: the runner calls them with one type each"),
        ));
    }
    if let Some(v) = &sig.variadic {
        errors.push(syn::Error::new(
            v.dots.spans[0],
            format!("{what} functions cannot be variadic"),
        ));
    }
    if let Some(FnArg::Receiver(r)) = sig.inputs.first() {
        errors.push(syn::Error::new(
            r.self_token.span,
            format!("{what} functions cannot take `self`: write a free function"),
        ));
    }
}

/// Whether `ty` is `Scenario` (a path ending in it), by value.
fn is_scenario(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Scenario"))
}

/// Whether `ty` is `&Scenario` (a path ending in `Scenario`).
fn is_scenario_ref(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Path(p) => p
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "Scenario"),
            _ => false,
        },
        Type::Group(g) => is_scenario_ref(&g.elem),
        Type::Paren(p) => is_scenario_ref(&p.elem),
        _ => false,
    }
}

/// The fixture a parameter asks for: its name (a leading `_` dropped, so
/// that `_shop: &Shop` sets `shop` up unused). It must be a plain name of a
/// reference type.
pub(crate) fn fixture_param(typed: &syn::PatType, errors: &mut Errors) -> Option<String> {
    let Pat::Ident(pat) = &*typed.pat else {
        errors.push(syn::Error::new(
            typed.pat.span(),
            "a parameter that asks for a fixture is the fixture's name, e.g. `shop: &Shop`",
        ));
        return None;
    };
    let name = pat.ident.unraw().to_string();
    let fixture = match name.strip_prefix('_') {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => name.clone(),
    };
    if !matches!(&*typed.ty, Type::Reference(r) if r.mutability.is_none()) {
        let ty = quote::ToTokens::to_token_stream(&typed.ty)
            .to_string()
            .replace(" :: ", "::");
        errors.push(syn::Error::new(
            typed.ty.span(),
            format!(
                "`{name}` asks for the fixture `{fixture}`, which reaches it by reference: write `{name}: &{ty}` (a parameter after the scenario handle is the `#[fixture]` of its name, or a `#[case]` value)"
            ),
        ));
        return None;
    }
    Some(fixture)
}
