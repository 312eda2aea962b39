--- Read-only scratch buffers handrail shows (:HandrailPermissions, :HandrailMcp): made once by name, their lines set
--- and shown, focusing the window that already shows one, else a new split at the bottom.

local api = vim.api

local M = {}

--- The scratch buffer named `name` (wiped when hidden, `q` closes its window), made when there is none.
---@param name string
---@param filetype string
---@return integer buf
---@return boolean made whether it was made just now (set its own mappings then)
function M.buffer(name, filetype)
  local buf = vim.fn.bufnr(name)
  if buf ~= -1 then
    return buf, false
  end
  buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(buf, name)
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = filetype
  vim.keymap.set('n', 'q', '<Cmd>close<CR>', { buffer = buf, nowait = true, desc = 'handrail: close' })
  return buf, true
end

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
