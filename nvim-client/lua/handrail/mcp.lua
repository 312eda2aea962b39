-- MCP for the user: the connected servers' prompts (slash commands `/mcp__server__prompt`), their resources
-- (`@server:uri` mentions), and the servers' state with what can be done about it (:HandrailMcp).
--
-- Prompts and resources are listed by the server (`handrail.mcpPrompts`, `handrail.mcpResources`); the lists
-- are kept for a few seconds so completing as you type does not ask the server at every key.
local api = vim.api

local protocol = require('handrail.protocol')
local rpc = require('handrail.rpc')

local M = {}

local notify = rpc.notify

--- How long a fetched list is used before it is asked for again (ms).
M.LIST_TTL = 5000
--- How long completion waits for a list the server has not sent yet (ms).
M.SYNC_TIMEOUT = 3000

local cache = {} ---@type table<string, { at: integer, items: table[] }>

--- The list a command returns (`key` of its result), from the cache when fresh; `done(err, items)`.
---@param command string
---@param key string
---@param done fun(err: string?, items: table[])
local function fetch(command, key, done)
  local cached = cache[command]
  if cached and vim.uv.now() - cached.at < M.LIST_TTL then
    return done(nil, cached.items)
  end
  local started = rpc.execute(command, vim.empty_dict(), function(err, result)
    local items = (not err and type(result) == 'table' and type(result[key]) == 'table') and result[key] or {}
    if not err then
      cache[command] = { at = vim.uv.now(), items = items }
    end
    done(err, items)
  end)
  if not started then
    done('no language server', {})
  end
end

--- The same list, synchronously (for completion): the cache, else asked with a bounded wait; {} without a server.
---@param command string
---@param key string
---@return table[]
local function fetch_now(command, key)
  local cached = cache[command]
  if cached and vim.uv.now() - cached.at < M.LIST_TTL then
    return cached.items
  end
  local client = require('handrail').client(false)
  if not client or not client.initialized then
    return cached and cached.items or {}
  end
  local params = { command = command, arguments = { vim.empty_dict() } }
  local response = client:request_sync('workspace/executeCommand', params, M.SYNC_TIMEOUT, 0)
  if not response or response.err or type(response.result) ~= 'table' then
    return cached and cached.items or {}
  end
  local items = type(response.result[key]) == 'table' and response.result[key] or {}
  cache[command] = { at = vim.uv.now(), items = items }
  return items
end

--- Forget the lists (a server was restarted, approved, signed in…).
function M.forget()
  cache = {}
end

--- The prompts of the connected servers (`handrail.mcpPrompts`): `done(err, prompts)`.
---@param done fun(err: string?, prompts: table[])
function M.prompts(done)
  fetch(protocol.command.mcpPrompts, 'prompts', done)
end

--- The prompts, synchronously (completion).
---@return table[]
function M.prompts_now()
  return fetch_now(protocol.command.mcpPrompts, 'prompts')
end

--- The resources and templates to mention, synchronously (completion).
---@return table[]
function M.resources_now()
  return fetch_now(protocol.command.mcpResources, 'resources')
end

-- ---------------------------------------------------------------------------------------------- slash commands

--- `text` split into words as a shell would (quotes '…' and "…", backslash escapes); nil when a quote is open.
---@param text string
---@return string[]?
function M.words(text)
  local words, current, quote, escaped, started = {}, {}, nil, false, false
  for char in text:gmatch('.') do
    if escaped then
      table.insert(current, char)
      escaped, started = false, true
    elseif char == '\\' and quote ~= "'" then
      escaped = true
    elseif quote then
      if char == quote then
        quote = nil
      else
        table.insert(current, char)
      end
    elseif char == '"' or char == "'" then
      quote, started = char, true
    elseif char:match('%s') then
      if started then
        table.insert(words, table.concat(current))
        current, started = {}, false
      end
    else
      table.insert(current, char)
      started = true
    end
  end
  if quote or escaped then
    return nil
  end
  if started then
    table.insert(words, table.concat(current))
  end
  return words
end

---@class handrail.SlashCall
---@field prompt table the prompt, as `handrail.mcpPrompts` lists it
---@field arguments table<string, string>? bound by name (`name=value`); nil: the words go to the server as typed

