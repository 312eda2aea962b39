-- (g) The plugin's :HandrailMode: plan mode refuses a Write; a mode the server refuses shows its
-- error; without an argument the mode is chosen with vim.ui.select; mode names complete.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()
R.modes = {}
vim.api.nvim_create_autocmd('User', {
  pattern = 'HandrailModeSet',
  callback = function(ev)
    table.insert(R.modes, ev.data)
  end,
})

local function set_mode(arg)
  local before = #R.modes
  vim.cmd('HandrailMode ' .. arg)
  H.wait(8000, function()
    return #R.modes > before
  end, ':HandrailMode ' .. arg)
  return R.modes[#R.modes]
end

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  R.completion = vim.fn.getcompletion('HandrailMode ', 'cmdline')
  R.completion_p = vim.fn.getcompletion('HandrailMode p', 'cmdline')
  H.stage('mode before any ask')
  R.before = set_mode('default') -- the server has no such session yet: its default for all
  H.stage('first ask')
  R.first = H.ask('Hello')
  H.stage('plan')
  R.plan = set_mode('plan')
  H.stage('ask in plan mode')
  R.second = H.ask('Write a new file')
  R.chat = require('handrail.chat').lines()
  H.stage('invalid mode')
  R.invalid = set_mode('sideways')
  H.stage('choose a mode')
  vim.env.ANSWER = 'acceptEdits'
  R.chosen = set_mode('')
end)
