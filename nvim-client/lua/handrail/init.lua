-- handrail for Neovim: configures the `handrail lsp` client and drives sessions from the editor.
--
--   require('handrail').setup({ cmd = { '/abs/path/to/.venv/bin/handrail', 'lsp' } })
--
-- Commands and mappings are listed in :help handrail. After each ask, `User HandrailAskDone` fires with
-- data = { sessionId, stopReason, text, error, usage } (`error` is the failure's message, `usage` the turn's
-- tokens and cost); `User HandrailModeSet` after :HandrailMode with data = { mode, scope, sessionId, error }.
local api = vim.api

local ask_user = require('handrail.ask_user')
local buffers = require('handrail.buffers')
local chat = require('handrail.chat')
local config = require('handrail.config')
local context = require('handrail.context')
local diagnostics = require('handrail.diagnostics')
local edits = require('handrail.edits')
local elicit = require('handrail.elicit')
local mcp = require('handrail.mcp')
local permission = require('handrail.permission')
local prompts = require('handrail.prompts')
local protocol = require('handrail.protocol')
local rpc = require('handrail.rpc')
local state = require('handrail.state')
local trust = require('handrail.trust')

local M = {}

M.MODES = protocol.modes

local notify = rpc.notify

--- The options in force (nil before setup()).
---@type handrail.Config?
M.config = nil

local function new_session_id()
  return string.format('nvim-%d-%x', vim.fn.getpid(), vim.uv.hrtime())
end

--- `before_init`: tell the server whether Neovim trusts the workspace folders.
local function send_initial_trust(params, lsp_config)
  local trusted = trust.all_trusted(trust.folders(params.workspaceFolders, lsp_config.root_dir))
  local options = type(params.initializationOptions) == 'table' and vim.deepcopy(params.initializationOptions) or {}
  options.workspaceTrusted = trusted
  params.initializationOptions = options
  lsp_config._handrail_trusted = trusted
end

--- A `handrail/chat` event: render it, and keep what the statusline and the prompts need.
local function on_chat(_, params)
  local kind, session_id = params.kind, params.sessionId
  chat.on_event(params)
  if kind == protocol.chat.turnStart then
    state.running[session_id] = true
  elseif kind == protocol.chat.turnEnd then
    state.running[session_id] = nil
    M.remember_usage(session_id, params.usage)
    permission.close_pending(session_id)
  elseif kind == protocol.chat.mode then
    state.modes[session_id] = params.mode
  elseif kind == protocol.chat.background then
    state.background[session_id] = type(params.tasks) == 'table' and params.tasks or {}
  elseif kind == protocol.chat.permission and params.decision == protocol.decision.cancelled then
    prompts.abandon(params.toolUseId)
  end
  if kind == protocol.chat.turnStart or kind == protocol.chat.turnEnd or kind == protocol.chat.mode
    or kind == protocol.chat.background then
    pcall(vim.cmd.redrawstatus, { bang = true })
  end
end

---@class handrail.ClientOptions
---@field trust boolean? take workspace trust from Neovim's trust database (default true)
---@field diagnostics boolean? declare that diagnostics are forwarded (default true; see handrail.diagnostics)

--- The handlers and capabilities handrail needs; usable in your own `vim.lsp.config` call.
---@param opts handrail.ClientOptions?
---@return vim.lsp.ClientConfig
function M.client_config(opts)
  opts = opts or {}
  local cap = protocol.capability
  return {
    before_init = opts.trust ~= false and send_initial_trust or nil,
    on_exit = rpc.on_exit,
    capabilities = {
      experimental = {
        handrail = {
          [cap.permissionRequest] = true,
          [cap.saveDocument] = true,
          [cap.askUser] = true,
          [cap.diagnostics] = opts.diagnostics ~= false,
          [cap.shareDocument] = true,
          [cap.elicitation] = true,
        },
      },
    },
    handlers = {
      [protocol.method.chat] = on_chat,
      [protocol.method.permission] = permission.handler,
      [protocol.method.askUser] = ask_user.handler,
      [protocol.method.saveDocument] = edits.save_document,
      [protocol.method.shareDocument] = buffers.share_document,
      [protocol.method.elicit] = elicit.handler,
      ['workspace/applyEdit'] = edits.apply_edit,
      ['window/showDocument'] = mcp.show_document,
    },
  }
end

