-- :checkhealth handrail — what a working setup needs, checked where the user can fix it: Neovim, setup(),
-- the server command (its version and Python), the API key (present or not; never shown), the review's
-- picker, markdown highlighting, workspace trust, the running servers and their MCP servers, and where sessions
-- are stored.
local M = {}

local health = vim.health

local function check_neovim()
  local v = vim.version()
  local shown = string.format('%d.%d.%d%s', v.major, v.minor, v.patch, v.prerelease and ('-' .. v.prerelease) or '')
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. shown)
  else
    health.error('Neovim ' .. shown .. ': handrail needs 0.11 or newer (vim.lsp.config)')
  end
end

--- The first line `cmd --version` prints, or nil and why not.
---@param exe string
---@return string?, string?
local function server_version(exe)
  local ok, proc = pcall(vim.system, { exe, '--version' }, { text = true, env = require('handrail.config').server_env(),
    clear_env = true })
  if not ok then
    return nil, tostring(proc)
  end
  local result = proc:wait(15000)
  local out = vim.trim((result.stdout or '') .. (result.stderr or ''))
  if result.code ~= 0 then
    return nil, string.format('exit code %s: %s', tostring(result.code), out)
  end
  return vim.split(out, '\n')[1], nil
end

---@param config handrail.Config
local function check_server(config)
  local cmd = config.cmd
  local exe = type(cmd) == 'table' and cmd[1] or nil
  if type(exe) ~= 'string' then
    health.error('`cmd` is not a list like { "/path/to/.venv/bin/handrail", "lsp" }')
    return
  end
  local path = vim.fn.exepath(exe)
  if path == '' then
    health.error('the server command `' .. exe .. '` is not found', {
      'install handrail in a venv: python3 -m venv .venv && .venv/bin/pip install -e .',
      "then: require('handrail').setup({ cmd = { '/absolute/path/to/.venv/bin/handrail', 'lsp' } })",
    })
    return
  end
  local version, why = server_version(path)
  if not version then
    health.error('`' .. path .. ' --version` failed (' .. tostring(why) .. ')')
    return
  end
  health.ok(version .. ' at ' .. path)
  if not vim.startswith(exe, '/') then
    health.info('`' .. exe .. '` is found on $PATH; an absolute path to the venv\'s handrail does not depend on it')
  end
end

---@param config handrail.Config
local function check_api_key(config)
  local settings = type(config.settings) == 'table' and config.settings.handrail or nil
  if type(settings) == 'table' and type(settings.apiKey) == 'string' and settings.apiKey ~= '' then
    health.ok('API key: set in setup({ settings = { handrail = { apiKey = … } } })')
    return
  end
  local env = require('handrail.config').server_env()
  if env.ANTHROPIC_API_KEY and env.ANTHROPIC_API_KEY ~= '' then
    health.ok('API key: ANTHROPIC_API_KEY is set in the environment the server starts in')
  else
    health.warn('no API key: neither settings.handrail.apiKey nor ANTHROPIC_API_KEY', {
      'export ANTHROPIC_API_KEY before starting Neovim, or set cmd_env = { ANTHROPIC_API_KEY = … }',
    })
  end
end

local PICKERS = {
  { 'telescope-ui-select', 'telescope._extensions.ui-select' },
  { 'fzf-lua', 'fzf-lua' },
  { 'snacks.nvim', 'snacks' },
  { 'dressing.nvim', 'dressing' },
  { 'mini.pick', 'mini.pick' },
}

