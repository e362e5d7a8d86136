"""The TodoMVC task of issue 24, as issue 37 asks it of an agent, through the
Python MCP SDK against harshjudge-mcp or Playwright MCP: open the page, add
three todos, complete "feed the cat", filter Active, verify. The agent knows
no test id: it reads each target from a page snapshot (the new-todo field,
the checkbox in the list item that says "feed the cat", the Active link) and
reads the counter ("2 items left") and the filtered list from snapshots.

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
            m = re.search(r"\[ref=([^\]]+)\]", line)
            if m:
                return m.group(1)
    sys.exit(f"FAILED: no ref for {pattern!r} in:\n{text[:3000]}")


def indent(line):
    return len(line) - len(line.lstrip())


def item_checkbox(text, title):
    """The ref of the checkbox in the list item whose nodes say `title`: the
    item is the `- listitem` line and the lines indented under it."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not re.search(r"- listitem\b", line):
            continue
        block = []
        for inner in lines[i + 1:]:
            if indent(inner) <= indent(line):
                break
            block.append(inner)
        if any(title in b for b in block):
            for b in block:
                m = re.search(r"- checkbox\b.*\[ref=([^\]]+)\]", b)
                if m:
                    return m.group(1)
    sys.exit(f"FAILED: no checkbox in the item of {title!r} in:\n{text[:3000]}")


def counter(text):
    """What the page says is left, read from a snapshot: on one line, or its
    number in a `- strong` line above `- text: items left`."""
    m = re.search(r"(\d+) (items? left)", text) or \
        re.search(r'- strong[^\n]*: "?(\d+)"?\n\s*- text: (items? left)', text)
    if not m:
        sys.exit(f"FAILED: no counter in:\n{text[:3000]}")
    return f"{m.group(1)} {m.group(2)}"


def verify_active(text):
    if "feed the cat" in text or "buy milk" not in text or "walk the dog" not in text:
        sys.exit(f"FAILED: the Active filter shows {text[:4000]}")
    if counter(text) != "2 items left":
        sys.exit(f"FAILED: the counter says {counter(text)!r}")


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
                # The same task batched (run_steps, each batch ending with the
                # snapshot the agent reads next) while recording, then the
                # recording replayed (record_replay): in brief, or with
                # hjb-detail every call's full result.
                detail = {"detail": True} if KIND == "hjb-detail" else {}

                def read(batch):
                    text = text_of(batch)
                    if "0 failed" not in text and '"failed":0' not in text:
                        sys.exit(f"FAILED: run_steps: {text[:3000]}")
                    if '"snapshot":' in text:
                        return "\n".join(st["result"]["snapshot"] for st in json.loads(text)["steps"]
                                         if st.get("tool") == "browser_snapshot")
                    return text

                await call("record_start", {"name": "todos"})
                await call("browser_navigate", {"url": URL})
                snap = await call("browser_snapshot", {})
                box = ref_of(text_of(snap), r'- textbox "What needs to be done\?"')
                added = read(await call("run_steps", {"steps": [
                    {"tool": "browser_type", "args": {"ref": box, "text": t, "submit": True}} for t in TODOS
                ] + [{"tool": "browser_snapshot"}], **detail}))
                toggle = item_checkbox(added, "feed the cat")
                active = ref_of(added, r'- link "Active"')
                done = read(await call("run_steps", {"steps": [
                    {"tool": "browser_click", "args": {"ref": toggle}},
                    {"tool": "browser_snapshot"},
                ], **detail}))
                if counter(done) != "2 items left":
                    sys.exit(f"FAILED: the counter says {counter(done)!r}")
                verify_active(read(await call("run_steps", {"steps": [
                    {"tool": "browser_click", "args": {"ref": active}},
                    {"tool": "browser_snapshot"},
                ], **detail})))
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
                box = ref_of(text_of(snap), r'- textbox "What needs to be done\?"')
                for t in TODOS:
                    await call("browser_type", {"ref": box, "text": t, "submit": True})
                added = text_of(await call("browser_snapshot", {}))
                await call("browser_click", {"ref": item_checkbox(added, "feed the cat")})
                done = text_of(await call("browser_snapshot", {}))
                if counter(done) != "2 items left":
                    sys.exit(f"FAILED: the counter says {counter(done)!r}")
                await call("browser_click", {"ref": ref_of(added, r'- link "Active"')})
                verify_active(text_of(await call("browser_snapshot", {})))
                await call("browser_close", {})
            else:
                await call("browser_navigate", {"url": URL})
                snap = await call("browser_snapshot", {})
                box = ref_of(text_of(snap), r"textbox")
                for t in TODOS:
                    await call("browser_type", {"element": "new todo input", "target": box, "text": t, "submit": True})
                added = text_of(await call("browser_snapshot", {}))
                await call("browser_click", {"element": "toggle of feed the cat",
                                             "target": item_checkbox(added, "feed the cat")})
                done = text_of(await call("browser_snapshot", {}))
                if counter(done) != "2 items left":
                    sys.exit(f"FAILED: the counter says {counter(done)!r}")
                await call("browser_click", {"element": "Active filter", "target": ref_of(added, r'link "Active"')})
                verify_active(text_of(await call("browser_snapshot", {})))
                await call("browser_close", {})
    print(compact({
        "server": KIND,
        "initialize": compact(dump(init)),
        "tools_list": compact(dump(tools)),
        "tools": len(tools.tools),
        "calls": calls,
    }))


asyncio.run(main())
