-- (e) The plugin: "Deny with feedback…" shows the diff while asking, asks for the feedback,
-- and nothing is written.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  H.stage('ask')
  H.ask('Shout beta')
  R.chat = require('handrail.chat').lines()
  R.windows_after = #vim.api.nvim_list_wins()
  R.floats_after = H.float_count()
end)
