//! The emulation arguments of `#[scenario(...)]` (issue 41): `locale`,
//! `timezone_id`, `geolocation`, `grant_permissions`, `color_scheme`,
//! `reduced_motion`, `offline`, `user_agent`, `extra_http_headers`,
//! `http_credentials`, `javascript_enabled`, `device`. Parsed here, and
//! expanded into a `fn() -> Emulation` the scenario's pages open with.
//!
//! The forms the macro cannot tell by itself (a device of the table, a
//! locale, a time zone id, a permission name) are checked at compile time by
//! `const` items calling harshjudge's own `const fn` checks, spanned at the
//! value: one rule, in one place, for the attribute and for code.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Lit, LitStr};

/// The emulation argument names, in the order messages list them.
pub(crate) const NAMES: [&str; 12] = [
    "locale",
    "timezone_id",
    "geolocation",
    "grant_permissions",
    "color_scheme",
    "reduced_motion",
    "offline",
    "user_agent",
    "extra_http_headers",
    "http_credentials",
    "javascript_enabled",
    "device",
];

/// What the attribute asked for; each `None`/empty when not given.
#[derive(Default)]
pub(crate) struct EmulationArgs {
    locale: Option<LitStr>,
    timezone_id: Option<LitStr>,
    /// Latitude, longitude, accuracy.
    geolocation: Option<(f64, f64, f64)>,
    grant_permissions: Vec<LitStr>,
    color_scheme: Option<&'static str>,
    reduced_motion: Option<&'static str>,
    offline: Option<bool>,
    user_agent: Option<LitStr>,
    extra_http_headers: Vec<(LitStr, LitStr)>,
    /// Two expressions (`impl Into<String>`), evaluated when a page opens:
    /// a password can come from the environment rather than the source.
    http_credentials: Option<(Expr, Expr)>,
    javascript_enabled: Option<bool>,
    device: Option<LitStr>,
}

/// An example value of each argument, for messages.
pub(crate) fn example(name: &str) -> Option<&'static str> {
    Some(match name {
        "locale" => "\"de-DE\"",
        "timezone_id" => "\"Europe/Berlin\"",
        "geolocation" => "(52.52, 13.405)",
        "grant_permissions" => "[\"geolocation\"]",
        "color_scheme" => "\"dark\"",
        "reduced_motion" => "\"reduce\"",
        "offline" => "true",
        "user_agent" => "\"MyBot/1.0\"",
        "extra_http_headers" => "[(\"X-Tenant\", \"acme\")]",
        "http_credentials" => "(\"admin\", std::env::var(\"ADMIN_PASSWORD\").unwrap_or_default())",
        "javascript_enabled" => "false",
        "device" => "\"iPhone 15\"",
        _ => return None,
    })
}

fn ungroup(value: &Expr) -> &Expr {
    match value {
        Expr::Group(g) => ungroup(&g.expr),
        Expr::Paren(p) => ungroup(&p.expr),
        other => other,
    }
}

fn wrong(name: &str, value: &Expr, what: &str) -> syn::Error {
    syn::Error::new(
        value.span(),
        format!(
            "`{name}` takes {what}: write `{name} = {}`",
            example(name).unwrap_or("…")
        ),
    )
}

fn lit_str(name: &str, value: &Expr) -> syn::Result<LitStr> {
    match ungroup(value) {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(s.clone()),
        _ => Err(wrong(name, value, "a string literal")),
    }
}

fn lit_bool(name: &str, value: &Expr) -> syn::Result<bool> {
    match ungroup(value) {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Bool(b), ..
        }) => Ok(b.value),
        _ => Err(wrong(name, value, "`true` or `false`")),
    }
}

/// A number literal, negative too (`-33.86`).
fn number(value: &Expr) -> Option<f64> {
    match ungroup(value) {
        Expr::Lit(syn::ExprLit {
            lit: Lit::Float(f), ..
        }) => f.base10_parse().ok(),
        Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<i64>().ok().map(|n| n as f64),
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => number(expr).map(|n| -n),
        _ => None,
    }
}

