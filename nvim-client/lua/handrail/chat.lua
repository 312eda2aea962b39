-- The chat buffer `handrail://chat`: renders `handrail/chat` notifications as they stream.
--
-- Layout (one block per turn; the buffer is highlighted as markdown when the parser is there, and
-- handrail's own lines by a decoration provider on top):
--   > the prompt (and the context sent with it)
--     ✻ thinking
--     ┆ the model's thinking, streamed        <- folded
--   streamed assistant text (markdown), appended in place
--     ⋯ Read src/app.py (running)              <- one line per tool call, updated in place
--     ✓ Edit src/app.py (+1 -1) [allowed once]
--       ┃ @@ -1,2 +1,2 @@                      <- an edit's diff, folded
--     ✓ Bash $ make test
--       │ result preview lines                 <- folded
--     ☑ the todo list, updated in place       <- one block per turn
--     ⧗ background: shell `npm run dev` running
--     Σ 12k input tokens (10k from the cache, 1.2k written to it) · 450 output · $0.012 · context 6% of 200k
--   ── done ──
local api = vim.api

local buffers = require('handrail.buffers')
local protocol = require('handrail.protocol')
local visible = require('handrail.visible')

local M = {}

local NAME = 'handrail://chat'
local PREVIEW_PREFIX = '    │ '
local DIFF_PREFIX = '    ┃ '
local THINKING_PREFIX = '  ┆ '
local KEY_HINT = "set it with require('handrail').setup({ settings = { handrail = { apiKey = '…' } } }), "
  .. 'or ANTHROPIC_API_KEY in the environment Neovim starts in'
local ns = api.nvim_create_namespace('handrail.chat')
local hl_ns = api.nvim_create_namespace('handrail.chat.highlight')

M.config = { position = 'right', size = nil, preview_lines = 12, markdown = true, input_height = 5 }

local ICON = { running = '⋯', ok = '✓', error = '✗' }
local PERMISSION = {
  allow = 'allowed once',
  allow_always = 'always allowed',
  allowAlways = 'always allowed',
  deny = 'denied',
  cancelled = 'cancelled',
}
local PLAN_PERMISSION = { allow = 'approved', deny = 'kept planning', cancelled = 'cancelled' }
local STOP = { end_turn = 'done' }
local TODO_ICON = { completed = '☑', in_progress = '◐', pending = '☐' }

--- Highlight groups (each links to a standard group unless you define it; see :help handrail-highlights).
M.HIGHLIGHTS = {
  HandrailPrompt = 'Title',
  HandrailToolRunning = 'DiagnosticWarn',
  HandrailToolOk = 'DiagnosticOk',
  HandrailToolError = 'DiagnosticError',
  HandrailPreview = 'Comment',
  HandrailDiffAdd = 'Added',
  HandrailDiffDelete = 'Removed',
  HandrailDiffHunk = 'Special',
  HandrailThinking = 'Comment',
  HandrailUsage = 'NonText',
  HandrailNote = 'NonText',
  HandrailMode = 'Special',
  HandrailTodo = 'Normal',
  HandrailTodoActive = 'DiagnosticWarn',
  HandrailTodoDone = 'Comment',
  HandrailBackground = 'DiagnosticInfo',
}

function M.define_highlights()
  for group, target in pairs(M.HIGHLIGHTS) do
    api.nvim_set_hl(0, group, { link = target, default = true })
  end
end

--- Which highlight group a chat line gets from its prefix (nil: the markdown highlighting alone).
---@param line string
---@return string?
function M.line_group(line)
  local first = line:sub(1, 2)
  if first == '> ' then
    return 'HandrailPrompt'
  elseif vim.startswith(line, DIFF_PREFIX) then
    local mark = line:sub(#DIFF_PREFIX + 1, #DIFF_PREFIX + 1)
    return mark == '+' and 'HandrailDiffAdd' or mark == '-' and 'HandrailDiffDelete'
      or mark == '@' and 'HandrailDiffHunk' or 'HandrailPreview'
  elseif vim.startswith(line, PREVIEW_PREFIX) then
    return 'HandrailPreview'
  elseif vim.startswith(line, THINKING_PREFIX) or line == '  ✻ thinking' then
    return 'HandrailThinking'
  elseif vim.startswith(line, '── ') or vim.startswith(line, '  ↻ ') then
    return 'HandrailNote'
  end
  local lead = line:match('^  (%S+) ')
  return ({
    ['⋯'] = 'HandrailToolRunning',
    ['✓'] = 'HandrailToolOk',
    ['✗'] = 'HandrailToolError',
    ['Σ'] = 'HandrailUsage',
    ['◆'] = 'HandrailMode',
    ['☐'] = 'HandrailTodo',
    ['◐'] = 'HandrailTodoActive',
    ['☑'] = 'HandrailTodoDone',
    ['⧗'] = 'HandrailBackground',
  })[lead]
end

---@class handrail.ChatTool
---@field mark integer extmark on the tool line
---@field name string?
---@field label string
---@field status 'running'|'ok'|'error'
---@field progress string?
---@field permission string?
---@field path string? the file an Edit/Write/MultiEdit changes
---@field before string? that file's text when the call started

---@class handrail.ChatBlock
---@field mark integer extmark on the block's first line
---@field lines integer how many lines it has

---@class handrail.ChatTurn
---@field text_end integer? extmark on the last line of the open text block
---@field text_lines integer how many lines the open text block has
---@field thinking_end integer? extmark on the last line of the open thinking block
---@field thinking_lines integer how many lines the open thinking block has (its header included)
---@field tools table<string, handrail.ChatTool>
---@field blocks table<string, handrail.ChatBlock> blocks updated in place: 'todos', 'background'

local state = {
  buf = nil, ---@type integer?
  empty = true,
  turns = {}, ---@type table<string, handrail.ChatTurn>
}

--- Folds: preview, diff and thinking lines (and only they) are at level 1.
---@param lnum integer?
---@return string
function M.foldexpr(lnum)
  local line = vim.fn.getline(lnum or vim.v.lnum)
  return (vim.startswith(line, PREVIEW_PREFIX) or vim.startswith(line, DIFF_PREFIX)
    or vim.startswith(line, THINKING_PREFIX)) and '1' or '0'
end

---@return string
function M.foldtext()
  local n = vim.v.foldend - vim.v.foldstart + 1
  local first = vim.fn.getline(vim.v.foldstart)
  if vim.startswith(first, THINKING_PREFIX) then
    return string.format('  ▸ %d line%s of thinking', n, n == 1 and '' or 's')
  elseif vim.startswith(first, DIFF_PREFIX) then
    return string.format('    ▸ %d line%s of diff (zo opens)', n, n == 1 and '' or 's')
  end
  return string.format('    ▸ %d line%s of output', n, n == 1 and '' or 's')
end

local function set_window_options(win)
  local wo = vim.wo[win][0]
  wo.wrap = true
  wo.linebreak = true
  wo.number = false
  wo.relativenumber = false
  wo.signcolumn = 'no'
  wo.foldmethod = 'expr'
  wo.foldexpr = "v:lua.require'handrail.chat'.foldexpr()"
  wo.foldtext = "v:lua.require'handrail.chat'.foldtext()"
  wo.foldlevel = 0
  wo.foldenable = true
  -- no concealing: markdown would hide `[…]`, `_` and `*` in handrail's own lines (tool calls, commands)
  wo.conceallevel = 0
end

api.nvim_set_decoration_provider(hl_ns, {
  on_win = function(_, _, buf)
    return buf == state.buf
  end,
  on_line = function(_, _, buf, row)
    local line = api.nvim_buf_get_lines(buf, row, row + 1, false)[1]
    local group = line and line ~= '' and M.line_group(line)
    if group then
      api.nvim_buf_set_extmark(buf, hl_ns, row, 0, {
        end_col = #line,
        hl_group = group,
        priority = 200, -- over the markdown highlighting
        ephemeral = true,
      })
    end
  end,
})

--- Highlight `buf` as markdown with treesitter, when enabled and the parser is there.
---@param buf integer
---@return boolean
function M.start_markdown(buf)
  if not M.config.markdown then
    return false
  end
  pcall(vim.treesitter.language.register, 'markdown', { 'handrail', 'handrail-input' })
  return (pcall(vim.treesitter.start, buf, 'markdown'))
end

local function set_keys(buf)
  local function map(lhs, rhs, desc)
    vim.keymap.set('n', lhs, rhs, { buffer = buf, nowait = true, desc = 'handrail: ' .. desc })
  end
  map('q', function()
    M.close()
  end, 'close the chat')
  map('i', function()
    require('handrail').input()
  end, 'write a prompt')
  map('<C-c>', function()
    require('handrail').cancel()
  end, "cancel the session's turn")
end

--- The chat buffer, created on first use.
---@return integer
function M.buf()
  if state.buf and api.nvim_buf_is_valid(state.buf) then
    return state.buf
  end
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_get_name(b) == NAME then
      api.nvim_buf_delete(b, { force = true })
    end
  end
  local buf = api.nvim_create_buf(false, true) -- unlisted scratch: buftype=nofile, noswapfile
  api.nvim_buf_set_name(buf, NAME)
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].undolevels = -1
  vim.bo[buf].filetype = 'handrail'
  vim.bo[buf].modifiable = false
  M.define_highlights()
  M.start_markdown(buf)
  set_keys(buf)
  api.nvim_create_autocmd('BufWinEnter', {
    buffer = buf,
    callback = function()
      set_window_options(api.nvim_get_current_win())
    end,
  })
  state.buf, state.empty, state.turns = buf, true, {}
  return buf
end

--- The windows of the current tab page that show the chat.
local function chat_windows()
  local wins = {}
  if not (state.buf and api.nvim_buf_is_valid(state.buf)) then
    return wins
  end
  for _, win in ipairs(api.nvim_tabpage_list_wins(0)) do
    if api.nvim_win_get_buf(win) == state.buf then
      table.insert(wins, win)
    end
  end
  return wins
end
M.windows = chat_windows

---@return boolean
function M.is_visible()
  return #chat_windows() > 0
end

--- Show the chat in a split without moving the cursor there.
---@return integer win
function M.open()
  local buf = M.buf()
  local wins = chat_windows()
  if #wins > 0 then
    return wins[1]
  end
  local split = M.config.position == 'below' and 'below' or 'right'
  local win_opts = { split = split, win = -1 }
  if M.config.size then
    win_opts[split == 'below' and 'height' or 'width'] = M.config.size
  end
  local win = api.nvim_open_win(buf, false, win_opts)
  set_window_options(win)
  api.nvim_win_set_cursor(win, { api.nvim_buf_line_count(buf), 0 })
  return win
end

--- Close the chat's windows (and the input's) in this tab page, keeping the last window of the tab.
function M.close()
  require('handrail.input').close()
  for _, win in ipairs(chat_windows()) do
    if #api.nvim_tabpage_list_wins(0) > 1 then
      api.nvim_win_close(win, false)
    end
  end
