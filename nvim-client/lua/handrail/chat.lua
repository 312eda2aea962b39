-- The chat buffer `handrail://chat`: renders `handrail/chat` notifications as they stream.
--
-- Layout (one block per turn):
--   > the prompt
--     ✻ thinking
--     ┆ the model's thinking, streamed     <- folded (foldexpr on the "  ┆ " prefix)
--   streamed assistant text, appended in place
--     ⋯ Read /path/file.py (running)        <- one line per tool call, updated in place
--     ✓ Edit /path/file.py [allowed once]
--       │ result preview lines             <- folded (foldexpr on the "    │ " prefix)
--     Σ 12k input tokens (10k from the cache, 1.2k written to it) · 450 output · $0.012 · context 6% of 200k
--   ── done ──
local api = vim.api

local M = {}

local NAME = 'handrail://chat'
local PREVIEW_PREFIX = '    │ '
local THINKING_PREFIX = '  ┆ '
-- failures whose fix is this plugin's configuration: say where the key goes
local KEY_FAILURES = { noApiKey = true, apiKey = true }
local KEY_HINT = "set it with require('handrail').setup({ settings = { handrail = { apiKey = '…' } } }), "
  .. 'or ANTHROPIC_API_KEY in the environment Neovim starts in'
local ns = api.nvim_create_namespace('handrail.chat')

M.config = { position = 'right', size = nil, preview_lines = 12 }

local ICON = { running = '⋯', ok = '✓', error = '✗' }
local PERMISSION = {
  allow = 'allowed once',
  allow_always = 'always allowed',
  allowAlways = 'always allowed',
  deny = 'denied',
  cancelled = 'cancelled',
}
local STOP = { end_turn = 'done' }

---@class handrail.ChatTool
---@field mark integer extmark on the tool line
---@field label string
---@field status 'running'|'ok'|'error'
---@field progress string?
---@field permission string?

---@class handrail.ChatTurn
---@field text_end integer? extmark on the last line of the open text block
---@field text_lines integer how many lines the open text block has
---@field thinking_end integer? extmark on the last line of the open thinking block
---@field thinking_lines integer how many lines the open thinking block has (its header included)
---@field tools table<string, handrail.ChatTool>

local state = {
  buf = nil, ---@type integer?
  empty = true,
  turns = {}, ---@type table<string, handrail.ChatTurn>
}

local function define_highlights()
  local links = {
    HandrailPrompt = 'Title',
    HandrailToolRunning = 'DiagnosticWarn',
    HandrailToolOk = 'DiagnosticOk',
    HandrailToolError = 'DiagnosticError',
    HandrailPreview = 'Comment',
    HandrailThinking = 'Comment',
    HandrailUsage = 'NonText',
    HandrailNote = 'NonText',
  }
  for group, target in pairs(links) do
    api.nvim_set_hl(0, group, { link = target, default = true })
  end
end

local function set_syntax(buf)
  api.nvim_buf_call(buf, function()
    vim.cmd([[
      syntax clear
      syntax match HandrailPrompt /^> .*/
      syntax match HandrailToolRunning /^  ⋯ .*/
      syntax match HandrailToolOk /^  ✓ .*/
      syntax match HandrailToolError /^  ✗ .*/
      syntax match HandrailPreview /^    │ .*/
      syntax match HandrailThinking /^  ┆ .*/
      syntax match HandrailThinking /^  ✻ thinking$/
      syntax match HandrailUsage /^  Σ .*/
      syntax match HandrailNote /^── .* ──$/
      syntax match HandrailNote /^  ↻ .*/
    ]])
  end)
end

--- Folds: preview lines and thinking lines (and only they) are at level 1.
function M.foldexpr(lnum)
  local line = vim.fn.getline(lnum or vim.v.lnum)
  return (vim.startswith(line, PREVIEW_PREFIX) or vim.startswith(line, THINKING_PREFIX)) and '1' or '0'
end

function M.foldtext()
  local n = vim.v.foldend - vim.v.foldstart + 1
  if vim.startswith(vim.fn.getline(vim.v.foldstart), THINKING_PREFIX) then
    return string.format('  ▸ %d line%s of thinking', n, n == 1 and '' or 's')
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
end

