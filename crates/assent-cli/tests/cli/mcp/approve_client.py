"""Drives `assent gate mcp` over stdio with the official Python MCP client (PyPI `mcp`).

Usage: approve_client.py ASSENT_BINARY
Prints one JSON line with the listed tools and the `approve` input schema, then for every
JSON line on stdin ({"tool_name", "input", "tool_use_id"}) calls `approve` and prints one
JSON line {"isError", "text"}. Exits when stdin closes. The Rust test
(tests/cli/mcp_permission_tool.rs) writes the calls and checks the answers.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    binary = sys.argv[1]
    params = StdioServerParameters(
        command=binary,
        args=["gate", "mcp", "--wait", os.environ.get("GATE_WAIT", "30")],
        env=dict(os.environ),
        cwd=os.getcwd(),
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            tools = {tool.name: tool.inputSchema for tool in listed.tools}
            print(json.dumps({"tools": sorted(tools), "schema": tools.get("approve")}), flush=True)
            loop = asyncio.get_running_loop()
            while True:
                line = await loop.run_in_executor(None, sys.stdin.readline)
                if not line:
                    break
                result = await session.call_tool("approve", json.loads(line))
                text = "".join(c.text for c in result.content if c.type == "text")
                print(json.dumps({"isError": bool(result.isError), "text": text}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
