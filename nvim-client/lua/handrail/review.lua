-- The review window: a permission question in a split at the bottom of the editor (it never covers the
-- chat), with what is asked about whole — the diff, the plan, the full command — and one key per answer
-- (listed in its winbar; the rules an "always" adds are shown above the diff).
-- The cursor moves into it (from Normal mode) so the diff can be scrolled at once; it goes back after.
--
--   a  allow once (approve a plan)       A  always allow, for the session (the rules are shown)
--   W  always allow, in this workspace   d  deny (keep planning)        f  deny with feedback
--   <C-c>  cancel the turn               q  deny and close
local api = vim.api

local visible = require('handrail.visible')

local M = {}

local NAME = 'handrail://review'
local ns = api.nvim_create_namespace('handrail.review')

---@class handrail.ReviewChoice
---@field label string
---@field key string? the key answering with it in the review window
---@field answer table? what is sent
---@field feedback boolean? ask for feedback, then deny
---@field cancel_turn boolean? deny and cancel the turn

--- The header: the question, and the choices that add rules with the rules they add (the winbar lists every
--- key), so the diff or command starts within the first lines of a small window.
---@param question string
---@param choices handrail.ReviewChoice[]
---@return string[]
local function header(question, choices)
  local lines = { question }
  for _, choice in ipairs(choices) do
    if choice.key and choice.answer and choice.answer.rules then
      table.insert(lines, string.format('  %-6s %s', choice.key, choice.label))
    end
  end
  table.insert(lines, string.rep('─', 40))
  return lines
end

--- The winbar: every key and what it answers.
---@param choices handrail.ReviewChoice[]
---@return string
local function keys_line(choices)
  local parts = {}
  for _, choice in ipairs(choices) do
    if choice.key then
      local label = choice.answer and choice.answer.rules and (choice.key == 'W' and 'always here' or 'always')
        or choice.label:lower():gsub('…$', '')
      table.insert(parts, choice.key .. ' ' .. label)
    end
  end
  table.insert(parts, 'q deny')
  return ' handrail review: ' .. table.concat(parts, ' · '):gsub('%%', '%%%%')
end

--- What is asked about, whole: the lines and their filetype.
---@param params table
---@return string[], string?
function M.body(params)
  local text, filetype
  if type(params.input) == 'table' and type(params.input.plan) == 'string' then
    text, filetype = params.input.plan, 'markdown'
  elseif type(params.diff) == 'string' and params.diff ~= '' then
    text, filetype = params.diff, 'diff'
  elseif type(params.command) == 'string' then
    text, filetype = '$ ' .. params.command, 'sh'
    if type(params.description) == 'string' and params.description ~= '' then
      text = text .. '\n\n# the model describes it as: ' .. params.description
    end
  else
    text = params.summary or params.tool or ''
  end
  return vim.split((visible.visible(text, true):gsub('\n$', '')), '\n', { plain = true }), filetype
end

--- Open the review of `params`: `choose(choice)` is called once, with the chosen item (nil: closed
--- without an answer). Returns a function that closes the window (and restores the cursor).
---@param params table
---@param question string
---@param choices handrail.ReviewChoice[]
---@param choose fun(choice: handrail.ReviewChoice?)
---@param opts { focus: boolean, height: integer? }
---@return fun()
function M.open(params, question, choices, choose, opts)
  local previous = api.nvim_get_current_win()
  require('handrail.chat').define_highlights()
  local head = header(question, choices)
  local body, filetype = M.body(params)
  local buf = api.nvim_create_buf(false, true)
  pcall(api.nvim_buf_set_name, buf, NAME)
  vim.bo[buf].bufhidden = 'wipe'
  local lines = vim.list_extend(vim.list_extend({}, head), body)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'handrail-review'
  if filetype then
    -- the body highlighted as what it is; the header by handrail's groups on top
    local lang = vim.treesitter.language.get_lang(filetype) or filetype
    if pcall(vim.treesitter.language.add, lang) then
      pcall(function()
        local parser = vim.treesitter.get_parser(buf, lang)
        parser:set_included_regions({ { { #head, 0, #lines, 0 } } })
        vim.treesitter.highlighter.new(parser)
      end)
    end
  end
  if filetype == 'diff' then -- Neovim has no diff parser of its own: colour the lines by their mark
    local groups = { ['+'] = 'HandrailDiffAdd', ['-'] = 'HandrailDiffDelete', ['@'] = 'HandrailDiffHunk' }
    for row = #head, #lines - 1 do
      local line = lines[row + 1]
      local file_header = vim.startswith(line, '+++') or vim.startswith(line, '---')
      local group = file_header and 'HandrailNote' or groups[line:sub(1, 1)]
      if group then
        api.nvim_buf_set_extmark(buf, ns, row, 0, { end_row = row + 1, hl_group = group, hl_eol = true })
      end
    end
  end
  api.nvim_buf_set_extmark(buf, ns, 0, 0, { end_row = 1, hl_group = 'HandrailPrompt', hl_eol = true })
  for row = 1, #head - 2 do -- the key of each rule-adding choice (0-based rows; the separator is the last)
    api.nvim_buf_set_extmark(buf, ns, row, 0, { end_col = math.min(8, #lines[row + 1]), hl_group = 'Special' })
  end
  api.nvim_buf_set_extmark(buf, ns, #head - 1, 0, { end_row = #head, hl_group = 'HandrailNote' })

  local height = opts.height or math.max(6, math.min(#lines, math.floor(vim.o.lines / 2)))
  local win = api.nvim_open_win(buf, false, { split = 'below', win = -1, height = height })
  vim.wo[win].winfixheight = true
  vim.wo[win].wrap = true -- the question and a long command stay whole
  vim.wo[win].number = false
  vim.wo[win].relativenumber = false
  vim.wo[win].signcolumn = 'no'
  vim.wo[win].winbar = keys_line(choices)

  local answered = false
  local function close()
    if api.nvim_win_is_valid(win) then
      pcall(api.nvim_win_close, win, true)
    end
    if api.nvim_get_current_win() ~= previous and api.nvim_win_is_valid(previous) then
      pcall(api.nvim_set_current_win, previous)
    end
  end
  local function answer(choice)
    if answered then
      return
    end
    answered = true
    close()
    choose(choice)
  end
  for _, choice in ipairs(choices) do
    if choice.key then
      vim.keymap.set('n', choice.key, function()
        answer(choice)
      end, { buffer = buf, nowait = true, desc = 'handrail: ' .. choice.label })
    end
  end
  vim.keymap.set('n', 'q', function()
    answer(nil)
  end, { buffer = buf, nowait = true, desc = 'handrail: deny and close' })
  api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    once = true,
    callback = function()
      vim.schedule(function()
        answer(nil) -- closed some other way (:close, :q): no answer, as an <Esc> on a question
      end)
    end,
  })
  if opts.focus and api.nvim_get_mode().mode == 'n' then
    api.nvim_set_current_win(win)
    api.nvim_win_set_cursor(win, { math.min(#head + 1, #lines), 0 })
  end
  return function()
    answered = true
    close()
  end
end

return M
