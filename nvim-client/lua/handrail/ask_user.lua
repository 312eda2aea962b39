-- `handrail/askUser`: the agent's multiple-choice questions, asked with vim.ui.select (several
-- answers by picking again until "Done"; "Other…" takes free text through vim.ui.input).
local prompts = require('handrail.prompts')

local M = {}

local OTHER = 'Other…'
local DONE = 'Done'

local function label_of(item)
  if item.description and item.description ~= '' then
    return item.label .. ' — ' .. item.description
  end
  return item.label
end

local function prompt_of(question, chosen)
  local text = '[' .. (question.header or '?') .. '] ' .. (question.question or '')
  if chosen and #chosen > 0 then
    text = text .. ' (chosen: ' .. table.concat(chosen, ', ') .. ')'
  end
  return (text:gsub('\n', ' '))
end

--- Ask one question; `done(answer)` gets the answer text, or nil when the user dismissed it.
local function ask_one(question, done)
  local chosen = {}
  local function pick()
    local items = {}
    for _, option in ipairs(question.options or {}) do
      if not vim.tbl_contains(chosen, option.label) then
        table.insert(items, { label = option.label, description = option.description })
      end
    end
    table.insert(items, { label = OTHER, other = true })
    if question.multiSelect and #chosen > 0 then
      table.insert(items, { label = DONE, done = true })
    end
    vim.ui.select(items, {
      prompt = prompt_of(question, chosen),
      kind = 'handrail.askUser',
      format_item = label_of,
    }, function(choice)
      if not choice then
        return done(nil)
      end
      if choice.done then
        return done(table.concat(chosen, ', '))
      end
      if choice.other then
        return vim.schedule(function()
          vim.ui.input({ prompt = (question.question or '') .. ' ' }, function(text)
            if not text or vim.trim(text) == '' then
              return done(nil)
            end
            table.insert(chosen, vim.trim(text))
            done(table.concat(chosen, ', '))
          end)
        end)
      end
      table.insert(chosen, choice.label)
      if not question.multiSelect then
        return done(choice.label)
      end
      vim.schedule(pick)
    end)
  end
  pick()
end

--- Ask the questions one after the other; `done(answers)` gets { [question] = answer }, or nil.
---@param questions table[]
---@param done fun(answers: table<string, string>?)
function M.ask(questions, done)
  local answers = {}
  local function next_question(index)
    local question = questions[index]
    if not question then
      return done(answers)
    end
    ask_one(question, function(answer)
      if not answer then
        return done(nil)
      end
      answers[question.question] = answer
      vim.schedule(function()
        next_question(index + 1)
      end)
    end)
  end
  next_question(1)
end

--- The `handrail/askUser` request handler: { answers = {...} }, or vim.NIL when declined.
---@param params { questions: table[] }
---@return table|vim.NIL
function M.handler(_, params, _)
  local questions = type(params.questions) == 'table' and params.questions or {}
  local answers = prompts.wait(params.toolUseId, {}, function(finish)
    M.ask(questions, finish)
  end)
  if not answers then
    return vim.NIL
  end
  return { answers = answers }
end

return M