end

function M.toggle()
  if #chat_windows() == 0 then
    M.open()
  else
    M.close()
  end
end

--- Run `fn(buf)` with the buffer modifiable, then keep following windows at the end.
local function edit(fn)
  local buf = M.buf()
  local current = api.nvim_get_current_win()
  local follow = {}
  local count = api.nvim_buf_line_count(buf)
  for _, win in ipairs(chat_windows()) do
    if win ~= current or api.nvim_win_get_cursor(win)[1] >= count then
      table.insert(follow, win)
    end
  end
  vim.bo[buf].modifiable = true
  local ok, err = pcall(fn, buf)
  vim.bo[buf].modifiable = false
  for _, win in ipairs(follow) do
    if api.nvim_win_is_valid(win) then
      pcall(api.nvim_win_set_cursor, win, { api.nvim_buf_line_count(buf), 0 })
    end
  end
  if not ok then
    error(err, 0)
  end
end

--- Append lines at the end; returns the 0-based row of the first one.
local function append(buf, lines)
  if state.empty then
    api.nvim_buf_set_lines(buf, 0, -1, false, lines)
    state.empty = false
    return 0
  end
  local row = api.nvim_buf_line_count(buf)
  api.nvim_buf_set_lines(buf, row, row, false, lines)
  return row
