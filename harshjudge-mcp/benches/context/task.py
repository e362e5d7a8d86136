"""The TodoMVC task of issue 24 through the Python MCP SDK, against
harshjudge-mcp or Playwright MCP: open the page, add three todos, complete
one, filter Active, verify; a page snapshot wherever an agent must find its
next target.

usage: task.py hj|hjb|hjb-detail|pw <url> <server command> [args...]

Prints one JSON object: what the model is given (initialize + tools/list,
each call's arguments and each result), as compact JSON strings, for
count.mjs to measure in bytes and o200k tokens. Exits non-zero when a step
fails: the figures are those of a task that worked."""
import asyncio
import json
import re
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

KIND, URL, CMD = sys.argv[1], sys.argv[2], sys.argv[3:]
TODOS = ["buy milk", "feed the cat", "walk the dog"]


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def dump(model):
    return model.model_dump(by_alias=True, exclude_none=True, mode="json")


def text_of(result):
    return "\n".join(c["text"] for c in result.get("content", []) if c.get("type") == "text")


def ref_of(text, pattern):
    """The ref of the first line of a snapshot matching `pattern`."""
    for line in text.splitlines():
        if re.search(pattern, line):
            m = re.search(r"\[ref=([^\]]+)\]", line) or re.search(r'"ref":\s*"([^"]+)"', line)
            if m:
                return m.group(1)
    sys.exit(f"FAILED: no ref for {pattern!r} in:\n{text[:3000]}")


def hj_refs(result, role, name=None):
    """The refs of elements of harshjudge-mcp's outline: its JSON form
    (elements with tag and type) or an aria-snapshot form (lines with refs)."""
    text = text_of(result)
    try:
        v = json.loads(text)
    except ValueError:
        v = None
    if isinstance(v, dict) and isinstance(v.get("elements"), list):
        def fits(e):
            kind = {"textbox": e.get("tag") == "input" and e.get("type") in (None, "text"),
                    "checkbox": e.get("type") == "checkbox",
                    "link": e.get("tag") == "a"}[role]
            return (e.get("role") == role or kind) and (name is None or name in (e.get("name") or ""))
        refs = [e["ref"] for e in v["elements"] if fits(e)]
    else:
        pattern = rf"- {role}" + (rf' "[^"]*{re.escape(name)}' if name else r"\b")
        refs = [m.group(1) for line in text.splitlines() if re.search(pattern, line)
                for m in [re.search(r"\[ref=([^\]]+)\]", line)] if m]
    if not refs:
        sys.exit(f"FAILED: no {role} {name!r} in {text[:3000]}")
    return refs


def hj_ref(result, role, name=None):
    return hj_refs(result, role, name)[0]


async def main():
    calls = []
    params = StdioServerParameters(command=CMD[0], args=CMD[1:],
                                   env={"HARSHJUDGE_LOG": "warn", "HARSHJUDGE_DASHBOARD": "off",
                                        "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": "/tmp"})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()

            async def call(name, args):
                r = dump(await session.call_tool(name, args))
                if r.get("isError"):
                    sys.exit(f"FAILED: {name} {args}: {text_of(r)[:2000]}")
                calls.append({"tool": name, "args": compact(args), "result": compact(r), "text": text_of(r)})
                return r

            if KIND.startswith("hjb"):
                # The same task batched (run_steps) while recording, then the
                # recording replayed (record_replay): in brief, or with
                # hjb-detail every call's full result.
                detail = {"detail": True} if KIND == "hjb-detail" else {}
                await call("record_start", {"name": "todos"})
                await call("browser_navigate", {"url": URL})
                snap = await call("browser_snapshot", {})
                box = hj_ref(snap, "textbox")
                await call("run_steps", {"steps": [
                    {"tool": "browser_type", "args": {"ref": box, "text": t, "submit": True}} for t in TODOS
                ], **detail})
                snap = await call("browser_snapshot", {})
                toggles = hj_refs(snap, "checkbox")
                if len(toggles) < 4:
                    sys.exit(f"FAILED: expected the toggle-all and 3 toggles in {text_of(snap)[:3000]}")
                batch = await call("run_steps", {"steps": [
                    {"tool": "browser_click", "args": {"ref": toggles[2]}},
                    {"tool": "browser_click", "args": {"ref": hj_ref(snap, "link", "Active")}},
                    {"tool": "browser_expect", "args": {"assertion": "to_have_count", "testId": "todo-item", "expected": 2}},
                    {"tool": "browser_expect", "args": {"assertion": "to_have_text", "testId": "todo-count", "expected": "2 items left"}},
                ], **detail})
                if "0 failed" not in text_of(batch) and '"failed":0' not in text_of(batch):
                    sys.exit(f"FAILED: run_steps: {text_of(batch)[:3000]}")
                stopped = await call("record_stop", {})
                seq = json.loads(text_of(stopped))["sequenceId"]
                replay = await call("record_replay", {"sequenceId": seq, **detail})
                if "0 failed" not in text_of(replay) and '"failed":0' not in text_of(replay):
                    sys.exit(f"FAILED: record_replay: {text_of(replay)[:3000]}")
                await call("browser_close", {})
            elif KIND == "hj":
                # browser_navigate opens the browser when none is open.
                await call("browser_navigate", {"url": URL})
                snap = await call("browser_snapshot", {})
                box = hj_ref(snap, "textbox")
                for t in TODOS:
                    await call("browser_type", {"ref": box, "text": t, "submit": True})
                snap = await call("browser_snapshot", {})
                # The checkbox of the second todo (after toggle-all), then the Active filter.
                toggles = hj_refs(snap, "checkbox")
                if len(toggles) < 4:
                    sys.exit(f"FAILED: expected the toggle-all and 3 toggles in {text_of(snap)[:3000]}")
                await call("browser_click", {"ref": toggles[2]})
                await call("browser_click", {"ref": hj_ref(snap, "link", "Active")})
                await call("browser_expect", {"assertion": "to_have_count", "testId": "todo-item", "expected": 2})
                await call("browser_expect", {"assertion": "to_have_text", "testId": "todo-count", "expected": "2 items left"})
                await call("browser_close", {})
            else:
                nav = await call("browser_navigate", {"url": URL})
                snap = await call("browser_snapshot", {})
                box = ref_of(text_of(snap), r"textbox")
                for t in TODOS:
                    await call("browser_type", {"element": "new todo input", "target": box, "text": t, "submit": True})
                snap = await call("browser_snapshot", {})
                text = text_of(snap)
                toggles = [m for m in re.findall(r"checkbox[^\n]*\[ref=([^\]]+)\]", text)]
                if len(toggles) < 4:
                    sys.exit(f"FAILED: expected the toggle-all and 3 toggles in {text[:3000]}")
                await call("browser_click", {"element": "toggle of feed the cat", "target": toggles[2]})
                await call("browser_click", {"element": "Active filter", "target": ref_of(text, r'link "Active"')})
                verify = await call("browser_snapshot", {})
                vt = text_of(verify)
                if "feed the cat" in vt or "buy milk" not in vt or "walk the dog" not in vt:
                    sys.exit(f"FAILED: the Active filter shows {vt[:4000]}")
                await call("browser_close", {})
    print(compact({
        "server": KIND,
        "initialize": compact(dump(init)),
        "tools_list": compact(dump(tools)),
        "tools": len(tools.tools),
        "calls": calls,
    }))


asyncio.run(main())
