#!/bin/sh
# clean_tree.sh - a build and make check leave nothing in the source tree
# that git would offer to commit: every file they make is either removed
# again or listed in .gitignore.  Runs after every other test of make
# check (Makefile.am orders it last).  Skipped, with the reason, where
# there is no git checkout to ask (a distcheck or tarball tree).
set -u
src=${GRAFT_SRCDIR:?}
command -v git >/dev/null 2>&1 || { echo "SKIP: git is not installed"; exit 77; }
top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)
if [ -z "$top" ] || [ ! "$top" -ef "$src" ]; then
    echo "SKIP: $src is not the top of a git checkout (a distcheck or tarball tree)"
    exit 77
fi
left=$(git -C "$src" status --porcelain --untracked-files=all | sed -n 's/^?? //p')
if [ -n "$left" ]; then
    echo "FAIL: files neither tracked nor in .gitignore (build output belongs in"
    echo ".gitignore, test scratch in a mktemp directory):"
    echo "$left" | sed 's/^/    /'
    exit 1
fi
echo "clean_tree.sh: no untracked file in $src"
