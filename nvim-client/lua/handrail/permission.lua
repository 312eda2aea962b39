-- `handrail/permission`: ask with vim.ui.select (and vim.ui.input for feedback), showing the diff
-- in a floating window while the question is open.
local api = vim.api
local prompts = require('handrail.prompts')

local M = {}

local pending = {} ---@type table<string, table<integer, true>> diff windows by session id

local close_window = prompts.close_window
local PLAN_TOOL = 'ExitPlanMode' -- plan approval comes as a permission request for this tool

--- A floating window with the diff, at the top of the editor; nil when there is no diff.
local function show_diff(params)
  local text, filetype = params.diff, 'diff'
  if params.tool == PLAN_TOOL and type(params.input) == 'table' then
    text, filetype = params.input.plan, 'markdown' -- the plan to approve
  end
  if type(text) ~= 'string' or text == '' then
    return nil
  end
  local lines = vim.split(text:gsub('\n$', ''), '\n', { plain = true })
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = filetype
  vim.bo[buf].modifiable = false
  local width = 20
  for _, line in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(line))
  end
  width = math.min(width, math.max(20, vim.o.columns - 4))
  local height = math.min(#lines, math.max(3, math.floor(vim.o.lines / 2)))
  local win = api.nvim_open_win(buf, false, {
    relative = 'editor',
    row = 1,
    col = math.max(0, math.floor((vim.o.columns - width) / 2) - 1),
    width = width,
    height = height,
    style = 'minimal',
    border = 'rounded',
    title = ' handrail: ' .. (params.summary or params.tool or 'change') .. ' ',
    title_pos = 'center',
    focusable = true,
    zindex = 60,
  })
  vim.wo[win].wrap = false
  return win
end

--- The choices offered for `params`.
function M.choices(params)
  if params.tool == PLAN_TOOL then
    return {
      { label = 'Approve plan', answer = { decision = 'allow' } },
      { label = 'Keep planning', answer = { decision = 'deny' } },
      { label = 'Keep planning, with feedback…', feedback = true },
    }
  end
  local items = { { label = 'Allow once', answer = { decision = 'allow' } } }
  local rules = params.suggestions
  if type(rules) ~= 'table' or #rules == 0 then
    rules = { params.tool }
  end
  for _, rule in ipairs(rules) do
    if type(rule) == 'string' and rule ~= '' then
      table.insert(items, { label = 'Always allow ' .. rule, answer = { decision = 'allowAlways', rule = rule } })
    end
  end
  table.insert(items, { label = 'Deny', answer = { decision = 'deny' } })
  table.insert(items, { label = 'Deny with feedback…', feedback = true })
  return items
end

local function prompt_text(params)
  if params.tool == PLAN_TOOL then
    return 'handrail has a plan (shown above): approve it to leave plan mode and let it make changes?'
  end
  local text = 'handrail wants to run ' .. (params.summary or params.tool or 'a tool')
  if params.reason and params.reason ~= '' then
    text = text .. ' (' .. params.reason .. ')'
  end
  return (text:gsub('\n', ' '))
end

--- Ask, calling `done(answer)` exactly once.
local function ask(params, done)
  local items = M.choices(params)
  vim.ui.select(items, {
    prompt = prompt_text(params),
    kind = 'handrail.permission',
    format_item = function(item)
      return item.label
    end,
  }, function(choice)
    if not choice then
      return done({ decision = 'deny' })
    end
    if not choice.feedback then
      return done(choice.answer)
    end
    vim.schedule(function()
      vim.ui.input({ prompt = 'What should handrail do instead? ' }, function(text)
        local answer = { decision = 'deny' }
        if text and text ~= '' then
          answer.feedback = text
        end
        done(answer)
      end)
    end)
  end)
end

--- Close what is still shown for a session's prompts (its turn ended, e.g. cancelled).
function M.close_pending(session_id)
  for win in pairs(pending[session_id] or {}) do
    close_window(win)
  end
  pending[session_id] = nil
end

--- The `handrail/permission` request handler. It runs in the coroutine Neovim's RPC layer gives
--- server requests, so it can wait for the user without blocking the editor.
function M.handler(_, params, _)
  local session = params.sessionId or ''
  local win = show_diff(params)
  if win then
    pending[session] = pending[session] or {}
    pending[session][win] = true
  end
  vim.cmd.redraw()
  local co, is_main = coroutine.running()
  local answer
  if co and not is_main then
    -- an abandoned prompt (turn cancelled) closes and comes back as nil; the server drops the answer
    answer = prompts.wait(params.toolUseId, { win }, function(finish)
      ask(params, finish)
    end) or { decision = 'deny' }
  else
    -- no coroutine (older Neovim): a blocking list
    local items = M.choices(params)
    local list = { prompt_text(params) }
    for i, item in ipairs(items) do
      table.insert(list, string.format('%d. %s', i, item.label))
    end
    local choice = items[vim.fn.inputlist(list)]
    if choice and choice.feedback then
      local text = vim.fn.input('What should handrail do instead? ')
      answer = { decision = 'deny', feedback = text ~= '' and text or nil }
    else
      answer = choice and choice.answer or { decision = 'deny' }
    end
  end
  if win then
    close_window(win)
    if pending[session] then
      pending[session][win] = nil
    end
  end
  return answer
end

return M
