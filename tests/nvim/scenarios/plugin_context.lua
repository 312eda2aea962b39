-- The plugin: what a prompt is sent with. `:1,2Handrail` sends the selected lines with their path and
-- range; the chat input (:HandrailInput) takes several lines, sends them with the file and cursor it
-- opened from and what `@path` names, keeps a history, and completes `@` with file names.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  H.stage('selection')
  R.ask = nil
  vim.cmd('1,2Handrail Explain this')
  H.wait(8000, function()
    return R.ask ~= nil
  end, 'the answer about the selection')
  R.first = R.ask

  H.stage('input')
  vim.api.nvim_win_set_cursor(0, { 2, 0 })
  R.ask = nil
  vim.cmd('HandrailInput')
  local input = vim.api.nvim_get_current_buf()
  R.input_name = vim.api.nvim_buf_get_name(input)
  vim.api.nvim_buf_set_lines(input, 0, -1, false, { 'Compare with', '@notes.txt please' })
  local input_win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_cursor(input_win, { 2, 3 })
  R.completion_start = require('handrail.input').complete(1, '')
  R.completions = require('handrail.input').complete(0, 'no')
  vim.api.nvim_feedkeys(vim.keycode('<C-s>'), 'x', false)
  H.wait(8000, function()
    return R.ask ~= nil
  end, 'the answer to the input')
  R.second = R.ask
  R.input_after = H.lines(input)
  R.history = require('handrail.input').history()
  vim.api.nvim_feedkeys(vim.keycode('<Up>'), 'x', false)
  R.input_up = H.lines(input)
  R.chat = require('handrail.chat').lines()
end)
