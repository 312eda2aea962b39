-- The plugin: the server dies (killed) with unsaved text in two buffers, one of them a file without a
-- filetype. The plugin must say so, and the next :Handrail must start a server that has every loaded
-- buffer before any tool runs: the agent reads the unsaved text and edits the buffer, never the disk.
local H = dofile(vim.env.HARNESS)
local R = H.R
H.stub_ui()
H.setup_plugin()

R.notes = {}
local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(R.notes, { msg = msg, level = level })
  return notify(msg, level, opts)
end

H.run(function()
  local work = vim.env.WORK_DIR
  vim.cmd.edit(vim.fn.fnameescape(work .. '/data'))
  local data = vim.api.nvim_get_current_buf()
  vim.cmd('normal! Gotyped in data') -- unsaved
  vim.cmd.write() -- a saved state first, then more unsaved typing below
  vim.cmd('normal! Gounsaved in data')
  local app, client = H.open(work .. '/app.py')
  vim.cmd('normal! Go# my unsaved note')
  H.stage('first ask')
  H.ask('Hello')
  R.first_server = client.id

  H.stage('kill')
  local killed = {}
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    vim.uv.kill(pid, 'sigkill')
    table.insert(killed, pid)
  end
  R.killed = #killed
  H.wait(8000, function()
    return client:is_stopped()
  end, 'the client to notice the exit')
  H.wait(4000, function()
    for _, note in ipairs(R.notes) do
      if note.msg:find('exited', 1, true) then
        return true
      end
    end
    return false
  end, 'the plugin to say the server exited')

  H.stage('second ask')
  H.ask('Use what is in the buffers')
  local now = vim.lsp.get_clients({ name = 'handrail' })
  R.servers_after = #now
  R.attached = {}
  for _, c in ipairs(now) do
    R.attached[#R.attached + 1] = { app = c.attached_buffers[app] == true, data = c.attached_buffers[data] == true }
  end
  R.chat = require('handrail.chat').lines()
  R.app_buffer = H.lines(app)
  R.app_modified = vim.bo[app].modified
  R.app_disk = H.disk(work .. '/app.py')
  R.data_disk = H.disk(work .. '/data')
  vim.cmd('checktime')
end)
