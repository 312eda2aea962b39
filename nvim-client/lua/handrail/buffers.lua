-- Which buffers handrail sees: every loaded file buffer, whatever its filetype.
--
-- Neovim attaches a language server to a buffer when the buffer gets a filetype (vim.lsp.enable runs on
-- FileType), so a file without one, or a buffer loaded before a (re)started server, stays unknown to
-- handrail: the agent would read the disk without the unsaved text and write behind the buffer. The
-- plugin attaches every file buffer to every handrail client, and answers `handrail/shareDocument` (the
-- server asks before it reads or writes a file it has not seen open) by attaching the buffer first.
local api = vim.api

local M = {}

local group = api.nvim_create_augroup('handrail.buffers', { clear = true })

--- Whether `buf` is a loaded buffer of a file (not a scratch, help or terminal buffer).
---@param buf integer
---@return boolean
function M.is_file(buf)
  return api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == '' and api.nvim_buf_get_name(buf) ~= ''
end

--- Attach every loaded file buffer to `client` (each sends didOpen now, or once the client is initialized).
---@param client vim.lsp.Client
function M.attach_all(client)
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if M.is_file(buf) and not client.attached_buffers[buf] then
      vim.lsp.buf_attach_client(buf, client.id)
    end
  end
end

local function same_file(a, b)
  if a == b then
    return true
  end
  local real_a, real_b = vim.uv.fs_realpath(a), vim.uv.fs_realpath(b)
  return real_a ~= nil and real_a == real_b
end

--- The loaded buffer holding the file at `fname` (by name, else by the file it is), if any.
---@param fname string
---@return integer?
function M.find(fname)
  local found = vim.fn.bufnr(fname)
  if found ~= -1 and M.is_file(found) then
    return found
  end
  for _, buf in ipairs(api.nvim_list_bufs()) do
    if M.is_file(buf) and same_file(api.nvim_buf_get_name(buf), fname) then
      return buf
    end
  end
  return nil
end

local MAX_TEXT = 2 * 1024 * 1024 -- larger files are not read for diffs

--- The text of the file at `path` now: its loaded buffer's, else the disk's ('' when it does not exist;
--- nil when it cannot be read, or is larger than 2 MB).
---@param path string
---@return string?
function M.text(path)
  local buf = M.find(path)
  if buf then
    local text = table.concat(api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
    return vim.bo[buf].eol and text .. '\n' or text
  end
  local stat = vim.uv.fs_stat(path)
  if not stat then
    return ''
  end
  if stat.type ~= 'file' or stat.size > MAX_TEXT then
    return nil
  end
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local text = f:read('*a')
  f:close()
  return text
end

--- `handrail/shareDocument {uri}`: attach our buffer of that file, if there is one, before answering (the
--- didOpen goes out first, so the server has the document when it reads the answer).
function M.share_document(_, params, ctx)
  local ok, fname = pcall(vim.uri_to_fname, params and params.uri or '')
  local buf = ok and M.find(fname) or nil
  if not buf then
    return { open = false }
  end
  return { open = vim.lsp.buf_attach_client(buf, ctx.client_id) }
end

--- From now on attach each file buffer as it is read or created to the running handrail clients named
--- `name`, and every loaded file buffer to a handrail client as it first attaches anywhere.
---@param name string
function M.setup(name)
  api.nvim_clear_autocmds({ group = group })
  api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile', 'BufFilePost' }, {
    group = group,
    callback = function(ev)
      if not M.is_file(ev.buf) then
        return
      end
      for _, client in ipairs(vim.lsp.get_clients({ name = name })) do
        if not client.attached_buffers[ev.buf] then
          vim.lsp.buf_attach_client(ev.buf, client.id)
        end
      end
    end,
  })
  local seen = {} ---@type table<integer, true>
  api.nvim_create_autocmd('LspAttach', {
    group = group,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if client and client.name == name and not seen[client.id] then
        seen[client.id] = true
        vim.schedule(function()
          if not client:is_stopped() then
            M.attach_all(client)
          end
        end)
      end
    end,
  })
end

return M
