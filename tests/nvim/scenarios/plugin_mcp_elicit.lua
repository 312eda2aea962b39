-- An MCP server's elicitation forms answered with vim.ui: a form of choices, a yes/no, a number typed wrong
-- twice (asked again), an optional text skipped and a multiple choice ended with Done, then sent; a form declined; a form
-- cancelled with Esc; a typed name sent.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.queue_ui()
H.setup_plugin()

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  H.stage('fx running')
  H.mcp_state('fx', 'running')
  H.picks = { 'Fill in', 'Yes', 'Large', 'cheese', 'Done', 'Send', 'Decline', 'Fill in', 'Fill in', 'Send' }
  H.typed = { 'zero', '0', '3', '', '<Esc>', 'Ada' }
  H.stage('ask')
  R.answer = H.ask('Take my order')
  R.capabilities = vim.lsp.get_clients({ name = 'handrail' })[1].capabilities.experimental.handrail
end)
