//! The error type of scenario code and of the library.

use std::fmt;
use std::panic::Location;

/// What a scenario function or a step returns: `harshjudge::Result` is `Result<(), Error>`.
pub type Result<T = (), E = Error> = std::result::Result<T, E>;

/// An error that fails the current step: its message, where it was raised, and its causes.
///
/// Any `std::error::Error + Send + Sync + 'static` converts into it with `?`, which
/// records the source location of the `?`.
pub struct Error {
    inner: Box<dyn std::error::Error + Send + Sync + 'static>,
    location: &'static Location<'static>,
}

#[derive(Debug)]
struct Message(String);
impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for Message {}

impl Error {
    /// An error with a message, located at the caller.
    #[track_caller]
    pub fn msg(message: impl fmt::Display) -> Self {
        Error {
            inner: Box::new(Message(message.to_string())),
            location: Location::caller(),
        }
    }

    /// An error with a message, located at `location` (an assertion's call).
    pub(crate) fn located(
        message: impl fmt::Display,
        location: &'static Location<'static>,
    ) -> Self {
        Error {
            inner: Box::new(Message(message.to_string())),
            location,
        }
    }

    /// Where the error was raised (`?`, `ensure!`, `bail!` or `Error::msg`).
    pub fn location(&self) -> &'static Location<'static> {
        self.location
    }

    /// The same error, its message led by `context`, its location kept.
    pub(crate) fn with_context(self, context: impl fmt::Display) -> Self {
        Error {
            inner: Box::new(Message(format!("{context}: {}", self.message()))),
            location: self.location,
        }
    }

    /// The message with its chain of causes (`outer: cause: root cause`).
    pub fn message(&self) -> String {
        let mut s = self.inner.to_string();
        let mut source = self.inner.source();
        while let Some(cause) = source {
            let c = cause.to_string();
            if !s.ends_with(&c) {
                s.push_str(": ");
                s.push_str(&c);
            }
            source = cause.source();
        }
        s
    }
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for Error {
    #[track_caller]
    fn from(e: E) -> Self {
        // A browser call records the line of the user's call (an `expect(…)` in a
        // helper function, say), which says more than the line of the `?`.
        // `Location::caller()` is read here, not passed as a function to
        // `unwrap_or_else`: called from inside core it would name core's line.
        let caller = Location::caller();
        let location = (&e as &dyn std::any::Any)
            .downcast_ref::<harshjudge_browser::BrowserError>()
            .and_then(harshjudge_browser::BrowserError::location)
            .unwrap_or(caller);
        Error {
            inner: Box::new(e),
            location,
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at {})", self.message(), self.location)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}
