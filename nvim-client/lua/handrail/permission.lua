-- `handrail/permission`: ask with vim.ui.select (and vim.ui.input for feedback). The exact command comes
-- first in the question (escaped: control characters and bidi overrides cannot hide part of it), the
-- model's description after it; while the question is open a floating window shows the diff, the plan,
-- or a command too long (or of several lines) for the question, whole.
local api = vim.api
local prompts = require('handrail.prompts')
local protocol = require('handrail.protocol')
local visible = require('handrail.visible')

local M = {}

local pending = {} ---@type table<string, table<integer, true>> floating windows by session id

local close_window = prompts.close_window
local PLAN_TOOL = protocol.tool.plan
local ALLOW, ALWAYS, DENY = protocol.decision.allow, protocol.decision.allow_always, protocol.decision.deny
M.PROMPT_COMMAND_CHARS = 160 -- how much of a command the one-line question shows; the float shows it all

local function command_of(params)
  return type(params.command) == 'string' and params.command or nil
end

--- Whether the question cannot show the whole command (then the float does).
---@param params table a `handrail/permission` request
---@return boolean
function M.command_is_cut(params)
  local command = command_of(params)
  if not command then
    return false
  end
  local shown = visible.visible(command)
  return command:find('\n') ~= nil or visible.cut_middle(shown, M.PROMPT_COMMAND_CHARS) ~= shown
end

--- What the float shows while asking (text, filetype, title), or nil.
local function detail(params)
  if params.tool == PLAN_TOOL and type(params.input) == 'table' and type(params.input.plan) == 'string' then
    return visible.visible(params.input.plan, true), 'markdown', 'the plan to approve'
  end
  if type(params.diff) == 'string' and params.diff ~= '' then
    return visible.visible(params.diff, true), 'diff', visible.visible(params.summary or params.tool or 'change')
  end
  if M.command_is_cut(params) then
    return visible.visible(command_of(params), true), 'sh', 'the full command'
  end
  return nil
end

--- A floating window at the top of the editor with what the question is about; nil when there is nothing to show.
local function show_detail(params)
  local text, filetype, title = detail(params)
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
    title = ' handrail: ' .. title .. ' ',
    title_pos = 'center',
    focusable = true,
    zindex = 60,
  })
  vim.wo[win].wrap = filetype == 'sh' -- a long command wraps, so all of it is on screen
  return win
end

-- Deny this call and cancel the whole turn (closing the question any other way only denies the call).
local CANCEL_TURN = { label = 'Cancel the turn', key = '<C-c>', answer = { decision = DENY }, cancel_turn = true }
-- The review window closed by `q` (or :close): this call is denied, the turn goes on.
local DENY_ONLY = { label = 'Deny', answer = { decision = DENY } }

