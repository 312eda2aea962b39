-- handrail for Neovim: configures the `handrail lsp` client and drives sessions from the editor.
--
--   require('handrail').setup({ cmd = { 'handrail', 'lsp' } })
--   :Handrail {prompt}   ask (continues the current session)
--   :HandrailCancel      cancel the current session's turn
--   :HandrailNew         start a new session
--   :HandrailChat        show/hide the chat buffer
--   :HandrailMode [mode] set the current session's permission mode (no argument: choose)
--   :HandrailPermissions show the rules in force, and the inactive ones with why
--   :HandrailTrust       trust the workspace folder (Neovim's trust database, vim.secure)
--
-- After each ask, `User HandrailAskDone` fires with data = { sessionId, stopReason, text, error, usage }
-- (`error` is the failure's message, `usage` the turn's tokens and cost).
-- require('handrail').statusline() is the current session's tokens, cost and context use, for 'statusline'.
local api = vim.api

local ask_user = require('handrail.ask_user')
local chat = require('handrail.chat')
local diagnostics = require('handrail.diagnostics')
local edits = require('handrail.edits')
local permission = require('handrail.permission')
local prompts = require('handrail.prompts')
local trust = require('handrail.trust')

local M = {}

local defaults = {
  name = 'handrail',
  cmd = { 'handrail', 'lsp' },
  root_markers = { '.git' },
  root_dir = nil, -- a path or function(bufnr, on_dir); default: root_markers, else the cwd
  filetypes = nil, -- nil: every file
  settings = nil, -- e.g. { handrail = { model = '...', maxTurns = 20 } } (workspace/configuration)
  init_options = nil,
  cmd_env = nil,
  enable = true, -- call vim.lsp.enable(name)
  open_chat = true, -- show the chat when asking
  save_autocmds = false, -- run BufWrite* autocmds when saving an agent's edit (formatters!)
  trust = true, -- workspace trust from Neovim's trust database (false: handrail's own approvals only)
  forward_diagnostics = true, -- send every buffer's diagnostics to handrail (the agent sees its errors)
  chat = { position = 'right', size = nil, preview_lines = 12 },
}

M.config = nil

local state = {
  session_id = nil, ---@type string?
  client_id = nil, ---@type integer?
  trust_sent = {}, ---@type table<integer, boolean> the trust each client was last told
  usage = {}, ---@type table<string, table> each session's totals and context use, from its last turnEnd
  running = {}, ---@type table<string, boolean> sessions with a turn running
}

M.MODES = { 'default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk', 'auto' }

local function notify(msg, level)
  vim.notify('handrail: ' .. msg, level or vim.log.levels.INFO)
end

local function new_session_id()
  return string.format('nvim-%d-%x', vim.fn.getpid(), vim.uv.hrtime())
end

--- `before_init`: tell the server whether Neovim trusts the workspace folders.
local function send_initial_trust(params, config)
  local trusted = trust.all_trusted(trust.folders(params.workspaceFolders, config.root_dir))
  local options = type(params.initializationOptions) == 'table' and vim.deepcopy(params.initializationOptions) or {}
  options.workspaceTrusted = trusted
  params.initializationOptions = options
  config._handrail_trusted = trusted
end

--- The handlers and capabilities handrail needs; usable in your own `vim.lsp.config` call.
--- With `opts.trust` (default true), workspace trust is taken from Neovim's trust database;
--- `opts.diagnostics` (default true) declares that diagnostics are forwarded (see handrail.diagnostics).
function M.client_config(opts)
  opts = opts or {}
  return {
    before_init = opts.trust ~= false and send_initial_trust or nil,
    capabilities = {
      experimental = {
        handrail = {
          permissionRequest = true,
          saveDocument = true,
          askUser = true,
          diagnostics = opts.diagnostics ~= false,
        },
      },
    },
    handlers = {
      ['handrail/chat'] = function(_, params)
        chat.on_event(params)
        if params.kind == 'turnStart' then
          state.running[params.sessionId] = true
        elseif params.kind == 'turnEnd' then
          state.running[params.sessionId] = nil
          M.remember_usage(params.sessionId, params.usage)
          pcall(vim.cmd.redrawstatus, { bang = true })
          permission.close_pending(params.sessionId)
        elseif params.kind == 'permission' and params.decision == 'cancelled' then
          prompts.abandon(params.toolUseId)
        end
      end,
      ['handrail/permission'] = permission.handler,
      ['handrail/askUser'] = ask_user.handler,
      ['handrail/saveDocument'] = edits.save_document,
      ['workspace/applyEdit'] = edits.apply_edit,
    },
  }
