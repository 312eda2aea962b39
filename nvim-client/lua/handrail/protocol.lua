-- Every name of handrail's client protocol the plugin uses, in one place: server→client requests and
-- notifications, client→server notifications, `workspace/executeCommand` commands, the capability
-- flags the plugin declares in `capabilities.experimental.handrail`, chat event kinds, permission
-- decisions and modes. (Meant to be replaced by a table generated from the server's wire contract.)
local M = {}

---@enum handrail.Method
M.method = {
  chat = 'handrail/chat', -- server → client notification: one chat event
  permission = 'handrail/permission', -- server → client request: ask to allow a tool call
  ask_user = 'handrail/askUser', -- server → client request: the agent's multiple-choice questions
  save_document = 'handrail/saveDocument', -- server → client request: save a buffer the agent edited
  share_document = 'handrail/shareDocument', -- server → client request: share a buffer not yet opened to handrail
  diagnostics = 'handrail/diagnostics', -- client → server notification: a buffer's diagnostics
  did_change_trust = 'handrail/didChangeTrust', -- client → server notification: workspace trust changed
}

---@enum handrail.Command
M.command = {
  ask = 'handrail.ask',
  cancel = 'handrail.cancel',
  set_mode = 'handrail.setMode',
  permissions = 'handrail.permissions',
  background_tasks = 'handrail.backgroundTasks',
}

--- The flags of `capabilities.experimental.handrail`.
M.capability = {
  permission_request = 'permissionRequest',
  save_document = 'saveDocument',
  ask_user = 'askUser',
  diagnostics = 'diagnostics',
  share_document = 'shareDocument',
}

---@enum handrail.ChatKind
M.chat = {
  turn_start = 'turnStart',
  text = 'text',
  thinking = 'thinking',
  retry = 'retry',
  tool_start = 'toolStart',
  tool_progress = 'toolProgress',
  tool_result = 'toolResult',
  permission = 'permission',
  mode = 'mode',
  todos = 'todos',
  background = 'background',
  turn_end = 'turnEnd',
}

--- Permission answers (`handrail/permission` results) and the decisions chat `permission` events report.
M.decision = {
  allow = 'allow',
  allow_always = 'allowAlways',
  deny = 'deny',
  cancelled = 'cancelled', -- chat event only: the server gave up on the prompt (the turn was cancelled)
}

--- Where an "always allow" answer saves its rules (`destination` of a `handrail/permission` result).
M.destination = { session = 'session', workspace = 'localSettings' }

--- Tool names the plugin treats specially.
M.tool = {
  plan = 'ExitPlanMode', -- plan approval comes as a permission request for this tool
  file_changers = { Edit = true, Write = true, MultiEdit = true }, -- their chat lines show a diff
}

M.modes = { 'default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk', 'auto' }

--- Failure kinds (`turnEnd.error.kind`) whose fix is the API key.
M.key_failures = { noApiKey = true, apiKey = true }

return M