--- The chat buffer, created on first use.
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
  define_highlights()
  set_syntax(buf)
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

function M.is_visible()
  return #chat_windows() > 0
end

--- Show the chat in a split without moving the cursor there.
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

function M.toggle()
  local wins = chat_windows()
  if #wins == 0 then
    M.open()
    return
  end
  for _, win in ipairs(wins) do
    if #api.nvim_tabpage_list_wins(0) > 1 then
      api.nvim_win_close(win, false)
    end
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
    turn = { tools = {}, text_lines = 0 }
    state.turns[session_id] = turn
  end
  return turn
end

local function close_text(turn)
  turn.text_end, turn.text_lines = nil, 0
  turn.thinking_end, turn.thinking_lines = nil, 0
end

local function tool_line(tool)
  local line = '  ' .. ICON[tool.status] .. ' ' .. tool.label
  if tool.status == 'running' then
    line = line .. ' (running' .. (tool.progress and (': ' .. tool.progress) or '') .. ')'
  end
  if tool.permission then
    line = line .. ' [' .. tool.permission .. ']'
  end
  return line
end

local function render_tool(buf, tool)
  local row = row_of(buf, tool.mark)
  api.nvim_buf_set_lines(buf, row, row + 1, false, { (tool_line(tool):gsub('\n', ' ')) })
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
  tool = { label = shorten(label), status = 'running' }
  close_text(turn)
  tool.mark = mark_at(buf, append(buf, { '' }))
  turn.tools[id] = tool
  render_tool(buf, tool)
  return tool
end

local handlers = {}

function handlers.turnStart(buf, turn, ev)
  close_text(turn)
  turn.tools = {}
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
  append(buf, { '  ↻ retrying: ' .. (ev.reason or 'the model stream failed') })
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
  tool.permission = PERMISSION[ev.decision] or ev.decision
  render_tool(buf, tool)
end

function handlers.mode(buf, turn, ev)
  close_text(turn)
  append(buf, { '  ◆ permission mode: ' .. tostring(ev.mode) })
end

function handlers.toolResult(buf, turn, ev)
  close_text(turn)
  local tool = tool_of(buf, turn, ev.toolUseId, nil, nil)
  tool.status = ev.isError and 'error' or 'ok'
  tool.progress = nil
  render_tool(buf, tool)
  local preview = split_lines((ev.preview or ''):gsub('\n+$', ''))
  if #preview == 1 and preview[1] == '' then
    return
  end
  local max = M.config.preview_lines
  local lines = {}
  for i = 1, math.min(#preview, max) do
    table.insert(lines, PREVIEW_PREFIX .. preview[i])
  end
  if #preview > max then
    table.insert(lines, PREVIEW_PREFIX .. string.format('… %d more lines', #preview - max))
  end
  local row = row_of(buf, tool.mark)
  api.nvim_buf_set_lines(buf, row + 1, row + 1, false, lines)
end

--- A compact token count: 950, 1.2k, 3.4M.
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
function M.input_total(usage)
  return (usage.inputTokens or 0) + (usage.cacheReadTokens or 0) + (usage.cacheWriteTokens or 0)
end

--- How full the context window is, in percent (nil when the server did not say).
function M.context_percent(usage)
  local used, window = tonumber(usage.contextTokens), tonumber(usage.contextWindow)
  if not used or not window or window <= 0 or used <= 0 then
    return nil
  end
  return math.min(100, math.floor(100 * used / window + 0.5))
end

--- One turn's usage as the chat shows it under the turn.
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
    if type(ev.error) == 'table' and KEY_FAILURES[ev.error.kind] then
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
function M.note(text)
  edit(function(buf)
    local lines = {}
    for _, line in ipairs(split_lines(text)) do
      table.insert(lines, '── ' .. line .. ' ──')
    end
    append(buf, lines)
  end)
end

--- The chat's lines (for tests and statuslines).
function M.lines()
  return api.nvim_buf_get_lines(M.buf(), 0, -1, false)
end

return M
