-- (h) The plugin and Neovim's trust database: in an untrusted workspace the project's allow rule
-- is inactive (:HandrailPermissions says why) and the Bash call asks; after :HandrailTrust and
-- approving the project settings, it runs without asking.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

local trust_file = vim.fn.stdpath('state') .. '/trust'

local function show_permissions()
  local buf = vim.fn.bufnr('handrail://permissions')
  if buf ~= -1 then
    vim.api.nvim_buf_delete(buf, { force = true })
  end
  vim.cmd('HandrailPermissions')
  H.wait(8000, function()
    buf = vim.fn.bufnr('handrail://permissions')
    return buf ~= -1 and #H.lines(buf) > 1
  end, 'the permissions buffer')
  local lines = H.lines(buf)
  R.permissions_buf = { current = vim.api.nvim_get_current_buf() == buf, buftype = vim.bo[buf].buftype }
  vim.cmd('close')
  return lines
end

H.run(function()
  local _, client = H.open(vim.env.WORK_DIR .. '/app.py')
  R.trusted_at_start = require('handrail').workspace_trusted(client)
  R.trust_file_at_start = vim.uv.fs_stat(trust_file) ~= nil
  H.stage('permissions, untrusted')
  R.untrusted_permissions = show_permissions()
  H.stage('ask, untrusted')
  vim.env.ANSWER = 'Deny'
  R.first = H.ask('Say hi')
  R.selects_untrusted = #R.selects

  H.stage('trust')
  vim.cmd('HandrailTrust')
  R.trust_db = H.disk(trust_file)
  local trust = require('handrail.trust')
  R.trusted_after = require('handrail').workspace_trusted(client)
  R.subfolder_trusted = trust.is_trusted(vim.env.WORK_DIR .. '/sub')

  H.stage('ask, trusted')
  vim.env.ANSWER = 'Approve'
  R.second = H.ask('Say hi again')
  R.chat = require('handrail.chat').lines()
  H.stage('permissions, trusted')
  R.trusted_permissions = show_permissions()

  H.stage('deny in the trust database')
  -- `:trust ++deny` on the folder: untrusted again, and the server is told before the next command
  local f = assert(io.open(trust_file, 'w'))
  f:write('! ' .. vim.uv.fs_realpath(vim.env.WORK_DIR) .. '\n')
  f:close()
  R.trusted_after_deny = require('handrail').workspace_trusted(client)
  R.denied_permissions = show_permissions()
end)
