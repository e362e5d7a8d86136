"""Tool sets through the Python MCP SDK: the lean server lists the start set
without output schemas and answers one compact copy; enable_tools sends
notifications/tools/list_changed and lists more; --output-schemas lists all;
--tools all (or HARSHJUDGE_MCP_TOOLS=all) lists every tool from the start, as
the original did, for a client configured for it; --output-schemas --tools
start lists the start set.

usage: sets.py <harshjudge-mcp binary> <project folder>"""
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

BIN, PROJECT = sys.argv[1], sys.argv[2]
ENV = {"HARSHJUDGE_LOG": "warn", "HARSHJUDGE_DASHBOARD": "off"}


def check(cond, what):
    if not cond:
        sys.exit(f"FAILED: {what}")


async def main():
    changed = asyncio.Event()

    async def on_message(message):
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/tools/list_changed":
            changed.set()

    params = StdioServerParameters(command=BIN, args=["--cwd", PROJECT], env=ENV)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            init = await session.initialize()
            check(init.capabilities.tools.list_changed, "tools.listChanged is declared")
            lean = (await session.list_tools()).tools
            check(all(t.output_schema is None for t in lean), "no output schemas")
            r = await session.call_tool("initProject", {"projectName": "Sets"})
            check(not r.is_error and r.structured_content is None, f"one copy: {r}")
            check("\n" not in r.content[0].text, "compact text")
            # A tool not listed yet can be called.
            r = await session.call_tool("getRunState", {"scenarioSlug": "none"})
            check(r.is_error and "NOT_FOUND" in r.content[0].text, f"getRunState ran: {r.content[0].text}")
            r = await session.call_tool("enable_tools", {"sets": ["judge", "run"]})
            check(not r.is_error, r.content[0].text)
            await asyncio.wait_for(changed.wait(), 10)
            after = (await session.list_tools()).tools
            r = await session.call_tool("enable_tools", {"sets": ["nope"]})
            check(r.is_error and "nope" in r.content[0].text, r.content[0].text)
    params = StdioServerParameters(command=BIN, args=["--cwd", PROJECT, "--output-schemas"], env=ENV)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            full = (await session.list_tools()).tools
            check(all(t.output_schema for t in full if t.name != "enable_tools"), "output schemas asked for")
            r = await session.call_tool("getStatus", {})
            check(r.structured_content == json.loads(r.content[0].text), "both copies when asked")
    # A client configured for the original: every tool listed at once, by
    # the flag or by the variable, and the instructions say so.
    listed_all = {}
    for how, args, env in [("flag", ["--cwd", PROJECT, "--tools", "all"], ENV),
                           ("env", ["--cwd", PROJECT], {**ENV, "HARSHJUDGE_MCP_TOOLS": "all"})]:
        params = StdioServerParameters(command=BIN, args=args, env=env)
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                tools = (await session.list_tools()).tools
                check(all(t.output_schema is None for t in tools), f"{how}: lean, no output schemas")
                r = await session.call_tool("getStatus", {})
                check(not r.is_error and r.structured_content is None, f"{how}: one copy: {r}")
                listed_all[how] = {"tools": [t.name for t in tools], "instructions": init.instructions}
    params = StdioServerParameters(command=BIN, args=["--cwd", PROJECT, "--output-schemas", "--tools", "start"], env=ENV)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            schemas_start = (await session.list_tools()).tools
            check(all(t.output_schema for t in schemas_start if t.name != "enable_tools"), "output schemas, start set")
    print(json.dumps({"lean": [t.name for t in lean], "notified": changed.is_set(),
                      "after": [t.name for t in after], "full": len(full), "all": listed_all,
                      "schemasStart": [t.name for t in schemas_start]}))


asyncio.run(main())
