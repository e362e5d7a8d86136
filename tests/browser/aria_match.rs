//! `to_match_aria_snapshot` and `aria_snapshot` against Playwright's own tests, in
//! real headless Chromium: each test below ports one test of
//! `tests/page/to-match-aria-snapshot.spec.ts` or `tests/page/page-aria-snapshot.spec.ts`
//! (microsoft/playwright) and bears its name, with the same HTML, the same
//! templates and Playwright's outcome for each: a template that matches, one that
//! must NOT match (the assertion fails, its `not()` passes), one that is refused
//! as malformed, and (for `checkAndMatchSnapshot`) the exact snapshot. The HTML is
//! served from 127.0.0.1 as `page.setContent` would load it (no doctype).
//!
//! Left out (see the issue 20 report): the depth/boxes options and iframes of
//! `ariaSnapshot`, which we do not offer, and the exact wording of Playwright's
//! failure messages (a diff): ours name the template and the received snapshot.

#[path = "../fixtures/support/page_server.rs"]
mod page_server;

use crate::support::browsers;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use harshjudge::browser::{BrowserConfig, BrowserError, Page, expect};

use crate::support;

/// How long a template that must not match is retried.
const SHORT: Duration = Duration::from_millis(300);
/// How long a template that must match may take (it matches at the first check).
const PASS: Duration = Duration::from_secs(2);

