"""The full agent workflow against harshjudge-mcp through a third-party MCP
client: the Python `mcp` SDK over stdio.

usage: agent_workflow.py <harshjudge-mcp binary> <empty project folder>

Prints one JSON line with the ids it created; exits non-zero with a message on
the first failed expectation."""
import asyncio
import base64
import json
import sys

try:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
except ImportError:
    sys.exit("the Python MCP client is missing: python3 -m pip install mcp==2.3.0")

BIN, PROJECT = sys.argv[1], sys.argv[2]
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=="
)


def check(cond, what):
    if not cond:
        sys.exit(f"FAILED: {what}")


async def call(session, name, args, expect_error=None):
    r = await session.call_tool(name, args)
    check(r.content and r.content[0].type == "text", f"{name}: content[0] is text")
    value = json.loads(r.content[0].text)
    check(r.structured_content == value, f"{name}: structuredContent equals content[0].text ({r.structured_content!r} vs {value!r})")
    if expect_error:
        check(r.is_error is True, f"{name}: isError is set for a failure, got {value}")
        check(value.get("code") == expect_error, f"{name}: code {expect_error}, got {value}")
        check(isinstance(value.get("error"), str) and value["error"], f"{name}: an error message")
    else:
        check(not r.is_error, f"{name} failed: {value}")
    return value


async def main():
    params = StdioServerParameters(command=BIN, args=["--output-schemas"], cwd=PROJECT, env={"HARSHJUDGE_LOG": "warn", "HARSHJUDGE_DASHBOARD": "off"})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "harshjudge", f"server name, got {init.server_info.name}")
            tools = (await session.list_tools()).tools
            names = {t.name for t in tools}
            original = {"initProject", "createScenario", "toggleStar", "startRun", "recordEvidence", "completeStep", "completeRun", "getStatus"}
            check(original <= names, f"the original's tools are listed: {sorted(names)}")
            check({"getRunState", "discoverTree", "discoverSearch"} <= names, f"our tools are listed: {sorted(names)}")
            for t in tools:
                check(t.input_schema.get("type") == "object", f"{t.name}: object input schema")

            # Errors before anything exists.
            await call(session, "getStatus", {}, expect_error="NOT_INITIALIZED")
            out = await call(session, "initProject", {"projectName": "E2E", "baseUrl": "http://127.0.0.1:9"})
            check(out["configPath"] == ".harshJudge/config.yaml", f"initProject paths: {out}")
            await call(session, "initProject", {"projectName": "again"}, expect_error="ALREADY_EXISTS")
            steps = [
                {"title": "Open the login page", "actions": "navigate to /login", "expectedOutcome": "the form"},
                {"title": "Sign in", "actions": "fill and submit", "expectedOutcome": "the dashboard"},
                {"title": "See the greeting", "actions": "read the heading", "expectedOutcome": "Welcome, Ada"},
            ]
            out = await call(session, "createScenario", {"slug": "login", "title": "User login", "steps": steps, "tags": ["auth", "smoke"]})
            check(out["isNew"] is True and len(out["stepFiles"]) == 3, f"createScenario: {out}")
            out = await call(session, "toggleStar", {"scenarioSlug": "login"})
            check(out["starred"] is True, f"toggleStar: {out}")

            run = await call(session, "startRun", {"scenarioSlug": "login"})
            run_id = run["runId"]
            check(run["runNumber"] == 1 and [s["id"] for s in run["steps"]] == ["01", "02", "03"], f"startRun: {run}")
            state = await call(session, "getRunState", {"runId": run_id})
            check(state["nextStep"]["id"] == "01" and state["status"] == "running", f"getRunState at start: {state}")

            shot = f"{PROJECT}/shot.png"
            with open(shot, "wb") as f:
                f.write(PNG)
            step_id = "01"
            while step_id:
                ev = await call(session, "recordEvidence", {"runId": run_id, "stepId": step_id, "type": "screenshot", "name": "after", "data": shot})
                check(ev["fileSize"] == len(PNG), f"screenshot copied: {ev}")
                await call(session, "recordEvidence", {"runId": run_id, "step": int(step_id), "type": "console_log", "name": "console", "data": f"step {step_id}: no errors"})
                done = await call(session, "completeStep", {"runId": run_id, "stepId": step_id, "status": "pass", "duration": 100 + int(step_id)})
                check(done["stepId"] == step_id, f"completeStep: {done}")
                step_id = done["nextStepId"]
            final = await call(session, "completeRun", {"runId": run_id, "status": "pass", "duration": 450})
            check(final["status"] == "pass" and final["updatedMeta"]["totalRuns"] == 1, f"completeRun: {final}")
            check("warning" not in final, f"no warning: {final}")

            status = await call(session, "getStatus", {})
            check(status["projectName"] == "E2E" and status["passing"] == 1, f"getStatus: {status}")
            check(status["scenarios"][0]["tags"] == ["auth", "smoke"] and status["scenarios"][0]["starred"], f"getStatus scenario: {status}")
            detail = await call(session, "getStatus", {"scenarioSlug": "login"})
            check(detail["recentRuns"][0]["id"] == run_id and detail["recentRuns"][0]["status"] == "pass", f"detail: {detail}")
            check(len(detail["steps"]) == 3, f"detail steps: {detail}")
            state = await call(session, "getRunState", {"runId": run_id})
            check(state["resumable"] is False and len(state["completedSteps"]) == 3, f"getRunState at end: {state}")

            # Errors through the client: never a crash, always a code.
            await call(session, "completeRun", {"runId": run_id, "status": "pass", "duration": 1}, expect_error="RUN_COMPLETED")
            await call(session, "recordEvidence", {"runId": run_id, "stepId": "01", "type": "custom", "name": "late", "data": "{}"}, expect_error="RUN_COMPLETED")
            await call(session, "noSuchTool", {}, expect_error="UNKNOWN_TOOL")
            await call(session, "startRun", {"scenarioSlug": 42}, expect_error="INVALID_INPUT")
            await call(session, "startRun", {}, expect_error="INVALID_INPUT")
            run2 = (await call(session, "startRun", {"scenarioSlug": "login"}))["runId"]
            await call(session, "recordEvidence", {"runId": run2, "stepId": "01", "type": "custom", "name": "../../../escape", "data": "{}"}, expect_error="INVALID_INPUT")
            await call(session, "recordEvidence", {"runId": "../login", "stepId": "01", "type": "custom", "name": "x", "data": "{}"}, expect_error="INVALID_INPUT")
            await call(session, "recordEvidence", {"runId": run2, "stepId": "01", "type": "screenshot", "name": "x", "data": "/etc/hostname"}, expect_error="ACCESS_DENIED")
            await call(session, "startRun", {"scenarioSlug": "missing"}, expect_error="NOT_FOUND")
            # The server is still there after all of that.
            await call(session, "getRunState", {"runId": run2})
            print(json.dumps({"runId": run_id, "secondRun": run2}))


asyncio.run(main())