end

local function mark_at(buf, row, id)
  return api.nvim_buf_set_extmark(buf, ns, row, 0, { id = id })
end

local function row_of(buf, id)
  local pos = api.nvim_buf_get_extmark_by_id(buf, ns, id, {})
  return pos[1]
end

local function split_lines(text)
  return vim.split(text or '', '\n', { plain = true })
end

local function turn_of(session_id)
  local turn = state.turns[session_id]
  if not turn then
    turn = { tools = {}, text_lines = 0, blocks = {} }
    state.turns[session_id] = turn
  end
  return turn
end

local function close_text(turn)
  turn.text_end, turn.text_lines = nil, 0
  turn.thinking_end, turn.thinking_lines = nil, 0
end

--- Replace (or first add, at the end) the lines of the turn's block `key`.
local function set_block(buf, turn, key, lines)
  local block = turn.blocks[key]
  if block then
    local row = row_of(buf, block.mark)
    api.nvim_buf_set_lines(buf, row, row + block.lines, false, lines)
    block.mark, block.lines = mark_at(buf, row, block.mark), #lines
    return
  end
  close_text(turn)
  local row = append(buf, lines)
  turn.blocks[key] = { mark = mark_at(buf, row), lines = #lines }
end

local function tool_line(tool)
  local line = '  ' .. ICON[tool.status] .. ' ' .. tool.label
  if tool.status == 'running' then
    line = line .. ' (running' .. (tool.progress and (': ' .. visible.visible(tool.progress)) or '') .. ')'
  end
  if tool.permission then
    line = line .. ' [' .. tool.permission .. ']'
  end
  return line
end

local function render_tool(buf, tool)
  local row = row_of(buf, tool.mark)
  api.nvim_buf_set_lines(buf, row, row + 1, false, { tool_line(tool) })
  tool.mark = mark_at(buf, row, tool.mark)
end

--- Paths under the working directory, relative.
local function shorten(text)
  local cwd = vim.fn.getcwd()
  if cwd == '/' then
    return text
  end
  return (text:gsub(vim.pesc(cwd .. '/'), ''))
end

local function tool_of(buf, turn, id, name, summary)
  local tool = turn.tools[id]
  if tool then
    return tool
  end
  local label = summary ~= nil and summary ~= '' and summary or (name or 'tool')
  if name and name ~= '' and not vim.startswith(label, name) then
    label = name .. ' ' .. label
  end
  tool = { name = name, label = shorten(visible.visible((label:gsub('\n', ' ')))), status = 'running' }
  if name and protocol.tool.file_changers[name] and type(summary) == 'string' then
    tool.path = summary:sub(#name + 2)
    tool.before = buffers.text(tool.path)
  end
  close_text(turn)
  tool.mark = mark_at(buf, append(buf, { '' }))
  turn.tools[id] = tool
  render_tool(buf, tool)
  return tool
end

local handlers = {}

function handlers.turnStart(buf, turn, ev)
  close_text(turn)
  turn.tools, turn.blocks = {}, {}
  local lines = {}
  if not state.empty then
    table.insert(lines, '')
  end
  for _, line in ipairs(split_lines(ev.prompt)) do
    table.insert(lines, '> ' .. line)
  end
  table.insert(lines, '')
  append(buf, lines)
end

function handlers.text(buf, turn, ev)
  local parts = split_lines(ev.text)
  turn.thinking_end, turn.thinking_lines = nil, 0
  if not turn.text_end then
    turn.text_end, turn.text_lines = mark_at(buf, append(buf, { '' })), 1
  end
  local row = row_of(buf, turn.text_end)
  local col = #(api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or '')
  api.nvim_buf_set_text(buf, row, col, row, col, parts)
  turn.text_end = mark_at(buf, row + #parts - 1, turn.text_end)
  turn.text_lines = turn.text_lines + #parts - 1
end

--- The model's thinking: a header line, then the text in folded lines of their own.
function handlers.thinking(buf, turn, ev)
  local parts = split_lines(ev.text)
  turn.text_end, turn.text_lines = nil, 0
  if not turn.thinking_end then
    local row = append(buf, { '  ✻ thinking', THINKING_PREFIX })
    turn.thinking_end, turn.thinking_lines = mark_at(buf, row + 1), 2
  end
  local row = row_of(buf, turn.thinking_end)
  local col = #(api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or '')
  api.nvim_buf_set_text(buf, row, col, row, col, { parts[1] })
  local more = {}
  for i = 2, #parts do
    table.insert(more, THINKING_PREFIX .. parts[i])
  end
  if #more > 0 then
    api.nvim_buf_set_lines(buf, row + 1, row + 1, false, more)
  end
  turn.thinking_end = mark_at(buf, row + #more, turn.thinking_end)
  turn.thinking_lines = turn.thinking_lines + #more
end

function handlers.retry(buf, turn, ev)
  -- the partial message is streamed again from the start: drop what we showed of it
  for _, block in ipairs({ { turn.text_end, turn.text_lines }, { turn.thinking_end, turn.thinking_lines } }) do
    if block[1] then
      local last = row_of(buf, block[1])
      api.nvim_buf_set_lines(buf, last - block[2] + 1, last + 1, false, {})
    end
  end
  close_text(turn)
  append(buf, { '  ↻ retrying: ' .. visible.visible(ev.reason or 'the model stream failed') })
end

function handlers.toolStart(buf, turn, ev)
  tool_of(buf, turn, ev.toolUseId, ev.name, ev.summary)
end

function handlers.toolProgress(buf, turn, ev)
  local tool = tool_of(buf, turn, ev.toolUseId, nil, nil)
  tool.progress = ev.message
  render_tool(buf, tool)
end

function handlers.permission(buf, turn, ev)
  local tool = tool_of(buf, turn, ev.toolUseId, nil, nil)
  local labels = tool.name == protocol.tool.plan and PLAN_PERMISSION or PERMISSION
  tool.permission = labels[ev.decision] or PERMISSION[ev.decision] or ev.decision
  render_tool(buf, tool)
end

function handlers.mode(buf, turn, ev)
  close_text(turn)
  append(buf, { '  ◆ permission mode: ' .. tostring(ev.mode) })
end

--- The unified diff (lines) between two texts, and its added and removed line counts.
---@return string[]?, integer, integer
local function diff_of(before, after)
  if before == nil or after == nil or before == after then
    return nil, 0, 0
  end
  local ok, diff = pcall(vim.diff, before, after, { result_type = 'unified', ctxlen = 2 })
  if not ok or type(diff) ~= 'string' or diff == '' then
    return nil, 0, 0
  end
  local lines = split_lines((diff:gsub('\n$', '')))
  local added, removed = 0, 0
  for _, line in ipairs(lines) do
    local mark = line:sub(1, 1)
    if mark == '+' then
      added = added + 1
    elseif mark == '-' then
      removed = removed + 1
    end
  end
  return lines, added, removed
end

function handlers.toolResult(buf, turn, ev)
  close_text(turn)
  local tool = tool_of(buf, turn, ev.toolUseId, nil, nil)
  tool.status = ev.isError and 'error' or 'ok'
  tool.progress = nil
  local prefix, shown = PREVIEW_PREFIX, split_lines((ev.preview or ''):gsub('\n+$', ''))
  if not ev.isError and tool.path then
    local diff, added, removed = diff_of(tool.before, buffers.text(tool.path))
    if diff then
      tool.label = tool.label .. string.format(' (+%d -%d)', added, removed)
      prefix, shown = DIFF_PREFIX, diff
    end
  end
  render_tool(buf, tool)
  if #shown == 1 and shown[1] == '' then
    return
  end
  local max = prefix == DIFF_PREFIX and math.max(M.config.preview_lines, 200) or M.config.preview_lines
  local lines = {}
  for i = 1, math.min(#shown, max) do
    table.insert(lines, prefix .. visible.visible(shown[i]))
  end
  if #shown > max then
    table.insert(lines, prefix .. string.format('… %d more lines', #shown - max))
  end
  local row = row_of(buf, tool.mark)
  api.nvim_buf_set_lines(buf, row + 1, row + 1, false, lines)
end

--- The task list (TodoWrite), shown once per turn and updated in place.
function handlers.todos(buf, turn, ev)
  local todos = type(ev.todos) == 'table' and ev.todos or {}
  local lines = {}
  for _, todo in ipairs(todos) do
    local status = todo.status or 'pending'
    local text = status == 'in_progress' and todo.activeForm or todo.content
    table.insert(lines, string.format('  %s %s', TODO_ICON[status] or '☐', visible.visible(tostring(text or ''))))
  end
  if #lines == 0 then
    lines = { '  ☐ (the task list is empty)' }
  end
  set_block(buf, turn, 'todos', lines)
end

--- The session's background agents and shells, one line updated in place.
function handlers.background(buf, turn, ev)
  local parts = {}
  for _, task in ipairs(type(ev.tasks) == 'table' and ev.tasks or {}) do
    table.insert(parts, string.format('%s `%s` %s', task.kind or 'task',
      visible.visible(tostring(task.description or task.id or '?')), task.status or ''))
  end
  local line = '  ⧗ background: ' .. (#parts > 0 and table.concat(parts, ' · ') or 'none')
  set_block(buf, turn, 'background', { line })
end

--- A compact token count: 950, 1.2k, 3.4M.
---@param n number?
---@return string
function M.format_tokens(n)
  n = tonumber(n) or 0
  if n < 1000 then
    return tostring(n)
  elseif n < 1000000 then
    return string.format(n < 10000 and '%.1fk' or '%.0fk', n / 1000)
  end
  return string.format('%.1fM', n / 1000000)
end

--- An estimated cost: from ten cents with two decimals, below with two significant figures.
---@param usd number
---@return string
function M.format_cost(usd)
  if usd >= 0.1 then
    return string.format('$%.2f', usd)
  elseif usd == 0 then
    return '$0'
  elseif usd < 0.0001 then
    return '< $0.0001'
  end
  return '$' .. (string.format('%.2g', usd):gsub('0+$', ''))
end

--- Every input token sent: plain input, cache reads and cache writes.
---@param usage table
---@return number
function M.input_total(usage)
  return (usage.inputTokens or 0) + (usage.cacheReadTokens or 0) + (usage.cacheWriteTokens or 0)
end

--- How full the context window is, in percent (nil when the server did not say).
---@param usage table
---@return integer?
function M.context_percent(usage)
  local used, window = tonumber(usage.contextTokens), tonumber(usage.contextWindow)
  if not used or not window or window <= 0 or used <= 0 then
    return nil
  end
  return math.min(100, math.floor(100 * used / window + 0.5))
end

--- One turn's usage as the chat shows it under the turn.
---@param usage table
---@return string
function M.usage_line(usage)
  local read, written = usage.cacheReadTokens or 0, usage.cacheWriteTokens or 0
  local cache = ''
  if read > 0 or written > 0 then
    cache = string.format(' (%s from the cache, %s written to it)', M.format_tokens(read), M.format_tokens(written))
  end
  local parts = {
    M.format_tokens(M.input_total(usage)) .. ' input tokens' .. cache,
    M.format_tokens(usage.outputTokens or 0) .. ' output',
  }
  if type(usage.costUsd) == 'number' then
    table.insert(parts, 'about ' .. M.format_cost(usage.costUsd))
  end
  local percent = M.context_percent(usage)
  if percent then
    table.insert(parts, string.format('context %d%% of %s', percent, M.format_tokens(usage.contextWindow)))
  end
  return table.concat(parts, ' · ')
end

function handlers.turnEnd(buf, turn, ev)
  close_text(turn)
  local lines = {}
  local failure = type(ev.error) == 'table' and ev.error.message or (ev.stopReason == 'error' and ev.text)
  if failure and failure ~= '' then
    for _, line in ipairs(split_lines(failure)) do
      table.insert(lines, '  ✗ ' .. line)
    end
    if type(ev.error) == 'table' and protocol.key_failures[ev.error.kind] then
      table.insert(lines, '  ✗ In Neovim: ' .. KEY_HINT .. '.')
    end
  end
  local usage = type(ev.usage) == 'table' and ev.usage or nil
  if usage and M.input_total(usage) + (usage.outputTokens or 0) > 0 then
    table.insert(lines, '  Σ ' .. M.usage_line(usage))
  end
  table.insert(lines, '── ' .. (STOP[ev.stopReason] or ev.stopReason or 'ended') .. ' ──')
  append(buf, lines)
end

--- Render one `handrail/chat` notification.
---@param ev table a `handrail/chat` notification
function M.on_event(ev)
  local handler = handlers[ev.kind]
  if not handler or not ev.sessionId then
    return
  end
  edit(function(buf)
    handler(buf, turn_of(ev.sessionId), ev)
  end)
end

--- A line from the plugin itself (errors, session changes).
---@param text string
function M.note(text)
  edit(function(buf)
    local lines = {}
    for _, line in ipairs(split_lines(text)) do
      table.insert(lines, '── ' .. line .. ' ──')
    end
    append(buf, lines)
  end)
end

--- The session's turn ended without its `turnEnd` (the server exited): mark what was still running.
---@param session_id string
function M.interrupted(session_id)
  local turn = state.turns[session_id]
  if not turn then
    return
  end
  edit(function(buf)
    for _, tool in pairs(turn.tools) do
      if tool.status == 'running' then
        tool.status, tool.progress, tool.permission = 'error', nil, 'interrupted'
        render_tool(buf, tool)
      end
    end
    close_text(turn)
    append(buf, { '── interrupted ──' })
  end)
end

--- Show a resumed session's earlier prompts and answers (see handrail.sessions).
---@param session handrail.PastSession
function M.show_history(session)
  edit(function(buf)
    local lines = { '── resumed session ' .. session.id .. ' ──' }
    if not state.empty then
      table.insert(lines, 1, '')
    end
    for _, exchange in ipairs(session.history) do
      for _, line in ipairs(split_lines(exchange.prompt)) do
        table.insert(lines, '> ' .. visible.visible(line))
      end
      table.insert(lines, '')
      for _, line in ipairs(split_lines(exchange.answer)) do
        table.insert(lines, visible.visible(line))
      end
      table.insert(lines, '')
    end
    table.insert(lines, '── the next prompt continues this session ──')
    append(buf, lines)
  end)
end

--- The chat's lines (for tests and statuslines).
---@return string[]
function M.lines()
  return api.nvim_buf_get_lines(M.buf(), 0, -1, false)
end

return M
