-- Workspace trust, taken from Neovim's own trust database (the one `:trust` and 'exrc' use).
--
-- A workspace is trusted when every one of its folders is trusted as a *directory* in
-- $XDG_STATE_HOME/nvim/trust (a line `directory <realpath>`). Directory trust is by name, not
-- content, and not recursive (a subfolder of a trusted folder is not trusted), as in
-- vim.secure. A denied folder (`! <realpath>`) is untrusted. The database is only read here:
-- vim.secure.read() would prompt. Granting goes through vim.secure.trust().
local M = {}

--- The trust database: realpath -> sha256 of a file's content, 'directory', or '!' (denied).
---@return table<string, string>
function M.database()
  local db = {}
  local f = io.open(vim.fn.stdpath('state') .. '/trust', 'r')
  if not f then
    return db
  end
  local contents = f:read('*a') or ''
  f:close()
  -- the same parsing as vim.secure's read_trust(): "<hash> <path>" per line, the last one wins
  for line in vim.gsplit(contents, '\n') do
    local hash, file = string.match(line, '^(%S+) (.+)$')
    if hash and file then
      db[file] = hash
    end
  end
  return db
end

local function realpath(path)
  return path and vim.uv.fs_realpath(vim.fs.normalize(path)) or nil
end

--- Whether the folder `dir` is trusted (as a directory, by name) in Neovim's trust database.
---@param dir string
---@param db table<string, string>? the database (read when nil)
---@return boolean
function M.is_trusted(dir, db)
  local real = realpath(dir)
  if not real or vim.fn.isdirectory(real) == 0 then
    return false
  end
  return (db or M.database())[real] == 'directory'
end

--- The folders of a workspace: the LSP workspace folders, else the root.
---@param folders lsp.WorkspaceFolder[]?
---@param root string?
---@return string[]
function M.folders(folders, root)
  local dirs = {}
  for _, folder in ipairs(type(folders) == 'table' and folders or {}) do
    table.insert(dirs, vim.uri_to_fname(folder.uri))
  end
  if #dirs == 0 and type(root) == 'string' then
    dirs = { root }
  end
  return dirs
end

--- Whether every folder in `dirs` is trusted (false when there is none).
---@param dirs string[]
---@return boolean
function M.all_trusted(dirs)
  if #dirs == 0 then
    return false
  end
  local db = M.database()
  for _, dir in ipairs(dirs) do
    if not M.is_trusted(dir, db) then
      return false
    end
  end
  return true
end

--- Trust the folder `dir` in Neovim's trust database, with vim.secure.trust().
--- vim.secure.trust() refuses `path` with action 'allow' (only a buffer may be allowed), so the
--- folder is given as a buffer named after it; a folder's "hash" is the word 'directory'.
---@return boolean ok, string message the realpath, or why it failed
function M.allow(dir)
  local real = realpath(dir)
  if not real or vim.fn.isdirectory(real) == 0 then
    return false, 'not a folder: ' .. tostring(dir)
  end
  local existed = vim.fn.bufexists(real) == 1
  local buf = vim.fn.bufadd(real) -- not loaded: nothing is read, no netrw
  local ok, done, msg = pcall(vim.secure.trust, { action = 'allow', bufnr = buf })
  if not existed and vim.api.nvim_buf_is_valid(buf) then
    pcall(vim.api.nvim_buf_delete, buf, { force = true })
  end
  if not ok then
    return false, tostring(done)
  end
  return done, msg
end

return M
