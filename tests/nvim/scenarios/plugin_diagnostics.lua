-- (i) The plugin forwards diagnostics: a stand-in language server (vim.diagnostic.set on every
-- change) reports an error on the line the agent's edit broke, and the agent is told, at the column
-- the negotiated position encoding counts (vim.diagnostic counts bytes).
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
if vim.env.POSITION_ENCODING then -- as a user's `vim.lsp.config('*', ...)` may do
  vim.lsp.config('*', { capabilities = { general = { positionEncodings = { vim.env.POSITION_ENCODING } } } })
end
H.setup_plugin()

local ns = vim.api.nvim_create_namespace('fake-language-server')

local function lint(buf)
  local found = {}
  for n, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    local col = line:find('undefined', 1, true)
    if col then
      table.insert(found, {
        lnum = n - 1,
        col = col - 1,
        end_col = col + 8,
        severity = vim.diagnostic.severity.ERROR,
        message = '"undefined" is not defined',
        source = 'fakels',
      })
    end
  end
  vim.diagnostic.set(ns, buf, found)
end

H.run(function()
  local buf = H.open(vim.env.WORK_DIR .. '/app.py')
  vim.api.nvim_buf_attach(buf, false, {
    on_lines = function()
      vim.schedule(function()
        lint(buf)
      end)
    end,
  })
  H.stage('ask')
  H.ask('Break the greeting')
  R.buffer = H.lines(buf)
  R.diagnostics = #vim.diagnostic.get(buf)
end)
