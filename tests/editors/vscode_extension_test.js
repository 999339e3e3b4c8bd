// vscode_extension_test.js - editors/vscode without VS Code: package.json
// names files that exist and the grammar's scope, and extension.js, loaded
// with stand-ins for the vscode and vscode-languageclient modules, starts
// "graft lsp" (or the program of the graft.path setting) for graft
// documents and stops it on deactivate.  Prints PASS/FAIL lines; exits 1
// on a failure.  Usage: node vscode_extension_test.js EDITORS_VSCODE_DIR
'use strict';
const fs = require('fs');
const path = require('path');
const Module = require('module');
const dir = process.argv[2];
let failed = 0;
function check(what, ok) {
  console.log((ok ? 'PASS: ' : 'FAIL: ') + what);
  if (!ok) failed++;
}

const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
const lang = pkg.contributes.languages[0];
const gram = pkg.contributes.grammars[0];
const grammar = JSON.parse(fs.readFileSync(path.join(dir, gram.path), 'utf8'));
check('package.json: .graft files are the language graft',
      lang.id === 'graft' && lang.extensions.includes('.graft'));
check('package.json: the language configuration exists',
      fs.existsSync(path.join(dir, lang.configuration)));
check('package.json: the grammar is for graft with its scope name',
      gram.language === 'graft' && gram.scopeName === grammar.scopeName);
check('package.json: the extension activates on graft documents',
      pkg.activationEvents.includes('onLanguage:graft') && fs.existsSync(path.join(dir, pkg.main)));

// Stand-ins: the setting graft.path, and a LanguageClient that records.
let setting;
const made = [];
class LanguageClient {
  constructor(id, name, server, options) {
    Object.assign(this, { id, name, server, options, started: false, stopped: false });
    made.push(this);
  }
  start() { this.started = true; return Promise.resolve(); }
  stop() { this.stopped = true; return Promise.resolve(); }
}
const stubs = {
  vscode: { workspace: { getConfiguration: (section) => ({
    get: (key, dflt) => (section === 'graft' && key === 'path' && setting) || dflt }) } },
  'vscode-languageclient/node': { LanguageClient },
};
const load = Module._load;
Module._load = function (request, ...rest) {
  return request in stubs ? stubs[request] : load.call(this, request, ...rest);
};

function run(pathSetting) {
  setting = pathSetting;
  const file = require.resolve(path.resolve(dir, pkg.main));
  delete require.cache[file];
  const ext = require(file);
  const context = { subscriptions: [] };
  ext.activate(context);
  const client = made[made.length - 1];
  ext.deactivate();
  return { client, context };
}

const { client, context } = run(undefined);
check('activate starts "graft lsp"', client && client.started &&
      client.server.run.command === 'graft' && client.server.run.args.join(' ') === 'lsp');
check('the client serves graft documents', client.options.documentSelector
      .some((s) => s.language === 'graft' && s.scheme === 'file'));
check('the client is disposed with the extension', context.subscriptions.includes(client));
check('deactivate stops the server', client.stopped);
const custom = run('/opt/graft/bin/graft').client;
check('graft.path names the program', custom.server.run.command === '/opt/graft/bin/graft');
process.exit(failed ? 1 : 0);
