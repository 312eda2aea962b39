-- Text shown in a prompt, made safe to read (the same rules as the server's permissions/visible.py):
-- control characters, bidi overrides and isolates, zero-width and other format characters, line and
-- paragraph separators are written as escapes (`\u202e`), so nothing hides or turns around the rest of
-- a command; bytes that are not UTF-8 are escaped too. `cut_middle` shortens a text for a one-line
-- prompt and keeps its end, where `| sh` tends to be.
local M = {}

-- Unicode 14 categories Cc, Cf, Zl and Zp (what Python's unicodedata says), as code point ranges
local HIDDEN = {
  { 0x0, 0x1F }, { 0x7F, 0x9F }, { 0xAD, 0xAD }, { 0x600, 0x605 }, { 0x61C, 0x61C }, { 0x6DD, 0x6DD },
  { 0x70F, 0x70F }, { 0x890, 0x891 }, { 0x8E2, 0x8E2 }, { 0x180E, 0x180E }, { 0x200B, 0x200F },
  { 0x2028, 0x202E }, { 0x2060, 0x2064 }, { 0x2066, 0x206F }, { 0xD800, 0xDFFF }, { 0xFEFF, 0xFEFF },
  { 0xFFF9, 0xFFFB }, { 0x110BD, 0x110BD }, { 0x110CD, 0x110CD }, { 0x13430, 0x13438 },
  { 0x1BCA0, 0x1BCA3 }, { 0x1D173, 0x1D17A }, { 0xE0001, 0xE0001 }, { 0xE0020, 0xE007F },
}
local NAMED = { [9] = '\\t', [10] = '\\n', [13] = '\\r' }

local function hidden(code)
  for _, range in ipairs(HIDDEN) do
    if code < range[1] then
      return false
    end
    if code <= range[2] then
      return true
    end
  end
  return false
end

local function escape(code)
  if NAMED[code] then
    return NAMED[code]
  end
  if code < 0x100 then
    return string.format('\\x%02x', code)
  end
  if code < 0x10000 then
    return string.format('\\u%04x', code)
  end
  return string.format('\\U%08x', code)
end

--- The characters of `text`: (code point, its bytes, whether the bytes are not UTF-8) for each.
local function characters(text)
  local out = {}
  local i, n = 1, #text
  while i <= n do
    local first = text:byte(i)
    local size, code = 0, first
    if first < 0x80 then
      size = 1
    elseif first >= 0xC2 and first < 0xE0 then
      size, code = 2, first - 0xC0
    elseif first >= 0xE0 and first < 0xF0 then
      size, code = 3, first - 0xE0
    elseif first >= 0xF0 and first < 0xF5 then
      size, code = 4, first - 0xF0
    end
    for k = 1, size - 1 do
      local byte = text:byte(i + k)
      if not byte or byte < 0x80 or byte > 0xBF then
        size = 0
        break
      end
      code = code * 64 + (byte - 0x80)
    end
    if size == 0 then
      table.insert(out, { first, text:sub(i, i), true })
      i = i + 1
    else
      table.insert(out, { code, text:sub(i, i + size - 1), false })
      i = i + size
    end
  end
  return out
end

--- `text` with every character that could hide or reorder what follows escaped (`keep_newlines` keeps line breaks).
---@param text any
---@param keep_newlines boolean?
---@return string
function M.visible(text, keep_newlines)
  if type(text) ~= 'string' then
    return ''
  end
  if not text:find('[%z\1-\31\127-\255]') then
    return text -- printable ASCII
  end
  local out = {}
  for _, char in ipairs(characters(text)) do
    local code, bytes, broken = char[1], char[2], char[3]
    if broken then
      table.insert(out, string.format('\\x%02x', code))
    elseif keep_newlines and code == 10 then
      table.insert(out, bytes)
    elseif hidden(code) then
      table.insert(out, escape(code))
    else
      table.insert(out, bytes)
    end
  end
  return table.concat(out)
end

--- `text` at most about `limit` characters long, its start and its end kept (the cut is marked).
---@param text string
---@param limit integer
---@return string
function M.cut_middle(text, limit)
  local chars = characters(text)
  if #chars <= limit then
    return text
  end
  local keep = math.max(limit - 40, 20)
  local head = math.floor(keep * 2 / 5)
  local tail = keep - head
  local first, last = {}, {}
  for i = 1, head do
    first[i] = chars[i][2]
  end
  for i = #chars - tail + 1, #chars do
    table.insert(last, chars[i][2])
  end
  local hidden_count = #chars - head - tail
  return string.format('%s …[%d characters not shown]… %s', table.concat(first), hidden_count, table.concat(last))
end

return M
