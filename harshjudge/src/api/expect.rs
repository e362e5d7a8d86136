//! `expect(&response)` and `expect(&output)`: assertions on what a request or
//! a command returned. They check at once (the value does not change), and
//! are awaited like every matcher; [`not`](ResponseExpect::not) inverts them.

use std::future::Future;
use std::panic::Location;

use serde_json::Value;

use super::command::{CommandOutput, OutputMatch};
use super::mask::Secrets;
use super::request::ApiResponse;
use super::{ApiError, json};
use harshjudge_browser::Expectable;

impl Expectable for ApiResponse {
    type Expect = ResponseExpect;
    fn expect_at(&self, at: &'static Location<'static>) -> ResponseExpect {
        ResponseExpect {
            response: self.clone(),
            not: false,
            soft: false,
            at,
        }
    }
}

impl Expectable for CommandOutput {
    type Expect = OutputExpect;
    fn expect_at(&self, at: &'static Location<'static>) -> OutputExpect {
        OutputExpect {
            output: self.clone(),
            not: false,
            soft: false,
            at,
        }
    }
}

/// Assertions on an [`ApiResponse`]: `expect(&res).to_have_status(201).await?`.
#[must_use = "an assertion does nothing until a matcher is awaited"]
#[derive(Clone, Debug)]
pub struct ResponseExpect {
    response: ApiResponse,
    not: bool,
    soft: bool,
    at: &'static Location<'static>,
}

/// Assertions on a [`CommandOutput`]: `expect(&out).to_succeed().await?`.
#[must_use = "an assertion does nothing until a matcher is awaited"]
#[derive(Clone, Debug)]
pub struct OutputExpect {
    output: CommandOutput,
    not: bool,
    soft: bool,
    at: &'static Location<'static>,
}

/// The start of `text` for a failure message.
fn excerpt(text: &str) -> String {
    let t: String = text.chars().take(300).collect();
    if t.len() < text.len() {
        format!("{t:?}…")
    } else {
        format!("{t:?}")
    }
}

/// `Ok` when `pass` is what was asked (inverted by `not`), else the failure.
#[allow(clippy::too_many_arguments)]
fn verdict(
    subject: &str,
    not: bool,
    matcher: &str,
    pass: bool,
    expected: String,
    received: String,
    extra: String,
    at: &'static Location<'static>,
) -> Result<(), ApiError> {
    if pass != not {
        return Ok(());
    }
    let neg = if not { "not " } else { "" };
    Err(ApiError::Assertion {
        message: format!(
            "expect({subject}).{}{matcher} failed\n  expected: {neg}{expected}\n  received: {received}{extra}",
            if not { "not()." } else { "" },
        ),
        location: at,
    })
}

impl ResponseExpect {
    /// Inverts the matcher that follows (Playwright's `.not`).
    #[allow(clippy::should_implement_trait)]
    pub fn not(mut self) -> Self {
        self.not = !self.not;
        self
    }

    /// A soft assertion (Playwright's `expect.soft`, as
    /// [`LocatorExpect::soft`](harshjudge_browser::LocatorExpect::soft)): a
    /// failure is recorded and the step goes on, failing at its end.
    pub fn soft(mut self) -> Self {
        self.soft = true;
        self
    }

    fn check(
        self,
        matcher: String,
        pass: bool,
        expected: String,
        received: String,
    ) -> impl Future<Output = Result<(), ApiError>> + Send {
        // What the response holds of secrets stays out of the message (it
        // lands in result.json): set cookies, secret-looking JSON fields.
        let mut secrets = Secrets::default();
        for (k, v) in self.response.headers() {
            secrets.header(k.as_str(), &String::from_utf8_lossy(v.as_bytes()));
        }
        if let Ok(mut v) = serde_json::from_slice::<Value>(self.response.body()) {
            secrets.json(&mut v);
        }
        let body = format!("\n  body: {}", excerpt(&self.response.text()));
        let out = verdict(
            &self.response.describe(),
            self.not,
            &matcher,
            pass,
            expected,
            received,
            body,
            self.at,
        )
        .map_err(|e| match e {
            ApiError::Assertion { message, location } => ApiError::Assertion {
                message: secrets.scrub_str(&message),
                location,
            },
            other => other,
        });
        let (soft, at) = (self.soft, self.at);
        async move { harshjudge_browser::soft::settle(soft, at, out).await }
    }

    /// The status is 200–299.
    pub fn to_be_ok(self) -> impl Future<Output = Result<(), ApiError>> + Send {
        let (s, ok) = (self.response.status(), self.response.ok());
        self.check(
            "to_be_ok()".into(),
            ok,
            "a status in 200-299".into(),
            s.to_string(),
        )
    }

    /// The status is `status`.
    pub fn to_have_status(self, status: u16) -> impl Future<Output = Result<(), ApiError>> + Send {
        let s = self.response.status();
        self.check(
            format!("to_have_status({status})"),
            s == status,
            status.to_string(),
            s.to_string(),
        )
    }

