-- (h) The plugin: the agent's questions through vim.ui.select: "Other…" with free text through
-- vim.ui.input, and several answers picked one after the other until "Done" (from $ANSWERS).
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  H.stage('ask')
  H.ask('Set up the cache')
  R.chat = require('handrail.chat').lines()
end)