--- The choices offered for `params`: each has a `label` and the `answer` sent, or `feedback` (ask for
--- it, then deny) or `cancel_turn` (deny, then cancel the session's turn).
---@param params table a `handrail/permission` request
---@return handrail.ReviewChoice[]
function M.choices(params)
  if params.tool == PLAN_TOOL then
    return {
      { label = 'Approve plan', key = 'a', answer = { decision = ALLOW } },
      { label = 'Keep planning', key = 'd', answer = { decision = DENY } },
      { label = 'Keep planning, with feedback…', key = 'f', feedback = true },
      CANCEL_TURN,
    }
  end
  local items = { { label = 'Allow once', key = 'a', answer = { decision = ALLOW } } }
  local rules = {}
  for _, rule in ipairs(type(params.suggestions) == 'table' and params.suggestions or {}) do
    if type(rule) == 'string' and rule ~= '' then
      table.insert(rules, rule)
    end
  end
  -- no suggestion: no rule is safe to offer (a flagged command); the tool's name would allow every call
  if #rules > 0 then
    -- one choice adds every suggested rule: a compound command needs all of them
    local always = 'Always allow ' .. visible.visible(table.concat(rules, ', '))
    table.insert(items, {
      label = always,
      key = 'A',
      answer = { decision = ALWAYS, rules = rules, rule = rules[1], destination = protocol.destination.session },
    })
    table.insert(items, {
      label = always .. ' in this workspace',
      key = 'W',
      answer = { decision = ALWAYS, rules = rules, rule = rules[1], destination = protocol.destination.workspace },
    })
  end
  table.insert(items, { label = 'Deny', key = 'd', answer = { decision = DENY } })
  table.insert(items, { label = 'Deny with feedback…', key = 'f', feedback = true })
  table.insert(items, CANCEL_TURN)
  return items
end

--- The one-line question: the exact command first, then the model's description and the reason.
---@param params table a `handrail/permission` request
---@return string
function M.prompt_text(params)
  if params.tool == PLAN_TOOL then
    return 'handrail has a plan (shown above): approve it to leave plan mode and let it make changes?'
  end
  local text
  local command = command_of(params)
  if command then
    text = string.format('handrail wants to run %s: $ %s', visible.visible(params.tool or 'a tool'),
      visible.cut_middle(visible.visible(command), M.PROMPT_COMMAND_CHARS))
    if type(params.description) == 'string' and params.description ~= '' then
      text = text .. ' — the model describes it as: ' .. visible.visible(params.description)
    end
  else
    text = 'handrail wants to run ' .. visible.visible(params.summary or params.tool or 'a tool')
  end
  if type(params.reason) == 'string' and params.reason ~= '' then
    text = text .. ' (' .. visible.visible(params.reason) .. ')'
  end
  return text
end

--- Answer with `choice`, calling `done` once. nil: the picker was dismissed (<Esc>), which cancels the
--- turn as "Cancel the turn" does (as Claude Code's <Esc> at a prompt); the review window's `q` denies
--- this call only (`DENY_ONLY`).
---@param params table
---@param choice handrail.ReviewChoice?
---@param done fun(answer: table)
local function resolve(params, choice, done)
  choice = choice or CANCEL_TURN
  if choice.cancel_turn then
    -- the cancel goes out before the answer: the turn ends instead of going on without this call
    require('handrail').cancel(params.sessionId)
    return done(choice.answer)
  end
  if not choice.feedback then
    return done(choice.answer)
  end
  vim.schedule(function()
    vim.ui.input({ prompt = 'What should handrail do instead? ' }, function(text)
      local answer = { decision = DENY }
      if text and text ~= '' then
        answer.feedback = text
      end
      done(answer)
    end)
  end)
end

--- Ask with vim.ui.select, calling `done(answer)` exactly once.
local function ask(params, done)
  vim.ui.select(M.choices(params), {
    prompt = M.prompt_text(params),
    kind = 'handrail.permission',
    format_item = function(item)
      return item.label
    end,
  }, function(choice)
    resolve(params, choice, done)
  end)
end

--- Whether questions go to the review window (`review.ui = 'window'`) rather than vim.ui.select.
local function use_review()
  local current = require('handrail.config').current
  return current ~= nil and current.review.ui == 'window'
end

--- Close what is still shown for a session's prompts (its turn ended, e.g. cancelled).
---@param session_id string
function M.close_pending(session_id)
  for win in pairs(pending[session_id] or {}) do
    close_window(win)
  end
  pending[session_id] = nil
end

--- Close every open question (the server exited: nobody waits for the answers).
function M.close_all()
  for session_id in pairs(pending) do
    M.close_pending(session_id)
  end
  prompts.abandon_all()
end

--- The `handrail/permission` request handler. It runs in the coroutine Neovim's RPC layer gives
--- server requests, so it can wait for the user without blocking the editor.
---@param params table
---@return table the answer: { decision, rules?, destination?, feedback? }
function M.handler(_, params, _)
  local session = params.sessionId or ''
  local co, is_main = coroutine.running()
  if use_review() and co and not is_main then
    local current = require('handrail.config').current.review
    local closers = {}
    return prompts.wait(params.toolUseId, closers, function(finish)
      local close = require('handrail.review').open(params, M.prompt_text(params), M.choices(params), function(choice)
        resolve(params, choice or DENY_ONLY, finish)
      end, { focus = current.focus, height = current.height })
      table.insert(closers, close)
      pending[session] = pending[session] or {}
      pending[session][close] = true
    end) or { decision = DENY }
  end
  local win = show_detail(params)
  if win then
    pending[session] = pending[session] or {}
    pending[session][win] = true
  end
  vim.cmd.redraw()
  local answer
  if co and not is_main then
    -- an abandoned prompt (turn cancelled) closes and comes back as nil; the server drops the answer
    answer = prompts.wait(params.toolUseId, { win }, function(finish)
      ask(params, finish)
    end) or { decision = DENY }
  else
    -- no coroutine (older Neovim): a blocking list
    local items = M.choices(params)
    local list = { M.prompt_text(params) }
    for i, item in ipairs(items) do
      table.insert(list, string.format('%d. %s', i, item.label))
    end
    local choice = items[vim.fn.inputlist(list)]
    if choice and choice.feedback then
      local text = vim.fn.input('What should handrail do instead? ')
      answer = { decision = DENY, feedback = text ~= '' and text or nil }
    else
      answer = choice and choice.answer or { decision = DENY }
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