    /// A header `name` has a value that matches `value` (a string: the whole
    /// value; a [`regex::Regex`]; [`contains`](super::contains)).
    pub fn to_have_header(
        self,
        name: impl AsRef<str>,
        value: impl Into<OutputMatch>,
    ) -> impl Future<Output = Result<(), ApiError>> + Send {
        let name = name.as_ref();
        let m = value.into();
        let values: Vec<String> = self
            .response
            .headers()
            .get_all(name)
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect();
        let pass = values.iter().any(|v| m.matches(v));
        let received = match values.as_slice() {
            [] => format!("no {name} header"),
            [one] => format!("{name}: {one:?}"),
            many => format!("{name}: {many:?}"),
        };
        self.check(
            format!("to_have_header({name:?}, {})", m.describe()),
            pass,
            format!("{name}: {}", m.describe()),
            received,
        )
    }

    /// The body is JSON that contains `template`: every key of a template
    /// object matches (others are ignored), a template array's elements match
    /// elements of the body's array in the same order, other values are equal.
    pub fn to_have_json(
        self,
        template: Value,
    ) -> impl Future<Output = Result<(), ApiError>> + Send {
        let (pass, received) = json::verdict(&template, self.response.body(), "a body");
        self.check(
            format!("to_have_json({template})"),
            pass,
            template.to_string(),
            received,
        )
    }

    /// The body's text contains `text`.
    pub fn to_contain_text(
        self,
        text: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), ApiError>> + Send {
        let text = text.as_ref();
        let body = self.response.text();
        self.check(
            format!("to_contain_text({text:?})"),
            body.contains(text),
            format!("a body containing {text:?}"),
            excerpt(&body),
        )
    }
}

impl OutputExpect {
    /// Inverts the matcher that follows (Playwright's `.not`).
    #[allow(clippy::should_implement_trait)]
    pub fn not(mut self) -> Self {
        self.not = !self.not;
        self
    }

    /// A soft assertion (Playwright's `expect.soft`, as
    /// [`LocatorExpect::soft`](harshjudge_browser::LocatorExpect::soft)): a
    /// failure is recorded and the step goes on, failing at its end.
    pub fn soft(mut self) -> Self {
        self.soft = true;
        self
    }

    fn check(
        self,
        matcher: String,
        pass: bool,
        expected: String,
        received: String,
    ) -> impl Future<Output = Result<(), ApiError>> + Send {
        let o = &self.output;
        let extra = format!(
            "\n  exit code: {}\n  stdout: {}\n  stderr: {}",
            o.code()
                .map_or_else(|| o.status.to_string(), |c| c.to_string()),
            excerpt(&o.stdout),
            excerpt(&o.stderr)
        );
        let subject = format!("`{}`", o.command());
        let out = verdict(
            &subject, self.not, &matcher, pass, expected, received, extra, self.at,
        );
        let (soft, at) = (self.soft, self.at);
        async move { harshjudge_browser::soft::settle(soft, at, out).await }
    }

    fn exit(&self) -> String {
        let s = self.output.status;
        s.code()
            .map_or_else(|| s.to_string(), |c| format!("exit code {c}"))
    }

    /// It exited with code 0.
    pub fn to_succeed(self) -> impl Future<Output = Result<(), ApiError>> + Send {
        let (received, ok) = (self.exit(), self.output.success());
        self.check("to_succeed()".into(), ok, "exit code 0".into(), received)
    }

    /// It exited with code `code`.
    pub fn to_have_exit_code(self, code: i32) -> impl Future<Output = Result<(), ApiError>> + Send {
        let (received, pass) = (self.exit(), self.output.code() == Some(code));
        self.check(
            format!("to_have_exit_code({code})"),
            pass,
            format!("exit code {code}"),
            received,
        )
    }

    /// Its stdout matches `m` (a string: the whole output, trailing line
    /// breaks ignored; a [`regex::Regex`]; [`contains`](super::contains)).
    pub fn to_have_stdout(
        self,
        m: impl Into<OutputMatch>,
    ) -> impl Future<Output = Result<(), ApiError>> + Send {
        self.stream("stdout", |o| &o.stdout, m.into())
    }

    /// Its stderr matches `m` (as [`to_have_stdout`](OutputExpect::to_have_stdout)).
    pub fn to_have_stderr(
        self,
        m: impl Into<OutputMatch>,
    ) -> impl Future<Output = Result<(), ApiError>> + Send {
        self.stream("stderr", |o| &o.stderr, m.into())
    }

    /// Its stdout is JSON that contains `template`, by the rule of a
    /// response's [`to_have_json`](ResponseExpect::to_have_json): a CLI's
    /// `--json` output, `expect(&out).to_have_json(json!({"ok": true})).await?`.
    pub fn to_have_json(
        self,
        template: Value,
    ) -> impl Future<Output = Result<(), ApiError>> + Send {
        let (pass, received) = json::verdict(&template, self.output.stdout.as_bytes(), "a stdout");
        self.check(
            format!("to_have_json({template})"),
            pass,
            template.to_string(),
            received,
        )
    }

    /// `to_have_stdout` / `to_have_stderr`: the stream `name` (`pick`) matches `m`.
    fn stream(
        self,
        name: &'static str,
        pick: fn(&CommandOutput) -> &str,
        m: OutputMatch,
    ) -> impl Future<Output = Result<(), ApiError>> + Send {
        let text = pick(&self.output);
        let (pass, received) = (m.matches(text), excerpt(text));
        self.check(
            format!("to_have_{name}({})", m.describe()),
            pass,
            format!("{name} {}", m.describe()),
            received,
        )
    }
}
