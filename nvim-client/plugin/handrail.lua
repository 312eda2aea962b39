-- handrail: commands. The LSP client itself is configured by require('handrail').setup({...}).
if vim.g.loaded_handrail then
  return
end
vim.g.loaded_handrail = true

local function handrail()
  return require('handrail')
end

vim.api.nvim_create_user_command('Handrail', function(opts)
  handrail().ask(opts.args)
end, { nargs = '*', desc = 'handrail: ask the agent (continues the current session)' })

vim.api.nvim_create_user_command('HandrailCancel', function()
  handrail().cancel()
end, { nargs = 0, desc = "handrail: cancel the current session's turn" })

vim.api.nvim_create_user_command('HandrailNew', function()
  handrail().new_session()
end, { nargs = 0, desc = 'handrail: start a new session' })

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
