-- MCP prompts and resources in the chat input: `/` completes the prompts with their arguments, a prompt
-- runs as a slash command (words in order, or name=value), :HandrailPrompts picks one and asks its
-- arguments; `@` completes resources and templates (a template's variables are asked) and a mentioned
-- resource is attached to the turn.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.queue_ui()
H.setup_plugin()
local api = vim.api

local input = require('handrail.input')

--- Put `text` in the input, the cursor at its end, and run the omnifunc as <C-x><C-o> does.
local function complete(text)
  local buf = api.nvim_get_current_buf()
  api.nvim_buf_set_lines(buf, 0, -1, false, { text })
  api.nvim_win_set_cursor(0, { 1, #text })
  local start = input.complete(1, '')
  if start < 0 then
    return { start = start, items = {} }
  end
  local base = text:sub(start + 1)
  return { start = start, items = input.complete(0, base) }
end

local function send(text)
  R.ask = nil
  api.nvim_buf_set_lines(0, 0, -1, false, vim.split(text, '\n'))
  input.submit()
  H.wait(8000, function()
    return R.ask ~= nil
  end, 'the answer to ' .. text)
  return R.ask
end

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  H.stage('fx running')
  H.mcp_state('fx', 'running')
  vim.cmd('HandrailInput')
  H.stage('complete /')
  R.slash = complete('/')
  R.slash_review = complete('/mcp__fx__rev')
  R.arguments = complete('/mcp__fx__review path=app.py ')
  R.not_first_line = (function()
    api.nvim_buf_set_lines(0, 0, -1, false, { 'hello', '/mcp' })
    api.nvim_win_set_cursor(0, { 2, 4 })
    return input.complete(1, '')
  end)()
  H.stage('complete @')
  R.mention = complete('look at @fx:')
  H.stage('positional')
  R.positional = send('/mcp__fx__review app.py security holes')
  H.stage('named')
  R.named = send('/mcp__fx__review focus="style issues" path=notes.txt')
  H.stage('missing argument')
  R.missing = send('/mcp__fx__review')
  H.stage(':HandrailPrompts')
  H.picks = { '/mcp__fx__review' }
  H.typed = { '', 'app.py', '' } -- path is required: asked again; focus left empty
  R.ask = nil
  vim.cmd('HandrailPrompts')
  H.wait(8000, function()
    return R.ask ~= nil
  end, 'the prompt picked')
  R.picked = R.ask
  H.stage('mention')
  vim.cmd('HandrailInput')
  R.mentioned = send('What does @fx:fixture://readme say?')
  H.stage('template')
  H.typed = { 'groceries' }
  api.nvim_buf_set_lines(0, 0, -1, false, { 'Read @fx:fixture://no' })
  vim.cmd('stopinsert')
  api.nvim_feedkeys(api.nvim_replace_termcodes('A<C-x><C-o><C-y><Esc>', true, false, true), 'xt', false)
  H.wait(4000, function()
    return api.nvim_get_current_line():find('groceries', 1, true) ~= nil
  end, 'the template filled in')
  R.template_line = api.nvim_get_current_line()
  R.templated = send(R.template_line)
  R.chat = require('handrail.chat').lines()
end)
