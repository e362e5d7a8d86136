//! Locator actions: clicks, typing, checking, selecting, focus, files and drags,
//! each waiting for actionability first.

use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::json;

use super::Locator;
use super::calls::{PointerOp, unexpected};
use crate::backend::PageBackend;
use crate::config::BrowserKind;
use crate::error::BrowserError;
use crate::expect::Running;
use crate::keyboard::{ClickSpec, Modifier, Modifiers, MouseButton};
use crate::protocol::{Acted, Action, Call, Point, Request, SelectOption};
use crate::trace::{self, CallText, Kind, arg};

impl Locator {
    /// Clicks the element at its centre, once it is visible, stable, enabled and
    /// receives the pointer there (else waits, naming the element in the way).
    /// Playwright's options go on the returned [`Click`]:
    /// `l.click().button(MouseButton::Right).modifiers([Modifier::Shift]).await?`.
    #[track_caller]
    pub fn click(&self) -> Click<'_> {
        Click::new(self, false, Location::caller())
    }

    /// Double-clicks the element (as [`click`](Locator::click), two clicks;
    /// the same options).
    #[track_caller]
    pub fn dblclick(&self) -> Click<'_> {
        Click::new(self, true, Location::caller())
    }

    /// Moves the mouse over the element's centre.
    #[track_caller]
    pub fn hover(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            self.pointer(
                Action::Hover,
                "be hovered (visible, stable, receiving pointer events)",
                PointerOp::Hover,
                at,
            )
            .await
        })
    }

    /// Replaces the field's value with `value` without blurring it: focus,
    /// select all, insert the text (an `input` event; `change` comes when the
    /// field loses focus, as with typing).
    #[track_caller]
    pub fn fill(
        &self,
        value: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let value = value.as_ref().to_string();
        Box::pin(async move {
            let call = || CallText::locator(&self.desc, "fill", arg(&value));
            let body = async {
                let filled = self
                    .act(
                        Action::Fill {
                            value: value.clone(),
                        },
                        "be filled (visible, enabled, editable)",
                        at,
                    )
                    .await;
                conceal_unless_plain(&filled);
                filled.map(|_| ())
            };
            self.traced(Kind::Action, call, at, body).await
        })
    }

    /// Empties the field (as `fill("")`).
    #[track_caller]
    pub fn clear(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            let call = || CallText::locator(&self.desc, "clear", String::new());
            let body = self.act(
                Action::Fill {
                    value: String::new(),
                },
                "be cleared (visible, enabled, editable)",
                at,
            );
            self.traced(Kind::Action, call, at, body).await.map(|_| ())
        })
    }

    /// Focuses the element and presses a key or chord: `"Enter"`, `"Escape"`,
    /// `"Control+a"`, `"Shift+Tab"`, `"a"`, … (see [`Keyboard::press`](crate::Keyboard::press)).
    #[track_caller]
    pub fn press(
        &self,
        key: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let key = key.as_ref().to_string();
        Box::pin(async move {
            let key = key.as_str();
            let call = || CallText::locator(&self.desc, "press", arg(key));
            self.traced(Kind::Action, call, at, async {
                let keys = crate::keyboard::chord(key).map_err(|e| e.at(Some(at)))?;
                let during = format!("pressing {key} in {}", self.desc);
                self.keyed(keys, &during, trace::types_text(key), at).await
            })
            .await
        })
    }

    /// Focuses the element and types `text` one key at a time.
    #[track_caller]
    pub fn press_sequentially(
        &self,
        text: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let text = text.as_ref().to_string();
        Box::pin(async move {
            let call = || CallText::locator(&self.desc, "press_sequentially", arg(&text));
            self.traced(Kind::Action, call, at, async {
                let keys = crate::keyboard::typed(&text);
                self.keyed(keys, crate::keyboard::TYPING, true, at).await
            })
            .await
        })
    }

    /// Focuses the element, then sends `keys` from the keyboard: `press`
    /// and `press_sequentially`. `types_text`: what is typed is text, kept
    /// out of the trace unless the field is plain (not a password).
    async fn keyed(
        &self,
        keys: Vec<serde_json::Value>,
        during: &str,
        types_text: bool,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        let focused = self.act(Action::Press, "be focused", at).await;
        if types_text {
            conceal_unless_plain(&focused);
        }
        focused?;
        let navigations = self.page.backend().watch_action();
        self.page
            .keyboard()
            .send(keys, during)
            .await
            .map_err(|e| e.located(at))?;
        self.after_action(navigations).await;
        Ok(())
    }

    /// Checks a checkbox or radio button (clicking it unless it is checked), then
    /// verifies that it is.
    #[track_caller]
    pub fn check(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move { self.set_checked_at(true, "check", at).await })
    }

    /// Unchecks a checkbox (clicking it unless it is unchecked), then verifies that it is.
    #[track_caller]
    pub fn uncheck(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move { self.set_checked_at(false, "uncheck", at).await })
    }

    /// [`check`](Locator::check) or [`uncheck`](Locator::uncheck).
    #[track_caller]
    pub fn set_checked(
        &self,
        checked: bool,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move { self.set_checked_at(checked, "set_checked", at).await })
    }

    /// `check`, `uncheck` or `set_checked` (`method`), one entry of the trace.
    async fn set_checked_at(
        &self,
        checked: bool,
        method: &'static str,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        let args = if method == "set_checked" {
            checked.to_string()
        } else {
            String::new()
        };
        let call = || CallText::locator(&self.desc, method, args);
        self.traced(Kind::Action, call, at, self.check_and_verify(checked, at))
            .await
    }

    async fn check_and_verify(
        &self,
        checked: bool,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        let verb = if checked {
            "be checked"
        } else {
            "be unchecked"
        };
        let v = self
            .pointer_action(
                Action::Check { checked },
                &format!("{verb} (visible, enabled, stable, receiving pointer events)"),
                PointerOp::Click(ClickSpec::clicks(1)),
                at,
            )
            .await?;
        if matches!(v, Acted::Done { .. }) {
            return Ok(());
        }
        let now = self
            .page
            .call(
                Call {
                    request: Request::Checked {
                        target: self.target(),
                    },
                    timeout: 0,
                },
                &format!("reading the state of {}", self.desc),
            )
            .await?;
        if now.result.ok() != Some(json!(checked)) {
            return Err(BrowserError::Assertion {
                message: format!(
                    "{}: clicking did not change the state (it is {}): the page handles the click itself",
                    self.desc,
                    if checked {
                        "still unchecked"
                    } else {
                        "still checked"
                    }
                ),
                location: Some(at),
            });
        }
        Ok(())
    }

    /// Selects options of a `<select>` by value or label (several for `multiple`);
    /// returns the selected values.
    #[track_caller]
    pub fn select_option<'a, I, S>(
        &'a self,
        values: I,
    ) -> impl Future<Output = Result<Vec<String>, BrowserError>> + Send + 'a
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let at = Location::caller();
        let options: Vec<SelectOption> = values
            .into_iter()
            .map(|v| SelectOption {
                any: v.as_ref().to_string(),
            })
            .collect();
        Box::pin(async move {
            let what = "have an option selected (visible, enabled)";
            match self.act(Action::SelectOption { options }, what, at).await? {
                Acted::Selected(values) => Ok(values),
                other => Err(unexpected(&other, what, at)),
            }
        })
    }

    /// Focuses the element.
    #[track_caller]
    pub fn focus(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move { self.act(Action::Focus, "be focused", at).await.map(|_| ()) })
    }

    /// Removes focus from the element.
    #[track_caller]
    pub fn blur(&self) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move { self.act(Action::Blur, "be blurred", at).await.map(|_| ()) })
    }

    /// Dispatches a DOM event of `event_type` (`"click"`, `"input"`, …) on the element.
    #[track_caller]
    pub fn dispatch_event(
        &self,
        event_type: impl AsRef<str>,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        let event_type = event_type.as_ref().to_string();
        Box::pin(async move {
            self.act(
                Action::DispatchEvent {
                    r#type: event_type.clone(),
                },
                &format!("receive a {event_type} event"),
                at,
            )
            .await
            .map(|_| ())
        })
    }

    /// Scrolls the element into view unless it is visible there already.
    #[track_caller]
    pub fn scroll_into_view_if_needed(
        &self,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + '_ {
        let at = Location::caller();
        Box::pin(async move {
            self.act(
                Action::ScrollIntoView,
                "be scrolled into view (visible, stable)",
                at,
            )
            .await
            .map(|_| ())
        })
    }

    /// Sets the files of an `<input type=file>` (absolute paths).
    #[track_caller]
    pub fn set_input_files<'a, I, P>(
        &'a self,
        files: I,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a
    where
        I: IntoIterator<Item = P>,
        P: AsRef<std::path::Path>,
    {
        let at = Location::caller();
        let paths: Vec<String> = files
            .into_iter()
            .map(|p| p.as_ref().display().to_string())
            .collect();
        Box::pin(async move {
            let text = || {
                let files: Vec<String> = paths.iter().map(|p| arg(p)).collect();
                CallText::locator(
                    &self.desc,
                    "set_input_files",
                    format!("[{}]", files.join(", ")),
                )
            };
            self.traced(Kind::Action, text, at, self.set_files(&paths, at))
                .await
        })
    }

    async fn set_files(
        &self,
        paths: &[String],
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        let call = Call {
            request: Request::Act {
                target: self.target(),
                action: Action::SetInputFiles,
                verify: None,
            },
            timeout: self.page.wait().as_millis() as u64,
        };
        self.misused(at)?;
        let start = std::time::Instant::now();
        let during = format!("waiting for {} to be attached", self.desc);
        let answer = self
            .page
            .backend()
            .set_input_files(self.frame.as_ref(), call, paths, &during, &self.desc)
            .await
            .map_err(|e| e.located(at))?;
        answer
            .into_value(&self.desc, "be attached", start.elapsed(), at)
            .map(|_| ())
    }

    /// Drags this element onto `target`. A source that is natively draggable
    /// (itself or an ancestor with `draggable="true"`) gets HTML5 drag and drop,
    /// as Chromium gives it under Playwright: `dragstart` and `drag` on the
    /// source, `dragenter`/`dragover` on the element under the drop point,
    /// `drop` there when a `dragover` handler accepted it, `dragend` on the
    /// source, one `DataTransfer` from start to drop (these events are
    /// dispatched by the page's engine: WebDriver's mouse starts no native drag).
    /// Any other source is dragged with the mouse: press on it, move in steps
    /// onto the target, release.
    #[track_caller]
    pub fn drag_to<'a>(
        &'a self,
        target: &'a Locator,
    ) -> impl Future<Output = Result<(), BrowserError>> + Send + 'a {
        let at = Location::caller();
        Box::pin(async move {
            let call = || CallText::locator(&self.desc, "drag_to", format!("&{}", target.desc));
            self.traced(Kind::Action, call, at, self.drag(target, at))
                .await
        })
    }

    async fn drag(
        &self,
        target: &Locator,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        target.misused(at)?;
        // As a user would: press on the source, then find the target (which
        // may scroll it into view) and release there.
        let v = self
            .pointer_action(
                Action::Drag {
                    target: target.chain.clone(),
                    target_describe: target.desc.clone(),
                },
                "be dragged (visible, stable, receiving pointer events)",
                PointerOp::Press,
                at,
            )
            .await?;
        let Point { x: x0, y: y0 } = match v {
            Acted::Html5 { .. } => return Ok(()),
            Acted::Point { point } => point,
            other => return Err(unexpected(&other, "be dragged", at)),
        };
        let dropped_on = "be dropped on (visible, stable)";
        let Point { x: x1, y: y1 } = match target.act(Action::Hover, dropped_on, at).await? {
            Acted::Point { point } => point,
            other => return Err(unexpected(&other, dropped_on, at)),
        };
        self.page
            .mouse()
            .release_at(x0, y0, x1, y1)
            .await
            .map_err(|e| e.located(at))
    }
}

