-- handrail for Neovim: configures the `handrail lsp` client and drives sessions from the editor.
--
--   require('handrail').setup({ cmd = { 'handrail', 'lsp' } })
--   :Handrail {prompt}   ask (continues the current session)
--   :HandrailCancel      cancel the current session's turn
--   :HandrailNew         start a new session
--   :HandrailChat        show/hide the chat buffer
--
-- After each ask, `User HandrailAskDone` fires with data = { sessionId, stopReason, text, error }.
local api = vim.api

local chat = require('handrail.chat')
local edits = require('handrail.edits')
local permission = require('handrail.permission')

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
  chat = { position = 'right', size = nil, preview_lines = 12 },
}

M.config = nil

local state = {
  session_id = nil, ---@type string?
  client_id = nil, ---@type integer?
}

local function notify(msg, level)
  vim.notify('handrail: ' .. msg, level or vim.log.levels.INFO)
end

local function new_session_id()
  return string.format('nvim-%d-%x', vim.fn.getpid(), vim.uv.hrtime())
end

--- The handlers and capabilities handrail needs; usable in your own `vim.lsp.config` call.
function M.client_config()
  return {
    capabilities = {
      experimental = { handrail = { permissionRequest = true, saveDocument = true } },
    },
    handlers = {
      ['handrail/chat'] = function(_, params)
        chat.on_event(params)
        if params.kind == 'turnEnd' then
          permission.close_pending(params.sessionId)
        end
      end,
      ['handrail/permission'] = permission.handler,
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

  local lsp = vim.tbl_deep_extend('force', M.client_config(), {
    settings = config.settings,
    init_options = config.init_options,
    cmd_env = config.cmd_env,
  })
  lsp.cmd = config.cmd -- lists are not merged
  lsp.root_markers = config.root_markers
  lsp.root_dir = config.root_dir
  lsp.filetypes = config.filetypes
  vim.lsp.config[config.name] = lsp -- replaces (rather than merges into) an earlier setup
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
      done({
        sessionId = result.sessionId or session_id,
        stopReason = result.stopReason,
        text = result.text,
        error = err and (err.message or tostring(err)) or nil,
      })
    end)
  end)
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
