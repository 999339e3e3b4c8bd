#!/bin/sh
# vscode_package.sh - the VS Code extension of editors/vscode built with
# npm's tools: npm ci against its committed package-lock.json (versions
# pinned to run on Debian 12's nodejs 18: @vscode/vsce 2.24.0,
# vscode-tmgrammar-test 0.1.3, cheerio held at 1.0.0-rc.12 by an
# override, as later ones want node 20), vscode-tmgrammar-test on
# tests/editors/tmgrammar/*.graft (the grammar's scope of one token of
# each class), then vsce's package: a .vsix holding the manifest, the
# client, the grammar, the language configuration and
# vscode-languageclient, and none of the tools.  Needs the npm registry
# (CI reaches it); skips only when npm is not installed.
set -u
srcdir=${GRAFT_SRCDIR:?}
if ! command -v npm >/dev/null 2>&1; then
    echo "SKIP: npm not installed"
    exit 77
fi
. "${GRAFT_SRCDIR:?}/tests/expect.sh" # check, $tmp

# A copy without a developer's node_modules or packages.
mkdir "$tmp/vscode"
(cd "$srcdir/editors/vscode" && tar cf - --exclude=node_modules --exclude='*.vsix' .) |
    (cd "$tmp/vscode" && tar xf -)
cd "$tmp/vscode" || exit 99
if ! npm ci --omit=optional --ignore-scripts --no-audit --no-fund >"$tmp/npm.log" 2>&1; then
    echo "FAIL: npm ci in editors/vscode"
    cat "$tmp/npm.log"
    exit 1
fi
echo "PASS: npm ci installs editors/vscode/package-lock.json"

npx --no-install vscode-tmgrammar-test "$srcdir/tests/editors/tmgrammar/*.graft" \
    >"$tmp/tmgrammar.log" 2>&1
check "vscode-tmgrammar-test passes on tests/editors/tmgrammar/" [ $? -eq 0 ]
check "and checked every sample" [ "$(grep -c 'run successfuly' "$tmp/tmgrammar.log")" -eq \
    "$(ls "$srcdir"/tests/editors/tmgrammar/*.graft | wc -l)" ]
grep -q 'run successfuly' "$tmp/tmgrammar.log" || cat "$tmp/tmgrammar.log"

npm run --silent package -- -o "$tmp/graft.vsix" >"$tmp/vsce.log" 2>&1
check "vsce packages the extension" [ -s "$tmp/graft.vsix" ]
[ -s "$tmp/graft.vsix" ] || cat "$tmp/vsce.log"
python3 - "$tmp/graft.vsix" >"$tmp/contents" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
for want in ["extension.vsixmanifest", "extension/package.json", "extension/extension.js",
             "extension/syntaxes/graft.tmLanguage.json",
             "extension/language-configuration.json",
             "extension/node_modules/vscode-languageclient/package.json"]:
    print(("has " if want in names else "lacks ") + want)
tools = [n for n in names if "/node_modules/@vscode/vsce/" in n
         or "/node_modules/vscode-tmgrammar-test/" in n]
print("no tools" if not tools else "tools: " + tools[0])
PY
check "the .vsix holds the manifest, client, grammar and vscode-languageclient" \
    [ "$(grep -c '^has ' "$tmp/contents")" -eq 6 ]
check "and none of the build tools" grep -qx 'no tools' "$tmp/contents"
grep -qx 'no tools' "$tmp/contents" && [ "$(grep -c '^has ' "$tmp/contents")" -eq 6 ] ||
    cat "$tmp/contents"
expect_end vscode_package
