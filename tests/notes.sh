#!/bin/sh
# notes.sh [DIR] - the notes and paths that comments and documents name
# are true (a reader follows them; a stale one sends her nowhere):
#
#   - every note is defined once, in the code (src/, include/, grammar/,
#     bench/, fuzz/, the Makefiles): "note [NAME]:" in a comment; tests and
#     documents refer to notes, they define none;
#   - every "note [NAME]" names a defined note, and "note [NAME] in FILE"
#     names the file that defines it;
#   - every path of the tree named in a comment, a document or .gitignore
#     (src/..., tests/..., doc/..., a glob such as src/relay/type_rel*.c)
#     exists (a built file, one .gitignore names, need not; nor a pattern
#     with a placeholder in capitals, such as tests/corpus/MODEL.relay).
#
# Prints each fault as "notes: FILE:LINE: ..." and exits 1 if any.
# Without an argument, checks the source tree, then shows on a small tree
# with one fault of each kind that each is found.
set -u

check_tree() (
    cd "$1" || exit 2
    files=$(git ls-files 2>/dev/null | sort -u || find . -type f | sed 's|^\./||')
    # (this script and the tests that plant faulty trees name notes and
    # files of those trees)
    text=$(printf '%s\n' "$files" | grep -E '\.(c|h|l|y|am|ac|sh|md|py|graft|in|1|5|3)$|^\.gitignore$' |
        grep -v -E '^(tests/corpus|tests/onnx/corpus)/|^doc/history/' |
        grep -v -E '^tests/(notes|one_notes|layering_test|line_length|public_api_test)\.sh$|^tests/mutation/selftest\.py$' || true)
    [ -n "$text" ] || exit 0
    # One line per note mention: "FILE:LINE:KIND:NAME:IN", KIND def or ref.
    printf '%s\n' $text | xargs awk '
        {
            line = $0
            while (match(line, /note \[[^]]+\]/)) {
                name = substr(line, RSTART + 6, RLENGTH - 7)
                before = substr(line, 1, RSTART - 1)
                after = substr(line, RSTART + RLENGTH)
                kind = "ref"
                if (after ~ /^:/ && FILENAME ~ /^(src|include|grammar|bench|fuzz)\/|\.am$|^configure\.ac$/) kind = "def"
                inf = ""
                if (after ~ /^,? in `?[A-Za-z0-9_.\/-]+/) {
                    inf = after; sub(/^,? in `?/, "", inf); sub(/[^A-Za-z0-9_.\/-].*/, "", inf)
                    sub(/[.,]$/, "", inf)
                }
                print FILENAME ":" FNR ":" kind ":" name ":" inf
                line = after
            }
        }' >"$tmp/mentions"
    awk -F: '
        $3 == "def" { n[$4]++; where[$4] = where[$4] " " $1 ":" $2; file[$4] = $1 }
        { all[NR] = $0 }
        END {
            for (k in n) if (n[k] > 1)
                printf "notes: note [%s] defined %d times:%s\n", k, n[k], where[k]
            for (i = 1; i <= NR; i++) {
                split(all[i], f, ":")
                if (f[3] != "ref") continue
                if (!(f[4] in n)) { printf "notes: %s:%s: note [%s] is defined nowhere\n", f[1], f[2], f[4]; continue }
                if (f[5] != "") {
                    m = split(file[f[4]], p, "/"); base = p[m]
                    if (f[5] != file[f[4]] && f[5] != base)
                        printf "notes: %s:%s: note [%s] is in %s, not %s\n", f[1], f[2], f[4], file[f[4]], f[5]
                }
            }
        }' "$tmp/mentions"
    # Paths: words that begin with a top-level folder of the tree.
    tops=$(printf '%s\n' $files | sed -n 's|/.*||p' | sort -u | grep -v -E '^(m4|build-aux)$' | paste -sd'|' -)
    printf '%s\n' $text | xargs grep -n -o -E "(^|[^A-Za-z0-9_./$}-])($tops)/[A-Za-z0-9_.*{},/-]*[A-Za-z0-9_*}]" |
        sed -E 's/^([^:]*:[0-9]*:)[^A-Za-z0-9_]?/\1/' |
        while IFS=: read -r f l p; do
            case $p in *[A-Z][A-Z][A-Z]*) continue ;; esac
            git check-ignore -q --no-index "$p" 2>/dev/null && continue
            case $p in *'{'*)
                pre=${p%%'{'*}; rest=${p#*'{'}; alts=${rest%%'}'*}; post=${rest#*'}'}; ok=1
                for a in $(echo "$alts" | tr ',' ' '); do
                    ls -d $pre$a$post >/dev/null 2>&1 || ok=0
                done ;;
            *) ok=0; ls -d $p >/dev/null 2>&1 && ok=1
               # a git pathspec, where * crosses folders: src/*.c
               [ $ok = 0 ] && [ -n "$(git ls-files -- "$p" 2>/dev/null | head -n 1)" ] && ok=1 ;;
            esac
            [ "$ok" = 1 ] || printf 'notes: %s:%s: %s does not exist\n' "$f" "$l" "$p"
        done
)

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if [ $# -ge 1 ]; then
    out=$(check_tree "$1")
    [ -z "$out" ] && exit 0
    echo "$out"
    exit 1
fi
src=${GRAFT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
out=$(check_tree "$src")
if [ -n "$out" ]; then
    echo "$out"
    exit 1
fi
# A tree with one fault of each kind.
t=$tmp/tree
mkdir -p "$t/src/base" "$t/doc"
printf '/* note [twice]: one text */\n/* note [twice]: another */\nint x; /* note [gone] */\n/* see note [here] in util.c */\n' >"$t/src/base/a.c"
printf '/* note [here]: defined here */\n' >"$t/src/base/b.c"
printf 'See src/base/a.c and src/base/missing.c, src/base/{a,b}.c and src/base/*.h.\n' >"$t/doc/x.md"
(cd "$t" && git init -q && git add -A) || exit 2
got=$(check_tree "$t" | sort)
want='notes: doc/x.md:1: src/base/*.h does not exist
notes: doc/x.md:1: src/base/missing.c does not exist
notes: note [twice] defined 2 times: src/base/a.c:1 src/base/a.c:2
notes: src/base/a.c:3: note [gone] is defined nowhere
notes: src/base/a.c:4: note [here] is in src/base/b.c, not util.c'
if [ "$got" != "$want" ]; then
    printf 'FAIL: the planted faults:\n%s\nwant:\n%s\n' "$got" "$want"
    exit 1
fi
n=$(wc -l <"$tmp/mentions")
echo "notes: every note defined once and found where named, every named path exists"
