-- Open prompts by tool call: a request handler waits for the user in its coroutine, and a prompt the
-- server abandoned (the turn was cancelled: a `permission` chat event with decision "cancelled")
-- is closed: its windows go away and the handler returns at once (the server drops that answer).
local api = vim.api

local M = {}

local open = {} ---@type table<string, { windows: (integer|fun())[], finish: fun(result: any) }>

--- Close a prompt's window (and wipe its buffer); a function in its place is called instead.
---@param win integer|fun()|nil
local function close_window(win)
  if type(win) == 'function' then
    pcall(win)
    return
  end
  if win and api.nvim_win_is_valid(win) then
    local buf = api.nvim_win_get_buf(win)
    pcall(api.nvim_win_close, win, true)
    if api.nvim_buf_is_valid(buf) then
      pcall(api.nvim_buf_delete, buf, { force = true })
    end
  end
end
M.close_window = close_window

--- Run `start(finish)` for the prompt of `id` and wait (yielding the handler's coroutine) until
--- `finish(result)` is called or the prompt is abandoned (then the result is nil). `windows` are
--- closed when it ends (a function among them is called: it closes what the prompt opened). Must run
--- inside the coroutine Neovim gives server requests.
---@param id string? the tool call's id
---@param windows (integer|fun())[]?
---@param start fun(finish: fun(result: any))
---@return any
function M.wait(id, windows, start)
  local co = coroutine.running()
  local finished = false
  local function finish(result)
    if finished then
      return
    end
    finished = true
    -- resume later: vim.ui.select may call back synchronously, before we yield
    vim.schedule(function()
      coroutine.resume(co, result)
    end)
  end
  id = id or ''
  open[id] = { windows = windows or {}, finish = finish }
  start(finish)
  local result = coroutine.yield()
  for _, win in ipairs(open[id] and open[id].windows or {}) do
    close_window(win)
  end
  open[id] = nil
  return result
end

--- The server gave up on the prompt of `id`: close it.
---@param id string
function M.abandon(id)
  local prompt = open[id]
  if prompt then
    for _, win in ipairs(prompt.windows) do
      close_window(win)
    end
    prompt.windows = {}
    prompt.finish(nil)
  end
end

--- Close every open prompt (the server that asked is gone).
function M.abandon_all()
  for id in pairs(open) do
    M.abandon(id)
  end
end

return M
