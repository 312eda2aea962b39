-- The names of handrail's client protocol the plugin uses, read from `handrail.wire`: the table generated from
-- the server's wire contract (`python -m handrail.wire.schema`; a test fails when it is stale). Methods are
-- keyed by their name after `handrail/` (`method.askUser`), commands by theirs after `handrail.`
-- (`command.setMode`), chat events and capabilities by themselves. Looking up a name the contract does not
-- have is an error, so a renamed method fails where the plugin uses it instead of silently never matching.
-- What the contract does not list (permission answers, tool names) is kept below.
local wire = require('handrail.wire')

local M = {}

--- `names` that raise an error for a key they do not have.
---@generic T: table
---@param kind string
---@param names T
---@return T
local function strict(kind, names)
  return setmetatable(names, {
    __index = function(_, key)
      error(string.format('handrail.wire has no %s %q (regenerate it, or update the plugin)', kind, tostring(key)), 2)
    end,
  })
end

---@param list string[]
---@return table<string, string>
local function each_itself(list)
  local out = {}
  for _, name in ipairs(list) do
    out[name] = name
  end
  return out
end

local methods = {}
for _, method in ipairs(wire.methods) do
  methods[(method.name:gsub('^handrail/', ''))] = method.name
end

--- handrail's own methods: `method.chat` is 'handrail/chat'.
M.method = strict('method', methods)
--- `workspace/executeCommand` commands: `command.setMode` is 'handrail.setMode'.
M.command = strict('command', vim.deepcopy(wire.commands))
--- The flags of `capabilities.experimental.handrail`.
M.capability = strict('capability', each_itself(wire.capabilities))
--- `handrail/chat` event kinds.
M.chat = strict('chat event', each_itself(wire.chat_events))
--- Permission modes, in the server's order.
M.modes = vim.deepcopy(wire.modes)

--- Failure kinds (`turnEnd.error.kind`) whose fix is the API key.
M.key_failures = {}
for _, kind in ipairs({ 'noApiKey', 'apiKey' }) do
  M.key_failures[each_itself(wire.turn_error_kinds)[kind] or error('handrail.wire has no turn error kind ' .. kind)] =
    true
end

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

return M
