-- The plugin: the agent creates new files (Write of a path that does not exist). Neovim holds a new,
-- empty file as one empty line ended by 'eol' (LSP text "\n"), so the server must not expect the text it
-- inserted to be the whole document; nothing is left in a modified buffer the user never opened.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  H.stage('ask')
  H.ask(vim.env.PROMPT or 'Create the files')
  R.chat = require('handrail.chat').lines()
  R.created = {}
  for _, name in ipairs(vim.split(vim.env.CREATED or '', ',', { trimempty = true })) do
    local path = vim.env.WORK_DIR .. '/' .. name
    local buf = vim.fn.bufnr(path)
    local info = { loaded = buf ~= -1 and vim.api.nvim_buf_is_loaded(buf) }
    if info.loaded then
      info.lines = H.lines(buf)
      info.modified = vim.bo[buf].modified
      info.listed = vim.bo[buf].buflisted
      info.windows = #vim.fn.win_findbuf(buf)
    end
    R.created[name] = info
  end
  R.modified_buffers = {}
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified then
      table.insert(R.modified_buffers, vim.api.nvim_buf_get_name(buf))
    end
  end
end)
