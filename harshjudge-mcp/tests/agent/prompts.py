"""The prompts through a third-party MCP client: the Python `mcp` SDK starts
the server exactly as the `.mcp.json` that `init-agent` wrote says, lists the
prompts, gets each one with its arguments, and compares it with the skill's
reference file on disk.

usage: prompts.py <project folder where init-agent ran>

Prints one JSON line: {instructions, prompts, texts, missing, unknown, tools};
exits non-zero with a message on the first failed expectation."""
import asyncio
import json
import pathlib
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

PROJECT = pathlib.Path(sys.argv[1])
SAMPLE = {"scenario": "todos", "goal": "add three todos and complete one",
          "projectName": "Todos", "baseUrl": "http://127.0.0.1:3000"}


def check(cond, what):
    if not cond:
        sys.exit(f"FAILED: {what}")


async def main():
    config = json.loads((PROJECT / ".mcp.json").read_text())
    entry = config["mcpServers"]["harshjudge"]
    params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                   # The entry's --tools wins over the client's environment.
                                   env={"HARSHJUDGE_LOG": "warn", "HARSHJUDGE_DASHBOARD": "off",
                                        "HARSHJUDGE_MCP_TOOLS": "all"})
    skill = PROJECT / ".claude/skills/harshjudge"
    skill_md = (skill / "SKILL.md").read_text()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.capabilities.prompts is not None, "prompts capability")
            listed = (await session.list_prompts()).prompts
            names = [p.name for p in listed]
            texts = {}
            for p in listed:
                check(p.name in skill_md, f"SKILL.md names prompt {p.name}")
                args = {a.name: SAMPLE[a.name] for a in (p.arguments or []) if a.required}
                r = await session.get_prompt(p.name, args)
                check(len(r.messages) == 1 and r.messages[0].role == "user", f"{p.name}: one user message")
                text = r.messages[0].content.text
                # The reference on disk holds the same workflow.
                ref = next(f for f in (skill / "references").iterdir() if f.read_text().endswith(text.split("\n\n", 1)[-1] if text.startswith("Inputs:") else text))
                check(ref.exists(), f"{p.name}: a reference file holds its text")
                for name, value in args.items():
                    check(f"- {name}: {value}" in text, f"{p.name}: the argument {name} is in the text")
                texts[p.name] = text
            try:
                await session.get_prompt("hj-heal", {})
                missing = None
            except MCPError as e:
                missing = e.error.message
                check(e.error.code == -32602, f"missing argument: -32602, got {e.error.code}")
            try:
                await session.get_prompt("hj-nope", {})
                unknown = None
            except MCPError as e:
                unknown = e.error.message
            check(missing and unknown, "bad prompts/get calls fail")
            # The server still answers after the errors.
            tools = (await session.list_tools()).tools
            check(len(tools) > 0, "tools/list after the errors")
    print(json.dumps({"instructions": init.instructions, "prompts": names, "texts": texts,
                      "missing": missing, "unknown": unknown, "tools": [t.name for t in tools]}))


asyncio.run(main())
