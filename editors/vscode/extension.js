// extension.js - starts `graft lsp` for .graft files through
// vscode-languageclient (the protocol: src/lsp/lsp.h).  The program is the
// setting graft.path, "graft" on PATH by default.  The setting graft.model
// (a model, relative to the workspace) gives each rule's match count as a
// code lens: the client answers the server's workspace/configuration
// request and sends the section graft again when it changes.
'use strict';
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration('graft').get('path', 'graft');
  const server = { command, args: ['lsp'] };
  client = new LanguageClient('graft', 'graft lsp', { run: server, debug: server }, {
    documentSelector: [{ scheme: 'file', language: 'graft' },
                       { scheme: 'untitled', language: 'graft' }],
    synchronize: { configurationSection: 'graft' },
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
