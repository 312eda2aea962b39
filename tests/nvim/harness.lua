-- Shared helpers for the headless Neovim scenarios (loaded with dofile from each scenario).
-- A scenario calls H.run(main); main runs once Neovim has started. The result table H.R is
-- written as JSON to $RESULT_FILE at every H.stage() and at the end, so a run that hangs still
-- tells the test where it stopped.
local H = {}
local R = { stage = 'init', selects = {}, inputs = {}, file_changed = {} }
H.R = R

function H.save()
  local f = assert(io.open(vim.env.RESULT_FILE, 'w'))
  f:write(vim.json.encode(R))
  f:close()
end

function H.stage(name)
  R.stage = name
  H.save()
end

local function finish(ok, msg)
  R.ok, R.msg = ok, msg
  R.messages = vim.fn.execute('messages')
  R.warningmsg = vim.v.warningmsg
  H.save()
  for _, client in ipairs(vim.lsp.get_clients()) do
    client:stop()
  end
  vim.wait(3000, function()
    return #vim.lsp.get_clients() == 0
  end, 20)
  vim.cmd(ok and 'qall!' or 'cquit! 1')
end

-- The waits only bound how long a broken run takes to fail: a loaded machine (parallel test runs on
-- two cores) can take several seconds for a first turn, so they are generous.
local WAIT_SCALE = tonumber(vim.env.HANDRAIL_NVIM_WAIT_SCALE) or 5

--- Wait on a condition (vim.wait runs the event loop, so LSP traffic is handled meanwhile).
function H.wait(ms, predicate, what)
  if not vim.wait(ms * WAIT_SCALE, predicate, 10) then
    error('timed out waiting for ' .. what, 0)
  end
end

function H.run(main)
  vim.api.nvim_create_autocmd('VimEnter', {
    once = true,
    callback = function()
      vim.schedule(function()
        local ok, err = xpcall(main, debug.traceback)
        finish(ok, ok and 'ok' or tostring(err))
      end)
    end,
  })
end

