//! Unit tests of the `#[scenario]` expansion.

use super::*;
use std::str::FromStr;

fn expand(args: &str, item: &str) -> String {
    let args = TokenStream::from_str(args).unwrap();
    let item = TokenStream::from_str(item).unwrap();
    scenario(args, item).to_string()
}

/// The messages of the `compile_error!`s of an expansion.
fn errors(args: &str, item: &str) -> Vec<String> {
    let file: syn::File = syn::parse_str(&expand(args, item)).unwrap();
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Macro(m) if m.mac.path.segments.last().unwrap().ident == "compile_error" => {
                Some(m.mac.parse_body::<syn::LitStr>().unwrap().value())
            }
            _ => None,
        })
        .collect()
}

fn squash(s: &str) -> String {
    TokenStream::from_str(s).unwrap().to_string()
}

const CHECKOUT: &str = r#"
    /// Checkout with a saved card.
    ///
    /// More text.
    pub async fn checkout(s: Scenario) -> harshjudge::Result {
        let api = 1;
        let cart = step!("Add two items to the cart", { let c = api + 1; c });
        println!("between");
        step!("Pay with the saved card", timeout = "5s", expect = "  a receipt is shown ", {
            harshjudge::ensure!(cart == 2, "bad cart {}", cart);
        });
        let t: u8 = harshjudge::step!("Typed", { 3 });
        Ok(())
    }
"#;

#[test]
fn rewrites_the_body() {
    let out = expand(
        r#"tags = ["smoke", "checkout"], timeout = "2m", step_timeout = 30"#,
        CHECKOUT,
    );
    let body = squash(
        r#"
        #[doc = " Checkout with a saved card."]
        #[doc = ""]
        #[doc = " More text."]
        pub async fn checkout(s: Scenario) -> harshjudge::Result {
            step!(@used);
            let __hj = ::harshjudge::__private::steps(&s);
            __hj.begin(1usize).await;
            let api = 1;
            let cart = { let c = api + 1; c };
            __hj.begin(2usize).await;
            println!("between");
            { harshjudge::ensure!(cart == 2, "bad cart {}", cart); };
            __hj.begin(3usize).await;
            let t: u8 = { 3 };
            Ok(())
        }
        "#,
    );
    assert!(out.starts_with(&body), "{out}\n\n{body}");
}

#[test]
fn registers_the_scenario() {
    let out = expand(
        r#"tags = ["smoke", "checkout"], timeout = "2m", step_timeout = 30"#,
        CHECKOUT,
    );
    for part in [
        ":: harshjudge :: __private :: inventory :: submit ! { :: harshjudge :: __private :: ScenarioDef {",
        "fn_name : \"checkout\" , slug : \"checkout\" , title : \"Checkout with a saved card.\" ,",
        "tags : & [\"smoke\" , \"checkout\"] ,",
        "timeout : :: core :: option :: Option :: Some (:: core :: time :: Duration :: from_millis (120000u64)) ,",
        "step_timeout : :: core :: option :: Option :: Some (:: core :: time :: Duration :: from_millis (30000u64)) ,",
        "file : :: core :: file ! () , line : :: core :: line ! () , module_path : :: core :: module_path ! () ,",
        "StepDef { title : \"Add two items to the cart\" , line : :: core :: line ! () , source : \"{ let c = api + 1 ; c }\" , timeout : :: core :: option :: Option :: None , expect : :: core :: option :: Option :: None }",
        "timeout : :: core :: option :: Option :: Some (:: core :: time :: Duration :: from_millis (5000u64)) , expect : :: core :: option :: Option :: Some (\"a receipt is shown\") }",
        "StepDef { title : \"Typed\"",
        "run : | s | :: std :: boxed :: Box :: pin (checkout (s)) ,",
    ] {
        assert!(out.contains(part), "missing {part}\n in {out}");
    }
    assert_eq!(out.matches("StepDef {").count(), 3);
}

#[test]
fn defaults() {
    let out = expand(
        "",
        "async fn log_in_and_out(s: Scenario) -> R { step!(\"a\", {}) }",
    );
    assert!(out.contains("slug : \"log-in-and-out\" , title : \"log_in_and_out\" , tags : & [] , timeout : :: core :: option :: Option :: None , step_timeout : :: core :: option :: Option :: None"), "{out}");
    // A step that is the last statement stays the value of the body.
    assert!(
        out.contains("__hj . begin (1usize) . await ; { } }"),
        "{out}"
    );
    let out = expand(
        r#"slug = "x", title = "T""#,
        "/// Doc\nasync fn f(_s: Scenario) -> R { step!(\"a\", {}); }",
    );
    assert!(out.contains("slug : \"x\" , title : \"T\""), "{out}");
    let out = expand(
        "",
        "/**\n\n   Block doc\n*/ async fn r#async(s: Scenario) -> R { step!(\"a\", {}); }",
    );
    assert!(
        out.contains("fn_name : \"async\" , slug : \"async\" , title : \"Block doc\""),
        "{out}"
    );
    assert!(out.contains("Box :: pin (r#async (s))"), "{out}");
}

