#!/bin/sh
# lsp_neovim.sh - graft lsp with a real client: Debian's Neovim (0.7, its
# built-in LSP client, headless) opens tests/lsp/mistakes.graft and
# tests/lsp/neovim_test.lua records the diagnostics, a hover, a completion,
# a definition, signature help, references, renames, a formatting edit,
# and with a model (tests/std/simplify/input.relay) the code lenses of
# tests/lsp/lens.graft, a graft.explain it received and a hover on a
# rule's variable; they must be exactly
# tests/lsp/neovim.expected (GRAFT_REGEN=1 rewrites it).  Needs nvim
# (.ci/run installs neovim); without it the test fails.
set -u
graft=${GRAFT:?}
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
expected=$src/tests/lsp/neovim.expected
test_tmpdir lsp_neovim
if ! command -v nvim >/dev/null; then
    echo "FAIL: nvim is not installed (Debian: neovim)"
    exit 1
fi
cp "$src/tests/lsp/mistakes.graft" "$tmp/"
cp "$src/tests/lsp/lens.graft" "$src/tests/std/simplify/input.relay" "$tmp/"
GRAFT=$graft LSP_FILE=$tmp/mistakes.graft LSP_OUT=$tmp/out LSP_MODEL=$tmp/input.relay \
    LSP_LENS_FILE=$tmp/lens.graft \
    timeout 120 nvim --headless -u NONE -i NONE \
    -c "luafile $src/tests/lsp/neovim_test.lua" </dev/null >"$tmp/log" 2>&1
status=$?
[ "${GRAFT_REGEN:-0}" = 1 ] && cp "$tmp/out" "$expected"
fail=0
if [ $status -eq 0 ]; then echo "PASS: nvim ran the client and quit"; else
    echo "FAIL: nvim exited $status"; cat "$tmp/log"; fail=1; fi
if cmp -s "$expected" "$tmp/out"; then echo "PASS: what Neovim received is $expected"; else
    echo "FAIL: what Neovim received differs from $expected"
    diff "$expected" "$tmp/out"; fail=1; fi
exit $fail
