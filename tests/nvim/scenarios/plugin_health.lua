-- The plugin: :checkhealth handrail, before and after the server started.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.setup_plugin()

local function health()
  vim.cmd('checkhealth handrail')
  local lines = H.lines(0)
  vim.cmd('bwipeout!')
  return lines
end

H.run(function()
  R.before = health()
  H.open(vim.env.WORK_DIR .. '/app.py')
  R.running = health()
end)
