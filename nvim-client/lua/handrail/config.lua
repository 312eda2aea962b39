-- The plugin's options: their defaults, their types, and merging what `setup()` is given.
local M = {}

---@class handrail.ChatConfig
---@field position 'right'|'below' where the chat split opens
---@field size integer? its width (right) or height (below); nil: Neovim's even split
---@field preview_lines integer result lines shown (folded) under a tool call
---@field markdown boolean highlight the chat as markdown with treesitter (when the parser is there)
---@field input_height integer lines of the input window under the chat

---@class handrail.ReviewConfig
---@field ui 'window'|'select' 'window': handrail's review window (keys a/A/W/d/f/<C-c>); 'select': vim.ui.select
---@field focus boolean move the cursor into the review window when it opens (only from Normal mode)
---@field height integer? the review window's height; nil: up to half the screen

---@class handrail.ContextConfig
---@field file boolean tell the agent which file and line the cursor is on
---@field selection boolean send a visual selection (`:'<,'>Handrail`) with its path and lines

---@class handrail.Config
---@field name string the LSP client's name (vim.lsp.config[name])
---@field cmd string[] the server command; best an absolute path to the venv's `handrail`
---@field root_markers string[]
---@field root_dir (string|fun(bufnr: integer, on_dir: fun(dir: string)))? default: root_markers, else the cwd
---@field filetypes string[]? nil: every file
---@field settings table? e.g. { handrail = { model = '...', maxTurns = 20 } } (workspace/configuration)
---@field init_options table?
---@field cmd_env table<string, string>?
---@field enable boolean call vim.lsp.enable(name)
---@field open_chat boolean show the chat when asking
---@field save_autocmds boolean run BufWrite* autocmds when saving an agent's edit (formatters!)
---@field trust boolean workspace trust from Neovim's trust database (false: handrail's own approvals only)
---@field forward_diagnostics boolean send every buffer's diagnostics to handrail
---@field chat handrail.ChatConfig
---@field review handrail.ReviewConfig
---@field context handrail.ContextConfig

---@type handrail.Config
M.defaults = {
  name = 'handrail',
  cmd = { 'handrail', 'lsp' },
  root_markers = { '.git' },
  root_dir = nil,
  filetypes = nil,
  settings = nil,
  init_options = nil,
  cmd_env = nil,
  enable = true,
  open_chat = true,
  save_autocmds = false,
  trust = true,
  forward_diagnostics = true,
  chat = { position = 'right', size = nil, preview_lines = 12, markdown = true, input_height = 5 },
  review = { ui = 'window', focus = true, height = nil },
  context = { file = true, selection = true },
}

--- The options in force (nil before setup()).
---@type handrail.Config?
M.current = nil

local NESTED = { 'chat', 'review', 'context' }

--- Merge `opts` over the defaults (nested tables key by key; lists such as `cmd` are replaced whole).
---@param opts table?
---@return handrail.Config
function M.merge(opts)
  opts = opts or {}
  vim.validate('opts', opts, 'table')
  local config = vim.tbl_extend('force', M.defaults, opts)
  for _, key in ipairs(NESTED) do
    vim.validate('opts.' .. key, opts[key], 'table', true)
    config[key] = vim.tbl_extend('force', M.defaults[key], opts[key] or {})
  end
  vim.validate('opts.cmd', config.cmd, 'table')
  vim.validate('opts.review.ui', config.review.ui, function(v)
    return v == 'window' or v == 'select'
  end, "'window' or 'select'")
  return config
end

--- The environment the server is started with: Neovim's, with `cmd_env` over it.
---@return table<string, string>
function M.server_env()
  local env = vim.fn.environ()
  for key, value in pairs((M.current and M.current.cmd_env) or {}) do
    env[key] = tostring(value)
  end
  return env
end

--- Where the server keeps sessions (`$HANDRAIL_STATE_DIR`, else `$XDG_STATE_HOME/handrail`), as it computes it.
---@return string
function M.state_dir()
  local env = M.server_env()
  if env.HANDRAIL_STATE_DIR and env.HANDRAIL_STATE_DIR ~= '' then
    return env.HANDRAIL_STATE_DIR
  end
  local base = env.XDG_STATE_HOME
  if not base or base == '' then
    base = vim.fs.joinpath(env.HOME or vim.uv.os_homedir() or '~', '.local', 'state')
  end
  return vim.fs.joinpath(base, 'handrail')
end

return M