fn one_of(name: &str, value: &Expr, accepted: &[&'static str]) -> syn::Result<&'static str> {
    let lit = lit_str(name, value)?;
    let v = lit.value();
    accepted.iter().copied().find(|a| *a == v).ok_or_else(|| {
        let list: Vec<String> = accepted.iter().map(|a| format!("\"{a}\"")).collect();
        syn::Error::new(
            lit.span(),
            format!("`{name}` is one of {}, not \"{v}\"", list.join(", ")),
        )
    })
}

impl EmulationArgs {
    /// Takes argument `name` (one of [`NAMES`]) with `value`.
    pub(crate) fn set(&mut self, name: &str, value: &Expr) -> syn::Result<()> {
        match name {
            "locale" => self.locale = Some(lit_str(name, value)?),
            "timezone_id" => self.timezone_id = Some(lit_str(name, value)?),
            "user_agent" => self.user_agent = Some(lit_str(name, value)?),
            "device" => self.device = Some(lit_str(name, value)?),
            "offline" => self.offline = Some(lit_bool(name, value)?),
            "javascript_enabled" => self.javascript_enabled = Some(lit_bool(name, value)?),
            "color_scheme" => {
                self.color_scheme = Some(one_of(name, value, &["light", "dark", "no-preference"])?)
            }
            "reduced_motion" => {
                self.reduced_motion = Some(one_of(name, value, &["reduce", "no-preference"])?)
            }
            "geolocation" => {
                let what =
                    "(latitude, longitude) or (latitude, longitude, accuracy in metres), numbers";
                let Expr::Tuple(t) = ungroup(value) else {
                    return Err(wrong(name, value, what));
                };
                let n: Vec<Option<f64>> = t.elems.iter().map(number).collect();
                let (lat, lon, acc) = match n.as_slice() {
                    [Some(a), Some(b)] => (*a, *b, 0.0),
                    [Some(a), Some(b), Some(c)] => (*a, *b, *c),
                    _ => return Err(wrong(name, value, what)),
                };
                if !((-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lon) && acc >= 0.0)
                {
                    return Err(syn::Error::new(
                        value.span(),
                        "`geolocation` is out of range: latitude is -90 to 90, longitude -180 to 180, accuracy 0 or more (metres), e.g. `geolocation = (52.52, 13.405)`",
                    ));
                }
                self.geolocation = Some((lat, lon, acc));
            }
            "grant_permissions" => {
                let Expr::Array(a) = ungroup(value) else {
                    return Err(wrong(name, value, "a list of permission names"));
                };
                for e in &a.elems {
                    self.grant_permissions.push(lit_str(name, e)?);
                }
            }
            "extra_http_headers" => {
                let what = "a list of (name, value) string pairs";
                let Expr::Array(a) = ungroup(value) else {
                    return Err(wrong(name, value, what));
                };
                for e in &a.elems {
                    let Expr::Tuple(t) = ungroup(e) else {
                        return Err(wrong(name, e, what));
                    };
                    let pair: Vec<&Expr> = t.elems.iter().collect();
                    let [n, v] = pair.as_slice() else {
                        return Err(wrong(name, e, what));
                    };
                    self.extra_http_headers
                        .push((lit_str(name, n)?, lit_str(name, v)?));
                }
            }
            "http_credentials" => {
                let what = "(username, password): two `impl Into<String>` expressions";
                let Expr::Tuple(t) = ungroup(value) else {
                    return Err(wrong(name, value, what));
                };
                let pair: Vec<&Expr> = t.elems.iter().collect();
                let [u, p] = pair.as_slice() else {
                    return Err(wrong(name, value, what));
                };
                self.http_credentials = Some(((*u).clone(), (*p).clone()));
            }
            _ => unreachable!("only emulation arguments come here"),
        }
        Ok(())
    }

    /// Whether no emulation argument was given.
    pub(crate) fn is_empty(&self) -> bool {
        self.locale.is_none()
            && self.timezone_id.is_none()
            && self.geolocation.is_none()
            && self.grant_permissions.is_empty()
            && self.color_scheme.is_none()
            && self.reduced_motion.is_none()
            && self.offline.is_none()
            && self.user_agent.is_none()
            && self.extra_http_headers.is_empty()
            && self.http_credentials.is_none()
            && self.javascript_enabled.is_none()
            && self.device.is_none()
    }

    /// The `ScenarioDef`'s `emulation` field: `None`, or `Some(fn)` building
    /// the `Emulation` (a device first, the other arguments over it), with
    /// the compile-time checks beside it.
    pub(crate) fn expand(&self) -> TokenStream {
        if self.is_empty() {
            return quote!(::core::option::Option::None);
        }
        let b = quote!(::harshjudge::browser);
        let mut checks = Vec::new();
        let mut calls = Vec::new();
        let check = |lit: &LitStr, test: TokenStream, msg: String| {
            quote_spanned! {lit.span()=>
                const _: () = ::core::assert!(#test, #msg);
            }
        };
        let start = match &self.device {
            Some(d) => {
                checks.push(check(
                    d,
                    quote!(#b::devices::known(#d)),
                    format!(
                        "unknown device {:?} in #[scenario(device = …)]: the names are those of harshjudge::browser::devices::DEVICES (matched exactly), e.g. \"iPhone 15\", \"Pixel 7\", \"iPad Pro 11\", \"Desktop Chrome\"",
                        d.value()
                    ),
                ));
                quote! {
                    match #b::devices::get(#d) {
                        ::core::option::Option::Some(d) => #b::Emulation::new().with_device(d),
                        ::core::option::Option::None => ::core::unreachable!("checked at compile time"),
                    }
                }
            }
            None => quote!(#b::Emulation::new()),
        };
        if let Some(l) = &self.locale {
            checks.push(check(
                l,
                quote!(#b::is_locale(#l)),
                format!(
                    "locale {:?} is not a BCP 47 language tag: use a language (2-3 letters), then optionally a script and a region, separated by `-`, e.g. \"en-US\", \"de-DE\", \"fr\", \"zh-Hans-CN\"",
                    l.value()
                ),
            ));
            calls.push(quote!(.locale(#l)));
        }
        if let Some(t) = &self.timezone_id {
            checks.push(check(
                t,
                quote!(#b::is_timezone_id(#t)),
                format!(
                    "timezone_id {:?} is not an IANA time zone id: use \"UTC\" or Area/Location, e.g. \"Europe/Berlin\", \"America/New_York\", \"Asia/Kolkata\", \"Etc/GMT+5\"",
                    t.value()
                ),
            ));
            calls.push(quote!(.timezone_id(#t)));
        }
        let geolocation = self.geolocation.map(|(latitude, longitude, accuracy)| {
            quote! {
                e.geolocation = ::core::option::Option::Some(#b::Geolocation {
                    latitude: #latitude,
                    longitude: #longitude,
                    accuracy: #accuracy,
                });
            }
        });
        if !self.grant_permissions.is_empty() {
            let mut perms = Vec::new();
            for p in &self.grant_permissions {
                let msg = format!(
                    "unknown permission {:?} in #[scenario(grant_permissions = …)]: use the Permissions API's names, e.g. \"geolocation\", \"notifications\", \"clipboard-read\", \"camera\"",
                    p.value()
                );
                perms.push(quote_spanned! {p.span()=>
                    {
                        const P: #b::Permission = match #b::Permission::from_name(#p) {
                            ::core::option::Option::Some(p) => p,
                            ::core::option::Option::None => ::core::panic!(#msg),
                        };
                        P
                    }
                });
            }
            calls.push(quote!(.grant_permissions([#(#perms),*])));
        }
        if let Some(c) = self.color_scheme {
            let v = match c {
                "light" => quote!(Light),
                "dark" => quote!(Dark),
                _ => quote!(NoPreference),
            };
            calls.push(quote!(.color_scheme(#b::ColorScheme::#v)));
        }
        if let Some(m) = self.reduced_motion {
            let v = match m {
                "reduce" => quote!(Reduce),
                _ => quote!(NoPreference),
            };
            calls.push(quote!(.reduced_motion(#b::ReducedMotion::#v)));
        }
        if let Some(o) = self.offline {
            calls.push(quote!(.offline(#o)));
        }
        if let Some(ua) = &self.user_agent {
            calls.push(quote!(.user_agent(#ua)));
        }
        for (n, v) in &self.extra_http_headers {
            calls.push(quote!(.extra_http_header(#n, #v)));
        }
        if let Some((u, p)) = &self.http_credentials {
            calls.push(quote_spanned!(Span::call_site()=> .http_credentials(#u, #p)));
        }
        if let Some(j) = self.javascript_enabled {
            calls.push(quote!(.javascript_enabled(#j)));
        }
        quote! {
            ::core::option::Option::Some({
                #(#checks)*
                fn __hj_emulation() -> #b::Emulation {
                    #[allow(unused_mut)]
                    let mut e = #start #(#calls)*;
                    #geolocation
                    e
                }
                __hj_emulation
            })
        }
    }
}
