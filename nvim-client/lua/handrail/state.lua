-- What the plugin keeps while Neovim runs, shared by its modules.
---@class handrail.State
---@field session_id string? the current session
---@field client_id integer? the client the current session runs on
---@field trust_sent table<integer, boolean> the trust each client was last told
---@field usage table<string, table> each session's totals and context use, from its last turnEnd
---@field running table<string, boolean> sessions with a turn running
---@field modes table<string, string> each session's permission mode, as last reported
---@field asking table<string, fun(data: table)> the pending ask of each session: finishes it with `data`
---@field background table<string, table[]> each session's background tasks, from the last `background` event
local M = {
  session_id = nil,
  client_id = nil,
  trust_sent = {},
  usage = {},
  running = {},
  modes = {},
  asking = {},
  background = {},
}

return M
