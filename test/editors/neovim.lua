-- Drives the apacheconf language server from headless Neovim (0.7 API, newer
-- versions work too), the way an Neovim user's config would. Run by
-- test/editors/neovim.test.ts:
--   SERVER=dist/server.js UNCLOSED=a.conf ACCESS=b.conf \
--   nvim --headless -u NONE -i NONE -n -c 'luafile test/editors/neovim.lua'
-- Prints one line `RESULT {json}` and quits (exit 0), or `cquit`s with a
-- message on stderr when a step cannot continue. Every wait is vim.wait on a
-- condition; nothing sleeps.

local function env(name)
  local v = os.getenv(name)
  if not v or v == '' then
    io.stderr:write('missing environment variable ' .. name .. '\n')
    vim.cmd('cquit 3')
  end
  return v
end

local server = env('SERVER')
local unclosed_path = env('UNCLOSED')
local access_path = env('ACCESS')
local wait_ms = tonumber(os.getenv('WAIT_MS') or '') or 20000

local encode = (vim.json and vim.json.encode) or vim.fn.json_encode
local result = {}

local function fail(step, detail)
  result.failed = step
  result.detail = detail
  io.stdout:write('\nRESULT ' .. encode(result) .. '\n')
  io.stdout:flush()
  vim.cmd('cquit 1')
end

-- Raw publishDiagnostics by uri: what the server sent, before Neovim's own handling.
local published = {}

local function open(path)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = 'apacheconf'
  return buf, vim.uri_from_bufnr(buf)
end

local config = {
  name = 'apacheconf',
  cmd = { 'node', server, '--stdio' },
  root_dir = vim.fn.fnamemodify(access_path, ':h'),
  settings = { apacheconf = { validate = { debounceMs = 50 } } },
  handlers = {
    ['textDocument/publishDiagnostics'] = function(err, res, ctx, cfg)
      published[res.uri] = res.diagnostics
      return vim.lsp.handlers['textDocument/publishDiagnostics'](err, res, ctx, cfg)
    end,
  },
}

local client_id
local function attach(buf)
  if vim.lsp.start then
    -- Neovim 0.8+: one call finds or starts the client and attaches the buffer.
    client_id = vim.lsp.start(config, { bufnr = buf })
  else
    client_id = client_id or vim.lsp.start_client(config)
    vim.lsp.buf_attach_client(buf, client_id)
  end
  if not client_id then fail('start', 'the language client did not start') end
end

local function codes(uri)
  local out = {}
  for _, d in ipairs(published[uri] or {}) do table.insert(out, tostring(d.code)) end
  return out
end

local function has_code(uri, code)
  for _, c in ipairs(codes(uri)) do
    if c == code then return true end
  end
  return false
end

local function request(buf, method, params)
  local responses, err = vim.lsp.buf_request_sync(buf, method, params, wait_ms)
  if not responses then fail(method, tostring(err)) end
  for _, r in pairs(responses) do
    if r.err then fail(method, vim.inspect(r.err)) end
    return r.result
  end
  return nil
end

-- 1. An unclosed <Directory>: a `syntax` diagnostic, hover and completion.
local ubuf, uuri = open(unclosed_path)
attach(ubuf)
if not vim.wait(wait_ms, function() return has_code(uuri, 'syntax') end, 10) then
  fail('diagnostics (unclosed)', codes(uuri))
end
result.unclosed = { codes = codes(uuri) }

-- Hover on the word Require (line 2).
local hover = request(ubuf, 'textDocument/hover', { textDocument = { uri = uuri }, position = { line = 1, character = 6 } })
result.hover = hover and hover.contents and (hover.contents.value or hover.contents) or vim.NIL

-- Completion on a half-typed directive (line 3 is `    AllowOverr`).
local completion = request(ubuf, 'textDocument/completion', { textDocument = { uri = uuri }, position = { line = 2, character = 14 } })
local items = completion and (completion.items or completion) or {}
-- Keep what an editor would show for the typed prefix (the server sends every name valid there).
local typed = vim.api.nvim_buf_get_lines(ubuf, 2, 3, false)[1]:match('(%S+)$') or ''
result.completion = {}
result.completion_total = #items
for _, item in ipairs(items) do
  if item.label:sub(1, #typed) == typed then table.insert(result.completion, item.label) end
end

-- 2. A 2.2 access block: legacy-access, a quick fix, formatting, write.
local abuf, auri = open(access_path)
attach(abuf)
if not vim.wait(wait_ms, function() return has_code(auri, 'legacy-access') end, 10) then
  fail('diagnostics (access)', codes(auri))
end
result.access = { codes = codes(auri) }

local target
for _, d in ipairs(published[auri]) do
  if tostring(d.code) == 'legacy-access' then target = d break end
end
local actions = request(abuf, 'textDocument/codeAction', {
  textDocument = { uri = auri },
  range = target.range,
  context = { diagnostics = { target } },
}) or {}
result.actions = {}
local chosen
for _, a in ipairs(actions) do
  table.insert(result.actions, a.title)
  if a.isPreferred and a.edit and not chosen then chosen = a end
end
if not chosen then fail('codeAction', result.actions) end
vim.lsp.util.apply_workspace_edit(chosen.edit, 'utf-16')
result.applied = chosen.title

-- The edit reaches the server as didChange; wait until its diagnostics no longer name legacy-access.
local version_after_fix = vim.lsp.util.buf_versions[abuf]
if not vim.wait(wait_ms, function() return published[auri] ~= nil and not has_code(auri, 'legacy-access') end, 10) then
  fail('diagnostics after the fix', codes(auri))
end
result.after_fix = { codes = codes(auri), version = version_after_fix }

local edits = request(abuf, 'textDocument/formatting', {
  textDocument = { uri = auri },
  options = { tabSize = 4, insertSpaces = true },
}) or {}
vim.lsp.util.apply_text_edits(edits, abuf, 'utf-16')
result.format_edits = #edits

vim.api.nvim_set_current_buf(abuf)
vim.cmd('silent write')
result.lines = vim.api.nvim_buf_get_lines(abuf, 0, -1, false)

vim.lsp.stop_client(client_id)
io.stdout:write('\nRESULT ' .. encode(result) .. '\n')
io.stdout:flush()
vim.cmd('qall!')