#[test]
fn the_title_is_the_doc_comments_first_paragraph() {
    // A sentence wrapped over several `///` lines is one title; the next
    // paragraph is not part of it.
    let out = expand(
        "",
        "/// Each table page shows its row count, loads its script without console errors,\n\
         ///   and links to its rows.\n\
         ///\n\
         /// More detail that is not the title.\n\
         async fn tables(s: Scenario) -> R { step!(\"a\", {}); }",
    );
    assert!(
        out.contains("title : \"Each table page shows its row count, loads its script without console errors, and links to its rows.\""),
        "{out}"
    );
    // A block comment: its first paragraph after leading blank lines.
    let out = expand(
        "",
        "/**\n\n   Signs in\n   and out.\n\n   Rest.\n*/ async fn f(s: Scenario) -> R { step!(\"a\", {}); }",
    );
    assert!(out.contains("title : \"Signs in and out.\""), "{out}");
    assert_eq!(
        first_paragraph(["", "  a", "b  ", " ", "c"].into_iter()).as_deref(),
        Some("a b")
    );
    assert_eq!(first_paragraph(["", "  "].into_iter()), None);
}

#[test]
fn marks_the_step_import_used() {
    let out = expand(
        "",
        "async fn f(s: Scenario) -> R { harshjudge::step!(\"a\", {}); step!(\"b\", {}); }",
    );
    assert!(out.contains("{ step ! (@ used) ; let __hj"), "{out}");
    let out = expand(
        "",
        "async fn f(s: Scenario) -> R { ::harshjudge::step!(\"a\", {}); }",
    );
    assert!(!out.contains("use step"), "{out}");
    let out = expand("", "async fn f(step: Scenario) -> R { step!(\"a\", {}); }");
    assert!(!out.contains("use step"), "{out}");
    let out = expand(
        "",
        "fn f(s: Scenario) -> R { ::harshjudge::step!(\"a\", {}); for x in y { step!(\"b\", {}); } }",
    );
    assert!(out.contains("{ step ! (@ used) ; let _ = & s ;"), "{out}");
}

#[test]
fn groups_statements() {
    let out = expand(
        "",
        r#"async fn f(s: Scenario) -> R {
            a();
            step!("1", {});
            b(); c();
            step!{"2", d()}
            e();
            step!("3", {});
            f();
            g()
        }"#,
    );
    let expected = squash(
        r#"{
            step!(@used);
            let __hj = ::harshjudge::__private::steps(&s);
            __hj.begin(1usize).await;
            a();
            {};
            __hj.begin(2usize).await;
            b(); c();
            d();
            __hj.begin(3usize).await;
            e();
            {};
            f();
            g()
        }"#,
    );
    assert!(out.contains(&expected), "{out}\n\n{expected}");
}

#[test]
fn reports_errors_and_strips_steps() {
    let item = r#"fn f(s: Scenario) -> R { for i in x { step!("a", { i }); } let y = step!(x, { 1 }); Ok(()) }"#;
    let errors = errors("attempts = 2", item);
    assert_eq!(errors.len(), 4, "{errors:?}");
    assert!(errors[0].starts_with("unknown attribute argument `attempts`"));
    assert!(errors[1].starts_with("#[scenario] functions must be async"));
    assert!(errors[2].contains("not inside a `for` loop"));
    assert!(errors[3].starts_with("step titles must be string literals"));
    let out = expand("attempts = 2", item);
    assert!(
        !out.contains("step ! (\"") && !out.contains("step ! (x"),
        "{out}"
    );
    assert!(!out.contains("submit"), "{out}");
    assert!(out.contains("# [allow (unreachable_code)] fn f (s : Scenario) -> R { step ! (@ used) ; let _ = & s ; for i in x { { i } ; } let y = { 1 } ; Ok (()) }"), "{out}");
}

