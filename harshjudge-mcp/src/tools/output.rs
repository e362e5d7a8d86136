//! The `outputSchema` of each tool: what its `structuredContent` holds on
//! success (failures are `{"error", "code"}` with `isError`, which clients do
//! not check against it). Each is derived from the tool's typed result
//! ([`crate::dispatch::output_schema_of`]); every result may carry `warnings`
//! (unknown argument keys ignored).

use crate::dispatch::{Schema, ToolDef};

/// The output schema of `def` (every tool returns structured content).
pub fn output_schema(def: &ToolDef) -> Schema {
    (def.output)()
}
