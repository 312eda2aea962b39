-- (j) The plugin: cancelling the turn while a permission prompt is open closes exactly that
-- prompt (its diff float, its waiting handler); a late answer from the UI is ignored.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

local late = nil -- the select's callback, which the "user" only calls after the cancel
vim.ui.select = function(items, opts, on_choice)
  table.insert(R.selects, { prompt = opts.prompt })
  late = function()
    on_choice(items[1], 1)
  end
end

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  H.stage('ask')
  vim.cmd('Handrail Capitalise the greeting')
  H.wait(8000, function()
    return late ~= nil
  end, 'the permission prompt')
  R.floats_while_asking = H.float_count()
  H.stage('cancel')
  R.first = H.cancel()
  H.wait(2000, function()
    return H.float_count() == 0
  end, 'the diff float to close')
  R.chat_after_cancel = require('handrail.chat').lines()
  H.stage('late answer')
  late()
  vim.wait(100)
  H.stage('second ask')
  R.second = H.ask('Are you there?')
end)
