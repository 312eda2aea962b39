-- The chat input: a small markdown buffer under the chat where a prompt of several lines is written.
--
--   <C-s> (Insert and Normal) or <CR> (Normal)   send it
--   <Up> / <Down> (Normal)                        the previous / next prompt sent in this Neovim
--   q (Normal)                                    close it (the text is kept for next time)
--
-- <C-x><C-o> (or a completion plugin that uses omnifunc) completes `@path` file names and `@server:uri` MCP
-- resources (a template's {variables} are then asked), and `/` at the start the MCP prompts (then their
-- `name=` arguments; see handrail.mcp).
local api = vim.api

local M = {}

local NAME = 'handrail://input'

---@class handrail.InputState
---@field buf integer?
---@field context handrail.Context? what the prompt is sent with (captured when the input opened)
---@field history string[] the prompts sent, oldest first
---@field position integer? where <Up>/<Down> are in the history (nil: at the draft)
---@field draft string[]? the text before browsing the history
local state = { buf = nil, context = nil, history = {}, position = nil, draft = nil }

--- The prompts sent from the input, oldest first.
---@return string[]
function M.history()
  return state.history
end

local function lines_of(buf)
  return api.nvim_buf_get_lines(buf, 0, -1, false)
end

--- Send what the input holds, remember it, empty the input.
function M.submit()
  local buf = state.buf
  if not buf or not api.nvim_buf_is_valid(buf) then
    return
  end
  local text = vim.trim(table.concat(lines_of(buf), '\n'))
  if text == '' then
    return
  end
  if state.history[#state.history] ~= text then
    table.insert(state.history, text)
  end
  state.position, state.draft = nil, nil
  api.nvim_buf_set_lines(buf, 0, -1, false, {})
  vim.cmd.stopinsert()
  local ctx = state.context
  require('handrail').ask(text, { context = ctx })
end

--- Show the history entry `delta` away (-1: older, +1: newer; past the newest: the draft).
---@param delta integer
function M.browse(delta)
  local buf = state.buf
  if not buf or #state.history == 0 then
    return
  end
  if not state.position then
    state.draft = lines_of(buf)
    state.position = #state.history + 1
  end
  local position = math.max(1, math.min(#state.history + 1, state.position + delta))
  state.position = position
  local lines = position > #state.history and state.draft or vim.split(state.history[position], '\n')
  api.nvim_buf_set_lines(buf, 0, -1, false, lines or {})
end

local completing = 'mention' -- what the omnifunc's first call found to complete
local completing_command = nil ---@type string? the prompt command whose arguments are completed
local completing_typed = '' -- what follows that command

--- Omnifunc: `/` at the start of the prompt completes the MCP prompts (then `name=` their arguments), `@`
--- the files and folders under the working directory and the MCP servers' resources and templates.
---@param findstart integer
---@param base string
---@return integer|table
function M.complete(findstart, base)
  if findstart == 1 then
    local row, col = unpack(api.nvim_win_get_cursor(0))
    local line = api.nvim_get_current_line():sub(1, col)
    local at = line:find('@[^%s@]*$')
    if at then
      completing = 'mention'
      return at -- the column after '@' (0-based)
    end
    if row == 1 then
      local slash = line:find('^%s*/[%w_%-]*$')
      if slash then
        completing = 'prompt'
        return (line:find('/', 1, true)) - 1
      end
      local command, typed = line:match('^%s*(/mcp__%S+)%s(.*)$')
      if command then
        local word = typed:find('[%w_%-]*$')
        completing, completing_command, completing_typed = 'argument', command, typed:sub(1, word - 1)
        return col - (#typed - word + 1)
      end
    end
    return -3 -- cancel silently
  end
  local mcp = require('handrail.mcp')
  if completing == 'prompt' then
    return mcp.complete_prompts(base)
  end
  if completing == 'argument' then
    return mcp.complete_arguments(completing_command or '', completing_typed, base)
  end
  local matches = {}
  for _, path in ipairs(vim.fn.glob(base .. '*', false, true)) do
    local shown = vim.fn.isdirectory(path) == 1 and path .. '/' or path
    table.insert(matches, { word = shown, menu = '[file]' })
  end
  return vim.list_extend(matches, mcp.complete_resources(base))
end

--- A resource template was completed: ask its variables (CompleteDone).
local function on_complete_done(ev)
  local item = vim.v.completed_item
  local template = type(item) == 'table' and type(item.user_data) == 'table' and item.user_data.handrail_template
  if not template or (vim.v.event and vim.v.event.reason == 'cancel') then
    return
  end
  vim.schedule(function()
    require('handrail.mcp').fill_template(template, ev.buf)
  end)
end

local function create()
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_name(buf, NAME)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'handrail-input'
  vim.bo[buf].omnifunc = "v:lua.require'handrail.input'.complete"
  api.nvim_create_autocmd('CompleteDone', { buffer = buf, callback = on_complete_done })
  require('handrail.chat').start_markdown(buf)
  local function map(modes, lhs, rhs, desc)
    vim.keymap.set(modes, lhs, rhs, { buffer = buf, nowait = true, desc = 'handrail: ' .. desc })
  end
  map({ 'n', 'i' }, '<C-s>', M.submit, 'send the prompt')
  map('n', '<CR>', M.submit, 'send the prompt')
  map('n', '<Up>', function()
    M.browse(-1)
  end, 'previous prompt')
  map('n', '<Down>', function()
    M.browse(1)
  end, 'next prompt')
  map('n', 'q', M.close, 'close the input')
  return buf
end

--- The input's windows in this tab page.
---@return integer[]
local function windows()
  local found = {}
  if state.buf and api.nvim_buf_is_valid(state.buf) then
    for _, win in ipairs(vim.fn.win_findbuf(state.buf)) do
      if api.nvim_win_get_tabpage(win) == api.nvim_get_current_tabpage() then
        table.insert(found, win)
      end
    end
  end
  return found
end

---@class handrail.InputOptions
---@field context handrail.Context? sent with the prompt (the file and cursor, or a selection)

--- Open the input (under the chat, which opens too) and start Insert mode in it.
---@param opts handrail.InputOptions?
function M.open(opts)
  opts = opts or {}
  state.context = opts.context
  if not state.buf or not api.nvim_buf_is_valid(state.buf) then
    state.buf = create()
  end
  local win = windows()[1]
  if not win then
    local chat = require('handrail.chat')
    local chat_win = chat.open()
    local height = chat.config.input_height or 5
    win = api.nvim_open_win(state.buf, true, { split = 'below', win = chat_win, height = height })
    vim.wo[win].winfixheight = true
    vim.wo[win].wrap = true
    vim.wo[win].statusline = ' handrail prompt   <C-s> send · <Up>/<Down> history · @file @mcp /prompt: <C-x><C-o>'
  end
  api.nvim_set_current_win(win)
  vim.cmd.startinsert({ bang = true })
end

--- Close the input's windows (its text stays for the next open).
function M.close()
  for _, win in ipairs(windows()) do
    if #api.nvim_tabpage_list_wins(0) > 1 then
      pcall(api.nvim_win_close, win, false)
    end
  end
end

return M
