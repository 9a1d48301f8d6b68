"""A stdio MCP server of the 2025-11-25 generation (the Python SDK 1.x lowlevel server) whose
tools run only as tasks (`execution.taskSupport: "required"`):

- `slow_task(seconds)`: a task that logs `task <id> started`, sleeps, then answers
  `slept <seconds>`;
- `ask_task`: a task that asks the client a question (`elicitation/create`, delivered on
  `tasks/result`) and answers with what it was told;
- `failing_task`: a task that ends `failed` with a tool error;
- `echo_task(text)` (`taskSupport: "optional"`): answers `echo <text>`, as a task when the
  client asks for one and at once otherwise;
- `task_cancelled_count` (plain): how many `tasks/cancel` requests the server received.
"""

import anyio
import mcp.types as types
from mcp.server.experimental.task_context import ServerTaskContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

server = Server("tasks-peer")
server.experimental.enable_tasks()
cancelled = 0

_default_cancel = server.request_handlers[types.CancelTaskRequest]


async def _counting_cancel(request):
    global cancelled
    cancelled += 1
    return await _default_cancel(request)


server.request_handlers[types.CancelTaskRequest] = _counting_cancel

REQUIRED = types.ToolExecution(taskSupport="required")
OPTIONAL = types.ToolExecution(taskSupport="optional")


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name="slow_task",
            inputSchema={
                "type": "object",
                "properties": {"seconds": {"type": "number"}},
                "required": ["seconds"],
            },
            execution=REQUIRED,
        ),
        types.Tool(name="ask_task", inputSchema={"type": "object"}, execution=REQUIRED),
        types.Tool(name="failing_task", inputSchema={"type": "object"}, execution=REQUIRED),
        types.Tool(
            name="echo_task",
            inputSchema={
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
            execution=OPTIONAL,
        ),
        types.Tool(name="task_cancelled_count", inputSchema={"type": "object"}),
    ]


def text(value: str) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=value)]


@server.call_tool()
async def call_tool(name: str, arguments: dict):
    if name == "task_cancelled_count":
        return text(str(cancelled))
    ctx = server.request_context
    if name == "slow_task":
        seconds = arguments["seconds"]
        session = ctx.session

        async def work(task: ServerTaskContext) -> types.CallToolResult:
            await task.update_status("sleeping")
            await session.send_log_message(level="info", data=f"task {task.task_id} started")
            await anyio.sleep(seconds)
            return types.CallToolResult(content=text(f"slept {seconds}"))

        return await ctx.experimental.run_task(work)
    if name == "ask_task":

        async def work(task: ServerTaskContext) -> types.CallToolResult:
            answer = await task.elicit(
                message="Which colour?",
                requestedSchema={
                    "type": "object",
                    "properties": {"colour": {"type": "string"}},
                    "required": ["colour"],
                },
            )
            told = (answer.content or {}).get("colour", answer.action)
            return types.CallToolResult(content=text(f"told {told}"))

        return await ctx.experimental.run_task(work)
    if name == "failing_task":

        async def work(task: ServerTaskContext) -> types.CallToolResult:
            return types.CallToolResult(content=text("the job broke"), isError=True)

        return await ctx.experimental.run_task(work)
    if name == "echo_task":
        echoed = types.CallToolResult(content=text(f"echo {arguments['text']}"))
        if not ctx.experimental.is_task:
            return echoed

        async def work(task: ServerTaskContext) -> types.CallToolResult:
            return echoed

        return await ctx.experimental.run_task(work)
    raise ValueError(f"unknown tool {name}")


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