end

function M.setup(opts)
  if vim.fn.has('nvim-0.11') == 0 then
    notify('needs Neovim 0.11 or newer (vim.lsp.config)', vim.log.levels.ERROR)
    return
  end
  opts = opts or {}
  local config = vim.tbl_extend('force', defaults, opts)
  config.chat = vim.tbl_extend('force', defaults.chat, opts.chat or {})
  M.config = config
  chat.config = config.chat
  edits.config.save_autocmds = config.save_autocmds

  local client_opts = { trust = config.trust, diagnostics = config.forward_diagnostics }
  local lsp = vim.tbl_deep_extend('force', M.client_config(client_opts), {
    settings = config.settings,
    init_options = config.init_options,
    cmd_env = config.cmd_env,
  })
  lsp.cmd = config.cmd -- lists are not merged
  lsp.root_markers = config.root_markers
  lsp.root_dir = config.root_dir
  lsp.filetypes = config.filetypes
  vim.lsp.config[config.name] = lsp -- replaces (rather than merges into) an earlier setup
  if config.forward_diagnostics then
    diagnostics.setup(config.name)
  end
  if config.enable then
    vim.lsp.enable(config.name)
  end
end

local function require_setup()
  if not M.config then
    notify("call require('handrail').setup() first", vim.log.levels.ERROR)
    return false
  end
  return true
end

local function usable(client)
  return client ~= nil and not client:is_stopped()
end

--- The client for the current session: the one it started on, else the one attached to the
--- current buffer, else any; with `start`, launch one (rooted at the cwd) when none runs.
function M.client(start)
  local name = M.config.name
  local client = state.client_id and vim.lsp.get_client_by_id(state.client_id)
  if usable(client) then
    return client
  end
  client = vim.lsp.get_clients({ name = name, bufnr = 0 })[1] or vim.lsp.get_clients({ name = name })[1]
  if client or not start then
    return client
  end
  local config = vim.deepcopy(vim.lsp.config[name])
  if type(config.root_dir) ~= 'string' then
    config.root_dir = vim.fs.root(0, config.root_markers or {}) or vim.fn.getcwd()
  end
  local id = vim.lsp.start(config, { attach = false })
  return id and vim.lsp.get_client_by_id(id) or nil
end

--- Run `fn` once the client has answered `initialize` (commands need its capabilities).
local function when_ready(client, fn)
  if client.initialized then
    return fn()
  end
  local tries = 0
  local timer = assert(vim.uv.new_timer())
  timer:start(20, 20, vim.schedule_wrap(function()
    tries = tries + 1
    if client.initialized or client:is_stopped() or tries > 500 then
      timer:stop()
      timer:close()
      if client.initialized then
        fn()
      else
        notify('the language server did not start; see :LspLog', vim.log.levels.ERROR)
      end
    end
  end))
end

--- Whether Neovim trusts every workspace folder of `client` (see handrail.trust).
function M.workspace_trusted(client)
  return trust.all_trusted(trust.folders(client.workspace_folders, client.config.root_dir))
end

