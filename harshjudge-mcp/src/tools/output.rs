//! The `outputSchema` of each tool: what its `structuredContent` holds on
//! success (failures are `{"error", "code"}` with `isError`, which clients do
//! not check against it). Every result may carry `warnings` (unknown argument
//! keys ignored); keys not listed are allowed.

use std::sync::Arc;

use serde_json::{Map, Value, json};

/// Each tool's keys: `name:type`, type one of `s` string, `i` integer, `n`
/// number, `b` boolean, `a` array, `o` object; `?` after the type: may be
/// null; `!` at the end: always present.
fn keys(tool: &str) -> &'static str {
    match tool {
        "initProject" => {
            "success:b! projectPath:s! configPath:s! prdPath:s! scenariosPath:s! message:s! dashboardUrl:s"
        }
        "saveScenario" => "success:b! slug:s! scenarioPath:s! metaPath:s! isNew:b!",
        "createScenario" => {
            "success:b! slug:s! scenarioPath:s! metaPath:s! stepsPath:s! stepFiles:a! isNew:b!"
        }
        "toggleStar" => "success:b! slug:s! starred:b!",
        "startRun" => {
            "success:b! runId:s! runNumber:i?! runPath:s! evidencePath:s! startedAt:s! scenarioSlug:s! scenarioTitle:s steps:a!"
        }
        "recordEvidence" => {
            "success:b! filePath:s! metaPath:s! stepPath:s! fileSize:i! stepId:s! copiedFrom:s?!"
        }
        "completeStep" => "success:b! runId:s! stepId:s! status:s! nextStepId:s?!",
        "completeRun" => {
            "success:b! resultPath:s! status:s! failedStep:s?! errorMessage:s?! updatedMeta:o?! warning:s"
        }
        "getStatus" => {
            "projectName:s scenarioCount:i passing:i failing:i neverRun:i scenarios:a slug:s title:s starred:b tags:a stepCount:i steps:a content:s recentRuns:a"
        }
        "getRunState" => "success:b!",
        "discoverTree" => "root:s! tree:o!",
        "discoverSearch" => "matches:a!",
        "openDashboard" => "success:b! url:s! port:i! pid:i! alreadyRunning:b! message:s!",
        "closeDashboard" => "success:b! wasRunning:b! message:s!",
        "getDashboardStatus" => "running:b! message:s! pid:i port:i url:s startedAt:s stale:b",
        "browser_launch" => "success:b! alreadyOpen:b! baseUrl:s! sessionId:s window:o launchMs:i",
        "browser_navigate" => "success:b! url:s! title:s!",
        "browser_click" => "success:b! clicked:s! locator:s? url:s!",
        "browser_type" => "success:b! typed:s! locator:s? length:i! submitted:b!",
        "browser_press" => "success:b! pressed:s! locator:s?",
        "browser_wait_for" => "success:b! found:s? locator:s? text:s? waitedMs:i!",
        "browser_expect" => "success:b! assertion:s! not:b! target:s! locator:s? waitedMs:i!",
        "browser_screenshot" => "success:b! path:s! bytes:i! width:i! height:i!",
        "browser_console" | "browser_network" => "count:i! entries:a!",
        "browser_close" => "success:b! wasOpen:b!",
        "run_steps" => "steps:a! summary:o!",
        "record_start" => "success:b! sequenceId:s! name:s! recording:b! limits:o!",
        "record_stop" => {
            "success:b! saved:b! sequenceId:s path:s calls:i variables:a discarded:i warning:s"
        }
        "record_list" => "count:i! sequences:a!",
        "record_get" => "id:s! name:s! createdAt:s! variables:a! calls:a!",
        "record_delete" => "success:b! deleted:s!",
        "record_replay" => "sequenceId:s! steps:a! summary:o! runId:s runStatus:s?",
        "record_export" => "success:b! path:s! function:s! steps:i!",
        _ => "",
    }
}

fn type_name(t: &str) -> &'static str {
    match t {
        "s" => "string",
        "i" => "integer",
        "n" => "number",
        "b" => "boolean",
        "a" => "array",
        _ => "object",
    }
}

/// The output schema of `tool` (every tool returns structured content):
/// derived from its result type when it has one, else from the table above.
pub fn output_schema(def: &crate::dispatch::ToolDef) -> Arc<Map<String, Value>> {
    match def.output {
        Some(derived) => derived(),
        None => table_schema(def.name),
    }
}

/// The output schema the table above gives for `tool`.
pub fn table_schema(tool: &str) -> Arc<Map<String, Value>> {
    let mut props = Map::new();
    let mut required = vec![];
    for k in keys(tool).split_whitespace() {
        let (name, ty) = k.split_once(':').expect("name:type");
        let always = ty.ends_with('!');
        let ty = ty.trim_end_matches('!');
        let nullable = ty.ends_with('?');
        let t = json!({"type": type_name(ty.trim_end_matches('?'))});
        props.insert(
            name.to_string(),
            if nullable {
                json!({"anyOf": [t, {"type": "null"}]})
            } else {
                t
            },
        );
        if always {
            required.push(name);
        }
    }
    props.insert(
        "warnings".into(),
        json!({"type": "array", "items": {"type": "string"}, "description": "Argument keys the tool does not know, ignored."}),
    );
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    schema.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        schema.insert("required".into(), json!(required));
    }
    Arc::new(schema)
}
