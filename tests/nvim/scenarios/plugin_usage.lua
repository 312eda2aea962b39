-- (m) The plugin: thinking folded in the chat, a turn's usage under it, the statusline function; then a
-- turn that fails for want of a valid key, with the Neovim way to set it.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

H.run(function()
  H.open(vim.env.WORK_DIR .. '/notes.txt')
  R.statusline_before = require('handrail').statusline()
  H.stage('ask')
  H.ask('What is in notes.txt?')
  R.chat = require('handrail.chat').lines()
  R.statusline = require('handrail').statusline()
  R.usage = require('handrail').usage()
  local chat_win = vim.fn.win_findbuf(require('handrail.chat').buf())[1]
  R.thinking_folded = {}
  for lnum, line in ipairs(R.chat) do
    if vim.startswith(line, '  ┆ ') then
      table.insert(R.thinking_folded, vim.api.nvim_win_call(chat_win, function()
        return vim.fn.foldclosed(lnum) ~= -1
      end))
    end
  end
  H.stage('failing ask')
  R.failed = H.ask('And now?')
  R.chat_after_failure = require('handrail.chat').lines()
end)