#[test]
fn signature_errors() {
    for (item, expected) in [
        (
            "async fn f() -> R { step!(\"a\", {}); }",
            "take one parameter",
        ),
        (
            "async fn f(s: Scenario, t: T) -> R { step!(\"a\", {}); }",
            "asks for the fixture `t`, which reaches it by reference",
        ),
        (
            "async fn f(&self) -> R { step!(\"a\", {}); }",
            "cannot take `self`",
        ),
        (
            "async fn f(_: Scenario) -> R { step!(\"a\", {}); }",
            "needs a name",
        ),
        (
            "async fn f((a, b): Scenario) -> R { step!(\"a\", {}); }",
            "must be a plain name",
        ),
        (
            "async fn f<T>(s: Scenario) -> R { step!(\"a\", {}); }",
            "cannot be generic",
        ),
        (
            "async fn f<'a>(s: Scenario) -> R { step!(\"a\", {}); }",
            "cannot be generic",
        ),
        (
            "async fn f(s: Scenario) -> R where S: Send { step!(\"a\", {}); }",
            "cannot have a `where` clause",
        ),
        (
            "async fn f(s: Scenario) { step!(\"a\", {}); }",
            "must return `harshjudge::Result`",
        ),
        (
            "async unsafe fn f(s: Scenario) -> R { step!(\"a\", {}); }",
            "cannot be `unsafe`",
        ),
        (
            "async fn f(s: Scenario) -> R { Ok(()) }",
            "scenario `f` has no steps",
        ),
        (
            "async fn Checkout(s: Scenario) -> R { step!(\"a\", {}); }",
            "the slug \"Checkout\" made from the function name is invalid",
        ),
        (
            "async fn f(s: Scenario) -> R { step!(\"a\", {}); step!(\" a \", {}); }",
            "duplicate step title \"a\": step titles must be unique within a scenario (first used at step 01)",
        ),
        (
            "async fn f(s: Scenario) -> R { #[cfg(x)] step!(\"a\", {}); }",
            "steps cannot be conditionally compiled",
        ),
        ("struct S;", "#[scenario] applies to an async fn"),
        (
            "async fn f(page: Page) -> R { step!(\"a\", {}); }",
            "the parameter must be `s: Scenario` (the handle `harshjudge::Scenario`), not `Page`: the scenario opens its page itself",
        ),
        (
            "async fn f(s: &Scenario) -> R { step!(\"a\", {}); }",
            "not `&Scenario`: the runner passes the handle by value",
        ),
        (
            "async fn f(s: harshjudge::Scenario<T>) -> R { step!(\"a\", {}); }",
            "takes no generic arguments",
        ),
    ] {
        let errors = errors("", item);
        assert!(
            errors.iter().any(|e| e.contains(expected)),
            "{item}: {errors:?}"
        );
    }
}

#[test]
fn step_limit() {
    let steps = |n: usize| {
        (1..=n)
            .map(|i| format!("step!(\"{i}\", {{}});"))
            .collect::<String>()
    };
    let item = |n| format!("async fn f(s: Scenario) -> R {{ {} Ok(()) }}", steps(n));
    assert!(errors("", &item(99)).is_empty());
    assert!(expand("", &item(99)).contains("begin (99usize)"));
    assert_eq!(
        errors("", &item(100)),
        [
            "scenario `f` has 100 steps; at most 99 are supported (step ids are two digits): split it into several scenarios"
        ]
    );
}

#[test]
fn registers_whether_the_body_opens_a_page() {
    // CHECKOUT never asks for a page.
    assert!(expand("", CHECKOUT).contains("opens_page : false"));
    let in_a_step = r#"
        async fn shop(s: Scenario) -> harshjudge::Result {
            step!("Open", { let page = s.page().await?; page.goto("/").await?; });
            Ok(())
        }
    "#;
    assert!(expand("", in_a_step).contains("opens_page : true"));
    let before_the_steps = r#"
        async fn shop(scenario: Scenario) -> harshjudge::Result {
            let page = scenario.page().await?;
            step!("Open", { page.goto("/").await?; });
            Ok(())
        }
    "#;
    assert!(expand("", before_the_steps).contains("opens_page : true"));
    // A variable or a field named `page` is no call.
    let no_call = r#"
        async fn shop(s: Scenario) -> harshjudge::Result {
            step!("Count", { let page = 3; let n = s.page; let _ = (page, n); });
            Ok(())
        }
    "#;
    assert!(expand("", no_call).contains("opens_page : false"));
    // A storage state is for pages.
    assert!(expand(r#"storage_state = "admin""#, CHECKOUT).contains("opens_page : true"));
}
