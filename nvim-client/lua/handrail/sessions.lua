-- Past sessions, from the transcripts the server keeps (`<state dir>/sessions/<id>/transcript.jsonl`): a
-- picker (vim.ui.select) newest first, each with its first prompt; the chosen one continues, as the server
-- loads a session's transcript the first time it is asked for an id it does not hold.
local M = {}

---@class handrail.Exchange
---@field prompt string a prompt the user typed
---@field answer string the text the model answered it with

---@class handrail.PastSession
---@field id string
---@field modified integer the transcript's modification time (seconds)
---@field history handrail.Exchange[]

--- The user's typed text in a message (not tool results), or nil.
local function prompt_of(message)
  local content = message.content
  if type(content) == 'string' then
    return content
  end
  local parts = {}
  for _, block in ipairs(type(content) == 'table' and content or {}) do
    if type(block) == 'table' and block.type == 'text' and type(block.text) == 'string' then
      table.insert(parts, block.text)
    end
  end
  return #parts > 0 and table.concat(parts, '\n') or nil
end

--- The prompts and answers of the transcript at `path` (after its last reset, as the server loads it).
---@param path string
---@return handrail.Exchange[]
function M.read(path)
  local ok, lines = pcall(vim.fn.readfile, path)
  local history = {}
  for _, line in ipairs(ok and lines or {}) do
    local parsed, record = pcall(vim.json.decode, line)
    if parsed and type(record) == 'table' then
      if record.type == 'reset' then
        history = {}
      elseif record.type == 'message' and type(record.message) == 'table' then
        local message = record.message
        local text = prompt_of(message)
        if message.role == 'user' and text and vim.trim(text) ~= '' then
          table.insert(history, { prompt = text, answer = '' })
        elseif message.role == 'assistant' and text and #history > 0 then
          local last = history[#history]
          last.answer = last.answer == '' and text or (last.answer .. '\n' .. text)
        end
      end
    end
  end
  return history
end

--- The sessions with a transcript, newest first.
---@return handrail.PastSession[]
function M.list()
  local root = vim.fs.joinpath(require('handrail.config').state_dir(), 'sessions')
  local found = {}
  for name, kind in vim.fs.dir(root) do
    local path = vim.fs.joinpath(root, name, 'transcript.jsonl')
    local stat = kind == 'directory' and vim.uv.fs_stat(path) or nil
    if stat then
      local history = M.read(path)
      if #history > 0 then
        table.insert(found, { id = name, modified = stat.mtime.sec, history = history })
      end
    end
  end
  table.sort(found, function(a, b)
    return a.modified > b.modified
  end)
  return found
end

--- A picker line: when, how many prompts, the first prompt's first line.
---@param session handrail.PastSession
---@return string
function M.label(session)
  local first = vim.split(session.history[1].prompt, '\n', { plain = true })[1]
  local count = #session.history
  return string.format('%s  %d prompt%s  %s', os.date('%Y-%m-%d %H:%M', session.modified), count,
    count == 1 and '' or 's', require('handrail.visible').visible(first))
end

--- Pick a past session; `on_pick(session)` with the chosen one.
---@param on_pick fun(session: handrail.PastSession)
function M.pick(on_pick)
  local sessions = M.list()
  if #sessions == 0 then
    vim.notify('handrail: no past sessions in ' .. require('handrail.config').state_dir(), vim.log.levels.INFO)
    return
  end
  vim.ui.select(sessions, { prompt = 'Continue a handrail session', kind = 'handrail.session', format_item = M.label },
    function(session)
      if session then
        on_pick(session)
      end
    end)
end

return M
