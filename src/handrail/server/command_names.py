"""The names of the server's `workspace/executeCommand` commands, in a module light enough for start-up."""

from __future__ import annotations

ASK_COMMAND = "handrail.ask"
CANCEL_COMMAND = "handrail.cancel"
SET_MODE_COMMAND = "handrail.setMode"
PERMISSIONS_COMMAND = "handrail.permissions"
APPROVE_COMMAND = "handrail.approveProjectSettings"
MCP_STATUS_COMMAND = "handrail.mcpStatus"
APPROVE_MCP_COMMAND = "handrail.approveMcpServer"
RESTART_MCP_COMMAND = "handrail.restartMcpServer"
BACKGROUND_TASKS_COMMAND = "handrail.backgroundTasks"
SIGN_IN_MCP_COMMAND = "handrail.signInMcpServer"
SIGN_OUT_MCP_COMMAND = "handrail.signOutMcpServer"
MCP_PROMPTS_COMMAND = "handrail.mcpPrompts"
RUN_MCP_PROMPT_COMMAND = "handrail.runMcpPrompt"
MCP_RESOURCES_COMMAND = "handrail.mcpResources"
