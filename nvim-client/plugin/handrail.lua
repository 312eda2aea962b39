-- handrail: commands and <Plug> mappings. The LSP client itself is configured by require('handrail').setup({...}).
if vim.g.loaded_handrail then
  return
end
vim.g.loaded_handrail = true

local function handrail()
  return require('handrail')
end

vim.api.nvim_create_user_command('Handrail', function(opts)
  -- :'<,'>Handrail sends the selected lines with their path and range
  local range = opts.range > 0 and { opts.line1, opts.line2 } or nil
  handrail().ask(opts.args, { range = range })
end, { nargs = '*', range = true, desc = 'handrail: ask the agent (continues the current session)' })

vim.api.nvim_create_user_command('HandrailInput', function()
  handrail().input()
end, { nargs = 0, desc = 'handrail: write a prompt in the chat input' })

vim.api.nvim_create_user_command('HandrailCancel', function()
  handrail().cancel()
end, { nargs = 0, desc = "handrail: cancel the current session's turn" })

vim.api.nvim_create_user_command('HandrailNew', function()
  handrail().new_session()
end, { nargs = 0, desc = 'handrail: start a new session' })

vim.api.nvim_create_user_command('HandrailSessions', function()
  handrail().sessions()
end, { nargs = 0, desc = 'handrail: pick a past session and continue it' })

vim.api.nvim_create_user_command('HandrailChat', function()
  handrail().toggle_chat()
end, { nargs = 0, desc = 'handrail: show or hide the chat buffer' })

vim.api.nvim_create_user_command('HandrailMode', function(opts)
  handrail().set_mode(opts.args)
end, {
  nargs = '?',
  desc = "handrail: set the current session's permission mode (no argument: choose one)",
  complete = function(lead)
    return vim.tbl_filter(function(mode)
      return vim.startswith(mode, lead)
    end, require('handrail').MODES)
  end,
})

vim.api.nvim_create_user_command('HandrailPermissions', function()
  handrail().show_permissions()
end, { nargs = 0, desc = 'handrail: show the permission rules in force and the inactive ones' })

vim.api.nvim_create_user_command('HandrailTrust', function()
  handrail().trust_workspace()
end, { nargs = 0, desc = "handrail: trust the workspace folder (Neovim's trust database) and tell handrail" })

vim.api.nvim_create_user_command('HandrailPrompts', function()
  handrail().pick_prompt()
end, { nargs = 0, desc = "handrail: run an MCP server's prompt (choose it, then give its arguments)" })

vim.api.nvim_create_user_command('HandrailMcp', function()
  handrail().mcp_status()
end, { nargs = 0, desc = 'handrail: the MCP servers, their state, and approve / restart / sign in / sign out' })

-- <Plug> mappings (see :help handrail-mappings); handrail maps no keys of its own outside its windows.
local plug = {
  { 'n', '<Plug>(handrail-input)', '<Cmd>HandrailInput<CR>', 'write a prompt' },
  { 'x', '<Plug>(handrail-ask-selection)', ':Handrail<Space>', 'ask about the selection' },
  { 'n', '<Plug>(handrail-chat)', '<Cmd>HandrailChat<CR>', 'show or hide the chat' },
  { 'n', '<Plug>(handrail-cancel)', '<Cmd>HandrailCancel<CR>', 'cancel the turn' },
  { 'n', '<Plug>(handrail-new)', '<Cmd>HandrailNew<CR>', 'new session' },
  { 'n', '<Plug>(handrail-sessions)', '<Cmd>HandrailSessions<CR>', 'continue a past session' },
  { 'n', '<Plug>(handrail-mode)', '<Cmd>HandrailMode<CR>', 'choose the permission mode' },
  { 'n', '<Plug>(handrail-prompts)', '<Cmd>HandrailPrompts<CR>', 'run an MCP prompt' },
  { 'n', '<Plug>(handrail-mcp)', '<Cmd>HandrailMcp<CR>', 'MCP servers' },
}
for _, m in ipairs(plug) do
  vim.keymap.set(m[1], m[2], m[3], { desc = 'handrail: ' .. m[4] })
end
