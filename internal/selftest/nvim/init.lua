-- A minimal Neovim (0.7 or later) setup for replaylab's language server,
-- with no plugin: Neovim's built-in LSP client starts `replaylab lsp` for
-- every *.feature buffer. docs/qa.md shows the same for a user's config.
--
-- The editor scenario (features/editor_real.feature, @ECO-3) and its Go
-- test (cmd/replaylab/nvim_test.go) run it headless, through
-- internal/selftest/nvim.go, with
--   REPLAYLAB_BIN   the replaylab binary
--   REPLAYLAB_LSP   (optional) the server's whole command, a JSON array
--   REPLAYLAB_ROOT  the project root (features/, recordings/)
--   REPLAYLAB_OUT   where replaylab_check() writes what the client got
local bin = os.getenv("REPLAYLAB_BIN") or "replaylab"
local cmd = { bin, "lsp", "--quiet" }
if os.getenv("REPLAYLAB_LSP") then
  cmd = vim.fn.json_decode(os.getenv("REPLAYLAB_LSP"))
end
local root = os.getenv("REPLAYLAB_ROOT")
local client_id = nil

vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile" }, {
  pattern = "*.feature",
  callback = function(args)
    if client_id == nil then
      client_id = vim.lsp.start_client({
        name = "replaylab",
        cmd = cmd,
        root_dir = root or vim.fn.getcwd(),
      })
    end
    vim.lsp.buf_attach_client(args.buf, client_id)
  end,
})

-- replaylab_check reads, through the client, the diagnostics of the
-- current buffer, the completion items at the end of line complete_line
-- and the definition at line definition_line, column 10 (1-based lines),
-- writes them as JSON to REPLAYLAB_OUT and quits.
function replaylab_check(complete_line, definition_line)
  local out = { diagnostics = {}, completion = {}, definitions = {} }
  local ok, err = pcall(function()
    local buf = vim.api.nvim_get_current_buf()
    if not vim.wait(60000, function() return #vim.diagnostic.get(buf) > 0 end, 20) then
      error("no diagnostics within 60 s")
    end
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      local code = d.code
      if code == nil and d.user_data and d.user_data.lsp then
        code = d.user_data.lsp.code
      end
      table.insert(out.diagnostics, { line = d.lnum, severity = d.severity, message = d.message, code = code })
    end

    local text = vim.api.nvim_buf_get_lines(buf, complete_line - 1, complete_line, true)[1]
    vim.api.nvim_win_set_cursor(0, { complete_line, #text })
    local res, cerr = vim.lsp.buf_request_sync(buf, "textDocument/completion", vim.lsp.util.make_position_params(), 60000)
    if res == nil then
      error("completion: " .. tostring(cerr))
    end
    for _, r in pairs(res) do
      if r.err then
        error("completion: " .. vim.inspect(r.err))
      end
      local items = r.result and (r.result.items or r.result) or {}
      for _, it in ipairs(items) do
        table.insert(out.completion, { label = it.label, newText = it.textEdit and it.textEdit.newText or it.insertText })
      end
    end

    vim.api.nvim_win_set_cursor(0, { definition_line, 10 })
    res, cerr = vim.lsp.buf_request_sync(buf, "textDocument/definition", vim.lsp.util.make_position_params(), 60000)
    if res == nil then
      error("definition: " .. tostring(cerr))
    end
    for _, r in pairs(res) do
      if r.err then
        error("definition: " .. vim.inspect(r.err))
      end
      local locs = r.result or {}
      if locs.uri then
        locs = { locs }
      end
      for _, l in ipairs(locs) do
        table.insert(out.definitions, { uri = l.uri or l.targetUri, line = (l.range or l.targetSelectionRange).start.line })
      end
    end
  end)
  if not ok then
    out.error = tostring(err)
  end
  local f = assert(io.open(os.getenv("REPLAYLAB_OUT"), "w"))
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd("qa!")
end
