"""An agent as judge, through a third-party MCP client (the Python `mcp` SDK
over stdio): list the steps that wait for a verdict, open their evidence files
(PNG screenshots, text), decide, record the verdicts, and check that the runs'
status follows (getRunState).

usage: judge_flow.py <harshjudge-mcp binary> <project folder>

The project may already hold runs (tests/mcp_judge.rs runs the `judged_suite`
fixture into it first); this script adds one run recorded through MCP, of a
scenario whose step files carry the expected outcomes. It judges by reading the
evidence against the expectation (a rule per expectation it knows; anything
else is `uncertain`) — a deterministic stand-in for a model, not a model.

Prints one JSON line: every verdict it recorded; exits non-zero with a message
on the first failed expectation."""
import asyncio
import base64
import hashlib
import json
import os
import struct
import sys

try:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.types import Implementation
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
    check(r.structured_content == value, f"{name}: structuredContent equals content[0].text")
    if expect_error:
        check(r.is_error is True, f"{name}: isError is set for a failure, got {value}")
        check(value.get("code") == expect_error, f"{name}: code {expect_error}, got {value}")
    else:
        check(not r.is_error, f"{name} failed: {value}")
    return value


def png_size(data):
    """Width and height of a PNG, from its IHDR chunk."""
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "a screenshot is a PNG")
    check(data[12:16] == b"IHDR", "the PNG starts with IHDR")
    return struct.unpack(">II", data[16:24])


def open_evidence(step):
    """Reads every evidence file the server named; returns (texts, images)."""
    texts, images = [], []
    for e in step["evidence"]:
        path = e["path"]
        check(os.path.isabs(path), f"evidence path is absolute: {path}")
        with open(path, "rb") as f:
            data = f.read()
        check(len(data) == e["bytes"], f"{path}: {len(data)} bytes, the server said {e['bytes']}")
        check(hashlib.sha256(data).hexdigest() == e["sha256"], f"{path}: sha256 as the server said")
        if e["kind"] == "image":
            w, h = png_size(data)
            check(w > 0 and h > 0, f"{path}: a real image ({w}x{h})")
            images.append((e["name"], w, h))
        else:
            texts.append(data.decode("utf-8", "replace"))
    return texts, images


def decide(step, texts, images):
    """The verdict and its reasoning, from the evidence read."""
    exp = step["expectation"]
    text = "\n".join(texts)
    if exp == "a receipt with the total is shown and no error is visible":
        ok = "Receipt" in text and "Total" in text and "declined" not in text
        why = f"the page text reads {text.strip()[:80]!r}; {len(images)} screenshots opened"
    elif exp == "the note says all is good":
        ok = text.strip() == "all good"
        why = f"the note reads {text.strip()!r}"
    elif exp == "A sign-up form with an email field":
        ok = "signup form shown" in text and len(images) == 1
        why = f"console: {text.strip()!r}; screenshot {images[0][1]}x{images[0][2]}" if images else "no screenshot"
    elif exp == "The dashboard greets Ada by name":
        ok = "Welcome, Ada" in text
        why = f"console: {text.strip()!r}"
    else:
        return "uncertain", f"no rule for the expectation {exp!r}"
    return ("pass" if ok else "fail"), why


