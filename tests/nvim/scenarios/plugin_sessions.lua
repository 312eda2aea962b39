-- The plugin: sessions survive a restart of Neovim. $PHASE 1 asks once; $PHASE 2 (a new Neovim, the same
-- state folder) picks the session with :HandrailSessions (the first item) and asks again in it.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.setup_plugin()

R.picked = {}
vim.ui.select = function(items, opts, on_choice)
  local labels = {}
  for i, item in ipairs(items) do
    labels[i] = opts.format_item(item)
  end
  table.insert(R.picked, { prompt = opts.prompt, labels = labels })
  on_choice(items[1], 1)
end

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  if vim.env.PHASE == '1' then
    H.ask('Remember the word heron')
    R.session = require('handrail').session_id()
    return
  end
  vim.cmd('HandrailSessions')
  R.session = require('handrail').session_id()
  R.chat_before = require('handrail.chat').lines()
  H.ask('Which word?')
end)