/// The most clicks one `click_count` makes.
const MAX_CLICKS: u32 = 100;

/// The longest `delay` between a press and its release.
const MAX_DELAY: Duration = Duration::from_secs(60);

/// A click of [`Locator::click`] or [`Locator::dblclick`], made when awaited,
/// with Playwright's click options:
/// `l.click().button(MouseButton::Right).await?` (a context menu),
/// `l.click().modifiers([Modifier::Shift]).await?` (a Shift-click),
/// `.click_count(3)`, `.position(5.0, 5.0)`, `.delay(d)`, `.force(true)`,
/// `.timeout(d)`.
#[must_use = "a click does nothing until awaited"]
pub struct Click<'a> {
    locator: &'a Locator,
    double: bool,
    spec: ClickSpec,
    position: Option<Point>,
    force: bool,
    timeout: Option<Duration>,
    at: &'static Location<'static>,
    /// The click under way, boxed: its state stays off the caller's stack.
    running: Option<Running<'a>>,
}

impl<'a> Click<'a> {
    fn new(locator: &'a Locator, double: bool, at: &'static Location<'static>) -> Click<'a> {
        Click {
            locator,
            double,
            spec: ClickSpec::clicks(if double { 2 } else { 1 }),
            position: None,
            force: false,
            timeout: None,
            at,
            running: None,
        }
    }

    /// The button to press (default [`MouseButton::Left`]); `Right` opens the
    /// context menu (`contextmenu`). On WebKit only the left one
    /// ([`BrowserError::Unsupported`] otherwise: its driver releases every
    /// button as the left one).
    pub fn button(mut self, button: MouseButton) -> Self {
        self.spec.button = button;
        self
    }

    /// Modifier keys held during the click (`[Modifier::Shift]`,
    /// `[Modifier::ControlOrMeta]`, …); released after it.
    pub fn modifiers(mut self, modifiers: impl IntoIterator<Item = Modifier>) -> Self {
        self.spec.modifiers = modifiers
            .into_iter()
            .fold(Modifiers::default(), Modifiers::with);
        self
    }

    /// How many clicks in a row (1 to 100; default 1, 2 for `dblclick`): the
    /// events' `detail` counts them.
    pub fn click_count(mut self, count: u32) -> Self {
        self.spec.count = count;
        self
    }

    /// Where to click, in CSS pixels from the top left of the element's
    /// padding box (the events' `offsetX`/`offsetY`); default: a point of the
    /// element that receives the pointer.
    pub fn position(mut self, x: f64, y: f64) -> Self {
        self.position = Some(Point { x, y });
        self
    }

    /// How long to hold each press before its release (at most 60 s).
    pub fn delay(mut self, delay: Duration) -> Self {
        self.spec.delay = delay;
        self
    }

    /// Skips the actionability checks (visible, stable, enabled, receiving
    /// the pointer): the click lands wherever the element's point is, on
    /// whatever is there.
    pub fn force(mut self, force: bool) -> Self {
        self.force = force;
        self
    }

    /// How long to wait for the element to be actionable (default: the
    /// page's wait).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// What is wrong with the options, if anything.
    fn misused(&self) -> Option<String> {
        if !(1..=MAX_CLICKS).contains(&self.spec.count) {
            return Some(format!(
                "click_count({}) on {}: a click is 1 to {MAX_CLICKS} clicks",
                self.spec.count, self.locator.desc
            ));
        }
        if self.spec.delay > MAX_DELAY {
            return Some(format!(
                "delay({:?}) on {}: a press is held at most {MAX_DELAY:?}",
                self.spec.delay, self.locator.desc
            ));
        }
        if let Some(p) = self.position
            && !(p.x.is_finite() && p.y.is_finite() && p.x >= 0.0 && p.y >= 0.0)
        {
            return Some(format!(
                "position({}, {}) on {}: a position is two finite numbers of CSS pixels, 0 or more, from the element's top left",
                p.x, p.y, self.locator.desc
            ));
        }
        None
    }

    /// The click as written, its options chained: `click().button(MouseButton::Right)`.
    fn call_text(&self) -> CallText {
        let mut options = String::new();
        let default_count = if self.double { 2 } else { 1 };
        if self.spec.button != MouseButton::Left {
            options += &format!(".button(MouseButton::{:?})", self.spec.button);
        }
        let held = self.spec.modifiers.names();
        if !held.is_empty() {
            options += &format!(".modifiers([{}])", held.join(", "));
        }
        if self.spec.count != default_count {
            options += &format!(".click_count({})", self.spec.count);
        }
        if let Some(p) = self.position {
            options += &format!(".position({:?}, {:?})", p.x, p.y);
        }
        if !self.spec.delay.is_zero() {
            options += &format!(".delay({:?})", self.spec.delay);
        }
        if self.force {
            options += ".force(true)";
        }
        if let Some(t) = self.timeout {
            options += &format!(".timeout({t:?})");
        }
        CallText::Locator {
            desc: self.locator.desc.clone(),
            method: if self.double { "dblclick" } else { "click" },
            args: String::new(),
            options,
        }
    }

    async fn run(
        locator: &Locator,
        action: Action,
        spec: ClickSpec,
        timeout: Option<Duration>,
        at: &'static Location<'static>,
    ) -> Result<(), BrowserError> {
        let what = match (&action, spec.count) {
            (Action::Click { force: true, .. } | Action::Dblclick { force: true, .. }, _) => {
                "be clicked (forced: no actionability check)"
            }
            (_, 2) => "be double-clicked (visible, enabled, stable, receiving pointer events)",
            _ => "be clicked (visible, enabled, stable, receiving pointer events)",
        };
        locator
            .pointer_action_within(action, what, PointerOp::Click(spec), timeout, at)
            .await
            .map(|_| ())
    }

    fn start(&mut self) -> Running<'a> {
        if let Some(message) = self.misused() {
            let at = self.at;
            return Box::pin(async move {
                Err(BrowserError::Invalid {
                    message,
                    location: Some(at),
                })
            });
        }
        let browser = self.locator.page.browser();
        if browser == BrowserKind::Webkit && self.spec.button != MouseButton::Left {
            let what = format!("click().button(MouseButton::{:?})", self.spec.button);
            return Box::pin(async move {
                Err(BrowserError::Unsupported {
                    browser,
                    what,
                    why: "WebKitWebDriver releases every button as the left one, so the page would get a click after the context menu; run this step with --browser chromium or --browser firefox".into(),
                })
            });
        }
        let (position, force) = (self.position, self.force);
        let action = if self.double {
            Action::Dblclick { position, force }
        } else {
            Action::Click { position, force }
        };
        let run = Click::run(self.locator, action, self.spec, self.timeout, self.at);
        if self.locator.page.tracer().is_none() {
            return Box::pin(run);
        }
        let call = self.call_text();
        Box::pin(
            self.locator
                .traced(Kind::Action, move || call, self.at, run),
        )
    }
}

impl std::fmt::Debug for Click<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Click")
            .field("locator", &self.locator.desc)
            .field("double", &self.double)
            .field("spec", &self.spec)
            .field("position", &self.position)
            .field("force", &self.force)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl Future for Click<'_> {
    type Output = Result<(), BrowserError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if this.running.is_none() {
            this.running = Some(this.start());
        }
        this.running.as_mut().expect("set above").as_mut().poll(cx)
    }
}

/// Marks the open trace entry (a `fill`, a `press_sequentially`, a `press`
/// of a character) as typing into a password field unless the engine's
/// answer to the action says the element is none (`Acted::Done`'s
/// `password`): the entry then writes `"••••"`, so the text never reaches
/// `trace.json`. An action that failed (the element never found) is
/// concealed too: what it was to type cannot be told apart.
fn conceal_unless_plain(acted: &Result<Acted, BrowserError>) {
    if !matches!(
        acted,
        Ok(Acted::Done {
            password: false,
            ..
        })
    ) {
        trace::conceal();
    }
}
