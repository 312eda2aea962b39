-- `handrail/elicit`: an MCP server's form, filled in with vim.ui.select and vim.ui.input.
--
-- First the server's message with Fill in / Decline; then one question per field of the requested schema
-- (a choice or a yes/no with vim.ui.select, text and numbers with vim.ui.input, checked and asked again
-- while invalid; an optional field can be skipped); last, what will be sent, with Send / Decline.
-- Dismissing any question (Esc) cancels the form. handrail checks the answer against the schema again.
local prompts = require('handrail.prompts')
local visible = require('handrail.visible')

local M = {}

local FILL, DECLINE, SEND, SKIP, DONE = 'Fill in the form', 'Decline', 'Send', 'Skip', 'Done'
local YES, NO = 'Yes', 'No'

---@class handrail.FormField
---@field name string
---@field title string
---@field kind 'boolean'|'choice'|'choices'|'text'|'number'|'integer'
---@field required boolean
---@field spec table the property's schema
---@field choices { value: string, label: string }[]

---@param spec table
---@return { value: string, label: string }[]
local function choices_of(spec)
  local titled = spec.oneOf or spec.anyOf
  local found = {}
  if type(titled) == 'table' then
    for _, item in ipairs(titled) do
      if type(item) == 'table' and item.const ~= nil then
        table.insert(found, { value = tostring(item.const), label = visible.visible(tostring(item.title or item.const)) })
      end
    end
    return found
  end
  if type(spec.enum) ~= 'table' then
    return found
  end
  local names = type(spec.enumNames) == 'table' and #spec.enumNames == #spec.enum and spec.enumNames or spec.enum
  for index, value in ipairs(spec.enum) do
    table.insert(found, { value = tostring(value), label = visible.visible(tostring(names[index])) })
  end
  return found
end

--- The fields of a requested schema (nil and why for one it cannot show).
---@param schema table
---@return handrail.FormField[]?, string?
function M.fields(schema)
  local properties = type(schema) == 'table' and schema.properties or nil
  if type(properties) ~= 'table' then
    return {}, nil
  end
  local required = {}
  for _, name in ipairs(type(schema.required) == 'table' and schema.required or {}) do
    required[name] = true
  end
  -- JSON objects arrive as Lua tables, their order lost: the required fields first, each group by name
  local names = vim.tbl_keys(properties)
  table.sort(names, function(a, b)
    if (required[a] == true) ~= (required[b] == true) then
      return required[a] == true
    end
    return a < b
  end)
  local fields = {}
  for _, name in ipairs(names) do
    local spec = properties[name]
    if type(spec) ~= 'table' then
      return nil, name .. ' is not a schema'
    end
    local kind = spec.type
    local field = { name = name, title = visible.visible(tostring(spec.title or name)), required = required[name] == true, spec = spec,
      choices = {} }
    if kind == 'boolean' or kind == 'number' or kind == 'integer' then
      field.kind = kind
    elseif kind == 'string' then
      field.choices = choices_of(spec)
      field.kind = #field.choices > 0 and 'choice' or 'text'
    elseif kind == 'array' and type(spec.items) == 'table' and #choices_of(spec.items) > 0 then
      field.kind, field.choices = 'choices', choices_of(spec.items)
    else
      return nil, string.format('%s has the unsupported type %s', name, vim.inspect(kind))
    end
    table.insert(fields, field)
  end
  return fields, nil
end

local FORMATS = {
  email = { '^[^%s@]+@[^%s@]+%.[^%s@]+$', 'an e-mail address' },
  uri = { '^%a[%w+.-]*:%S+$', 'an address such as https://…' },
  date = { '^%d%d%d%d%-%d%d%-%d%d$', 'a date YYYY-MM-DD' },
  ['date-time'] = { '^%d%d%d%d%-%d%d%-%d%dT%d%d:%d%d', 'a date and time YYYY-MM-DDTHH:MM:SSZ' },
}

