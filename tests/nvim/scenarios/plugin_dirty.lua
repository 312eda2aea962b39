-- (c) The plugin: an edit of a buffer with unsaved user text keeps that text and writes nothing.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

H.run(function()
  local path = vim.env.WORK_DIR .. '/app.py'
  local buf = H.open(path)
  vim.cmd('normal! Go# my unsaved note') -- the user types, and does not save
  H.stage('ask')
  H.ask('Capitalise the greeting')
  R.chat = require('handrail.chat').lines()
  R.buffer = H.lines(buf)
  R.modified = vim.bo[buf].modified
  R.disk = H.disk(path)
  H.stage('undo')
  vim.cmd('normal! u') -- undoes the agent's edit only
  R.after_undo = H.lines(buf)
  vim.cmd('normal! u') -- then the user's typing
  R.after_second_undo = H.lines(buf)
end)
