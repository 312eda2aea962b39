-- The plugin: permission questions in the review window (the default UI). Each time a review window
-- opens, the next key of $KEYS (a JSON list) is pressed in it; what it showed is recorded.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui() -- only vim.ui.input (feedback) is used
H.setup_plugin({ review = { ui = 'window' } })

local function review_window()
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.bo[vim.api.nvim_win_get_buf(win)].filetype == 'handrail-review' then
      return win
    end
  end
end

H.run(function()
  local keys = vim.json.decode(vim.env.KEYS)
  local file_win = select(2, H.open(vim.env.WORK_DIR .. '/app.py')) and vim.api.nvim_get_current_win()
  R.reviews = {}
  R.ask = nil
  vim.cmd('Handrail ' .. vim.env.PROMPT)
  H.wait(8000, function()
    local win = review_window()
    if win and #keys > 0 then
      local buf = vim.api.nvim_win_get_buf(win)
      local chat_wins = require('handrail.chat').windows()
      table.insert(R.reviews, {
        lines = H.lines(buf),
        winbar = vim.wo[win].winbar,
        focused = vim.api.nvim_get_current_win() == win,
        floating = vim.api.nvim_win_get_config(win).relative ~= '',
        chat_visible = #chat_wins > 0,
        height = vim.api.nvim_win_get_height(win),
        groups = vim.tbl_map(function(mark)
          return mark[4].hl_group
        end, vim.api.nvim_buf_get_extmarks(buf, -1, 0, -1, { details = true })),
      })
      vim.api.nvim_feedkeys(vim.keycode(table.remove(keys, 1)), 'x', false)
      R.reviews[#R.reviews].after_key_current_is_file = vim.api.nvim_get_current_win() == file_win
    end
    return R.ask ~= nil
  end, 'the answer to ' .. vim.env.PROMPT)
  R.review_left = review_window() ~= nil
  R.chat = require('handrail.chat').lines()
end)