--- The typed text as the field's value, or nil and what is wrong with it.
---@param field handrail.FormField
---@param text string
---@return any, string?
function M.parse(field, text)
  local spec = field.spec
  if field.kind == 'number' or field.kind == 'integer' then
    local number = tonumber(vim.trim(text))
    if not number then
      return nil, 'not a number'
    end
    if field.kind == 'integer' and number ~= math.floor(number) then
      return nil, 'not a whole number'
    end
    if type(spec.minimum) == 'number' and number < spec.minimum then
      return nil, 'at least ' .. spec.minimum
    end
    if type(spec.maximum) == 'number' and number > spec.maximum then
      return nil, 'at most ' .. spec.maximum
    end
    if field.kind == 'integer' then
      number = math.floor(number)
    end
    return number, nil
  end
  local length = vim.fn.strchars(text)
  if type(spec.minLength) == 'number' and length < spec.minLength then
    return nil, string.format('at least %d characters', spec.minLength)
  end
  if type(spec.maxLength) == 'number' and length > spec.maxLength then
    return nil, string.format('at most %d characters', spec.maxLength)
  end
  local format = FORMATS[spec.format]
  if format and not text:match(format[1]) then
    return nil, 'not ' .. format[2]
  end
  return text, nil
end

--- A field's value as the user reads it (the labels of choices).
---@param field handrail.FormField
local function shown(field, value)
  local labels = {}
  for _, choice in ipairs(field.choices) do
    labels[choice.value] = choice.label
  end
  if type(value) == 'table' then
    value = vim.tbl_map(function(v)
      return labels[v] or v
    end, value)
  elseif labels[value] then
    value = labels[value]
  end
  if type(value) == 'boolean' then
    return value and 'yes' or 'no'
  end
  if type(value) == 'table' then
    return #value > 0 and table.concat(value, ', ') or 'none'
  end
  return tostring(value)
end

---@param field handrail.FormField
local function question(server, field)
  local about = type(field.spec.description) == 'string' and (' — ' .. visible.visible(field.spec.description)) or ''
  return string.format('[%s] %s%s%s', server, field.title, about, field.required and '' or ' (optional)')
end

local SKIPPED, FINISHED = {}, {}

local failed = nil ---@type fun(err: string)? ends the open form when its code fails

--- Run `fn` on the next turn of the loop; an error in it cancels the form (the server is never left waiting).
---@param fn fun()
local function later(fn)
  vim.schedule(function()
    local ok, err = xpcall(fn, debug.traceback)
    if not ok and failed then
      failed(err)
    end
  end)
end

