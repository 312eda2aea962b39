-- (a) Plain LSP, no plugin: the README's snippet; prompts answered through window/showMessageRequest.
local H = dofile(vim.env.HARNESS)
local R = H.R
R.asked = {}

-- the README's snippet, verbatim: vim.lsp.config + vim.lsp.enable + an :Ask command
dofile(vim.env.README_SNIPPET)
vim.lsp.config('handrail', { -- merged into the snippet's config
  handlers = {
    -- the default asks with vim.ui.select/inputlist, which waits for a keyboard in headless mode
    ['window/showMessageRequest'] = function(_, params)
      local titles = {}
      for _, action in ipairs(params.actions or {}) do
        table.insert(titles, action.title)
      end
      table.insert(R.asked, { message = params.message, actions = titles })
      for _, action in ipairs(params.actions or {}) do
        if action.title == vim.env.ANSWER then
          return action
        end
      end
      return vim.NIL
    end,
  },
})

H.run(function()
  local path = vim.env.WORK_DIR .. '/app.py'
  local buf, client = H.open(path)
  R.root_dir = client.config.root_dir
  H.stage('ask')
  local done, result, err = false, nil, nil
  client:exec_cmd(
    { title = 'ask', command = 'handrail.ask', arguments = { { prompt = 'Capitalise the greeting' } } },
    { bufnr = buf },
    function(e, r)
      done, result, err = true, r, e
    end
  )
  H.wait(8000, function()
    return done
  end, 'handrail.ask')
  R.result, R.err = result, err
  R.buffer = H.lines(buf)
  R.modified = vim.bo[buf].modified
  R.disk = H.disk(path)

  H.stage('README :Ask')
  vim.cmd('Ask Say hi')
  H.wait(8000, function()
    return vim.fn.execute('messages'):find('Hi from handrail.', 1, true) ~= nil
  end, ':Ask to print the answer')
end)
