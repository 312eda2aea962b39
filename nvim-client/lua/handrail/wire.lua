-- The handrail protocol's names, generated from src/handrail/wire (python -m handrail.wire.schema); do not
-- edit. The shapes of the messages are protocol/handrail.schema.json.
return {
  -- workspace/executeCommand commands, by the name after `handrail.`
  commands = {
    ask = "handrail.ask",
    startAsk = "handrail.startAsk",
    cancel = "handrail.cancel",
    setMode = "handrail.setMode",
    permissions = "handrail.permissions",
    approveProjectSettings = "handrail.approveProjectSettings",
    mcpStatus = "handrail.mcpStatus",
    approveMcpServer = "handrail.approveMcpServer",
    restartMcpServer = "handrail.restartMcpServer",
    backgroundTasks = "handrail.backgroundTasks",
    signInMcpServer = "handrail.signInMcpServer",
    signOutMcpServer = "handrail.signOutMcpServer",
    mcpPrompts = "handrail.mcpPrompts",
    runMcpPrompt = "handrail.runMcpPrompt",
    mcpResources = "handrail.mcpResources",
  },
  -- handrail's own methods: name, direction and kind
  methods = {
    { name = "handrail/chat", direction = "serverToClient", kind = "notification" },
    { name = "handrail/permission", direction = "serverToClient", kind = "request" },
    { name = "handrail/askUser", direction = "serverToClient", kind = "request" },
    { name = "handrail/saveDocument", direction = "serverToClient", kind = "request" },
    { name = "handrail/shareDocument", direction = "serverToClient", kind = "request" },
    { name = "handrail/diagnostics", direction = "clientToServer", kind = "notification" },
    { name = "handrail/didChangeTrust", direction = "clientToServer", kind = "notification" },
    { name = "handrail/elicit", direction = "serverToClient", kind = "request" },
    { name = "handrail/mcpApproval", direction = "serverToClient", kind = "request" },
  },
  chat_events = { "turnStart", "text", "thinking", "retry", "toolStart", "toolProgress", "toolResult", "permission", "mode", "todos", "turnEnd", "background" },
  modes = { "default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "auto" },
  turn_error_kinds = { "noApiKey", "apiKey", "billing", "forbidden", "model", "rateLimited", "overloaded", "server", "network", "badRequest", "stream", "other" },
  capabilities = { "permissionRequest", "saveDocument", "askUser", "diagnostics", "shareDocument", "elicitation", "mcpApproval", "permissionReport" },
}
