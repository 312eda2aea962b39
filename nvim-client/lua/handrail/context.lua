-- What the editor adds to a prompt: the file and line the cursor is on, a selection with its path and line
-- range, and the files named with `@path`. It goes into the prompt text itself (the chat shows it as sent).
local api = vim.api

local buffers = require('handrail.buffers')
local config = require('handrail.config')

local M = {}

---@class handrail.Selection
---@field first integer first line (1-based)
---@field last integer last line
---@field lines string[]
---@field filetype string

---@class handrail.Context
---@field path string the file's absolute path
---@field line integer the cursor's line (1-based)
---@field selection handrail.Selection?

--- The last window (of this tab page) showing a file: where the user was before the chat or the input.
---@return integer?
function M.file_window()
  local current = api.nvim_get_current_win()
  if buffers.is_file(api.nvim_win_get_buf(current)) then
    return current
  end
  local previous = vim.fn.win_getid(vim.fn.winnr('#'))
  if previous ~= 0 and buffers.is_file(api.nvim_win_get_buf(previous)) then
    return previous
  end
  for _, win in ipairs(api.nvim_tabpage_list_wins(0)) do
    if api.nvim_win_get_config(win).relative == '' and buffers.is_file(api.nvim_win_get_buf(win)) then
      return win
    end
  end
  return nil
end

--- The context of window `win` (default: the current window, else the last file window), with the lines
--- `range` = { first, last } of its buffer as the selection; nil when no file is shown or context is off.
---@param win integer?
---@param range integer[]?
---@return handrail.Context?
function M.capture(win, range)
  local options = config.current and config.current.context or config.defaults.context
  win = win or M.file_window()
  if not win or not api.nvim_win_is_valid(win) then
    return nil
  end
  local buf = api.nvim_win_get_buf(win)
  if not buffers.is_file(buf) then
    return nil
  end
  local ctx = { path = api.nvim_buf_get_name(buf), line = api.nvim_win_get_cursor(win)[1] }
  if range and options.selection then
    local first, last = math.min(range[1], range[2]), math.max(range[1], range[2])
    ctx.selection = {
      first = first,
      last = last,
      lines = api.nvim_buf_get_lines(buf, first - 1, last, false),
      filetype = vim.bo[buf].filetype,
    }
  elseif not options.file then
    return nil
  end
  return ctx
end

--- `path` relative to the working directory when it is under it.
---@param path string
---@return string
function M.relative(path)
  local cwd = vim.fn.getcwd()
  if vim.startswith(path, cwd .. '/') then
    return path:sub(#cwd + 2)
  end
  return path
end

--- The files and folders named with `@path` in `text` (relative to the working directory, or absolute) that
--- exist: { mention, absolute path } each, in order, once.
---@param text string
---@return { [1]: string, [2]: string }[]
function M.mentions(text)
  local found, seen = {}, {}
  for mention in text:gmatch('@([%w%._%-/~]+)') do
    mention = mention:gsub('[.,;:]+$', '')
    local path = vim.fs.normalize(mention)
    if not vim.startswith(path, '/') then
      path = vim.fs.joinpath(vim.fn.getcwd(), path)
    end
    if not seen[mention] and vim.uv.fs_stat(path) then
      seen[mention] = true
      table.insert(found, { mention, path })
    end
  end
  return found
end

--- The prompt as sent: `text`, then the context (cursor or selection) and what each `@path` names.
---@param text string
---@param ctx handrail.Context?
---@return string
function M.prompt(text, ctx)
  local extra = {}
  if ctx and ctx.selection then
    local s = ctx.selection
    local where = s.first == s.last and ('line ' .. s.first) or string.format('lines %d-%d', s.first, s.last)
    table.insert(extra, string.format('Selected in %s, %s:', M.relative(ctx.path), where))
    -- a fence longer than any backtick run in the selection, so the selection cannot close it
    local fence = '```'
    for _, line in ipairs(s.lines) do
      for run in line:gmatch('`+') do
        if #run >= #fence then
          fence = string.rep('`', #run + 1)
        end
      end
    end
    table.insert(extra, fence .. (s.filetype or ''))
    vim.list_extend(extra, s.lines)
    table.insert(extra, fence)
  elseif ctx then
    table.insert(extra, string.format('(In the editor, the cursor is on line %d of %s.)', ctx.line, M.relative(ctx.path)))
  end
  for _, mention in ipairs(M.mentions(text)) do
    table.insert(extra, string.format('(@%s is %s.)', mention[1], mention[2]))
  end
  if #extra == 0 then
    return text
  end
  return text .. '\n\n' .. table.concat(extra, '\n')
end

return M
