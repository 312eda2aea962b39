-- The plugin: one :Handrail $PROMPT whose prompts the stubbed UI answers ($ANSWER or $ANSWERS, and
-- $FEEDBACK; see H.stub_ui, which records what was asked and the floats shown meanwhile). Used by
-- (e) "Deny with feedback…" shows the diff while asking, and nothing is written;
-- (h) the agent's questions: "Other…" with free text, several answers picked until "Done";
-- (k) plan approval: the plan shows in a float; the chat notes each mode change;
-- "Cancel the turn" from the question; "Always allow … in this workspace"; the todo list and markdown.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  H.stage('ask')
  H.ask(vim.env.PROMPT)
  local chat = require('handrail.chat')
  R.chat = chat.lines()
  R.chat_markdown = vim.treesitter.highlighter.active[chat.buf()] ~= nil
  R.chat_conceal = vim.wo[chat.open()].conceallevel -- 0: markdown never hides characters of tool lines
  R.floats_after = H.float_count()
  R.statusline = require('handrail').statusline()
end)
