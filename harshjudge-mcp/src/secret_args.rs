//! What observers keep of a call's arguments (the knowledge store, a
//! recording): a secret argument replaced by a `{{variable}}` placeholder
//! (`browser_launch`'s `httpCredentials.password`), so that no file of
//! `.harshJudge/` holds it and a replay asks for it. Apart from `dispatch.rs`
//! and `tools/`, which import each other's files otherwise.

use serde_json::Value;

/// `args` of a call of `tool`, its secret arguments replaced.
pub(crate) fn observable_args(tool: &str, args: Value) -> Value {
    match tool {
        "browser_launch" => crate::tools::browser::emulation::recordable(&args),
        _ => args,
    }
}