--- Whether `text` runs an MCP prompt (`/mcp__server__prompt …`), and how. With `name=value` words (naming the
--- prompt's arguments) the arguments are bound here: named ones by name, the other words in order to the
--- arguments left (the last one takes the rest, as the server binds them). Without, nil `arguments`: the
--- server binds the words itself. Nil when `text` is no prompt command this editor knows of.
---@param text string
---@param prompts table[]
---@return handrail.SlashCall?
function M.parse_slash(text, prompts)
  local stripped = vim.trim(text)
  local command, rest = stripped:match('^(/mcp__%S+)%s*(.*)$')
  if not command then
    return nil
  end
  local prompt
  for _, candidate in ipairs(prompts) do
    if candidate.command == command then
      prompt = candidate
    end
  end
  if not prompt then
    return nil
  end
  local words = M.words(rest)
  if not words then
    return { prompt = prompt }
  end
  local known, named, positional = {}, {}, {}
  for _, argument in ipairs(prompt.arguments or {}) do
    known[argument.name] = true
  end
  for _, word in ipairs(words) do
    local name, value = word:match('^([^=]+)=(.*)$')
    if name and known[name] then
      named[name] = value
    else
      table.insert(positional, word)
    end
  end
  if vim.tbl_isempty(named) then
    return { prompt = prompt }
  end
  local left = vim.tbl_filter(function(argument)
    return named[argument.name] == nil
  end, prompt.arguments or {})
  for index, argument in ipairs(left) do
    if index > #positional then
      break
    end
    named[argument.name] = index == #left and table.concat(positional, ' ', index) or positional[index]
  end
  return { prompt = prompt, arguments = named }
end

--- One line about a prompt: its usage, then what it does.
---@param prompt table
---@return string
function M.prompt_label(prompt)
  local about = prompt.description or prompt.title
  return prompt.usage .. ((about and about ~= vim.NIL and about ~= '') and ('  — ' .. about) or '')
end

--- Ask the prompt's arguments one after the other with vim.ui.input (Esc cancels; an optional one may stay
--- empty; a required one is asked again until it is given): `done(arguments)`, or `done(nil)`.
---@param prompt table
---@param done fun(arguments: table<string, string>?)
function M.ask_arguments(prompt, done)
  local arguments = {}
  local list = prompt.arguments or {}
  local function ask(index, problem)
    local argument = list[index]
    if not argument then
      return done(arguments)
    end
    local about = (argument.description and argument.description ~= vim.NIL) and (' (' .. argument.description .. ')')
      or ''
    local text = string.format('%s%s %s%s%s: ', problem and (problem .. ' — ') or '', prompt.command, argument.name,
      about, argument.required and '' or ' [optional]')
    vim.ui.input({ prompt = text }, function(value)
      if value == nil then
        return done(nil)
      end
      if vim.trim(value) == '' then
        if argument.required then
          return vim.schedule(function()
            ask(index, argument.name .. ' is required')
          end)
        end
      else
        arguments[argument.name] = value
      end
      vim.schedule(function()
        ask(index + 1)
      end)
    end)
  end
  ask(1)
end

--- :HandrailPrompts — choose a prompt with vim.ui.select, give its arguments with vim.ui.input, and run it as
--- the current session's next turn.
function M.pick_prompt()
  M.prompts(function(err, prompts)
    if err then
      return notify(err, vim.log.levels.ERROR)
    end
    if #prompts == 0 then
      return notify('no MCP prompts: no connected MCP server offers any (see :HandrailMcp)')
    end
    vim.ui.select(prompts, { prompt = 'MCP prompt', kind = 'handrail.mcpPrompt', format_item = M.prompt_label },
      function(prompt)
        if not prompt then
          return
        end
        vim.schedule(function()
          M.ask_arguments(prompt, function(arguments)
            if arguments then
              vim.schedule(function()
                require('handrail').run_prompt(prompt, arguments)
              end)
            end
          end)
        end)
      end)
  end)
end

-- ---------------------------------------------------------------------------------------------- completion

