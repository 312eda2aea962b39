-- (b) The plugin: edits of a buffer without unsaved changes are saved, each undoable in one step,
-- and leave Neovim's idea of the file in sync with the disk.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

H.run(function()
  local path = vim.env.WORK_DIR .. '/app.py'
  local buf = H.open(path)
  H.stage('ask')
  H.ask('Capitalise the greeting')
  H.stage('after ask')
  R.chat = require('handrail.chat').lines()
  R.buffer = H.lines(buf)
  R.modified = vim.bo[buf].modified
  R.disk = H.disk(path)
  R.current_is_file = vim.api.nvim_get_current_buf() == buf

  -- the result previews are folded in the chat window
  local chat_win = vim.fn.win_findbuf(require('handrail.chat').buf())[1]
  R.chat_visible = chat_win ~= nil
  if chat_win then
    for lnum, line in ipairs(R.chat) do
      if vim.startswith(line, '    │ ') then
        R.preview_folded = vim.api.nvim_win_call(chat_win, function()
          return vim.fn.foldclosed(lnum) ~= -1
        end)
        break
      end
    end
  end

  -- Neovim must not think the file changed behind its back (W11/W12 come via FileChangedShell)
  H.stage('checktime')
  vim.cmd('checktime')
  R.file_changed_after_save = vim.deepcopy(R.file_changed)

  H.stage('undo')
  vim.cmd('normal! u')
  R.after_undo = H.lines(buf)
  vim.cmd('normal! u')
  R.after_second_undo = H.lines(buf)

  if #R.file_changed == 0 then -- else :write would stop at "changed since reading it!!! (y/n)"
    H.stage('write')
    vim.cmd('write')
    R.disk_after_write = H.disk(path)
    R.modified_after_write = vim.bo[buf].modified
  end
end)
