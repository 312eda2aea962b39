-- :HandrailMcp: the servers and their state (running, failed, needs approval, needs sign-in); <CR> offers
-- what a server's state allows; approving shows what will run; `r` restarts; `s` signs in through the
-- browser (window/showDocument → vim.ui.open); `S` signs out; :checkhealth handrail lists them.
local H = dofile(vim.env.HARNESS)
local R = H.R
local api = vim.api
H.queue_ui()
R.sign_in_answer = 'Not now'
local queued = vim.ui.select
vim.ui.select = function(items, opts, on_choice)
  if opts.prompt and opts.prompt:find('needs you to sign in', 1, true) then -- the server asks when it connects
    table.insert(H.picks, 1, R.sign_in_answer)
  end
  return queued(items, opts, on_choice)
end
-- the browser: fetch the page (the authorization server approves at once and redirects to handrail)
R.opened = {}
vim.ui.open = function(url)
  table.insert(R.opened, url)
  return vim.system({ 'curl', '-sSL', '--max-time', '30', url }, { text = true })
end
-- the workspace is trusted (as :trust would), so its .mcp.json server only needs approving
local folder = vim.fn.bufadd(vim.env.WORK_DIR)
vim.secure.trust({ action = 'allow', bufnr = folder })
api.nvim_buf_delete(folder, { force = true })
H.setup_plugin()

local function started()
  local f = io.open(vim.env.FX_LOG)
  local count = 0
  if f then
    for line in f:lines() do
      if line:find('^started') then
        count = count + 1
      end
    end
    f:close()
  end
  return count
end

--- Put the cursor on the heading of `name` in the status buffer and type `keys`.
local function on(name, keys)
  vim.cmd('HandrailMcp')
  H.wait(4000, function()
    return vim.bo.filetype == 'handrail-mcp' and vim.fn.search('^' .. name .. '  ', 'cw') > 0
  end, 'the status buffer with ' .. name)
  api.nvim_feedkeys(api.nvim_replace_termcodes(keys, true, false, true), 'xt', false)
end

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  H.stage('states')
  H.mcp_state('fx', 'running')
  H.mcp_state('broken', 'failed')
  H.mcp_state('proj', 'needsApproval')
  H.mcp_state('remote', 'needsSignIn')
  vim.cmd('HandrailMcp')
  H.wait(4000, function()
    return vim.bo.filetype == 'handrail-mcp'
  end, 'the status buffer')
  R.status = H.lines(0)
  H.stage('health')
  vim.cmd('checkhealth handrail')
  R.health = H.lines(0)
  vim.cmd('bwipeout!')
  H.stage('approve')
  H.picks = { 'Approve and start', 'Approve and start' }
  on('proj', '<CR>')
  R.proj = H.mcp_state('proj', 'running')
  H.stage('restart')
  on('fx', 'r')
  H.wait(8000, function()
    return started() >= 2
  end, 'fx to start again')
  H.mcp_state('fx', 'running')
  H.stage('nothing to approve')
  on('fx', 'a')
  H.stage('no sign-out for a local server')
  on('fx', 'S')
  H.stage('sign in')
  R.sign_in_answer = 'Sign in'
  on('remote', 's')
  R.remote = H.mcp_state('remote', 'running')
  R.actions = {} -- what <CR> offers on each running server
  for _, name in ipairs({ 'fx', 'remote' }) do
    local offered = require('handrail.mcp').actions(H.mcp_state(name, 'running'))
    R.actions[name] = vim.tbl_map(function(action) return action.label end, offered)
  end
  H.stage('sign out')
  R.sign_in_answer = 'Not now' -- asked again once signed out
  on('remote', 'S')
  H.mcp_state('remote', 'needsSignIn')
  vim.cmd('normal R') -- refresh the status buffer
  H.wait(4000, function()
    return vim.tbl_contains(H.lines(0), 'remote  needs sign-in  (user)')
  end, 'the status buffer refreshed')
  R.after = H.lines(0)
end)