--- Completion items for a prompt command typed at the start of the input (`base` begins with '/').
---@param base string
---@return table[]
function M.complete_prompts(base)
  local items = {}
  for _, prompt in ipairs(M.prompts_now()) do
    if vim.startswith(prompt.command, base) then
      local names = vim.tbl_map(function(argument)
        return argument.name .. (argument.required and '' or '?')
      end, prompt.arguments or {})
      local about = (prompt.description ~= vim.NIL and prompt.description) or ''
      table.insert(items, {
        word = prompt.command .. (#(prompt.arguments or {}) > 0 and ' ' or ''),
        abbr = prompt.usage,
        menu = '[mcp prompt]',
        info = about .. (#names > 0 and ('\narguments: ' .. table.concat(names, ', ')) or ''),
      })
    end
  end
  return items
end

--- Completion items for a prompt's argument names (`name=`), after its command.
---@param command string
---@param typed string what follows the command so far
---@param base string
---@return table[]
function M.complete_arguments(command, typed, base)
  local items = {}
  for _, prompt in ipairs(M.prompts_now()) do
    if prompt.command == command then
      for _, argument in ipairs(prompt.arguments or {}) do
        local given = (' ' .. typed):find('%s' .. vim.pesc(argument.name) .. '=') ~= nil
        if not given and vim.startswith(argument.name .. '=', base) then
          local about = (argument.description ~= vim.NIL and argument.description) or ''
          table.insert(items, {
            word = argument.name .. '=',
            menu = argument.required and '[required]' or '[optional]',
            info = about,
          })
        end
      end
    end
  end
  return items
end

--- A resource template's `{variables}`, in order, each once.
---@param template string
---@return string[]
function M.template_variables(template)
  local found, seen = {}, {}
  for name in template:gmatch('{([^}]+)}') do
    if not seen[name] then
      seen[name] = true
      table.insert(found, name)
    end
  end
  return found
end

--- Completion items for `@` mentions of resources and templates (`base` is what follows '@').
---@param base string
---@return table[]
function M.complete_resources(base)
  local items = {}
  for _, resource in ipairs(M.resources_now()) do
    local mention = resource.mention:gsub('^@', '')
    if vim.startswith(mention, base) or vim.startswith(resource.server .. ':' .. (resource.name or ''), base) then
      local template = type(resource.uriTemplate) == 'string'
      local about = {}
      for _, part in ipairs({ resource.name, resource.description, resource.mimeType }) do
        if type(part) == 'string' and part ~= '' then
          table.insert(about, part)
        end
      end
      table.insert(items, {
        word = mention,
        menu = template and '[mcp template]' or '[mcp resource]',
        info = table.concat(about, '\n'),
        user_data = template and { handrail_template = mention } or nil,
      })
    end
  end
  return items
end

--- After a template was completed: ask each `{variable}` with vim.ui.input and put the values in its place on
--- the cursor's line (Esc leaves the template as it is).
---@param mention string the template as inserted (without '@')
---@param buf integer
function M.fill_template(mention, buf)
  local variables = M.template_variables(mention)
  local values = {}
  local function ask(index)
    local name = variables[index]
    if not name then
      local filled = mention:gsub('{([^}]+)}', function(var)
        return values[var]
      end)
      if not api.nvim_buf_is_valid(buf) then
        return
      end
      local row, col = unpack(api.nvim_win_get_cursor(0))
      local line = api.nvim_buf_get_lines(buf, row - 1, row, false)[1] or ''
      local first, last = line:find(mention, 1, true)
      -- the occurrence the cursor is after
      local search = 1
      while true do
        local s, e = line:find(mention, search, true)
        if not s or s > col + 1 then
          break
        end
        first, last, search = s, e, e + 1
      end
      if first then
        api.nvim_buf_set_text(buf, row - 1, first - 1, row - 1, last, { filled })
        pcall(api.nvim_win_set_cursor, 0, { row, first - 1 + #filled })
      end
      return
    end
    vim.ui.input({ prompt = string.format('%s — %s: ', mention, name) }, function(value)
      if value == nil or vim.trim(value) == '' then
        return
      end
      values[name] = vim.trim(value)
      vim.schedule(function()
        ask(index + 1)
      end)
    end)
  end
  ask(1)
end

-- ---------------------------------------------------------------------------------------------- servers

local STATE_SHOWN = {
  running = 'running',
  starting = 'starting',
  restarting = 'restarting',
  stopped = 'stopped',
  failed = 'failed',
  needsApproval = 'needs approval',
  untrusted = 'workspace not trusted',
  needsSignIn = 'needs sign-in',
}

--- The actions that make sense for a server in its state: { label, command } each.
---@param server table an entry of `handrail.mcpStatus`
---@return { label: string, command: string }[]
function M.actions(server)
  local c = protocol.command
  local actions = {}
  if server.state == 'needsApproval' then
    table.insert(actions, { label = 'Approve and start', command = c.approveMcpServer })
  end
  if server.state == 'needsSignIn' then
    table.insert(actions, { label = 'Sign in', command = c.signInMcpServer })
  end
  if server.state == 'needsApproval' or server.state == 'untrusted' then
    return actions -- nothing runs yet (an untrusted workspace: :HandrailTrust first)
  end
  table.insert(actions, { label = 'Restart', command = c.restartMcpServer })
  if server.remote == true then -- only a server reached over HTTP can have a sign-in
    table.insert(actions, { label = 'Sign out', command = c.signOutMcpServer })
  end
  return actions
end

--- What a server reported, on one line, anything that could hide or reorder text escaped.
local function oneline(text)
  return require('handrail.visible').visible((tostring(text):gsub('%s*\n%s*', ' ¶ ')))
end

--- Lines describing `handrail.mcpStatus`, and the server of each heading line (1-based).
---@param status table
---@return string[], table<integer, table>
function M.status_lines(status)
  local lines = { 'handrail MCP servers   <CR> act on one · a approve · r restart · s sign in · S sign out · R refresh · q close' }
  local at = {}
  local servers = type(status.servers) == 'table' and status.servers or {}
  if #servers == 0 then
    table.insert(lines, '')
    table.insert(lines, '(no MCP server is configured: add one under "mcpServers" in settings.json or .mcp.json)')
  end
  for _, server in ipairs(servers) do
    table.insert(lines, '')
    local tools = type(server.tools) == 'table' and #server.tools or 0
    table.insert(lines, oneline(string.format('%s  %s  (%s)%s', server.name, STATE_SHOWN[server.state] or server.state,
      server.source or '?', server.state == 'running' and string.format('  %d tool%s', tools, tools == 1 and '' or 's')
        or '')))
    at[#lines] = server
    if type(server.error) == 'string' then
      table.insert(lines, '  ' .. oneline(server.error))
    end
    if type(server.signInAt) == 'string' then
      table.insert(lines, '  sign in at ' .. oneline(server.signInAt))
    end
    if type(server.restarts) == 'number' and server.restarts > 0 then
      table.insert(lines, string.format('  restarted %d time%s after crashes', server.restarts,
        server.restarts == 1 and '' or 's'))
    end
    if type(server.stderrTail) == 'string' and server.stderrTail ~= '' then
      table.insert(lines, '  stderr:')
      for _, line in ipairs(vim.split(vim.trim(server.stderrTail), '\n')) do
        table.insert(lines, '    ' .. oneline(line))
      end
    end
  end
  return lines, at
end

local STATUS_BUF = 'handrail://mcp'
local status_servers = {} ---@type table<integer, table> the server of each heading line (1-based)

--- The server whose block the cursor is in (status buffer).
---@return table?
local function server_at_cursor()
  local row = api.nvim_win_get_cursor(0)[1]
  for line = row, 1, -1 do
    if status_servers[line] then
      return status_servers[line]
    end
  end
  return nil
end

--- Run `action` on `server` (an entry of `handrail.mcpStatus`), say what came of it, and refresh the status buffer.
--- Approving first shows what the server said it starts (`approval.question`, the definition as written) and
--- passes its digest back, so a definition changed since it was shown is refused rather than started.
---@param action { label: string, command: string }
---@param server table
---@param after fun()?
function M.act(action, server, after)
  local name = server.name
  local approval = type(server.approval) == 'table' and server.approval or nil
  local function run()
    local params = { name = name, digest = approval and approval.digest or nil }
    rpc.execute(action.command, params, function(err, result)
      M.forget()
      if err then
        notify(err, vim.log.levels.ERROR)
      else
        result = type(result) == 'table' and result or {}
        local ok = result.approved or result.restarted or result.signingIn or result.signedOut
        local what = ok and (action.label .. ': ' .. name) or (action.label .. ' ' .. name .. ' refused')
        local why = result.reason or result.detail
        notify(what .. ((type(why) == 'string' and why ~= '') and (' (' .. why .. ')') or ''),
          ok and vim.log.levels.INFO or vim.log.levels.WARN)
      end
      if after then
        after()
      end
    end)
  end
  if action.command ~= protocol.command.approveMcpServer then
    return run()
  end
  if not approval then
    return notify(string.format("the MCP server '%s' has nothing to approve (refresh with R)", name),
      vim.log.levels.WARN)
  end
  local prompt = oneline(approval.question)
  vim.ui.select({ 'Approve and start', 'Not now' }, { prompt = prompt, kind = 'handrail.mcpApprove' }, function(choice)
    if choice == 'Approve and start' then
      vim.schedule(run)
    end
  end)
end

--- Choose what to do with the server under the cursor (vim.ui.select of the actions its state allows).
function M.act_at_cursor()
  local server = server_at_cursor()
  if not server then
    return
  end
  local actions = M.actions(server)
  if #actions == 0 then
    return notify(string.format("the MCP server '%s' waits for the workspace to be trusted (:HandrailTrust)",
      server.name), vim.log.levels.WARN)
  end
  vim.ui.select(actions, {
    prompt = string.format("MCP server '%s' (%s)", server.name, STATE_SHOWN[server.state] or server.state),
    kind = 'handrail.mcpServer',
    format_item = function(action)
      return action.label
    end,
  }, function(action)
    if action then
      vim.schedule(function()
        M.act(action, server, M.show_status)
      end)
    end
  end)
end

--- Run the action labelled `label` on the server under the cursor, when its state allows it.
---@param command string
local function act_with(command)
  local server = server_at_cursor()
  if not server then
    return
  end
  for _, action in ipairs(M.actions(server)) do
    if action.command == command then
      return M.act(action, server, M.show_status)
    end
  end
  if command == protocol.command.signOutMcpServer and server.remote ~= true then
    return notify(string.format("nothing to do: the MCP server '%s' runs on this machine and has no sign-in",
      server.name), vim.log.levels.WARN)
  end
  notify(string.format("nothing to do: the MCP server '%s' is %s", server.name,
    STATE_SHOWN[server.state] or server.state), vim.log.levels.WARN)
end

--- The servers' state (`handrail.mcpStatus`): `done(err, status)`.
---@param done fun(err: string?, status: table)
function M.status(done)
  rpc.execute(protocol.command.mcpStatus, vim.empty_dict(), function(err, result)
    done(err, type(result) == 'table' and result or { servers = {} })
  end)
end

--- :HandrailMcp — the configured servers and their state in a scratch buffer, with the actions on each.
function M.show_status()
  M.status(function(err, status)
    if err then
      return notify(err, vim.log.levels.ERROR)
    end
    local scratch = require('handrail.scratch')
    local buf, made = scratch.buffer(STATUS_BUF, 'handrail-mcp')
    if made then
      local c = protocol.command
      local function map(lhs, fn, desc)
        vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, desc = 'handrail: ' .. desc })
      end
      map('<CR>', M.act_at_cursor, 'act on this MCP server')
      map('a', function() act_with(c.approveMcpServer) end, 'approve this MCP server')
      map('r', function() act_with(c.restartMcpServer) end, 'restart this MCP server')
      map('s', function() act_with(c.signInMcpServer) end, 'sign in to this MCP server')
      map('S', function() act_with(c.signOutMcpServer) end, 'sign out of this MCP server')
      map('R', M.show_status, 'refresh')
    end
    local lines, at = M.status_lines(status)
    status_servers = at
    scratch.show(buf, lines)
  end)
end

--- One line per server for :checkhealth (nil when the server does not answer in time).
---@param client vim.lsp.Client
---@return table[]?
function M.status_now(client)
  local params = { command = protocol.command.mcpStatus, arguments = { vim.empty_dict() } }
  local response = client:request_sync('workspace/executeCommand', params, M.SYNC_TIMEOUT, 0)
  if not response or response.err or type(response.result) ~= 'table' then
    return nil
  end
  return type(response.result.servers) == 'table' and response.result.servers or {}
end

M.STATE_SHOWN = STATE_SHOWN

-- ---------------------------------------------------------------------------------------------- the browser

--- `window/showDocument`: an external document (an MCP server's sign-in page) opens in the browser through
--- vim.ui.open, without waiting for the browser (Neovim's own handler blocks up to 2 s and reports a browser
--- that stays open as a failure); only web addresses are opened, and the address is always shown so it can
--- be opened by hand. Other documents go to Neovim's handler.
---@param err any
---@param params lsp.ShowDocumentParams
---@param ctx lsp.HandlerContext
---@return table
function M.show_document(err, params, ctx)
  if not params.external then
    return vim.lsp.handlers['window/showDocument'](err, params, ctx)
  end
  local uri = tostring(params.uri or '')
  if not uri:match('^https?://') then
    notify('refused to open ' .. uri .. ' outside Neovim: not a web address', vim.log.levels.WARN)
    return { success = false }
  end
  local ok, cmd, open_err = pcall(vim.ui.open, uri)
  if ok and cmd then
    notify('opened in your browser: ' .. uri)
    return { success = true }
  end
  notify('could not open a browser (' .. tostring(ok and open_err or cmd) .. '); open ' .. uri .. ' yourself',
    vim.log.levels.WARN)
  return { success = false }
end

return M