--- Tell the server when Neovim's trust in the workspace changed since it was last told (by
--- `:trust`, `:HandrailTrust`, or an edit of the trust database). Returns the trust now.
function M.sync_trust(client)
  if M.config and M.config.trust == false then
    return nil
  end
  local now = M.workspace_trusted(client)
  local sent = state.trust_sent[client.id]
  if sent == nil then
    sent = client.config._handrail_trusted -- what before_init put in initializationOptions
  end
  if sent ~= now then
    client:notify('handrail/didChangeTrust', { trusted = now })
  end
  state.trust_sent[client.id] = now
  return now
end

local function done(data)
  api.nvim_exec_autocmds('User', { pattern = 'HandrailAskDone', modeline = false, data = data })
end

--- Ask the agent; continues the current session.
function M.ask(prompt)
  if not require_setup() then
    return
  end
  if not prompt or vim.trim(prompt) == '' then
    vim.ui.input({ prompt = 'handrail: ' }, function(input)
      if input and vim.trim(input) ~= '' then
        M.ask(input)
      end
    end)
    return
  end
  local client = M.client(true)
  if not client then
    notify('no language server (is `' .. table.concat(M.config.cmd, ' ') .. '` installed?)', vim.log.levels.ERROR)
    return
  end
  state.client_id = client.id
  state.session_id = state.session_id or new_session_id()
  local session_id = state.session_id
  if M.config.open_chat then
    chat.open()
  end
  local bufnr = api.nvim_get_current_buf()
  when_ready(client, function()
    M.sync_trust(client)
    local command = {
      title = 'handrail',
      command = 'handrail.ask',
      arguments = { { prompt = prompt, sessionId = session_id } },
    }
    -- with the current buffer as context, its pending changes are sent first
    client:exec_cmd(command, { bufnr = bufnr }, function(err, result)
      if err then
        chat.note('error: ' .. (err.message or tostring(err)))
        notify(err.message or tostring(err), vim.log.levels.ERROR)
      end
      result = result or {}
      local failure = type(result.error) == 'table' and result.error.message or nil
      if failure then
        notify(failure, vim.log.levels.ERROR)
      end
      done({
        sessionId = result.sessionId or session_id,
        stopReason = result.stopReason,
        text = result.text,
        error = err and (err.message or tostring(err)) or failure,
        usage = result.usage,
      })
    end)
  end)
end

--- Keep a session's usage from a `turnEnd` (the server's session totals, else summed here).
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
function M.usage()
  return state.session_id and state.usage[state.session_id] or nil
end