---@param config handrail.Config
local function check_picker(config)
  local info = debug.getinfo(vim.ui.select, 'S')
  local builtin = info and info.source and info.source:find('vim/ui.lua', 1, true) ~= nil
  local installed = {}
  for _, picker in ipairs(PICKERS) do
    local file = 'lua/' .. picker[2]:gsub('%.', '/')
    if #vim.api.nvim_get_runtime_file(file .. '.lua', false) + #vim.api.nvim_get_runtime_file(file .. '/init.lua', false) > 0 then
      table.insert(installed, picker[1])
    end
  end
  if config.review.ui == 'window' then
    health.ok("permission questions open handrail's review window (review.ui = 'window')")
  end
  local where = config.review.ui == 'window' and "the agent's questions and choices use" or 'questions use'
  if builtin then
    health.info(where .. ' the built-in vim.ui.select (a numbered list); a picker plugin that replaces it '
      .. '(snacks.nvim, fzf-lua register_ui_select, telescope-ui-select, dressing.nvim) shows a floating picker'
      .. (#installed > 0 and ('; installed but not registered: ' .. table.concat(installed, ', ')) or ''))
  else
    health.ok(where .. ' vim.ui.select from ' .. (info and info.short_src or 'a plugin'))
  end
end

local function check_markdown()
  if pcall(vim.treesitter.language.add, 'markdown') then
    health.ok('the chat is highlighted as markdown (treesitter parser found)')
  else
    health.info('no markdown treesitter parser: the chat is highlighted by handrail\'s own groups only')
  end
end

--- The MCP servers of a running handrail (asked with a bounded wait): one line each, a warning for those
--- that need the user.
---@param client vim.lsp.Client
local function check_mcp(client)
  local mcp = require('handrail.mcp')
  local servers = mcp.status_now(client)
  if not servers then
    health.warn('MCP: the server did not say how its MCP servers are (see :HandrailMcp)')
    return
  end
  if #servers == 0 then
    health.info('MCP: no MCP server configured')
    return
  end
  for _, server in ipairs(servers) do
    local state = mcp.STATE_SHOWN[server.state] or tostring(server.state)
    local line = string.format("MCP server '%s' (%s): %s", server.name, server.source or '?', state)
    if server.state == 'running' then
      health.ok(string.format('%s, %d tools', line, type(server.tools) == 'table' and #server.tools or 0))
    elseif server.state == 'starting' or server.state == 'restarting' then
      health.info(line)
    else
      local why = type(server.error) == 'string' and (' — ' .. server.error:gsub('\n', ' ')) or ''
      health.warn(line .. why, { ':HandrailMcp shows it and offers approve / restart / sign in / sign out' })
    end
  end
end

---@param config handrail.Config
local function check_workspace(config)
  local trust = require('handrail.trust')
  local clients = vim.lsp.get_clients({ name = config.name })
  if #clients == 0 then
    local root = vim.fs.root(0, config.root_markers or {}) or vim.fn.getcwd()
    local trusted = trust.all_trusted({ root })
    health.info(string.format('no handrail server running; the workspace would be %s (%s)', root,
      trusted and 'trusted' or 'not trusted'))
    if config.trust ~= false and not trusted then
      health.info('its .handrail/settings.json rules take effect only after :HandrailTrust (or :trust)')
    end
    return
  end
  for _, client in ipairs(clients) do
    local dirs = trust.folders(client.workspace_folders, client.config.root_dir)
    local server = client.server_info and (client.server_info.name .. ' ' .. tostring(client.server_info.version)) or '?'
    local buffers = vim.tbl_count(client.attached_buffers)
    health.ok(string.format('server %d (%s) for %s: %s, %d buffer%s attached', client.id, server,
      table.concat(dirs, ', '), trust.all_trusted(dirs) and 'trusted' or 'not trusted', buffers,
      buffers == 1 and '' or 's'))
    if client.initialized then
      check_mcp(client)
    end
  end
end

function M.check()
  health.start('handrail')
  check_neovim()
  local config = require('handrail.config').current
  if not config then
    health.error("require('handrail').setup() was not called", { 'see :help handrail-setup' })
    return
  end
  health.ok("setup() done (client name '" .. config.name .. "')")
  health.start('handrail: server')
  check_server(config)
  check_api_key(config)
  health.start('handrail: editor')
  check_picker(config)
  check_markdown()
  check_workspace(config)
  health.info('sessions (transcripts) are stored in ' .. require('handrail.config').state_dir())
end

return M
