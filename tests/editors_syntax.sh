#!/bin/sh
# editors_syntax.sh - the syntax files of editors/ highlight one token of
# each class of tests/editors/sample.graft (tests/editors/syntax.cases:
# comment, keyword, op, rule name, operator, number, op class, string,
# constant, type) as tests/editors/vim.expected and emacs.expected say:
# Vim in batch mode (vim -es, editors/vim first on its runtimepath)
# reports the syntax item and highlight group at each, Emacs in batch mode
# (editors/emacs/graft-mode.el) the face, and tests/editors/tmgrammar_test.js
# (node: a tokenizer of TextMate's rules) the scope the VS Code grammar
# gives (vscode.expected).  Then tests/editors/vscode_extension_test.js
# checks the VS Code extension's package.json and its client start-up with
# stand-ins for VS Code's modules.  GRAFT_REGEN=1 rewrites the expected
# files.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
test_tmpdir editors_syntax
fail=0
for editor in vim emacs node; do
    if ! command -v $editor >/dev/null; then
        echo "FAIL: $editor is not installed (Debian: vim-nox, emacs-nox, nodejs)"
        exit 1
    fi
done
SYNTAX_CASES=$src/tests/editors/syntax.cases SYNTAX_OUT=$tmp/vim \
    vim -u NONE -N -es -i NONE --cmd "set rtp^=$src/editors/vim" -c 'filetype on' \
    -c 'syntax on' -c "edit $src/tests/editors/sample.graft" \
    -c "source $src/tests/editors/vim_groups.vim" </dev/null
SYNTAX_SAMPLE=$src/tests/editors/sample.graft SYNTAX_CASES=$src/tests/editors/syntax.cases \
    SYNTAX_OUT=$tmp/emacs emacs --batch -Q -L "$src/editors/emacs" \
    -l "$src/tests/editors/emacs_faces.el" </dev/null 2>"$tmp/emacs.log" ||
    cat "$tmp/emacs.log"
node "$src/tests/editors/tmgrammar_test.js" "$src/editors/vscode/syntaxes/graft.tmLanguage.json" \
    "$src/tests/editors/sample.graft" "$src/tests/editors/syntax.cases" >"$tmp/vscode"
for editor in vim emacs vscode; do
    expected=$src/tests/editors/$editor.expected
    [ "${GRAFT_REGEN:-0}" = 1 ] && cp "$tmp/$editor" "$expected"
    if cmp -s "$expected" "$tmp/$editor"; then
        echo "PASS: $editor highlights each token class as tests/editors/$editor.expected"
    else
        echo "FAIL: $editor's highlighting differs from tests/editors/$editor.expected"
        diff "$expected" "$tmp/$editor"
        fail=1
    fi
done
node "$src/tests/editors/vscode_extension_test.js" "$src/editors/vscode" || fail=1
exit $fail
