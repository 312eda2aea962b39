-- (d) The plugin: :HandrailCancel stops a streaming turn; the session goes on afterwards.
-- No file is open: :Handrail starts the language server itself, rooted at the cwd.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

H.run(function()
  H.stage('ask')
  vim.cmd('Handrail Think hard')
  H.wait(8000, function()
    return H.chat_has('Let me think about this.')
  end, 'the partial text in the chat')
  R.running_session = require('handrail').session_id()
  R.root_dir = require('handrail').client(false).config.root_dir
  H.stage('cancel')
  R.first = H.cancel()
  R.chat_after_cancel = require('handrail.chat').lines()
  H.stage('second ask')
  R.second = H.ask('Are you there?')
  R.chat = require('handrail.chat').lines()
end)
