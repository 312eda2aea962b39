-- Diagnostics forwarding: whenever a buffer's diagnostics change (from any language server or
-- linter), send its full current set to handrail as `handrail/diagnostics`, with the document
-- version the server knows the buffer by, so the agent learns about errors its edits caused.
local api = vim.api

local M = {}

local group = api.nvim_create_augroup('handrail.diagnostics', { clear = true })

--- An LSP Diagnostic for one vim.diagnostic item (0-based lines; columns as Neovim counts them).
local function to_lsp(d)
  local item = {
    range = {
      start = { line = d.lnum, character = d.col or 0 },
      ['end'] = { line = d.end_lnum or d.lnum, character = d.end_col or d.col or 0 },
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
function M.send(buf, name)
  if not api.nvim_buf_is_valid(buf) then
    return
  end
  local clients = vim.lsp.get_clients({ bufnr = buf, name = name })
  if #clients == 0 then
    return
  end
  local items = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(items, to_lsp(d))
  end
  local version = vim.lsp.util.buf_versions[buf]
  local params = {
    uri = vim.uri_from_bufnr(buf),
    version = type(version) == 'number' and version or vim.NIL,
    diagnostics = items,
  }
  for _, client in ipairs(clients) do
    client:notify('handrail/diagnostics', params)
  end
end

--- Forward every change from now on (and the current diagnostics of a buffer as handrail attaches).
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