--- Ask one field; `done(value)` (SKIPPED for a skipped optional field), or `done(nil)` when dismissed.
---@param server string
---@param field handrail.FormField
---@param done fun(value: any)
local function ask_field(server, field, done)
  local text = question(server, field)
  local default = field.spec.default
  local function pick(options, prompt, chosen, skippable)
    local items = vim.list_extend({}, options) -- the same tables: their values are compared by identity
    if skippable ~= false and not field.required then
      table.insert(items, { label = SKIP, value = SKIPPED })
    end
    vim.ui.select(items, {
      prompt = prompt,
      kind = 'handrail.elicit',
      format_item = function(item)
        return item.label .. ((default ~= nil and item.value == default) and ' (default)' or '')
      end,
    }, function(item)
      chosen(item)
    end)
  end
  if field.kind == 'boolean' then
    return pick({ { label = YES, value = true }, { label = NO, value = false } }, text, function(item)
      done(item and item.value)
    end)
  end
  if field.kind == 'choice' then
    return pick(field.choices, text, function(item)
      done(item and item.value)
    end)
  end
  if field.kind == 'choices' then
    local chosen = {}
    local low = type(field.spec.minItems) == 'number' and field.spec.minItems or 0
    local high = type(field.spec.maxItems) == 'number' and field.spec.maxItems or nil
    local function more()
      if (high and #chosen >= high) or #chosen == #field.choices then
        return done(chosen)
      end
      local options = vim.tbl_filter(function(choice)
        return not vim.tbl_contains(chosen, choice.value)
      end, field.choices)
      if #chosen >= low and (#chosen > 0 or field.required) then
        table.insert(options, { label = DONE, value = FINISHED })
      end
      local so_far = #chosen > 0 and (' (chosen: ' .. table.concat(chosen, ', ') .. ')') or ''
      local need = low > 0 and string.format(' [pick %d%s]', low, high and ('–' .. high) or ' or more') or ''
      pick(options, text .. need .. so_far, function(item)
        if not item or item.value == SKIPPED then
          return done(item and item.value)
        end
        if item.value == FINISHED then
          return done(chosen)
        end
        table.insert(chosen, item.value)
        later(more)
      end, #chosen == 0)
    end
    return more()
  end
  local function type_it(problem)
    local prompt = (problem and ('✗ ' .. problem .. ' — ') or '') .. text .. ': '
    vim.ui.input({ prompt = prompt, default = default ~= nil and tostring(default) or nil }, function(typed)
      if typed == nil then
        return done(nil)
      end
      if typed == '' then
        if not field.required then
          return done(SKIPPED)
        end
        return later(function()
          type_it('required')
        end)
      end
      local value, why = M.parse(field, typed)
      if why then
        return later(function()
          type_it(why)
        end)
      end
      done(value)
    end)
  end
  type_it(nil)
end

--- Fill in the form: `done({ action, content })`.
---@param params { server: string, message: string, requestedSchema: table }
---@param done fun(answer: table)
function M.ask(params, done)
  -- what the server wrote is shown with anything that could hide or reorder text escaped
  local server = visible.visible(tostring(params.server or '?'))
  local message = visible.cut_middle(visible.visible(tostring(params.message or '')), 2000)
  local fields, problem = M.fields(params.requestedSchema)
  if not fields then
    require('handrail.rpc').notify(string.format("the MCP server '%s' sent a form handrail cannot show (%s); declined",
      server, problem), vim.log.levels.WARN)
    return done({ action = 'decline' })
  end
  local header = string.format("The MCP server '%s' asks: %s", server, message)
  local content = {}
  failed = function(err)
    require('handrail.rpc').notify('the form failed; cancelled it: ' .. err, vim.log.levels.ERROR)
    done({ action = 'cancel' })
  end
  local function confirm()
    local summary = {}
    for _, field in ipairs(fields) do
      if content[field.name] ~= nil then
        table.insert(summary, field.title .. ' = ' .. shown(field, content[field.name]))
      end
    end
    local prompt = string.format("Send to '%s': %s", server, #summary > 0 and table.concat(summary, '; ') or '(nothing)')
    vim.ui.select({ SEND, DECLINE }, { prompt = prompt, kind = 'handrail.elicit' }, function(choice)
      if choice == SEND then
        done({ action = 'accept', content = vim.tbl_isempty(content) and vim.empty_dict() or content })
      else
        done({ action = choice == DECLINE and 'decline' or 'cancel' })
      end
    end)
  end
  local function next_field(index)
    local field = fields[index]
    if not field then
      return confirm()
    end
    ask_field(server, field, function(value)
      if value == nil then
        return done({ action = 'cancel' })
      end
      if value ~= SKIPPED then
        content[field.name] = value
      end
      later(function()
        next_field(index + 1)
      end)
    end)
  end
  local start = #fields > 0 and (FILL .. string.format(' (%d question%s)', #fields, #fields == 1 and '' or 's'))
    or FILL
  vim.ui.select({ start, DECLINE }, { prompt = header, kind = 'handrail.elicit' }, function(choice)
    if choice == DECLINE then
      return done({ action = 'decline' })
    end
    if not choice then
      return done({ action = 'cancel' })
    end
    later(function()
      next_field(1)
    end)
  end)
end

local forms = 0

--- The `handrail/elicit` request handler (runs in the coroutine Neovim gives server requests).
---@param params { server: string, message: string, requestedSchema: table }
---@return table
function M.handler(_, params, _)
  forms = forms + 1
  local answer = prompts.wait('elicit:' .. forms, {}, function(finish)
    M.ask(params or {}, finish)
  end)
  return answer or { action = 'cancel' }
end

return M
