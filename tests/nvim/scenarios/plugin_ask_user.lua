-- (h) The plugin: the agent's questions through vim.ui.select: "Other…" with free text through
-- vim.ui.input, and several answers picked one after the other until "Done".
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

-- pick the items whose labels start with $ANSWERS' entries, in order
local answers = vim.json.decode(vim.env.ANSWERS)
vim.ui.select = function(items, opts, on_choice)
  local labels = {}
  for i, item in ipairs(items) do
    labels[i] = opts.format_item and opts.format_item(item) or tostring(item)
  end
  table.insert(R.selects, { prompt = opts.prompt, labels = labels, kind = opts.kind })
  local want = table.remove(answers, 1)
  for i, label in ipairs(labels) do
    if want and vim.startswith(label, want) then
      return on_choice(items[i], i)
    end
  end
  on_choice(nil, nil)
end

H.run(function()
  H.open(vim.env.WORK_DIR .. '/app.py')
  H.stage('ask')
  H.ask('Set up the cache')
  R.chat = require('handrail.chat').lines()
end)
