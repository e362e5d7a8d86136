"""The agent toolkit of harshjudge-mcp through a third-party MCP client (the
Python `mcp` SDK over stdio), against the demo app in headless Chromium: every
browser tool, evidence recorded by itself during a run, run_steps, record /
replay (with variables, failing with and without continueOnError, as a run)
and export.

usage: agent_browser.py <harshjudge-mcp binary> <empty project folder> <demo app base URL>

Prints one JSON line with what the Rust side checks on disk; exits non-zero
with a message on the first failed expectation."""
import asyncio
import json
import sys
import time

try:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
except ImportError:
    sys.exit("the Python MCP client is missing: python3 -m pip install mcp==2.3.0")

BIN, PROJECT, BASE = sys.argv[1], sys.argv[2], sys.argv[3]


def check(cond, what):
    if not cond:
        sys.exit(f"FAILED: {what}")


async def raw(session, name, args):
    return await session.call_tool(name, args)


async def call(session, name, args, expect_error=None):
    r = await session.call_tool(name, args)
    check(r.content and r.content[0].type == "text", f"{name}: content[0] is text")
    value = json.loads(r.content[0].text)
    if expect_error:
        check(r.is_error is True, f"{name}: isError for a failure, got {value}")
        check(value.get("code") == expect_error, f"{name}: code {expect_error}, got {value}")
    else:
        check(not r.is_error, f"{name} failed: {value}")
    return value


