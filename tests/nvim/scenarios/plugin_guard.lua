-- (f) The plugin's save: a file touched behind Neovim's back (same content, newer mtime) is saved
-- without Neovim's blocking "changed since reading it" question; a file whose content changed
-- behind Neovim's back is not overwritten.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

H.run(function()
  local path = vim.env.WORK_DIR .. '/app.py'
  local buf = H.open(path)
  local stat = assert(vim.uv.fs_stat(path))
  assert(vim.uv.fs_utime(path, stat.mtime.sec + 5, stat.mtime.sec + 5)) -- e.g. a formatter or git
  H.stage('ask')
  H.ask('Capitalise the greeting')
  R.disk = H.disk(path)
  R.modified = vim.bo[buf].modified
  vim.cmd('checktime')
  R.file_changed_after_save = vim.deepcopy(R.file_changed)

  H.stage('guard')
  vim.cmd('normal! Go# typed')
  local f = assert(io.open(path, 'w'))
  f:write('rewritten by another program\n')
  f:close()
  R.guard = require('handrail.edits').save_document(nil, { uri = vim.uri_from_bufnr(buf) }, {})
  R.disk_after_guard = H.disk(path)
end)
