"""An agent written for the original HarshJudge, unchanged, against
harshjudge-mcp through a third-party MCP client (the Python `mcp` SDK over
stdio): initProject starts the dashboard and returns dashboardUrl, the
deprecated saveScenario exists, unknown argument keys are ignored with a
warning, and text evidence is content even when it looks like a path.

usage: compat.py <harshjudge-mcp binary> <empty project folder>

The server runs with the dashboard on (the default); the dashboard is closed
before the script ends, also on failure. Prints one JSON line with what it
found; exits non-zero with a message on the first failed expectation."""
import asyncio
import json
import sys
import urllib.request

try:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
except ImportError:
    sys.exit("the Python MCP client is missing: python3 -m pip install mcp==2.3.0")

BIN, PROJECT = sys.argv[1], sys.argv[2]


def check(cond, what):
    if not cond:
        raise SystemExit(f"FAILED: {what}")


async def call(session, name, args, expect_error=None):
    r = await session.call_tool(name, args)
    value = json.loads(r.content[0].text)
    check(r.structured_content == value, f"{name}: structuredContent equals content[0].text")
    if expect_error:
        check(r.is_error is True and value.get("code") == expect_error, f"{name}: {expect_error} expected, got {value}")
    else:
        check(not r.is_error, f"{name} failed: {value}")
    return value


async def main():
    # No HARSHJUDGE_DASHBOARD here: the dashboard starts as in the original.
    params = StdioServerParameters(command=BIN, args=["--output-schemas"], cwd=PROJECT, env={"HARSHJUDGE_LOG": "warn"})
    found = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            try:
                out = await call(s, "initProject", {"projectName": "Compat", "baseUrl": "http://127.0.0.1:9"})
                url = out.get("dashboardUrl")
                check(isinstance(url, str) and url.startswith("http://127.0.0.1:"), f"initProject returns dashboardUrl: {out}")
                check(f"Dashboard running at {url} (PID: " in out["message"], f"initProject message: {out}")
                with urllib.request.urlopen(url, timeout=10) as page:
                    check(page.status == 200, f"the dashboard answers at {url}")
                found["dashboardUrl"] = url

                # The deprecated saveScenario, twice with one slug: {slug}-2.
                tools = {t.name: t for t in (await s.list_tools()).tools}
                check("saveScenario" in tools and "eprecated" in tools["saveScenario"].description, "saveScenario is listed, deprecated")
                first = await call(s, "saveScenario", {"slug": "checkout", "title": "Checkout", "content": "# Checkout\n\n1. Add to cart\n2. Pay", "tags": ["shop"]})
                check(first["slug"] == "checkout" and first["scenarioPath"] == ".harshJudge/scenarios/checkout/scenario.md", f"saveScenario: {first}")
                check(first["isNew"] is True, f"saveScenario isNew: {first}")
                second = await call(s, "saveScenario", {"slug": "checkout", "title": "Checkout again", "content": "# Again"})
                check(second["slug"] == "checkout-2", f"a clash gives checkout-2: {second}")
                detail = await call(s, "getStatus", {"scenarioSlug": "checkout"})
                check(detail["content"].startswith("# Checkout"), f"getStatus gives the scenario's markdown: {detail}")

                # Unknown keys, at the top and inside steps (the HEAD skill's
                # step `type`): ignored, each named in `warnings`.
                out = await call(s, "createScenario", {
                    "slug": "login", "title": "Login", "priority": "high",
                    "steps": [{"title": "Open", "actions": "go", "expectedOutcome": "form", "type": "frontend"}],
                })
                w = out.get("warnings", [])
                check(any('"priority"' in x for x in w) and any('"steps[0].type"' in x for x in w), f"warnings name the unknown keys: {out}")
                found["warnings"] = w

                # Text evidence is content, also when it looks like a path,
                # also when that path names a real file.
                secret = f"{PROJECT}/secret.txt"
                with open(secret, "w") as f:
                    f.write("not to be copied")
                run = (await call(s, "startRun", {"scenarioSlug": "login"}))["runId"]
                for kind, name, data in [
                    ("console_log", "console", "/static/app.js"),
                    ("network_log", "network", secret),
                    ("html_snapshot", "page", "/index.html"),
                    ("custom", "custom", secret),
                    ("db_snapshot", "db", "/var/lib/db.json"),
                ]:
                    ev = await call(s, "recordEvidence", {"runId": run, "step": 1, "type": kind, "name": name, "data": data})
                    check(ev["fileSize"] == len(data.encode()), f"{kind}: the text itself is stored: {ev}")
                found["runId"] = run
            finally:
                await s.call_tool("closeDashboard", {})
    print(json.dumps(found))


asyncio.run(main())
