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
  H.stage('hidden characters')
  -- a server's text that would reorder what the user reads (a right-to-left override) is shown escaped
  local rlo = '\xE2\x80\xAE'
  H.picks = { 'Fill in', '<Esc>' }
  local answer
  require('handrail.elicit').ask({
    server = 'fx' .. rlo,
    message = 'Allow ' .. rlo .. 'gpj.exe?\nfine',
    requestedSchema = { type = 'object', properties = { c = { type = 'string', title = 'T' .. rlo, enum = { 'a' } } } },
  }, function(result)
    answer = result
  end)
  H.wait(2000, function()
    return answer ~= nil
  end, 'the form to end')
  R.escaped = { answer = answer, asked = { R.selects[#R.selects - 1].prompt, R.selects[#R.selects].prompt } }
end)
