-- Diagnostics forwarding: whenever a buffer's diagnostics change (from any language server or
-- linter), send its full current set to handrail as `handrail/diagnostics`, with the document
-- version the server knows the buffer by, so the agent learns about errors its edits caused.
local api = vim.api

local M = {}

local group = api.nvim_create_augroup('handrail.diagnostics', { clear = true })

--- Neovim's byte column `col` on line `row` of `buf` as a character in the client's position encoding.
local function character(buf, row, col, encoding)
  if col == 0 or encoding == 'utf-8' then
    return col
  end
  local line = api.nvim_buf_get_lines(buf, row, row + 1, false)[1]
  if line == nil then
    return col
  end
  return vim.str_utfindex(line, encoding, math.min(col, #line), false)
end

--- An LSP Diagnostic for one vim.diagnostic item (0-based lines; vim.diagnostic counts columns in bytes,
--- the server in the encoding negotiated with the client).
local function to_lsp(buf, d, encoding)
  local end_lnum = d.end_lnum or d.lnum
  local item = {
    range = {
      start = { line = d.lnum, character = character(buf, d.lnum, d.col or 0, encoding) },
      ['end'] = { line = end_lnum, character = character(buf, end_lnum, d.end_col or d.col or 0, encoding) },
    },
    severity = d.severity,
    message = d.message,
    source = d.source,
  }
  if d.code ~= nil then
    item.code = d.code
  end
  return item
end

--- Send `buf`'s diagnostics to every handrail client (named `name`) attached to it.
---@param buf integer
---@param name string
function M.send(buf, name)
  if not api.nvim_buf_is_valid(buf) then
    return
  end
  local clients = vim.lsp.get_clients({ bufnr = buf, name = name })
  if #clients == 0 then
    return
  end
  local found = vim.diagnostic.get(buf)
  local version = vim.lsp.util.buf_versions[buf]
  for _, client in ipairs(clients) do
    local items = {}
    for _, d in ipairs(found) do
      table.insert(items, to_lsp(buf, d, client.offset_encoding or 'utf-16'))
    end
    client:notify('handrail/diagnostics', {
      uri = vim.uri_from_bufnr(buf),
      version = type(version) == 'number' and version or vim.NIL,
      diagnostics = items,
    })
  end
end

--- Forward every change from now on (and the current diagnostics of a buffer as handrail attaches).
---@param name string the handrail client name
function M.setup(name)
  api.nvim_clear_autocmds({ group = group })
  api.nvim_create_autocmd('DiagnosticChanged', {
    group = group,
    callback = function(ev)
      M.send(ev.buf, name)
    end,
  })
  api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if client and client.name == name and #vim.diagnostic.get(ev.buf) > 0 then
        M.send(ev.buf, name)
      end
    end,
  })
end

return M
