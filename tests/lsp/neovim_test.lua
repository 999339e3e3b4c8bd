-- neovim_test.lua - drives graft lsp through Neovim's own LSP client
-- (tests/lsp_neovim.sh runs it: nvim --headless -u NONE).  Opens
-- mistakes.graft, waits for its diagnostics, asks for a hover, a
-- completion, a definition, signature help, references and renames, and the formatting of
-- an untidy line, and writes what the client got to the
-- file $LSP_OUT, one line per fact, for the shell test to compare.
local graft, file, out = os.getenv('GRAFT'), os.getenv('LSP_FILE'), os.getenv('LSP_OUT')
local model, lens_file = os.getenv('LSP_MODEL'), os.getenv('LSP_LENS_FILE')
local lines = {}
local function say(fmt, ...) table.insert(lines, string.format(fmt, ...)) end
local function finish(status)
  local f = assert(io.open(out, 'w'))
  f:write(table.concat(lines, '\n'), '\n')
  f:close()
  vim.cmd((status == 0 and 'qall!' or 'cquit! ' .. status))
end

local id = vim.lsp.start_client({
  name = 'graft',
  cmd = { graft, 'lsp', '--no-debounce' },
  root_dir = vim.fn.fnamemodify(file, ':h'),
  init_options = { model = model },
})
if not id then say('start_client failed'); finish(1) end
vim.cmd('edit ' .. vim.fn.fnameescape(file))
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, id)
local client = vim.lsp.get_client_by_id(id)

if not vim.wait(10000, function() return #vim.diagnostic.get(buf) > 0 end, 10) then
  say('no diagnostics within 10 s'); finish(1)
end
local diags = vim.diagnostic.get(buf)
table.sort(diags, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
for _, d in ipairs(diags) do
  say('diagnostic %d:%d-%d:%d severity %d: %s', d.lnum, d.col, d.end_lnum, d.end_col,
      d.severity, d.message)
end

local function at(line, character)
  return { textDocument = { uri = vim.uri_from_bufnr(buf) },
           position = { line = line, character = character } }
end
local function request(method, params)
  local reply, err = client.request_sync(method, params, 10000, buf)
  if not reply then say('%s: no reply (%s)', method, tostring(err)); finish(1) end
  if reply.err then say('%s: error %s', method, reply.err.message); finish(1) end
  return reply.result
end

local hover = request('textDocument/hover', at(3, 6))
say('hover add: %s', (hover.contents.value:gsub('\n', '|')))
local completion = request('textDocument/completion', at(5, 22))
local labels = {}
for i = 1, 3 do labels[i] = completion.items[i].label .. ' (' .. completion.items[i].detail .. ')' end
say('completion in nn.conv2d: %d items, first %s', #completion.items, table.concat(labels, ', '))
local def = request('textDocument/definition', at(2, 10))
say('definition of sq: line %d, character %d-%d, same file %s', def.range.start.line,
    def.range.start.character, def.range['end'].character, tostring(def.uri == vim.uri_from_bufnr(buf)))

-- Signature help at nn.conv2d's second operand: the parameter's text.
local sig = request('textDocument/signatureHelp', at(5, 18))
local param = sig.signatures[1].parameters[sig.activeParameter + 1].label
say('signature help: %s, at %s', sig.signatures[1].label:sub(1, 24),
    sig.signatures[1].label:sub(param[1] + 1, param[2]))

-- References of the macro sq (with its let), then renaming it through the
-- client's own workspace edit; a rename onto an op's name is refused.
local refs = request('textDocument/references',
                     vim.tbl_extend('force', at(2, 10), { context = { includeDeclaration = true } }))
local where = {}
for i, r in ipairs(refs) do where[i] = r.range.start.line .. ':' .. r.range.start.character end
say('references of sq: %s', table.concat(where, ', '))
local edit = request('textDocument/rename', vim.tbl_extend('force', at(2, 10), { newName = 'sq2' }))
vim.lsp.util.apply_workspace_edit(edit, client.offset_encoding)
say('rename sq to sq2: %s', table.concat(vim.api.nvim_buf_get_lines(buf, 1, 3, false), '|'))
local refused = client.request_sync('textDocument/rename',
                                    vim.tbl_extend('force', at(2, 10), { newName = 'add' }), 10000, buf)
say('rename sq2 to add: %s', refused.err and refused.err.message or 'not refused')

-- Formatting: a line made untidy, then the server's edit applied by the client.
vim.api.nvim_buf_set_lines(buf, 2, 3, false, { 'square:=sq2(x)=>x   # squares' })
local edits = request('textDocument/formatting', { textDocument = { uri = vim.uri_from_bufnr(buf) },
                                                   options = { tabSize = 4, insertSpaces = true } })
vim.lsp.util.apply_text_edits(edits, buf, client.offset_encoding)
say('formatting: %d edit, then %s', #edits,
    table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '|'))

-- With the model of init_options: the lenses of a clean rule file (match
-- counts on the model, through Neovim's codelens module), and graft.explain.
vim.cmd('edit ' .. vim.fn.fnameescape(lens_file))
local lens_buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(lens_buf, id)
vim.lsp.codelens.refresh()
if not vim.wait(10000, function() return #vim.lsp.codelens.get(lens_buf) > 0 end, 10) then
  say('no code lenses within 10 s'); finish(1)
end
local titles = {}
for _, l in ipairs(vim.lsp.codelens.get(lens_buf)) do
  table.insert(titles, l.range.start.line .. ': ' .. l.command.title)
end
table.sort(titles)
say('code lenses: %s', table.concat(titles, ', '))
local text = request('workspace/executeCommand', { command = 'graft.explain', arguments = {
  { uri = vim.uri_from_bufnr(lens_buf), rule = 'relu_relu' } } })
local first = text:gsub('\n.*', ''):gsub(vim.pesc(lens_file), 'lens.graft')
say('graft.explain relu_relu: %s', first)
-- A hover on relu_relu's x: where it is bound and the node it matched.
local bound = request('textDocument/hover', { textDocument = { uri = vim.uri_from_bufnr(lens_buf) },
                                               position = { line = 2, character = 29 } })
say('hover x: %s', (bound.contents.value:gsub(vim.pesc(os.getenv('LSP_MODEL')), 'input.relay')
                                         :gsub('\n', '|')))

vim.lsp.stop_client(id)
if not vim.wait(10000, function() return vim.lsp.get_client_by_id(id) == nil end, 10) then
  say('the server did not stop'); finish(1)
end
say('stopped')
finish(0)