--- For 'statusline' (or a statusline plugin's component): the current session's input and output tokens,
--- estimated cost and how full the context window is, with ⋯ while a turn runs; '' before any turn.
---   vim.o.statusline = "%f %m%=%{v:lua.require'handrail'.statusline()} "
function M.statusline()
  local usage = M.usage()
  local running = state.session_id and state.running[state.session_id]
  if not usage then
    return running and 'handrail ⋯' or ''
  end
  local parts = {
    'handrail' .. (running and ' ⋯' or ''),
    chat.format_tokens(chat.input_total(usage)) .. '↑ ' .. chat.format_tokens(usage.outputTokens or 0) .. '↓',
  }
  if type(usage.costUsd) == 'number' then
    table.insert(parts, chat.format_cost(usage.costUsd))
  end
  local percent = chat.context_percent(usage)
  if percent then
    table.insert(parts, string.format('ctx %d%%', percent))
  end
  return table.concat(parts, ' ')
end

--- Cancel the current session's turn.
function M.cancel()
  if not require_setup() then
    return
  end
  local client = M.client(false)
  if not state.session_id or not client then
    notify('no session to cancel')
    return
  end
  local command = { title = 'handrail', command = 'handrail.cancel', arguments = { { sessionId = state.session_id } } }
  client:exec_cmd(command, {}, function(err, result)
    if err then
      notify(err.message or tostring(err), vim.log.levels.ERROR)
    elseif not (result and result.cancelled) then
      notify('nothing is running')
    end
  end)
end

--- The client for a command that needs the server (started when none runs); nil after telling why.
local function command_client()
  if not require_setup() then
    return nil
  end
  local client = M.client(true)
  if not client then
    notify('no language server (is `' .. table.concat(M.config.cmd, ' ') .. '` installed?)', vim.log.levels.ERROR)
    return nil
  end
  state.client_id = client.id
  return client
end

local function error_text(err)
  return type(err) == 'table' and err.message or tostring(err)
end

--- Set the permission mode of the current session (creating its id when there is none yet; a
--- session the server has not seen yet gets the mode as the server's default, see the result's
--- `scope`). Without `mode`, choose one with vim.ui.select. Fires `User HandrailModeSet` with
--- data = { mode, scope, sessionId, error }.
function M.set_mode(mode)
  if not require_setup() then
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
  local client = command_client()
  if not client then
    return
  end
  state.session_id = state.session_id or new_session_id()
  local session_id = state.session_id
  when_ready(client, function()
    M.sync_trust(client)
    local command = {
      title = 'handrail',
      command = 'handrail.setMode',
      arguments = { { mode = mode, sessionId = session_id } },
    }
    client:exec_cmd(command, {}, function(err, result)
      local data = { mode = mode, sessionId = session_id }
      if err then
        data.error = error_text(err)
        notify('mode ' .. mode .. ' refused: ' .. data.error, vim.log.levels.ERROR)
      else
        result = result or {}
        data.mode, data.scope, data.sessionId = result.mode or mode, result.scope, result.sessionId
        if result.scope == 'session' then
          notify('permission mode ' .. data.mode .. ' for this session')
        else
          notify('permission mode ' .. data.mode .. ' for every session that has not chosen its own')
        end
      end
      api.nvim_exec_autocmds('User', { pattern = 'HandrailModeSet', modeline = false, data = data })
    end)
  end)
end

--- Lines describing a `handrail.permissions` result.
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

--- Show the rules in force for the current session (or the workspace when there is none yet)
--- in a scratch buffer.
function M.show_permissions()
  local client = command_client()
  if not client then
    return
  end
  local session_id = state.session_id
  when_ready(client, function()
    local trusted = M.sync_trust(client)
    local command = {
      title = 'handrail',
      command = 'handrail.permissions',
      arguments = { session_id and { sessionId = session_id } or vim.empty_dict() },
    }
    client:exec_cmd(command, {}, function(err, result)
      if err then
        notify(error_text(err), vim.log.levels.ERROR)
        return
      end
      local buf = vim.fn.bufnr(PERMISSIONS_BUF)
      if buf == -1 then
        buf = api.nvim_create_buf(false, true)
        api.nvim_buf_set_name(buf, PERMISSIONS_BUF)
        vim.bo[buf].bufhidden = 'wipe'
        vim.bo[buf].filetype = 'handrail-permissions'
      end
      vim.bo[buf].modifiable = true
      api.nvim_buf_set_lines(buf, 0, -1, false, M.permissions_lines(result or {}, trusted))
      vim.bo[buf].modifiable = false
      vim.bo[buf].modified = false
      local win = vim.fn.win_findbuf(buf)[1]
      if win then
        api.nvim_set_current_win(win)
      else
        vim.cmd('botright split')
        api.nvim_win_set_buf(0, buf)
      end
    end)
  end)
end

--- Trust the workspace folders in Neovim's trust database (vim.secure.trust) and tell the server.
--- handrail then asks once whether the project's settings file may take effect.
function M.trust_workspace()
  local client = command_client()
  if not client then
    return
  end
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
  when_ready(client, function()
    M.sync_trust(client)
  end)
end

--- Forget the current session; the next ask starts a new one.
function M.new_session()
  if state.session_id then
    chat.note('new session')
  end
  state.session_id = nil
end

function M.session_id()
  return state.session_id
end

function M.open_chat()
  return chat.open()
end

function M.toggle_chat()
  chat.toggle()
end

return M
