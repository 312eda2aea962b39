-- (i) A workspace folder Neovim already trusts: the plugin says so in initializationOptions, and
-- handrail asks once (Approve/Not now) before the project's allow rule takes effect. With
-- $HANDRAIL_TRUST=false the plugin is set up with `trust = false` and says nothing about trust.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
-- trusted with Neovim's own API before the plugin starts (as `:trust` on the folder would)
local folder = vim.fn.bufadd(vim.env.WORK_DIR)
R.trust_call = { vim.secure.trust({ action = 'allow', bufnr = folder }) }
vim.api.nvim_buf_delete(folder, { force = true })
H.setup_plugin({ trust = vim.env.HANDRAIL_TRUST ~= 'false' })

H.run(function()
  local _, client = H.open(vim.env.WORK_DIR .. '/app.py')
  R.init_trusted = client.config._handrail_trusted
  vim.env.ANSWER = vim.env.CALL_ANSWER or 'Approve' -- the test of trust = false denies the calls instead
  H.stage('ask')
  R.first = H.ask('Say hi')
  H.stage('ask again')
  R.second = H.ask('Say hi twice')
end)