async def main():
    params = StdioServerParameters(
        command=BIN, args=["--output-schemas"], cwd=PROJECT, env={"HARSHJUDGE_LOG": "warn", "HARSHJUDGE_DASHBOARD": "off"}
    )
    async with stdio_client(params) as (read, write):
        client = Implementation(name="judge-flow", version="1.0")
        async with ClientSession(read, write, client_info=client) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            for name, fields in [
                ("getPendingJudgments", ({"scenarioSlug", "runId", "limit"}, {"pending", "total", "leftOut"})),
                ("recordVerdict", ({"runId", "stepId", "verdict", "reasoning", "judge"}, {"runStatusBefore", "runStatusAfter", "stepStatus"})),
            ]:
                check(name in tools, f"{name} is listed: {sorted(tools)}")
                t = tools[name]
                inputs, outputs = fields
                check(t.input_schema.get("type") == "object", f"{name}: an input schema")
                check(inputs <= set(t.input_schema["properties"]), f"{name}: input schema has {inputs}: {t.input_schema}")
                check(t.output_schema and outputs <= set(t.output_schema["properties"]), f"{name}: output schema has {outputs}: {t.output_schema}")
            verdict_schema = json.dumps(tools["recordVerdict"].input_schema)
            check(all(w in verdict_schema for w in ("pass", "fail", "uncertain")), "the verdict's words are in the schema")

            if not os.path.exists(os.path.join(PROJECT, ".harshJudge", "config.yaml")):
                await call(session, "initProject", {"projectName": "Judge", "baseUrl": "http://127.0.0.1:9"})
            # A run recorded through MCP: its expectations are the step files' Expected Outcome.
            steps = [
                {"title": "Open the sign-up page", "actions": "navigate to /signup", "expectedOutcome": "A sign-up form with an email field"},
                {"title": "Sign up", "actions": "submit the form", "expectedOutcome": "The dashboard greets Ada by name"},
            ]
            await call(session, "createScenario", {"slug": "signup", "title": "Sign up", "steps": steps})
            run = (await call(session, "startRun", {"scenarioSlug": "signup"}))["runId"]
            shot = os.path.join(PROJECT, "signup.png")
            with open(shot, "wb") as f:
                f.write(PNG)
            await call(session, "recordEvidence", {"runId": run, "stepId": "01", "type": "screenshot", "name": "after", "data": shot})
            await call(session, "recordEvidence", {"runId": run, "stepId": "01", "type": "console_log", "name": "console", "data": "signup form shown"})
            await call(session, "completeStep", {"runId": run, "stepId": "01", "status": "pass", "duration": 12})
            await call(session, "recordEvidence", {"runId": run, "stepId": "02", "type": "console_log", "name": "console", "data": "Welcome, Bob"})
            await call(session, "completeStep", {"runId": run, "stepId": "02", "status": "pass", "duration": 15})
            done = await call(session, "completeRun", {"runId": run})
            check(done["status"] == "pass", f"the code passed: {done}")

            # Bad input: the field is named.
            bad = await call(session, "recordVerdict", {"runId": run, "stepId": "02", "verdict": "maybe", "reasoning": "x"}, expect_error="INVALID_INPUT")
            check("verdict" in bad["error"] and "uncertain" in bad["error"], f"the bad verdict is named: {bad}")

            pending = await call(session, "getPendingJudgments", {"limit": 100})
            check(pending["judgeIdentity"] == "agent:judge-flow", f"the client's name is the default judge: {pending['judgeIdentity']}")
            check(pending["leftOut"] == 0 and pending["unreadable"] == [], f"all listed: {pending}")
            recorded = []
            for step in pending["pending"]:
                texts, images = open_evidence(step)
                verdict, why = decide(step, texts, images)
                out = await call(session, "recordVerdict", {"runId": step["runId"], "stepId": step["stepId"], "verdict": verdict, "reasoning": why})
                check(out["inputsHash"] == step["inputsHash"], f"recorded against the announced inputs: {out} vs {step}")
                check(out["judgeIdentity"] == "agent:judge-flow", f"identity: {out}")
                state = await call(session, "getRunState", {"runId": step["runId"]})
                check(state["status"] == out["runStatusAfter"], f"getRunState shows the new status: {state} vs {out}")
                recorded.append({
                    "scenario": step["scenarioSlug"], "runId": step["runId"], "stepId": step["stepId"],
                    "source": step["expectationSource"], "verdict": verdict,
                    "before": out["runStatusBefore"], "after": out["runStatusAfter"],
                    "images": [[n, w, h] for (n, w, h) in images], "texts": len(texts),
                })
            after = await call(session, "getPendingJudgments", {})
            check(after["total"] == 0, f"nothing waits any more: {after}")
            print(json.dumps({"signupRun": run, "verdicts": recorded}))


asyncio.run(main())
