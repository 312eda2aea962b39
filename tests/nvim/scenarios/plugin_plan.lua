-- (k) The plugin: the agent enters plan mode and asks to approve its plan; the plan shows in a
-- float while vim.ui.select offers "Approve plan"; the chat notes each mode change.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  H.stage('ask')
  H.ask('Plan the change first')
  R.chat = require('handrail.chat').lines()
end)