--- Edit `path` and wait until the handrail client is attached and initialized.
function H.open(path)
  vim.cmd.edit(vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  local client
  H.wait(8000, function()
    client = vim.lsp.get_clients({ bufnr = buf, name = 'handrail' })[1]
    return client ~= nil and client.initialized == true
  end, 'the handrail client to attach')
  return buf, client
end

--- The floating windows open now: each one's filetype and lines.
function H.floats()
  local found = {}
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      local buf = vim.api.nvim_win_get_buf(win)
      table.insert(found, { filetype = vim.bo[buf].filetype, lines = H.lines(buf) })
    end
  end
  return found
end

--- How many floating windows are open.
function H.float_count()
  return #H.floats()
end

function H.lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

--- The file's bytes on disk.
function H.disk(path)
  local f = assert(io.open(path, 'rb'))
  local text = f:read('*a')
  f:close()
  return text
end

--- The user's answers: vim.ui.select picks the item labelled $ANSWER (or, when $ANSWERS is set,
--- a JSON list, the item whose label starts with the list's next entry), vim.ui.input answers
--- $FEEDBACK. Both record what they were asked, and which floating windows were open meanwhile.
function H.stub_ui()
  local answers = vim.env.ANSWERS and vim.json.decode(vim.env.ANSWERS)
  local function picks(label, want)
    if answers then
      return want ~= nil and vim.startswith(label, want)
    end
    return label == vim.env.ANSWER
  end
  vim.ui.select = function(items, opts, on_choice)
    local labels = {}
    for i, item in ipairs(items) do
      labels[i] = opts.format_item and opts.format_item(item) or tostring(item)
    end
    table.insert(R.selects, { prompt = opts.prompt, labels = labels, kind = opts.kind, floats = H.floats() })
    local want = answers and table.remove(answers, 1)
    for i, label in ipairs(labels) do
      if picks(label, want) then
        return on_choice(items[i], i)
      end
    end
    on_choice(nil, nil)
  end
  vim.ui.input = function(opts, on_confirm)
    table.insert(R.inputs, { prompt = opts.prompt, floats = H.floats() })
    on_confirm(vim.env.FEEDBACK)
  end
end

--- The user's answers, in order: vim.ui.select picks the item whose label starts with the next entry of
--- `H.picks`, vim.ui.input answers the next entry of `H.typed`; the entry '<Esc>' (or none left) dismisses.
--- Both record what they were asked (with the labels offered) in R.selects / R.inputs.
H.picks, H.typed = {}, {}
function H.queue_ui()
  vim.ui.select = function(items, opts, on_choice)
    local labels = {}
    for i, item in ipairs(items) do
      labels[i] = opts.format_item and opts.format_item(item) or tostring(item)
    end
    local want = table.remove(H.picks, 1)
    table.insert(R.selects, { prompt = opts.prompt, labels = labels, kind = opts.kind, picked = want })
    H.save()
    for i, label in ipairs(labels) do
      if want and want ~= '<Esc>' and vim.startswith(label, want) then
        return on_choice(items[i], i)
      end
    end
    on_choice(nil, nil)
  end
  vim.ui.input = function(opts, on_confirm)
    local answer = table.remove(H.typed, 1)
    table.insert(R.inputs, { prompt = opts.prompt, default = opts.default, typed = answer })
    H.save()
    on_confirm(answer ~= '<Esc>' and answer or nil)
  end
end

--- Wait until handrail.mcpStatus says the MCP server `name` is in `state` (servers connect in the background).
function H.mcp_state(name, state)
  local seen
  for _ = 1, 300 do
    local done = false
    require('handrail.mcp').status(function(_, status)
      for _, server in ipairs(status.servers or {}) do
        if server.name == name then
          seen = server
        end
      end
      done = true
    end)
    H.wait(8000, function()
      return done
    end, 'handrail.mcpStatus')
    if seen and seen.state == state then
      return seen
    end
    vim.wait(100)
  end
  error('the MCP server ' .. name .. ' never became ' .. state .. ': ' .. vim.inspect(seen), 0)
end

--- Load the plugin from $PLUGIN_DIR the way a plugin manager would, and set it up (questions through
--- vim.ui.select unless `opts.review` says otherwise).
function H.setup_plugin(opts)
  vim.opt.runtimepath:prepend(vim.env.PLUGIN_DIR)
  vim.cmd.runtime('plugin/handrail.lua')
  opts = opts or {}
  -- the stubbed vim.ui.select answers questions, unless a scenario asks for the review window
  opts.review = opts.review or { ui = 'select' }
  require('handrail').setup(opts)
  vim.api.nvim_create_autocmd('User', {
    pattern = 'HandrailAskDone',
    callback = function(ev)
      R.ask = ev.data
    end,
  })
  -- "changed since reading" (W11/W12) is reported through FileChangedShell when one is defined
  vim.api.nvim_create_autocmd('FileChangedShell', {
    callback = function(ev)
      table.insert(R.file_changed, { file = ev.file, reason = vim.v.fcs_reason })
      vim.v.fcs_choice = ''
    end,
  })
end

--- Run `:Handrail {prompt}` and wait for its answer.
function H.ask(prompt)
  R.ask = nil
  vim.cmd('Handrail ' .. prompt)
  H.wait(8000, function()
    return R.ask ~= nil
  end, 'the answer to ' .. prompt)
  return R.ask
end

--- Run `:HandrailCancel` and wait for the running ask's answer.
function H.cancel()
  vim.cmd('HandrailCancel')
  H.wait(8000, function()
    return R.ask ~= nil
  end, 'the cancelled turn to end')
  return R.ask
end

function H.chat_has(text)
  for _, line in ipairs(require('handrail.chat').lines()) do
    if line:find(text, 1, true) then
      return true
    end
  end
  return false
end

return H
