#!/bin/sh
# editors_syntax.sh - the syntax files of editors/ highlight one token of
# each class of tests/editors/sample.graft (tests/editors/syntax.cases:
# comment, keyword, op, rule name, operator, number, op class, string,
# constant, type) as tests/editors/vim.expected says: Vim in batch mode
# (vim -es, editors/vim first on its runtimepath) reports the syntax item
# and highlight group at each.  GRAFT_REGEN=1 rewrites the expected file.
set -u
srcdir=${GRAFT_SRCDIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
if ! command -v vim >/dev/null; then
    echo "FAIL: vim is not installed (Debian: vim-nox)"
    exit 1
fi
SYNTAX_CASES=$srcdir/tests/editors/syntax.cases SYNTAX_OUT=$tmp/vim \
    vim -u NONE -N -es -i NONE --cmd "set rtp^=$srcdir/editors/vim" -c 'filetype on' \
    -c 'syntax on' -c "edit $srcdir/tests/editors/sample.graft" \
    -c "source $srcdir/tests/editors/vim_groups.vim" </dev/null
[ "${GRAFT_REGEN:-0}" = 1 ] && cp "$tmp/vim" "$srcdir/tests/editors/vim.expected"
if cmp -s "$srcdir/tests/editors/vim.expected" "$tmp/vim"; then
    echo "PASS: vim highlights each token class as tests/editors/vim.expected"
else
    echo "FAIL: vim's highlighting differs from tests/editors/vim.expected"
    diff "$srcdir/tests/editors/vim.expected" "$tmp/vim"
    fail=1
fi
exit $fail
