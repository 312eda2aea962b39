-- Edits from the agent: `workspace/applyEdit` as its own undo step, and `handrail/saveDocument`.
local api = vim.api

local M = {}

M.config = { save_autocmds = false }

--- What each edited buffer looked like before the agent's last edit, and its changedtick after it.
local before = {} ---@type table<integer, {lines: string[], tick: integer?}>

local function loaded_buffer(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok then
    return nil
  end
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(buf) then
      if vim.uri_from_bufnr(buf) == uri or api.nvim_buf_get_name(buf) == fname then
        return buf
      end
    end
  end
  return nil
end

--- Close the current undo block, so that the next change starts a new one (`:h undo-break`).
--- Without this, a change made from a callback joins the user's last change: one `u` would undo both.
local function break_undo(buf)
  api.nvim_buf_call(buf, function()
    vim.cmd('let &l:undolevels = &l:undolevels')
  end)
end

--- Buffers of files the agent created (`CreateFile` of a file that did not exist): Neovim writes the new
--- file empty and fills the buffer, so an empty disk file is what saving such a buffer replaces.
local created = {} ---@type table<integer, true>

--- The files `edit` creates that do not exist yet.
---@return string[]
local function new_files(edit)
  local fnames = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == 'create' and type(change.uri) == 'string' then
      local ok, fname = pcall(vim.uri_to_fname, change.uri)
      if ok and not vim.uv.fs_stat(fname) then
        table.insert(fnames, fname)
      end
    end
  end
  return fnames
end

local function edited_buffers(edit)
  local bufs = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument and change.edits then
      local buf = loaded_buffer(change.textDocument.uri)
      if buf then
        bufs[buf] = true
      end
    end
  end
  for uri in pairs(edit.changes or {}) do
    local buf = loaded_buffer(uri)
    if buf then
      bufs[buf] = true
    end
  end
  return bufs
end

--- `workspace/applyEdit`: Neovim's own handler, with the edit as one undo step of its own and
--- without its "Workspace edit" message (the chat shows the tool call).
---@param err lsp.ResponseError?
---@param params lsp.ApplyWorkspaceEditParams
---@param ctx lsp.HandlerContext
---@return lsp.ApplyWorkspaceEditResult
function M.apply_edit(err, params, ctx)
  local creates = new_files(params.edit or {})
  local bufs = edited_buffers(params.edit or {})
  for buf in pairs(bufs) do
    before[buf] = { lines = api.nvim_buf_get_lines(buf, 0, -1, false) }
    break_undo(buf)
  end
  local quiet = vim.tbl_extend('force', {}, params)
  quiet.label = nil
  local result = vim.lsp.handlers['workspace/applyEdit'](err, quiet, ctx)
  for buf in pairs(bufs) do
    if api.nvim_buf_is_valid(buf) then
      break_undo(buf)
      before[buf].tick = api.nvim_buf_get_changedtick(buf)
    end
  end
  for _, fname in ipairs(creates) do
    local buf = vim.fn.bufnr(fname)
    if buf ~= -1 and vim.uv.fs_stat(fname) then
      created[buf] = true
    end
  end
  return result
end

local function read_disk(fname)
  local ok, lines = pcall(vim.fn.readfile, fname)
  if not ok then
    return nil
  end
  if #lines == 0 then
    lines = { '' }
  end
  return lines
end

--- Whether writing `buf` replaces only what Neovim knows is on disk: the disk holds the buffer's
--- text, or the text the buffer had before the agent's edit (and nobody changed it since).
local function safe_to_write(buf, fname)
  local disk = read_disk(fname)
  if not disk then
    return false
  end
  if vim.deep_equal(disk, api.nvim_buf_get_lines(buf, 0, -1, false)) then
    return true
  end
  if created[buf] then
    local stat = vim.uv.fs_stat(fname)
    return stat ~= nil and stat.size == 0 -- still the empty file Neovim created for the agent
  end
  local prior = before[buf]
  return prior ~= nil and prior.tick == api.nvim_buf_get_changedtick(buf) and vim.deep_equal(disk, prior.lines)
end

--- `handrail/saveDocument {uri}`: the server asks only after editing a buffer that had no unsaved
--- changes. Write it, unless the disk changed behind Neovim's back (never clobber, never prompt).
---@param params { uri: string }
---@return { saved: boolean }
function M.save_document(_, params, _)
  local buf = params and params.uri and loaded_buffer(params.uri)
  if not buf then
    return { saved = false }
  end
  if not vim.bo[buf].modified then
    return { saved = true }
  end
  local fname = api.nvim_buf_get_name(buf)
  if vim.bo[buf].readonly or vim.bo[buf].buftype ~= '' or vim.fn.filewritable(fname) ~= 1 then
    return { saved = false }
  end
  if not safe_to_write(buf, fname) then
    return { saved = false }
  end
  -- `write!`: the disk holds what we checked above, so skip Neovim's mtime question ("The file has
  -- been changed since reading it!!! Do you really want to write to it?"), which would block.
  local cmd = M.config.save_autocmds and 'silent keepalt write!' or 'silent keepalt noautocmd write!'
  local ok = pcall(api.nvim_buf_call, buf, function()
    vim.cmd(cmd)
  end)
  before[buf], created[buf] = nil, nil
  return { saved = ok and not vim.bo[buf].modified }
end

return M