/// One check on the page loaded last.
enum C {
    /// The template matches the target.
    Pass(&'static str),
    /// The template does not match: the assertion fails (naming the received
    /// snapshot), `not()` passes.
    Fail(&'static str),
    /// The template is refused at once; the message holds the text.
    Bad(&'static str, &'static str),
    /// The target's `aria_snapshot()` is exactly this (common indentation removed).
    Snap(&'static str),
    /// The following checks target this CSS selector (the default is `body`).
    On(&'static str),
    /// Runs this script in the page.
    Eval(&'static str),
}
use C::*;

fn pages() -> &'static Mutex<HashMap<String, String>> {
    static PAGES: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    PAGES.get_or_init(Default::default)
}

fn serve(path: &str) -> String {
    pages()
        .lock()
        .unwrap()
        .get(path)
        .cloned()
        .unwrap_or_default()
}

fn base() -> &'static str {
    static BASE: OnceLock<String> = OnceLock::new();
    BASE.get_or_init(|| page_server::serve(serve).expect("a loopback server"))
}

/// One runtime for the file, so that its tests share pooled browser sessions.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    })
}

/// Playwright's `unshift`: the text without its first and last blank lines and
/// its common indentation.
fn unshift(s: &str) -> String {
    let lines: Vec<&str> = s.lines().collect();
    let start = lines.iter().position(|l| !l.trim().is_empty());
    let end = lines.iter().rposition(|l| !l.trim().is_empty());
    let (Some(start), Some(end)) = (start, end) else {
        return String::new();
    };
    let lines = &lines[start..=end];
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .collect::<Vec<_>>()
        .join("\n")
}

async fn check_page(page: &Page, html: &str, checks: &[C], failures: &mut Vec<String>) {
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = format!("/case/{}", N.fetch_add(1, Ordering::Relaxed));
    pages()
        .lock()
        .unwrap()
        .insert(path.clone(), html.to_string());
    page.goto(&path).await.expect("the case's page");
    let mut target = page.locator("body");
    for c in checks {
        match c {
            On(css) => target = page.locator(css),
            Eval(js) => {
                page.eval(js).await.expect("the script runs");
            }
            Pass(t) => {
                if let Err(e) = expect(&target)
                    .timeout(PASS)
                    .to_match_aria_snapshot(t)
                    .await
                {
                    failures.push(format!("must match:\n{t}\n{e}"));
                }
            }
            Fail(t) => {
                match expect(&target)
                    .timeout(SHORT)
                    .to_match_aria_snapshot(t)
                    .await
                {
                    Ok(()) => failures.push(format!("must NOT match:\n{t}")),
                    Err(BrowserError::Assertion { message, .. }) => {
                        if !message.contains("received: \"- ")
                            && !message.contains("received: \"\"")
                        {
                            failures.push(format!("no received snapshot in: {message}"));
                        }
                    }
                    Err(e) => failures.push(format!("must fail as an assertion:\n{t}\n{e}")),
                }
                if let Err(e) = expect(&target).not().to_match_aria_snapshot(t).await {
                    failures.push(format!("not() must pass:\n{t}\n{e}"));
                }
            }
            Bad(t, want) => match expect(&target).to_match_aria_snapshot(t).await {
                Err(BrowserError::Invalid { message, .. }) if message.contains(want) => {}
                other => failures.push(format!(
                    "must be refused with {want:?}:\n{t}\ngot {other:?}"
                )),
            },
            Snap(want) => {
                let got = target.aria_snapshot().await.expect("a snapshot");
                let want = unshift(want);
                if got != want {
                    failures.push(format!("snapshot:\n--- want\n{want}\n--- got\n{got}"));
                }
            }
        }
    }
}

/// Loads each page in turn and runs its checks; fails listing every miss.
fn run(cases: &[(&str, &[C])]) {
    runtime().block_on(async {
        let mut config = BrowserConfig::from_env().expect("browser settings");
        config.webdriver_url = None;
        let page = browsers()
            .open_page_with(&config, base())
            .await
            .expect("a browser page");
        let mut failures = Vec::new();
        for (html, checks) in cases {
            check_page(&page, html, checks, &mut failures).await;
        }
        browsers().release(page).await;
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    });
}

// ---- the issue's case ----------------------------------------------------------

const TODOMVC: &str = r#"
  <section class="todoapp">
    <header class="header">
      <h1>todos</h1>
      <input class="new-todo" placeholder="What needs to be done?" autofocus>
    </header>
    <section class="main">
      <input id="toggle-all" class="toggle-all" type="checkbox">
      <label for="toggle-all">Mark all as complete</label>
      <ul class="todo-list">
        <li><div class="view"><input class="toggle" type="checkbox"><label>Task 1</label><button class="destroy"></button></div></li>
        <li><div class="view"><input class="toggle" type="checkbox"><label>Task 2</label><button class="destroy"></button></div></li>
        <li><div class="view"><input class="toggle" type="checkbox"><label>Task 3</label><button class="destroy"></button></div></li>
      </ul>
    </section>
    <footer class="footer"><span class="todo-count"><strong>3</strong> items left</span></footer>
  </section>"#;

fn todomvc_list_items_match_by_their_text() {
    run(&[(
        TODOMVC,
        &[
            Pass(
                "- list:\n  - listitem: \"Task 1\"\n  - listitem: \"Task 2\"\n  - listitem: \"Task 3\"",
            ),
            Pass("- listitem: \"Task 2\""),
            Pass("- list:\n  - listitem: \"Task 1\"\n  - listitem: \"Task 3\""),
            Pass("- heading \"todos\" [level=1]\n- textbox \"What needs to be done?\""),
            Fail("- list:\n  - listitem: \"Task 3\"\n  - listitem: \"Task 1\""),
            Fail(
                "- list:\n  - /children: equal\n  - listitem: \"Task 1\"\n  - listitem: \"Task 3\"",
            ),
            Fail("- listitem: \"Task 4\""),
        ],
    )]);
}

// ---- tests/page/to-match-aria-snapshot.spec.ts ---------------------------------

fn should_match_page() {
    run(&[("<h1>title</h1>", &[Pass(r#"- heading "title""#)])]);
}

fn should_match_page_complex() {
    run(&[(
        r#"
    <h1>Microsoft</h1>
    <div>Open source projects and samples from Microsoft</div>
    <ul>
      <li>
        <a href="about:blank">Playwright</a>
      </li>
    </ul>"#,
        &[Pass(
            r#"
    - heading "Microsoft"
    - text: Open source projects and samples from Microsoft
    - list:
      - listitem:
        - link "Playwright"
  "#,
        )],
    )]);
}

fn should_match_page_with_not() {
    run(&[("<h1>title</h1>", &[Fail(r#"- heading "wrong""#)])]);
}

fn should_fail_page_with_timeout() {
    run(&[("<h1>title</h1>", &[Fail(r#"- heading "wrong""#)])]);
}

fn should_match() {
    run(&[("<h1>title</h1>", &[Pass(r#"- heading "title""#)])]);
}

fn should_match_in_list() {
    run(&[(
        "<h1>title</h1>\n<h1>title 2</h1>",
        &[Pass(r#"- heading "title""#)],
    )]);
}

fn should_match_list_with_accessible_name() {
    run(&[(
        r#"
    <ul aria-label="my list">
      <li>one</li>
      <li>two</li>
    </ul>"#,
        &[Pass(
            r#"
    - list "my list":
      - listitem: "one"
      - listitem: "two"
  "#,
        )],
    )]);
}

fn should_match_deep_item() {
    run(&[(
        "<div>\n<h1>title</h1>\n<h1>title 2</h1>\n</div>",
        &[Pass(r#"- heading "title""#)],
    )]);
}

fn should_match_complex() {
    run(&[(
        "<ul>\n<li>\n<a href='about:blank'>link</a>\n</li>\n</ul>",
        &[Pass("- list:\n  - listitem:\n    - link \"link\"")],
    )]);
}

fn should_match_regex() {
    run(&[
        ("<h1>Issues 12</h1>", &[Pass(r"- heading /Issues \d+/")]),
        ("<h1>Issues 1/2</h1>", &[Pass(r"- heading /Issues 1[/]2/")]),
        ("<h1>Issues 1[</h1>", &[Pass(r"- heading /Issues 1\[/")]),
        (
            "<h1>Issues 1]]2</h1>",
            &[Pass(r"- heading /Issues 1[\]]]2/")],
        ),
    ]);
}

fn should_allow_text_nodes() {
    run(&[(
        "<h1>Microsoft</h1>\n<div>Open source projects and samples from Microsoft</div>",
        &[Pass(
            "- heading \"Microsoft\"\n- text: \"Open source projects and samples from Microsoft\"",
        )],
    )]);
}

fn details_visibility() {
    run(&[(
        "<details>\n<summary>Summary</summary>\n<div>Details</div>\n</details>",
        &[Pass(r#"- group: "Summary""#)],
    )]);
}

fn checked_attribute() {
    run(&[(
        "<input type='checkbox' checked />",
        &[
            Pass("- checkbox"),
            Pass("- checkbox [checked]"),
            Pass("- checkbox [checked=true]"),
            Fail("- checkbox [checked=false]"),
            Fail("- checkbox [checked=mixed]"),
            Bad(
                "- checkbox [checked=5]",
                " attribute must be true, false or mixed",
            ),
        ],
    )]);
}

fn disabled_attribute() {
    run(&[(
        "<button disabled>Click me</button>",
        &[
            Pass("- button"),
            Pass("- button [disabled]"),
            Pass("- button [disabled=true]"),
            Fail("- button [disabled=false]"),
            Bad(
                "- button [disabled=invalid]",
                " attribute must be true or false",
            ),
        ],
    )]);
}

fn expanded_attribute() {
    run(&[(
        r#"<button aria-expanded="true">Toggle</button>"#,
        &[
            Pass("- button"),
            Pass("- button [expanded]"),
            Pass("- button [expanded=true]"),
            Fail("- button [expanded=false]"),
            Bad(
                "- button [expanded=invalid]",
                " attribute must be true or false",
            ),
        ],
    )]);
}

fn level_attribute() {
    run(&[(
        "<h2>Section Title</h2>",
        &[
            Pass("- heading"),
            Pass("- heading [level=2]"),
            Fail("- heading [level=3]"),
            Bad("- heading [level=two]", " attribute must be a number"),
        ],
    )]);
}

fn pressed_attribute() {
    run(&[
        (
            r#"<button aria-pressed="true">Like</button>"#,
            &[
                Pass("- button"),
                Pass("- button [pressed]"),
                Pass("- button [pressed=true]"),
                Fail("- button [pressed=false]"),
            ],
        ),
        (
            r#"<button aria-pressed="mixed">Like</button>"#,
            &[
                Pass("- button [pressed=mixed]"),
                Fail("- button [pressed=true]"),
                Bad(
                    "- button [pressed=5]",
                    " attribute must be true, false or mixed",
                ),
            ],
        ),
    ]);
}

fn selected_attribute() {
    run(&[(
        r#"
    <table>
      <tr aria-selected="true">
        <td>Row</td>
      </tr>
      <tr>
        <td>Row 2</td>
      </tr>
    </table>"#,
        &[
            Pass("- row\n- row"),
            Pass("- row [selected]\n- row"),
            Pass("- row [selected=true]\n- row [selected=false]"),
            Fail("- row [selected=false]\n- row [selected=false]"),
            Snap(
                r#"
                - table:
                  - rowgroup:
                    - row "Row" [selected]:
                      - cell "Row"
                    - row "Row 2":
                      - cell "Row 2""#,
            ),
            Bad(
                "- row [selected=invalid]",
                " attribute must be true or false",
            ),
            On("table"),
            Pass("- table:\n  - rowgroup:\n    - row [selected=true]\n    - row [selected=false]"),
        ],
    )]);
}

const INTEGRATION: &str = r#"
    <h1>Microsoft</h1>
    <div>Open source projects and samples from Microsoft</div>
    <ul>
      <li>
        <details>
          <summary>
            Verified
          </summary>
          <div>
            <div>
              <p>
                We've verified that the organization <strong>microsoft</strong> controls the domain:
              </p>
              <ul>
                <li class="mb-1">
                  <strong>opensource.microsoft.com</strong>
                </li>
              </ul>
              <div>
                <a href="about: blank">Learn more about verified organizations</a>
              </div>
            </div>
          </div>
        </details>
      </li>
      <li>
        <a href="about:blank">
          <summary title="Label: GitHub Sponsor">Sponsor</summary>
        </a>
      </li>
    </ul>"#;

fn integration_test() {
    run(&[(
        INTEGRATION,
        &[Pass(
            r#"
    - heading "Microsoft"
    - text: Open source projects and samples from Microsoft
    - list:
      - listitem:
        - group: Verified
      - listitem:
        - link "Sponsor"
  "#,
        )],
    )]);
}

fn integration_test_2() {
    run(&[(
        r#"
    <div>
      <header>
        <h1>todos</h1>
        <input placeholder="What needs to be done?">
      </header>
    </div>"#,
        &[Pass(
            "- heading \"todos\"\n- textbox \"What needs to be done?\"",
        )],
    )]);
}

fn expected_formatter() {
    run(&[(
        r#"
    <div>
      <header>
        <h1>todos</h1>
        <input placeholder="What needs to be done?">
        <button>Time 15:30</button>
      </header>
    </div>"#,
        &[
            Fail("- heading \"todos\"\n- textbox \"Wrong text\""),
            Snap(
                r#"
                - banner:
                  - heading "todos" [level=1]
                  - textbox "What needs to be done?"
                  - button "Time 15:30""#,
            ),
        ],
    )]);
}

fn should_unpack_escaped_names() {
    run(&[
        (
            "<button>Click: me</button>",
            &[
                Pass(r#"- 'button "Click: me"'"#),
                Pass("- 'button /Click: me/'"),
            ],
        ),
        (
            "<button>Click / me</button>",
            &[
                Pass(r#"- button "Click / me""#),
                Pass(r"- button /Click \/ me/"),
                Pass(r"- 'button /Click \/ me/'"),
            ],
        ),
        (
            r#"<button>Click " me</button>"#,
            &[
                Pass(r#"- button "Click \" me""#),
                Pass(r#"- button /Click " me/"#),
                Pass(r#"- button /Click \" me/"#),
            ],
        ),
        (
            r"<button>Click \ me</button>",
            &[
                Pass(r#"- button "Click \\ me""#),
                Pass(r"- button /Click \\ me/"),
                Pass(r"- 'button /Click \\ me/'"),
            ],
        ),
        (
            "<button>Click ' me</button>",
            &[Pass(r#"- 'button "Click '' me"'"#)],
        ),
        (
            r#"<h1>heading "name" [level=1]</h1>"#,
            &[Pass(r#"- heading "heading \"name\" [level=1]" [level=1]"#)],
        ),
        (
            r#"<h1>heading \" [level=2]</h1>"#,
            &[Pass(
                "    - |\n          heading    \"heading \\\\\\\" [level=2]\" [\n             level  =   1   ]\n  ",
            )],
        ),
    ]);
}

fn should_report_error_in_yaml() {
    run(&[(
        "<h1>title</h1>",
        &[
            Bad(r#"heading "title""#, "must be a YAML sequence"),
            Bad("- heading: a:", "not valid YAML"),
        ],
    )]);
}

fn should_report_error_in_yaml_keys() {
    run(&[(
        "<h1>title</h1>",
        &[
            Bad(
                "- heading \"title",
                "unterminated string in the aria snapshot template:\n\nheading \"title\n              ^",
            ),
            Bad(
                "- heading /title",
                "unterminated regex in the aria snapshot template:\n\nheading /title\n              ^",
            ),
            Bad(
                "- heading [level=a]",
                "\"level\" attribute must be a number in the aria snapshot template:\n\nheading [level=a]\n               ^",
            ),
            Bad(
                "- heading [expanded=FALSE]",
                "\"expanded\" attribute must be true or false in the aria snapshot template:\n\nheading [expanded=FALSE]\n                  ^",
            ),
            Bad(
                "- heading [checked=foo]",
                "\"checked\" attribute must be true, false or mixed in the aria snapshot template:\n\nheading [checked=foo]\n                 ^",
            ),
            Bad(
                "- heading [level=]",
                "\"level\" attribute must be a number in the aria snapshot template:\n\nheading [level=]\n               ^",
            ),
            Bad("- heading [bogus]", "unsupported attribute [bogus]"),
            Bad(
                "- heading invalid",
                "in the aria snapshot template:\n\nheading invalid\n        ^",
            ),
        ],
    )]);
}

fn call_log_should_contain_actual_snapshot() {
    run(&[(
        "<h1>todos</h1>",
        &[
            Fail(r#"- heading "wrong""#),
            Snap(r#"- heading "todos" [level=1]"#),
        ],
    )]);
}

fn should_parse_attributes() {
    run(&[
        (
            r#"<button aria-pressed="mixed">hello world</button>"#,
            &[Pass("- button [pressed=mixed ]")],
        ),
        ("<h2>hello world</h2>", &[Fail("- heading [level =  -3 ]")]),
    ]);
}

fn should_not_match_what_is_not_matched() {
    run(&[(
        "<p>Text</p>",
        &[
            Fail("- paragraph:\n  - button \"bogus\""),
            Snap("- paragraph: Text"),
        ],
    )]);
}

fn should_match_url() {
    run(&[(
        "<a href='https://example.com'>Link</a>",
        &[Pass("- link:\n  - /url: /.*example.com/")],
    )]);
}

fn should_detect_unexpected_children_equal() {
    run(&[(
        "<ul>\n<li>One</li>\n<li>Two</li>\n<li>Three</li>\n</ul>",
        &[
            Pass("- list:\n  - listitem: \"One\"\n  - listitem: \"Three\""),
            Fail("- list:\n  - /children: equal\n  - listitem: \"One\"\n  - listitem: \"Three\""),
            Snap("- list:\n  - listitem: One\n  - listitem: Two\n  - listitem: Three"),
        ],
    )]);
}

const NESTED: &str = "<ul>\n<li>\n<ul>\n<li>1.1</li>\n<li>1.2</li>\n</ul>\n</li>\n</ul>";

fn should_detect_unexpected_children_deep_equal() {
    run(&[(
        NESTED,
        &[
            Pass("- list:\n  - listitem:\n    - list:\n      - listitem: 1.1"),
            Pass(
                "- list:\n  - /children: equal\n  - listitem:\n    - list:\n      - listitem: 1.1",
            ),
            Fail(
                "- list:\n  - /children: deep-equal\n  - listitem:\n    - list:\n      - listitem: 1.1",
            ),
            Snap(
                "- list:\n  - listitem:\n    - list:\n      - listitem: \"1.1\"\n      - listitem: \"1.2\"",
            ),
        ],
    )]);
}

fn should_allow_restoring_contain_mode_inside_deep_equal() {
    run(&[(
        NESTED,
        &[
            Fail(
                "- list:\n  - /children: deep-equal\n  - listitem:\n    - list:\n      - listitem: 1.1",
            ),
            Pass(
                "- list:\n  - /children: deep-equal\n  - listitem:\n    - list:\n      - /children: contain\n      - listitem: 1.1",
            ),
        ],
    )]);
}

fn top_level_deep_equal() {
    run(&[(NESTED, &[Fail("- /children: deep-equal\n- list")])]);
}

fn generated_snapshot_includes_text_children_when_name_is_longer_than_text() {
    run(&[(
        r#"
    <section>
      <div role="progressbar" aria-label="Alpha Beta" aria-valuenow="7" aria-valuemin="0" aria-valuemax="10">
        <span>Alpha</span>
        <span>7</span>
      </div>
    </section>"#,
        &[
            On("section"),
            Pass("- /children: deep-equal\n- progressbar \"Alpha Beta\": Alpha 7"),
        ],
    )]);
}

fn treat_bad_regex_as_a_string() {
    run(&[(
        r#"<a href="/foo">Log in</a>"#,
        &[
            Fail("- link \"Log in\":\n  - /url: /[a/"),
            Snap("- link \"Log in\":\n  - /url: /foo"),
        ],
    )]);
}

fn invalid_attribute() {
    run(&[
        (
            r#"
    <input type="text" aria-label="Email" aria-invalid="true" value="not-an-email">
    <input type="text" aria-label="Name" value="Alice">"#,
            &[
                Pass("- textbox \"Email\" [invalid]: not-an-email\n- textbox \"Name\": Alice"),
                Pass(
                    "- textbox \"Email\" [invalid=true]: not-an-email\n- textbox \"Name\" [invalid=false]: Alice",
                ),
            ],
        ),
        (
            r#"
    <input type="text" aria-label="Bio" aria-invalid="grammar">
    <input type="text" aria-label="Note" aria-invalid="spelling">"#,
            &[
                Pass("- textbox \"Bio\" [invalid=grammar]\n- textbox \"Note\" [invalid=spelling]"),
                Fail("- textbox \"Bio\" [invalid]"),
                Snap("- textbox \"Bio\" [invalid=grammar]\n- textbox \"Note\" [invalid=spelling]"),
            ],
        ),
        (
            r#"<input type="text" aria-label="Zip" aria-invalid="garbage">"#,
            &[Pass("- textbox \"Zip\" [invalid]")],
        ),
    ]);
}

// ---- tests/page/page-aria-snapshot.spec.ts (checkAndMatchSnapshot: the exact
// snapshot, then the same text as a template) ----------------------------------

/// `checkAndMatchSnapshot(page.locator('body'), snapshot)`.
fn check_and_match(html: &str, snapshot: &'static str) {
    run(&[(html, &[Snap(snapshot), Pass(snapshot)])]);
}

fn should_snapshot() {
    check_and_match("<h1>title</h1>", r#"- heading "title" [level=1]"#);
}

fn should_snapshot_list() {
    check_and_match(
        "<h1>title</h1>\n<h1>title 2</h1>",
        "
    - heading \"title\" [level=1]
    - heading \"title 2\" [level=1]
  ",
    );
}

fn should_snapshot_list_with_accessible_name() {
    check_and_match(
        r#"<ul aria-label="my list"><li>one</li><li>two</li></ul>"#,
        "
    - list \"my list\":
      - listitem: one
      - listitem: two
  ",
    );
}

fn should_snapshot_complex() {
    check_and_match(
        "<ul>\n<li>\n<a href='about:blank'>link</a>\n</li>\n</ul>",
        "
    - list:
      - listitem:
        - link \"link\":
          - /url: about:blank
  ",
    );
}

fn should_allow_text_nodes_in_snapshot() {
    check_and_match(
        "<h1>Microsoft</h1>\n<div>Open source projects and samples from Microsoft</div>",
        "
    - heading \"Microsoft\" [level=1]
    - text: Open source projects and samples from Microsoft
  ",
    );
}

fn should_snapshot_details_visibility() {
    check_and_match(
        "<details>\n<summary>Summary</summary>\n<div>Details</div>\n</details>",
        "- group: Summary",
    );
}

fn should_snapshot_integration() {
    check_and_match(
        INTEGRATION,
        "
    - heading \"Microsoft\" [level=1]
    - text: Open source projects and samples from Microsoft
    - list:
      - listitem:
        - group: Verified
      - listitem:
        - link \"Sponsor\":
          - /url: about:blank
  ",
    );
}

fn should_support_multiline_text() {
    let html = "<p>\n      Line 1\n      Line 2\n      Line 3\n    </p>";
    run(&[(
        html,
        &[
            Snap("- paragraph: Line 1 Line 2 Line 3"),
            Pass("- paragraph: Line 1 Line 2 Line 3"),
            Pass("    - paragraph: |\n          Line 1\n          Line 2\n          Line 3\n  "),
        ],
    )]);
}

fn should_concatenate_span_text() {
    check_and_match(
        "<span>One</span> <span>Two</span> <span>Three</span>",
        "- text: One Two Three",
    );
}

fn should_concatenate_span_text_2() {
    check_and_match(
        "<span>One </span><span>Two </span><span>Three</span>",
        "- text: One Two Three",
    );
}

fn should_concatenate_div_text_with_spaces() {
    check_and_match(
        "<div>One</div><div>Two</div><div>Three</div>",
        "- text: One Two Three",
    );
}

fn should_include_pseudo_in_text() {
    check_and_match(
        r#"
    <style>
      span:before { content: 'world'; }
      div:after { content: 'bye'; }
    </style>
    <a href="about:blank">
      <span>hello</span>
      <div>hello</div>
    </a>"#,
        "
    - link \"worldhello hellobye\":
      - /url: about:blank
  ",
    );
}

fn should_not_include_hidden_pseudo_in_text() {
    check_and_match(
        r#"
    <style>
      span:before { content: 'world'; display: none; }
      div:after { content: 'bye'; visibility: hidden; }
    </style>
    <a href="about:blank">
      <span>hello</span>
      <div>hello</div>
    </a>"#,
        "
    - link \"hello hello\":
      - /url: about:blank
  ",
    );
}

fn should_include_new_line_for_block_pseudo() {
    check_and_match(
        r#"
    <style>
      span:before { content: 'world'; display: block; }
      div:after { content: 'bye'; display: block; }
    </style>
    <a href="about:blank">
      <span>hello</span>
      <div>hello</div>
    </a>"#,
        "
    - link \"world hello hello bye\":
      - /url: about:blank
  ",
    );
}

fn should_work_with_slots() {
    check_and_match(
        r#"
    <button><div>foo</div></button>
    <script>
      (() => {
        const container = document.querySelector('div');
        const shadow = container.attachShadow({ mode: 'open' });
        const slot = document.createElement('slot');
        shadow.appendChild(slot);
      })();
    </script>"#,
        r#"- button "foo""#,
    );
    check_and_match(
        r#"
    <div>foo</div>
    <script>
      (() => {
        const container = document.querySelector('div');
        const shadow = container.attachShadow({ mode: 'open' });
        const button = document.createElement('button');
        shadow.appendChild(button);
        const slot = document.createElement('slot');
        button.appendChild(slot);
        const span = document.createElement('span');
        span.textContent = 'pre';
        slot.appendChild(span);
      })();
    </script>"#,
        r#"- button "foo""#,
    );
    check_and_match(
        r#"
    <div></div>
    <script>
      (() => {
        const container = document.querySelector('div');
        const shadow = container.attachShadow({ mode: 'open' });
        const button = document.createElement('button');
        shadow.appendChild(button);
        const slot = document.createElement('slot');
        button.appendChild(slot);
        const span = document.createElement('span');
        span.textContent = 'pre';
        slot.appendChild(span);
      })();
    </script>"#,
        r#"- button "pre""#,
    );
}

fn should_snapshot_inner_text() {
    check_and_match(
        r#"
    <div role="listitem">
      <div>
        <div>
          <span title="a.test.ts">a.test.ts</span>
        </div>
        <div>
          <button title="Run"></button>
          <button title="Show source"></button>
          <button title="Watch"></button>
        </div>
      </div>
    </div>
    <div role="listitem">
      <div>
        <div>
          <span title="snapshot">snapshot</span>
        </div>
        <div class="ui-mode-list-item-time">30ms</div>
        <div>
          <button title="Run"></button>
          <button title="Show source"></button>
          <button title="Watch"></button>
        </div>
      </div>
    </div>"#,
        "
    - listitem:
      - text: a.test.ts
      - button \"Run\"
      - button \"Show source\"
      - button \"Watch\"
    - listitem:
      - text: snapshot 30ms
      - button \"Run\"
      - button \"Show source\"
      - button \"Watch\"
  ",
    );
}

fn check_aria_hidden_text() {
    check_and_match(
        r#"
    <p>
      <span>hello</span>
      <span aria-hidden="true">world</span>
    </p>"#,
        "- paragraph: hello",
    );
}

fn should_ignore_presentation_and_none_roles() {
    check_and_match(
        "<ul>\n<li role='presentation'>hello</li>\n<li role='none'>world</li>\n</ul>",
        "- list: hello world",
    );
}

fn should_treat_input_value_as_text_in_templates_but_not_for_checkbox_radio_file() {
    check_and_match(
        r#"
    <input value='hello world'>
    <input type=file>
    <input type=checkbox checked>
    <input type=radio checked>"#,
        "
    - textbox: hello world
    - button \"Choose File\"
    - checkbox [checked]
    - radio [checked]
  ",
    );
}

fn should_not_use_on_as_checkbox_value() {
    check_and_match(
        "<input type='checkbox'>\n<input type='radio'>",
        "- checkbox\n- radio",
    );
}

fn should_respect_aria_owns() {
    check_and_match(
        r#"
    <a href='about:blank' aria-owns='input p'>
      <div role='region'>Link 1</div>
    </a>
    <a href='about:blank' aria-owns='input p'>
      <div role='region'>Link 2</div>
    </a>
    <input id='input' value='Value'>
    <p id='p'>Paragraph</p>"#,
        "
    - link \"Link 1 Value Paragraph\":
      - /url: about:blank
      - region: Link 1
      - textbox: Value
      - paragraph: Paragraph
    - link \"Link 2 Value Paragraph\":
      - /url: about:blank
      - region: Link 2
  ",
    );
}

fn should_be_ok_with_circular_ownership() {
    check_and_match(
        r#"
    <a href='about:blank' id='parent'>
      <div role='region' aria-owns='parent'>Hello</div>
    </a>"#,
        "
    - link \"Hello\":
      - /url: about:blank
      - region: Hello
  ",
    );
}

fn should_escape_yaml_text_in_text_nodes() {
    check_and_match(
        r##"
    <details>
      <summary>one: <a href="#">link1</a> "two <a href="#">link2</a> 'three <a href="#">link3</a> `four</summary>
    </details>
    <ul>
      <a href="#">one</a>,<a href="#">two</a>
      (<a href="#">three</a>)
      {<a href="#">four</a>}
      [<a href="#">five</a>]
    </ul>
    <div>[Select all]</div>"##,
        r##"
    - group:
      - text: "one:"
      - link "link1":
        - /url: "#"
      - text: "\"two"
      - link "link2":
        - /url: "#"
      - text: "'three"
      - link "link3":
        - /url: "#"
      - text: "`four"
    - list:
      - link "one":
        - /url: "#"
      - text: ","
      - link "two":
        - /url: "#"
      - text: (
      - link "three":
        - /url: "#"
      - text: ") {"
      - link "four":
        - /url: "#"
      - text: "} ["
      - link "five":
        - /url: "#"
      - text: "]"
    - text: "[Select all]"
  "##,
    );
}

fn should_normalize_whitespace() {
    run(&[(
        "<details>\n  <summary> one  \n two <a href=\"#\"> link &nbsp;\n  1 </a> </summary>\n</details>\n\
         <input value='  hello   &nbsp; world '>\n<button>hello\u{00ad}\u{200b}world</button>",
        &[
            Snap(
                r##"
    - group:
      - text: one two
      - link "link 1":
        - /url: "#"
    - textbox: hello world
    - button "helloworld""##,
            ),
            Pass(
                r##"
    - group:
      - text: one two
      - link "link 1":
        - /url: "#"
    - textbox: hello world
    - button "helloworld""##,
            ),
            Pass(
                "
    - group:
      - text: |
          one
          two
      - link \"  link     1 \":
        - /url: \"#\"
    - textbox:        hello  world
    - button \"he\u{00ad}lloworld\u{200b}\"
  ",
            ),
        ],
    )]);
}

fn should_handle_long_strings() {
    let s = "a".repeat(10000);
    let html = format!("<a href='about:blank'>\n<div role='region'>{s}</div>\n</a>");
    let snapshot: &'static str =
        Box::leak(format!("- link:\n  - /url: about:blank\n  - region: {s}").into_boxed_str());
    run(&[(&html, &[Snap(snapshot), Pass(snapshot)])]);
}

fn should_escape_special_yaml_characters() {
    check_and_match(
        "<a href=\"#\">@hello</a>@hello\n<a href=\"#\">]hello</a>]hello\n<a href=\"#\">hello\n</a>\n\
         hello\n<a href=\"#\">\n hello</a>\n hello\n<a href=\"#\">#hello</a>#hello",
        r##"
    - link "@hello":
      - /url: "#"
    - text: "@hello"
    - link "]hello":
      - /url: "#"
    - text: "]hello"
    - link "hello":
      - /url: "#"
    - text: hello
    - link "hello":
      - /url: "#"
    - text: hello
    - link "#hello":
      - /url: "#"
    - text: "#hello"
  "##,
    );
}

fn should_escape_special_yaml_values() {
    check_and_match(
        r##"
    <a href="#">true</a>False
    <a href="#">NO</a>yes
    <a href="#">y</a>N
    <a href="#">on</a>Off
    <a href="#">null</a>NULL
    <a href="#">123</a>123
    <a href="#">-1.2</a>-1.2
    <a href="#">-</a>-
    <input type=text value="555">"##,
        r##"
    - link "true":
      - /url: "#"
    - text: "False"
    - link "NO":
      - /url: "#"
    - text: "yes"
    - link "y":
      - /url: "#"
    - text: "N"
    - link "on":
      - /url: "#"
    - text: "Off"
    - link "null":
      - /url: "#"
    - text: "NULL"
    - link "123":
      - /url: "#"
    - text: "123"
    - link "-1.2":
      - /url: "#"
    - text: "-1.2"
    - link "-":
      - /url: "#"
    - text: "-"
    - textbox: "555"
  "##,
    );
}

fn should_not_report_textarea_text_content() {
    run(&[(
        "<textarea>Before</textarea>",
        &[
            Snap("- textbox: Before"),
            Pass("- textbox: Before"),
            Eval("document.querySelector('textarea').value = 'After'"),
            Snap("- textbox: After"),
            Pass("- textbox: After"),
        ],
    )]);
}

fn should_not_show_visible_children_of_hidden_elements() {
    run(&[(
        r#"
    <div style="visibility: hidden;">
      <div style="visibility: visible;">
        <button>Button</button>
      </div>
    </div>"#,
        &[Snap(""), Fail("- button")],
    )]);
}

fn should_not_show_unhidden_children_of_aria_hidden_elements() {
    run(&[(
        r#"
    <div aria-hidden="true">
      <div aria-hidden="false">
        <button>Button</button>
      </div>
    </div>"#,
        &[Snap(""), Fail("- button")],
    )]);
}

fn should_snapshot_placeholder_when_different_from_the_name() {
    run(&[
        (
            r#"<input placeholder="Placeholder">"#,
            &[
                Snap(r#"- textbox "Placeholder""#),
                Pass(r#"- textbox "Placeholder""#),
            ],
        ),
        (
            r#"<input placeholder="Placeholder" aria-label="Label">"#,
            &[
                Snap("- textbox \"Label\":\n  - /placeholder: Placeholder"),
                Pass("- textbox \"Label\":\n  - /placeholder: Placeholder"),
            ],
        ),
    ]);
}

fn match_values_both_against_regex_and_string() {
    check_and_match(
        r#"<a href="/auth?r=/">Log in</a>"#,
        "
    - link \"Log in\":
      - /url: /auth?r=/
  ",
    );
}

// ---- beyond Playwright's tests ---------------------------------------------------

/// A name regex that JavaScript cannot compile (Rust cannot tell: the page runs
/// it) is refused at once, not retried until the timeout.
fn a_name_regex_javascript_refuses_fails_at_once() {
    run(&[(
        "<h1>title</h1>",
        &[Bad(
            "- heading /ti(tle/",
            "the name /ti(tle/ of \"heading\" is not a valid JavaScript regular expression",
        )],
    )]);
}

fn should_include_pseudo_codepoints() {
    // Playwright's asset codicon.css gives `.codicon-check:before` the code point
    // U+EAB2; the server hands out the same rule.
    pages().lock().unwrap().insert(
        "/case/codicon.css".into(),
        ".codicon-check:before { content: \"\\eab2\"; }".into(),
    );
    check_and_match(
        "<link href=\"codicon.css\" rel=\"stylesheet\" />\n<p class='codicon codicon-check'>hello</p>",
        "- paragraph: \u{eab2}hello",
    );
}

/// Every case above, in one test: they share one browser, which a process per test would start again for each (`support::facts`).
#[test]
fn every_case() {
    support::facts(&[
        (
            "todomvc_list_items_match_by_their_text",
            todomvc_list_items_match_by_their_text,
        ),
        ("should_match_page", should_match_page),
        ("should_match_page_complex", should_match_page_complex),
        ("should_match_page_with_not", should_match_page_with_not),
        (
            "should_fail_page_with_timeout",
            should_fail_page_with_timeout,
        ),
        ("should_match", should_match),
        ("should_match_in_list", should_match_in_list),
        (
            "should_match_list_with_accessible_name",
            should_match_list_with_accessible_name,
        ),
        ("should_match_deep_item", should_match_deep_item),
        ("should_match_complex", should_match_complex),
        ("should_match_regex", should_match_regex),
        ("should_allow_text_nodes", should_allow_text_nodes),
        ("details_visibility", details_visibility),
        ("checked_attribute", checked_attribute),
        ("disabled_attribute", disabled_attribute),
        ("expanded_attribute", expanded_attribute),
        ("level_attribute", level_attribute),
        ("pressed_attribute", pressed_attribute),
        ("selected_attribute", selected_attribute),
        ("integration_test", integration_test),
        ("integration_test_2", integration_test_2),
        ("expected_formatter", expected_formatter),
        ("should_unpack_escaped_names", should_unpack_escaped_names),
        ("should_report_error_in_yaml", should_report_error_in_yaml),
        (
            "should_report_error_in_yaml_keys",
            should_report_error_in_yaml_keys,
        ),
        (
            "call_log_should_contain_actual_snapshot",
            call_log_should_contain_actual_snapshot,
        ),
        ("should_parse_attributes", should_parse_attributes),
        (
            "should_not_match_what_is_not_matched",
            should_not_match_what_is_not_matched,
        ),
        ("should_match_url", should_match_url),
        (
            "should_detect_unexpected_children_equal",
            should_detect_unexpected_children_equal,
        ),
        (
            "should_detect_unexpected_children_deep_equal",
            should_detect_unexpected_children_deep_equal,
        ),
        (
            "should_allow_restoring_contain_mode_inside_deep_equal",
            should_allow_restoring_contain_mode_inside_deep_equal,
        ),
        ("top_level_deep_equal", top_level_deep_equal),
        (
            "generated_snapshot_includes_text_children_when_name_is_longer_than_text",
            generated_snapshot_includes_text_children_when_name_is_longer_than_text,
        ),
        ("treat_bad_regex_as_a_string", treat_bad_regex_as_a_string),
        ("invalid_attribute", invalid_attribute),
        ("should_snapshot", should_snapshot),
        ("should_snapshot_list", should_snapshot_list),
        (
            "should_snapshot_list_with_accessible_name",
            should_snapshot_list_with_accessible_name,
        ),
        ("should_snapshot_complex", should_snapshot_complex),
        (
            "should_allow_text_nodes_in_snapshot",
            should_allow_text_nodes_in_snapshot,
        ),
        (
            "should_snapshot_details_visibility",
            should_snapshot_details_visibility,
        ),
        ("should_snapshot_integration", should_snapshot_integration),
        (
            "should_support_multiline_text",
            should_support_multiline_text,
        ),
        ("should_concatenate_span_text", should_concatenate_span_text),
        (
            "should_concatenate_span_text_2",
            should_concatenate_span_text_2,
        ),
        (
            "should_concatenate_div_text_with_spaces",
            should_concatenate_div_text_with_spaces,
        ),
        (
            "should_include_pseudo_in_text",
            should_include_pseudo_in_text,
        ),
        (
            "should_not_include_hidden_pseudo_in_text",
            should_not_include_hidden_pseudo_in_text,
        ),
        (
            "should_include_new_line_for_block_pseudo",
            should_include_new_line_for_block_pseudo,
        ),
        ("should_work_with_slots", should_work_with_slots),
        ("should_snapshot_inner_text", should_snapshot_inner_text),
        ("check_aria_hidden_text", check_aria_hidden_text),
        (
            "should_ignore_presentation_and_none_roles",
            should_ignore_presentation_and_none_roles,
        ),
        (
            "should_treat_input_value_as_text_in_templates_but_not_for_checkbox_radio_file",
            should_treat_input_value_as_text_in_templates_but_not_for_checkbox_radio_file,
        ),
        (
            "should_not_use_on_as_checkbox_value",
            should_not_use_on_as_checkbox_value,
        ),
        ("should_respect_aria_owns", should_respect_aria_owns),
        (
            "should_be_ok_with_circular_ownership",
            should_be_ok_with_circular_ownership,
        ),
        (
            "should_escape_yaml_text_in_text_nodes",
            should_escape_yaml_text_in_text_nodes,
        ),
        ("should_normalize_whitespace", should_normalize_whitespace),
        ("should_handle_long_strings", should_handle_long_strings),
        (
            "should_escape_special_yaml_characters",
            should_escape_special_yaml_characters,
        ),
        (
            "should_escape_special_yaml_values",
            should_escape_special_yaml_values,
        ),
        (
            "should_not_report_textarea_text_content",
            should_not_report_textarea_text_content,
        ),
        (
            "should_not_show_visible_children_of_hidden_elements",
            should_not_show_visible_children_of_hidden_elements,
        ),
        (
            "should_not_show_unhidden_children_of_aria_hidden_elements",
            should_not_show_unhidden_children_of_aria_hidden_elements,
        ),
        (
            "should_snapshot_placeholder_when_different_from_the_name",
            should_snapshot_placeholder_when_different_from_the_name,
        ),
        (
            "match_values_both_against_regex_and_string",
            match_values_both_against_regex_and_string,
        ),
        (
            "a_name_regex_javascript_refuses_fails_at_once",
            a_name_regex_javascript_refuses_fails_at_once,
        ),
        (
            "should_include_pseudo_codepoints",
            should_include_pseudo_codepoints,
        ),
    ]);
}
