--- Read-only scratch buffers handrail shows (:HandrailPermissions, :HandrailMcp): set their lines and show them,
--- focusing the window that already shows one, else a new split at the bottom.

local api = vim.api

local M = {}

--- Replace `buf`'s lines (it stays unmodifiable and unmodified) and show it.
---@param buf integer
---@param lines string[]
function M.show(buf, lines)
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].modified = false
  local win = vim.fn.win_findbuf(buf)[1]
  if win then
    api.nvim_set_current_win(win)
  else
    vim.cmd('botright split')
    api.nvim_win_set_buf(0, buf)
  end
end

return M