async def main():
    env = {"HARSHJUDGE_LOG": "warn", "HARSHJUDGE_WAIT": "1500ms", "HARSHJUDGE_DASHBOARD": "off"}
    params = StdioServerParameters(command=BIN, args=["--output-schemas"], cwd=PROJECT, env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            names = {t.name for t in (await s.list_tools()).tools}
            toolkit = {
                "browser_launch", "browser_navigate", "browser_click", "browser_type", "browser_press",
                "browser_wait_for", "browser_screenshot", "browser_snapshot", "browser_console",
                "browser_network", "browser_close", "run_steps", "record_start", "record_stop",
                "record_list", "record_get", "record_delete", "record_replay", "record_export",
            }
            check(toolkit <= names, f"toolkit listed: missing {sorted(toolkit - names)}")

            await call(s, "initProject", {"projectName": "Agent", "baseUrl": BASE})
            await call(s, "browser_click", {"testId": "sign-in"}, expect_error="NO_SESSION")
            launched = await call(s, "browser_launch", {})
            check(launched["baseUrl"] == BASE.rstrip("/"), f"base URL from config.yaml: {launched}")
            again = await call(s, "browser_launch", {})
            check(again["alreadyOpen"] is True, "a second launch reuses the session")
            await call(s, "browser_click", {}, expect_error="INVALID_INPUT")
            await call(s, "browser_click", {"testId": "a", "selector": "b"}, expect_error="INVALID_INPUT")

            # --- a run: evidence is recorded by the actions themselves ---------------
            await call(s, "createScenario", {"slug": "login", "title": "Ada signs in", "steps": [
                {"title": "Open the login page", "actions": "navigate", "expectedOutcome": "a form"},
                {"title": "Sign in", "actions": "type, click", "expectedOutcome": "dashboard"},
                {"title": "Greeted", "actions": "wait", "expectedOutcome": "Welcome, Ada"},
            ]})
            run = await call(s, "startRun", {"scenarioSlug": "login"})
            run_id = run["runId"]
            nav = await call(s, "browser_navigate", {"url": "/login"})
            check(nav["url"].endswith("/login"), f"navigated: {nav}")
            check(any("act" in e and e.endswith("-before.png") for e in nav.get("evidence", [])), f"navigate recorded evidence: {nav}")
            snap = await call(s, "browser_snapshot", {})
            lines = snap["snapshot"].splitlines()
            check(any("[testid=sign-in]" in l for l in lines), f"snapshot test ids: {snap['snapshot']}")
            password = [l.split("[ref=")[1].split("]")[0] for l in lines if "[testid=password]" in l]
            check(password and password[0].startswith("e"), f"a password field with a ref: {snap['snapshot']}")
            check(len(json.dumps(snap)) < 8000, "the snapshot stays compact")
            await call(s, "completeStep", {"runId": run_id, "stepId": "01", "status": "pass", "duration": 10})

            await call(s, "browser_type", {"selector": "#email", "text": "ada@example.com"})
            typed = await call(s, "browser_type", {"ref": password[0], "text": "secret"})
            check(typed["locator"] == "testid=password", f"a ref resolves to a stable locator (its test id): {typed}")
            clicked = await call(s, "browser_click", {"testId": "sign-in"})
            check(clicked["locator"] == "testid=sign-in", f"click: {clicked}")
            await call(s, "completeStep", {"runId": run_id, "stepId": "02", "status": "pass", "duration": 10})

            waited = await call(s, "browser_wait_for", {"text": "Welcome, Ada"})
            check(waited["waitedMs"] >= 0, f"wait: {waited}")
            shot = await call(s, "browser_screenshot", {"name": "dashboard"})
            check(shot["path"].endswith(f"{run_id}/step-03/evidence/dashboard.png"), f"screenshot into the step: {shot}")
            check(shot["width"] > 0 and shot["bytes"] > 1000, f"a real PNG: {shot}")
            r = await raw(s, "browser_screenshot", {"inline": True})
            check(len(r.content) == 2 and r.content[1].type == "image" and r.content[1].mime_type == "image/png", "inline: an image block")
            check("__image" not in json.loads(r.content[0].text), "the image is not in the JSON")
            await call(s, "completeStep", {"runId": run_id, "stepId": "03", "status": "pass", "duration": 10})
            done = await call(s, "completeRun", {"runId": run_id})
            check(done["status"] == "pass", f"run passes: {done}")

            # --- errors are classified ------------------------------------------------
            await call(s, "browser_click", {"testId": "no-such-thing"}, expect_error="TARGET_NOT_FOUND")
            await call(s, "browser_wait_for", {"selector": "h1", "text": "Never shown", "timeoutMs": 300}, expect_error="WAIT_TIMEOUT")
            await call(s, "browser_navigate", {"url": "http://no-such-host.invalid/"}, expect_error="NAVIGATION_FAILED")
            await call(s, "browser_press", {"key": "NoSuchKey"}, expect_error="ACTION_FAILED")
            await call(s, "browser_snapshot", {"maxElements": 0}, expect_error="INVALID_INPUT")
            await call(s, "browser_type", {"ref": "#x", "text": "a"}, expect_error="INVALID_INPUT")

            # --- console and network --------------------------------------------------
            await call(s, "browser_navigate", {"url": "/console"})
            await call(s, "browser_wait_for", {"testId": "data-message"})
            con = await call(s, "browser_console", {})
            texts = [e["text"] for e in con["entries"]]
            check("demo: page loaded" in texts, f"console: {texts}")
            errors = await call(s, "browser_console", {"level": "error"})
            check(errors["count"] == 0, "entries are returned once")
            net = await call(s, "browser_network", {})
            check(any(e["url"].endswith("/api/data") and e["status"] == 200 for e in net["entries"]), f"network: {net}")
            await call(s, "browser_click", {"testId": "load-missing"})
            await call(s, "browser_wait_for", {"testId": "missing-status", "text": "not found"})
            failed = await call(s, "browser_network", {"failedOnly": True})
            check([e["status"] for e in failed["entries"]] == [404], f"failed requests only: {failed}")
            await call(s, "browser_press", {"key": "Tab"})

            # --- run_steps ------------------------------------------------------------
            flow = [
                {"tool": "browser_navigate", "args": {"url": "/login"}},
                {"tool": "browser_type", "args": {"label": "Email", "text": "ada@example.com"}},
                {"tool": "browser_type", "args": {"selector": "#password", "text": "secret"}},
                {"tool": "browser_click", "args": {"role": "button", "name": "Sign in"}},
                {"tool": "browser_expect", "args": {"role": "heading", "assertion": "to_contain_text", "expected": "Ada"}},
            ]
            t0 = time.perf_counter()
            batch = await call(s, "run_steps", {"steps": flow, "detail": True})
            batch_ms = (time.perf_counter() - t0) * 1000
            check(batch["summary"] == {**batch["summary"], "ok": True, "total": 5, "succeeded": 5, "failed": 0, "skipped": 0}, f"batch: {batch['summary']}")
            check(all(st["ok"] and st["meta"]["durationMs"] >= 0 and st["meta"]["timestamp"] for st in batch["steps"]), "per-step meta")
            check("/dashboard" in batch["steps"][-1]["observation"]["url"], f"observations: {batch['steps'][-1]}")
            t0 = time.perf_counter()
            for st in flow:
                await call(s, st["tool"], st["args"])
            single_ms = (time.perf_counter() - t0) * 1000
            bad = [
                {"tool": "browser_navigate", "args": {"url": "/login"}},
                {"tool": "no_such_tool", "args": {}},
                {"tool": "browser_click", "args": {"bogus": 1}},
                {"tool": "browser_wait_for", "args": {"testId": "sign-in"}},
            ]
            go_on = await call(s, "run_steps", {"steps": bad, "includeObservations": "none", "detail": True})
            codes = [st.get("error", {}).get("code") for st in go_on["steps"]]
            check(codes == [None, "UNKNOWN_TOOL", "INVALID_INPUT", None], f"stopOnError false goes on: {codes}")
            check(go_on["summary"]["succeeded"] == 2 and go_on["summary"]["failed"] == 2 and not go_on["summary"]["ok"], f"{go_on['summary']}")
            check(all("observation" not in st for st in go_on["steps"]), "includeObservations none")
            brief = await call(s, "run_steps", {"steps": bad})
            check([(st["index"], st["tool"], st["ok"]) for st in brief["steps"]] == [(1, "browser_navigate", True), (2, "no_such_tool", False), (3, "browser_click", False), (4, "browser_wait_for", True)], f"brief steps: {brief['steps']}")
            check(brief["steps"][1]["error"].startswith("UNKNOWN_TOOL: ") and "result" not in brief["steps"][0] and "meta" not in brief["steps"][0], f"brief: {brief['steps']}")
            check(brief["steps"][3]["did"].startswith("found ") and "observation" in brief["steps"][1] and "observation" not in brief["steps"][3], f"brief: what it did, the page on failures: {brief['steps']}")
            stop = await call(s, "run_steps", {"steps": bad, "stopOnError": True, "includeObservations": "failures"})
            check(len(stop["steps"]) == 2 and stop["summary"]["skipped"] == 2, f"stopOnError stops: {stop['summary']}")
            check("observation" in stop["steps"][1] and "observation" not in stop["steps"][0], "observations for failures only")
            await call(s, "run_steps", {"steps": []}, expect_error="INVALID_INPUT")
            await call(s, "run_steps", {"steps": [{"tool": "browser_press", "args": {"key": "Tab"}}] * 51}, expect_error="INVALID_INPUT")

            # --- targets, strictness, browser_expect ------------------------------------
            await call(s, "browser_navigate", {"url": "/login"})
            strict = await call(s, "browser_click", {"text": "Sign in"}, expect_error="STRICT_MODE")
            check("2 elements" in strict["error"] and "h1" in strict["error"] and "button" in strict["error"], f"strictness names the count and candidates: {strict}")
            await call(s, "browser_click", {"role": "textbox", "label": "Email"}, expect_error="INVALID_INPUT")
            await call(s, "browser_type", {"selector": "input", "nth": 1, "text": "x"})
            await call(s, "browser_expect", {"label": "Password", "assertion": "to_have_value", "expected": "x"})
            await call(s, "browser_expect", {"placeholder": "you@example.com", "assertion": "to_be_empty"})
            await call(s, "browser_expect", {"assertion": "to_have_url", "expected": {"regex": "/login$"}})
            await call(s, "browser_expect", {"role": "button", "name": "Sign in", "assertion": "to_be_disabled", "not": True})
            failed = await call(s, "browser_expect", {"testId": "sign-in", "assertion": "to_have_text", "expected": "Sign out", "timeoutMs": 300}, expect_error="ASSERTION_FAILED")
            check("Sign out" in failed["error"] and "Sign in" in failed["error"] and "received" in failed["error"], f"expected and received: {failed}")
            await call(s, "browser_expect", {"assertion": "to_be_visible"}, expect_error="INVALID_INPUT")

            # --- record, replay, export -----------------------------------------------
            await call(s, "browser_navigate", {"url": "/login"})
            rec = await call(s, "record_start", {"name": "Sign in as Ada", "description": "Ada signs in and is greeted."})
            await call(s, "record_start", {"name": "again"}, expect_error="ALREADY_EXISTS")
            for st in flow:
                await call(s, st["tool"], st["args"])
            await call(s, "record_stop", {"variables": {"bad name!": "x"}}, expect_error="INVALID_INPUT")
            stopped = await call(s, "record_stop", {"variables": {"password": "secret"}})
            seq = stopped["sequenceId"]
            check(stopped["calls"] == 5 and stopped["variables"] == ["password"], f"saved: {stopped}")
            listed = await call(s, "record_list", {})
            check([x["sequenceId"] for x in listed["sequences"]] == [seq], f"list: {listed}")
            got = await call(s, "record_get", {"sequenceId": seq})
            check(got["calls"][2]["args"]["text"] == "{{password}}", f"parameterized: {got['calls'][2]}")
            await call(s, "record_replay", {"sequenceId": seq}, expect_error="INVALID_INPUT")
            ok = await call(s, "record_replay", {"sequenceId": seq, "variables": {"password": "secret"}})
            check(ok["summary"]["ok"] and ok["summary"]["succeeded"] == 5, f"replay: {ok['summary']}")
            wrong = await call(s, "record_replay", {"sequenceId": seq, "variables": {"password": "wrong"}, "detail": True})
            check(not wrong["summary"]["ok"] and wrong["summary"]["ran"] == 5 and wrong["steps"][-1]["error"]["code"] == "ASSERTION_FAILED", f"a failing replay stops at the failure: {wrong['summary']}")
            # With a failure in the middle: stop vs continueOnError.
            await call(s, "record_start", {"name": "Broken flow"})
            await call(s, "browser_navigate", {"url": "/login"})
            await call(s, "browser_click", {"testId": "{{button}}"}, expect_error="TARGET_NOT_FOUND")
            await call(s, "browser_type", {"selector": "#email", "text": "ada@example.com"})
            broken = (await call(s, "record_stop", {}))["sequenceId"]
            stops = await call(s, "record_replay", {"sequenceId": broken, "variables": {"button": "missing"}})
            check(stops["summary"]["ran"] == 2 and stops["summary"]["failed"] == 1, f"stops at the failure: {stops['summary']}")
            goes = await call(s, "record_replay", {"sequenceId": broken, "variables": {"button": "missing"}, "continueOnError": True})
            check(goes["summary"]["ran"] == 3 and goes["summary"]["succeeded"] == 2, f"continueOnError goes on: {goes['summary']}")
            as_run = await call(s, "record_replay", {"sequenceId": seq, "variables": {"password": "secret"}, "scenarioSlug": "replayed-sign-in"})
            check(as_run["runStatus"] == "pass" and as_run["runId"], f"replay as a run: {as_run}")
            exported = await call(s, "record_export", {"sequenceId": seq, "functionName": "sign_in_as_ada", "variables": {"password": "secret"}})
            check(exported["steps"] == 5 and exported["path"].endswith("exports/sign_in_as_ada.rs"), f"export: {exported}")
            await call(s, "record_export", {"sequenceId": seq, "functionName": "Bad-Name"}, expect_error="INVALID_INPUT")
            await call(s, "record_get", {"sequenceId": "../x"}, expect_error="INVALID_INPUT")
            await call(s, "record_delete", {"sequenceId": broken})
            await call(s, "record_get", {"sequenceId": broken}, expect_error="NOT_FOUND")

            # --- the knowledge store: every call above was kept --------------------------
            found = await call(s, "knowledge_search", {"query": "sign-in", "tool": "browser_click", "outcome": "ok"})
            check(found["hits"] and found["hits"][0]["step"]["tool"] == "browser_click", f"search: {found}")
            check(found["hits"][0]["confidence"] == 1.0, f"an exact match has confidence 1: {found['hits'][0]}")
            check("/dashboard" in found["hits"][0]["step"]["observation"]["url"], f"with the page it left: {found['hits'][0]}")
            failed = await call(s, "knowledge_search", {"query": "no-such-thing", "outcome": "error"})
            check(failed["hits"][0]["step"]["code"] == "TARGET_NOT_FOUND", f"failed steps too: {failed['hits'][0]}")
            check(all(0 < h["confidence"] <= 1 for h in failed["hits"]), "confidences in (0, 1]")
            await call(s, "browser_navigate", {"url": "/login"})
            similar = await call(s, "knowledge_similar", {})
            check(similar["hits"] and similar["hits"][0]["confidence"] == 1.0, f"steps on this very page: {similar['hits'][:1]}")
            check("/login" in similar["hits"][0]["step"]["observation"]["url"], f"{similar['hits'][0]}")
            await call(s, "knowledge_search", {"query": ""}, expect_error="INVALID_INPUT")

            closed = await call(s, "browser_close", {})
            check(closed["wasOpen"] is True, "closed")
            await call(s, "browser_snapshot", {}, expect_error="NO_SESSION")
            print(json.dumps({
                "runId": run_id,
                "sequenceId": seq,
                "replayRunId": as_run["runId"],
                "export": exported["path"],
                "batchMs": round(batch_ms, 1),
                "singleCallsMs": round(single_ms, 1),
            }))


asyncio.run(main())