--- Configure the client (and enable it, unless `enable = false`). See :help handrail-setup.
---@param opts handrail.Config|table|nil
function M.setup(opts)
  if vim.fn.has('nvim-0.11') == 0 then
    notify('needs Neovim 0.11 or newer (vim.lsp.config)', vim.log.levels.ERROR)
    return
  end
  local merged = config.merge(opts)
  config.current, M.config = merged, merged
  chat.config = merged.chat
  edits.config.save_autocmds = merged.save_autocmds

  local client_opts = { trust = merged.trust, diagnostics = merged.forward_diagnostics }
  local lsp = vim.tbl_deep_extend('force', M.client_config(client_opts), {
    settings = merged.settings,
    init_options = merged.init_options,
    cmd_env = merged.cmd_env,
  })
  lsp.cmd = merged.cmd -- lists are not merged
  lsp.root_markers = merged.root_markers
  lsp.root_dir = merged.root_dir
  lsp.filetypes = merged.filetypes
  vim.lsp.config[merged.name] = lsp -- replaces (rather than merges into) an earlier setup
  buffers.setup(merged.name)
  if merged.forward_diagnostics then
    diagnostics.setup(merged.name)
  end
  if merged.enable then
    vim.lsp.enable(merged.name)
  end
end

--- The client for the current session (see handrail.rpc); with `start`, launch one when none runs.
---@param start boolean?
---@return vim.lsp.Client?
function M.client(start)
  return config.current and rpc.client(start) or nil
end

M.sync_trust = rpc.sync_trust
M.workspace_trusted = rpc.workspace_trusted

local function done(data)
  api.nvim_exec_autocmds('User', { pattern = 'HandrailAskDone', modeline = false, data = data })
end

---@class handrail.AskOptions
---@field range integer[]? { first, last } lines of a selection in the current buffer, sent with the prompt
---@field win integer? the window whose file and cursor are the context (default: the current window)
---@field context handrail.Context? the context itself (the chat input captures it when it opens)

--- Ask the agent; continues the current session. Without a prompt, open the chat input.
---@param prompt string?
---@param opts handrail.AskOptions?
function M.ask(prompt, opts)
  opts = opts or {}
  if not config.current then
    notify("call require('handrail').setup() first", vim.log.levels.ERROR)
    return
  end
  local captured = opts.context or context.capture(opts.win, opts.range)
  if not prompt or vim.trim(prompt) == '' then
    require('handrail.input').open({ context = captured })
    return
  end
  local slash = vim.trim(prompt)
  if not vim.startswith(slash, '/mcp__') then
    M.start_turn(protocol.command.ask, { prompt = context.prompt(prompt, captured) })
    return
  end
  -- an MCP prompt: its words are its arguments, so no context is added after them. The server binds words
  -- in order; `name=value` words are bound here, by name, and the prompt run with handrail.runMcpPrompt.
  if not slash:find('=', 1, true) then
    M.start_turn(protocol.command.ask, { prompt = slash })
    return
  end
  mcp.prompts(function(_, listed)
    local call = mcp.parse_slash(slash, listed)
    if call and call.arguments then
      M.run_prompt(call.prompt, call.arguments)
    else
      M.start_turn(protocol.command.ask, { prompt = slash })
    end
  end)
end

--- Run an MCP prompt (an entry of `handrail.mcpPrompts`) with its arguments as the current session's next turn.
---@param prompt table
---@param arguments table<string, string>?
function M.run_prompt(prompt, arguments)
  if not config.current then
    notify("call require('handrail').setup() first", vim.log.levels.ERROR)
    return
  end
  local argument = { server = prompt.server, prompt = prompt.name }
  if arguments and not vim.tbl_isempty(arguments) then
    argument.arguments = arguments
  end
  M.start_turn(protocol.command.runMcpPrompt, argument)
end

--- Run a command that is a turn of the current session (`handrail.ask`, `handrail.runMcpPrompt`): the
--- session's id is added to `argument`, the chat opens, and `User HandrailAskDone` fires when it ends.
---@param command string
---@param argument table
function M.start_turn(command, argument)
  state.session_id = state.session_id or new_session_id()
  local session_id = state.session_id
  if state.asking[session_id] then
    notify('a turn is still running in this session; cancel it (:HandrailCancel) or wait', vim.log.levels.WARN)
    return
  end
  if config.current.open_chat then
    chat.open()
  end
  local finished = false
  local function finish(data)
    if finished then
      return
    end
    finished = true
    state.asking[session_id] = nil
    done(data)
  end
  state.asking[session_id] = finish
  argument.sessionId = session_id
  -- the current buffer is the context: its pending changes are sent first
  local started = rpc.execute(command, argument, function(err, result)
    if err then
      chat.note('error: ' .. err)
      notify(err, vim.log.levels.ERROR)
    end
    result = result or {}
    local failure = type(result.error) == 'table' and result.error.message or nil
    if failure then
      notify(failure, vim.log.levels.ERROR)
    end
    finish({
      sessionId = result.sessionId or session_id,
      stopReason = result.stopReason,
      text = result.text,
      error = err or failure,
      usage = result.usage,
    })
  end, api.nvim_get_current_buf())
  if not started then
    finish({ sessionId = session_id, stopReason = 'error', error = 'no language server' })
  end
