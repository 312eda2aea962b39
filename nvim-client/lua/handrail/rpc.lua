-- Talking to the server: finding (or starting) the client, waiting for it to be ready, running a command,
-- keeping it told about workspace trust, and noticing when the server exits.
local api = vim.api

local buffers = require('handrail.buffers')
local config = require('handrail.config')
local protocol = require('handrail.protocol')
local state = require('handrail.state')
local trust = require('handrail.trust')

local M = {}

---@param msg string
---@param level integer?
function M.notify(msg, level)
  vim.notify('handrail: ' .. msg, level or vim.log.levels.INFO)
end

--- An LSP error (or anything else) as one message.
---@param err any
---@return string
function M.error_text(err)
  return type(err) == 'table' and tostring(err.message or vim.inspect(err)) or tostring(err)
end

local function usable(client)
  return client ~= nil and not client:is_stopped()
end

--- The client for the current session: the one it started on, else the one attached to the current buffer,
--- else any; with `start`, launch one (rooted like the current buffer, else at the cwd) when none runs.
--- A client it starts gets every loaded file buffer attached before anything is sent.
---@param start boolean?
---@return vim.lsp.Client?
function M.client(start)
  local name = assert(config.current).name
  local client = state.client_id and vim.lsp.get_client_by_id(state.client_id)
  if usable(client) then
    return client
  end
  client = vim.lsp.get_clients({ name = name, bufnr = 0 })[1] or vim.lsp.get_clients({ name = name })[1]
  if client or not start then
    if client then
      buffers.attach_all(client)
    end
    return client
  end
  local lsp_config = vim.deepcopy(vim.lsp.config[name])
  if type(lsp_config.root_dir) ~= 'string' then
    lsp_config.root_dir = vim.fs.root(0, lsp_config.root_markers or {}) or vim.fn.getcwd()
  end
  local id = vim.lsp.start(lsp_config, { attach = false })
  client = id and vim.lsp.get_client_by_id(id) or nil
  if client then
    buffers.attach_all(client) -- didOpen for each as soon as the server is initialized, before any command
  end
  return client
end

--- Run `fn` once the client has answered `initialize` (commands need its capabilities).
---@param client vim.lsp.Client
---@param fn fun()
function M.when_ready(client, fn)
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
        M.notify('the language server did not start; see :checkhealth handrail and :LspLog', vim.log.levels.ERROR)
      end
    end
  end))
end

--- Whether Neovim trusts every workspace folder of `client` (see handrail.trust).
---@param client vim.lsp.Client
---@return boolean
function M.workspace_trusted(client)
  return trust.all_trusted(trust.folders(client.workspace_folders, client.config.root_dir))
end

--- Tell the server when Neovim's trust in the workspace changed since it was last told (by `:trust`,
--- `:HandrailTrust`, or an edit of the trust database). Returns the trust now (nil with `trust = false`).
---@param client vim.lsp.Client
---@return boolean?
function M.sync_trust(client)
  if config.current and config.current.trust == false then
    return nil
  end
  local now = M.workspace_trusted(client)
  local sent = state.trust_sent[client.id]
  if sent == nil then
    sent = client.config._handrail_trusted -- what before_init put in initializationOptions
  end
  if sent ~= now then
    client:notify(protocol.method.didChangeTrust, { trusted = now })
  end
  state.trust_sent[client.id] = now
  return now
end

--- The client a command runs on (started when none runs, and made the current session's), once it is ready
--- and told about trust: `fn(client, trusted)`. Tells the user and returns false when there is no server.
---@param fn fun(client: vim.lsp.Client, trusted: boolean?)
---@return boolean
function M.with_client(fn)
  if not config.current then
    M.notify("call require('handrail').setup() first", vim.log.levels.ERROR)
    return false
  end
  local client = M.client(true)
  if not client then
    M.notify(
      'no language server: `' .. table.concat(config.current.cmd, ' ') .. '` did not start (see :checkhealth handrail)',
      vim.log.levels.ERROR
    )
    return false
  end
  state.client_id = client.id
  M.when_ready(client, function()
    fn(client, M.sync_trust(client))
  end)
  return true
end

--- Run the server command `name` with one argument object, on the current session's client (started when
--- none runs), once it is ready and told about trust: `on_result(err, result, client, trusted)` with `err`
--- a message. Every buffer's pending changes are sent first. Returns false when there is no server.
---@param name string
---@param argument table
---@param on_result fun(err: string?, result: any, client: vim.lsp.Client, trusted: boolean?)?
---@param bufnr integer? the buffer the command is about (default: the current one)
---@return boolean
function M.execute(name, argument, on_result, bufnr)
  return M.with_client(function(client, trusted)
    -- every buffer's typing reaches the server before the command (Neovim sends it debounced)
    pcall(vim.lsp._changetracking.flush, client)
    local command = { title = 'handrail', command = name, arguments = { argument } }
    client:exec_cmd(command, { bufnr = bufnr or 0 }, function(err, result)
      if on_result then
        on_result(err and M.error_text(err) or nil, result, client, trusted)
      end
    end)
  end)
end

--- The server exited. If nobody asked it to stop, say so; either way end what waited on it: the running
--- turns, their prompts, the pending asks. The next command starts a new server with every buffer attached.
---@param code integer
---@param signal integer
---@param client_id integer
function M.on_exit(code, signal, client_id)
  local client = vim.lsp.get_client_by_id(client_id)
  local requested = client ~= nil and rawget(client, '_is_stopping') == true
  vim.schedule(function()
    if state.client_id == client_id then
      state.client_id = nil
    end
    state.trust_sent[client_id] = nil
    local how = signal ~= 0 and ('signal ' .. signal) or ('exit code ' .. code)
    local chat = require('handrail.chat')
    if not requested then
      M.notify(
        'the language server exited (' .. how .. '). Your buffers are untouched; the next :Handrail starts a new '
          .. 'server and shares every open buffer with it before anything runs.',
        vim.log.levels.ERROR
      )
      chat.note('the server exited (' .. how .. ')')
    end
    require('handrail.permission').close_all()
    for session_id in pairs(state.running) do
      state.running[session_id] = nil
      chat.interrupted(session_id)
    end
    for session_id, finish in pairs(state.asking) do
      finish({ sessionId = session_id, stopReason = 'error', error = 'the language server exited (' .. how .. ')' })
    end
    pcall(vim.cmd.redrawstatus, { bang = true })
  end)
end

return M
