//! Tool errors: a stable code and a message that says what was wrong and how to fix it.

use harshjudge_store::store::StoreError;
use serde::Serialize;

/// Stable error codes, part of every failed tool result (`{"error", "code"}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Code {
    /// `.harshJudge/config.yaml` is missing: call `initProject` first.
    NotInitialized,
    /// The project (or something else that must be new) already exists.
    AlreadyExists,
    /// An argument is missing, of the wrong type, or breaks a rule.
    InvalidInput,
    /// A scenario, run or file that was named does not exist.
    NotFound,
    /// The run is final; nothing more can be recorded in it.
    RunCompleted,
    /// Evidence over the size limit.
    TooLarge,
    /// A file outside the allowed roots, or a path that leaves `.harshJudge/`.
    AccessDenied,
    /// A file in `.harshJudge/` cannot be understood.
    Corrupt,
    /// No tool of that name.
    UnknownTool,
    /// No browser session: call `browser_launch` first.
    NoSession,
    /// Chromium or chromedriver missing or not starting.
    BrowserUnavailable,
    /// No element matches the target.
    TargetNotFound,
    /// An element (or text) did not become ready in time.
    WaitTimeout,
    /// The target matches several elements where one is needed (Playwright's
    /// strict mode); the message names the count and the first candidates.
    StrictMode,
    /// A `browser_expect` assertion did not hold within its time; the message
    /// has expected, received and the call log.
    AssertionFailed,
    /// A page could not be opened.
    NavigationFailed,
    /// A browser action failed for another reason.
    ActionFailed,
    /// Anything else (an I/O failure, a bug).
    Internal,
}

impl Code {
    /// The code as it appears on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::NotInitialized => "NOT_INITIALIZED",
            Code::AlreadyExists => "ALREADY_EXISTS",
            Code::InvalidInput => "INVALID_INPUT",
            Code::NotFound => "NOT_FOUND",
            Code::RunCompleted => "RUN_COMPLETED",
            Code::TooLarge => "TOO_LARGE",
            Code::AccessDenied => "ACCESS_DENIED",
            Code::Corrupt => "CORRUPT",
            Code::UnknownTool => "UNKNOWN_TOOL",
            Code::NoSession => "NO_SESSION",
            Code::BrowserUnavailable => "BROWSER_UNAVAILABLE",
            Code::TargetNotFound => "TARGET_NOT_FOUND",
            Code::WaitTimeout => "WAIT_TIMEOUT",
            Code::StrictMode => "STRICT_MODE",
            Code::AssertionFailed => "ASSERTION_FAILED",
            Code::NavigationFailed => "NAVIGATION_FAILED",
            Code::ActionFailed => "ACTION_FAILED",
            Code::Internal => "INTERNAL",
        }
    }
}

/// A failed tool call.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// The stable code.
    pub code: Code,
    /// What was wrong and how to fix it.
    pub message: String,
}

impl ToolError {
    /// An error with `code`.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        ToolError {
            code,
            message: message.into(),
        }
    }
    /// `INVALID_INPUT`.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(Code::InvalidInput, message)
    }
    /// `NOT_FOUND`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(Code::NotFound, message)
    }
}

impl From<StoreError> for ToolError {
    fn from(e: StoreError) -> Self {
        let code = match &e {
            StoreError::Io { .. } => Code::Internal,
            StoreError::InvalidId { .. } => Code::InvalidInput,
            StoreError::Corrupt { .. } => Code::Corrupt,
            StoreError::NotInitialized { .. } => Code::NotInitialized,
            StoreError::AlreadyExists { .. } => Code::AlreadyExists,
            StoreError::RunCompleted { .. } => Code::RunCompleted,
            StoreError::NotFound { .. } => Code::NotFound,
            StoreError::Link { .. } => Code::AccessDenied,
            StoreError::Conflict { .. } => Code::AlreadyExists,
            _ => Code::Internal,
        };
        ToolError::new(code, e.to_string())
    }
}