end

--- Keep a session's usage from a `turnEnd` (the server's session totals, else summed here).
---@param session_id string?
---@param usage table?
function M.remember_usage(session_id, usage)
  if type(usage) ~= 'table' or not session_id then
    return
  end
  local totals = usage.session
  if type(totals) ~= 'table' then
    local before = state.usage[session_id] or {}
    totals = {}
    for _, key in ipairs({ 'inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens' }) do
      totals[key] = (before[key] or 0) + (usage[key] or 0)
    end
  end
  state.usage[session_id] = vim.tbl_extend('force', totals, {
    contextTokens = usage.contextTokens,
    contextWindow = usage.contextWindow,
  })
end

--- The current session's usage: `{ inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, costUsd,
--- contextTokens, contextWindow }` (nil before its first turn ended).
---@return table?
function M.usage()
  return state.session_id and state.usage[state.session_id] or nil
end

--- For 'statusline' (or a statusline plugin's component): the current session's permission mode (once known),
--- ⋯ while a turn runs, its background tasks, input and output tokens, estimated cost and context use; ''
--- before anything happened.
---   vim.o.statusline = "%f %m%=%{v:lua.require'handrail'.statusline()} "
---@return string
function M.statusline()
  local session_id = state.session_id
  local usage = M.usage()
  local mode = session_id and state.modes[session_id]
  local running = session_id and state.running[session_id]
  local tasks = session_id and state.background[session_id] or {}
  local busy_tasks = 0
  for _, task in ipairs(tasks) do
    if task.status == 'running' then
      busy_tasks = busy_tasks + 1
    end
  end
  if not usage and not mode and not running and busy_tasks == 0 then
    return ''
  end
  local parts = { 'handrail' }
  if mode then
    table.insert(parts, '[' .. mode .. ']')
  end
  if running then
    table.insert(parts, '⋯')
  end
  if busy_tasks > 0 then
    table.insert(parts, '⧗' .. busy_tasks)
  end
  if usage then
    table.insert(parts,
      chat.format_tokens(chat.input_total(usage)) .. '↑ ' .. chat.format_tokens(usage.outputTokens or 0) .. '↓')
    if type(usage.costUsd) == 'number' then
      table.insert(parts, chat.format_cost(usage.costUsd))
    end
    local percent = chat.context_percent(usage)
    if percent then
      table.insert(parts, string.format('ctx %d%%', percent))
    end
  end
  return table.concat(parts, ' ')
end

--- Cancel the turn of session `session_id` (default: the current session).
---@param session_id string?
function M.cancel(session_id)
  if not config.current then
    return
  end
  session_id = session_id or state.session_id
  local client = rpc.client(false)
  if not session_id or not client then
    notify('no session to cancel')
    return
  end
  rpc.execute(protocol.command.cancel, { sessionId = session_id }, function(err, result)
    if err then
      notify(err, vim.log.levels.ERROR)
    elseif not (result and result.cancelled) then
      notify('nothing is running')
    end
  end)
end

--- Set the permission mode of the current session (creating its id when there is none yet; a session the
--- server has not seen yet gets the mode as the server's default, see the result's `scope`). Without
--- `mode`, choose one with vim.ui.select. Fires `User HandrailModeSet`.
---@param mode string?
function M.set_mode(mode)
  if not config.current then
    notify("call require('handrail').setup() first", vim.log.levels.ERROR)
    return
  end
  if not mode or vim.trim(mode) == '' then
    vim.ui.select(M.MODES, { prompt = 'handrail permission mode', kind = 'handrail.mode' }, function(choice)
      if choice then
        vim.schedule(function()
          M.set_mode(choice)
        end)
      end
    end)
    return
  end
  mode = vim.trim(mode)
  state.session_id = state.session_id or new_session_id()
  local session_id = state.session_id
  rpc.execute(protocol.command.setMode, { mode = mode, sessionId = session_id }, function(err, result)
    local data = { mode = mode, sessionId = session_id }
    if err then
      data.error = err
      notify('mode ' .. mode .. ' refused: ' .. err, vim.log.levels.ERROR)
    else
      result = result or {}
      data.mode, data.scope, data.sessionId = result.mode or mode, result.scope, result.sessionId
      state.modes[session_id] = data.mode
      if result.scope == 'session' then
        notify('permission mode ' .. data.mode .. ' for this session')
      else
        notify('permission mode ' .. data.mode .. ' for every session that has not chosen its own')
      end
      pcall(vim.cmd.redrawstatus, { bang = true })
    end
    api.nvim_exec_autocmds('User', { pattern = 'HandrailModeSet', modeline = false, data = data })
  end)
end

--- Lines describing a `handrail.permissions` result.
---@param result table
---@param trusted boolean?
---@return string[]
function M.permissions_lines(result, trusted)
  local lines = { 'handrail permissions' .. (result.mode and ('   mode: ' .. result.mode) or '') }
  if trusted ~= nil then
    table.insert(lines, 'workspace trusted by Neovim: ' .. (trusted and 'yes' or 'no (:HandrailTrust to trust it)'))
  end
  if type(result.workingDirectories) == 'table' and #result.workingDirectories > 0 then
    table.insert(lines, 'working directories: ' .. table.concat(result.workingDirectories, ', '))
  end
  for _, behavior in ipairs({ 'deny', 'ask', 'allow' }) do
    local rules = type(result[behavior]) == 'table' and result[behavior] or {}
    table.insert(lines, '')
    table.insert(lines, behavior .. (#rules == 0 and ': (none)' or ':'))
    for _, rule in ipairs(rules) do
      table.insert(lines, string.format('  %s  (%s)', rule.rule, rule.source or '?'))
    end
  end
  local inactive = type(result.inactive) == 'table' and result.inactive or {}
  table.insert(lines, '')
  table.insert(lines, 'inactive' .. (#inactive == 0 and ': (none)' or ':'))
  for _, item in ipairs(inactive) do
    local value = type(item.value) == 'string' and item.value or nil -- what a held-back setting would do
    local what = item.rule and string.format('%s %s', item.behavior or '?', item.rule) or value or tostring(item.setting)
    table.insert(lines, string.format('  %s  (%s): %s', what, item.source or '?', item.reason or ''))
  end
  local problems = type(result.problems) == 'table' and result.problems or {}
  if #problems > 0 then
    table.insert(lines, '')
    table.insert(lines, 'problems:')
    for _, p in ipairs(problems) do
      local rule = (p.rule and p.rule ~= vim.NIL) and (' (' .. p.rule .. ')') or ''
      table.insert(lines, string.format('  %s: %s%s', p.file or '?', p.message or '', rule))
    end
  end
  return (vim.tbl_map(function(line)
    return (line:gsub('\n', ' '))
  end, lines))
end

local PERMISSIONS_BUF = 'handrail://permissions'

--- Show the rules in force for the current session (or the workspace when there is none yet) in a scratch
--- buffer (`q` closes it).
function M.show_permissions()
  local session_id = state.session_id
  local argument = session_id and { sessionId = session_id } or vim.empty_dict()
  rpc.execute(protocol.command.permissions, argument, function(err, result, _, trusted)
    if err then
      notify(err, vim.log.levels.ERROR)
      return
    end
    local scratch = require('handrail.scratch')
    local buf = scratch.buffer(PERMISSIONS_BUF, 'handrail-permissions')
    scratch.show(buf, M.permissions_lines(result or {}, trusted))
  end)
end

--- Trust the workspace folders in Neovim's trust database (vim.secure.trust) and tell the server.
--- handrail then asks once whether the project's settings file may take effect.
function M.trust_workspace()
  rpc.with_client(function(client)
    local dirs = trust.folders(client.workspace_folders, client.config.root_dir)
    if #dirs == 0 then
      notify('no workspace folder to trust', vim.log.levels.ERROR)
      return
    end
    for _, dir in ipairs(dirs) do
      local ok, msg = trust.allow(dir)
      if not ok then
        notify('could not trust ' .. dir .. ': ' .. msg, vim.log.levels.ERROR)
        return
      end
    end
    notify('trusted ' .. table.concat(dirs, ', '))
    rpc.sync_trust(client)
  end)
end

--- Forget the current session; the next ask starts a new one.
function M.new_session()
  if state.session_id then
    chat.note('new session')
  end
  state.session_id = nil
end

--- The current session's id (nil before the first ask).
---@return string?
function M.session_id()
  return state.session_id
end

--- Continue the session `id` (one from before a restart continues from its transcript on the server).
---@param id string
function M.resume(id)
  state.session_id = id
end

--- Pick a past session (from the transcripts in handrail's state folder), show it and continue it.
function M.sessions()
  require('handrail.sessions').pick(function(session)
    M.resume(session.id)
    chat.open()
    chat.show_history(session)
  end)
end

function M.open_chat()
  return chat.open()
end

function M.toggle_chat()
  chat.toggle()
end

--- :HandrailPrompts — choose an MCP prompt, give its arguments, run it.
M.pick_prompt = mcp.pick_prompt
--- :HandrailMcp — the MCP servers, their state, and what to do about it.
M.mcp_status = mcp.show_status

--- Open (or go to) the chat input.
function M.input()
  require('handrail.input').open({ context = context.capture() })
end

return M
