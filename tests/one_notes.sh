#!/bin/sh
# one_notes.sh [DIR] - each "one ..." note that admits exceptions counts
# them, and the count is what a grep of src/ finds: a note that says
# "exceptions: 2" while a third way has crept in is a note that lies.
#
#   note             what is counted (extended grep over src/*/*.[ch])
#   [one sort]       calls of qsort (sort_u32 is the one sort)
#   [one hash map]   files with a linear probe of their own
#                    ("+ 1) & mask"), besides keymap.[ch]
#   [one string hash] the golden-ratio multiplier that hashes are made of
#                    (0x9e3779b97f4a7c15), besides keymap.h
#   [one cache slot] top-bits slot formulas (">> (64 -"), besides keymap.h
#   [one growable array] calls of xgrow_items besides VEC's and StrBuf's
#                    (util.[ch], outbuf.h)
#
# The note states the count as "exceptions: N" in its comment.  Prints
# "one_notes: note [NAME] (FILE) says N exceptions, a grep finds M:" and
# what the grep found, and exits 1 on any difference.
#
# Every other "one ..." note of src/ is a design statement no grep can
# count, listed in $uncounted with why; a new "one ..." note in neither
# list fails ("one_notes: note [NAME] (FILE) is not counted here"), so
# that no such note escapes the check by being new.  Without an argument,
# checks the source tree, then shows on small trees with a planted extra
# qsort and a planted new note that the check finds each.
set -u

# The counted greps, one per line: NAME;REGEX;FILES EXCLUDED;BY (lines or
# files).
checks='one sort;qsort\(;-;lines
one hash map;\+ 1\) & mask;src/base/keymap\.[ch];files
one string hash;0x9e3779b97f4a7c15;src/base/keymap\.h;lines
one cache slot;>> \(64 -;src/base/keymap\.h;lines
one growable array;xgrow_items\(;src/base/util\.[ch]|src/base/outbuf\.h;lines'

# The "one ..." notes that state a design, not a mechanism with counted
# exceptions, one a line: NAME;why no grep counts it.
uncounted='one runtime;the interpreter and compiled C share the driver: tests/emit/differential.sh
one walk;recursion over rule-depth-bounded trees is allowed: tests/hostile.sh walks a million-node chain
one reservation;the printer'"'"'s bounds: every golden prints the same under ASan
one definition;the emitter'"'"'s constant data: tests/emit/readable.sh refuses duplicates
one dtype table;a table, not a way of doing something
one function per body;the ONNX exporter'"'"'s sharing of functions: bench/onnx_e2e.sh
one occurrence;the wire check'"'"'s rule for singular fields: fuzz/corpus/onnx'

check_tree() (
    cd "$1" || exit 2
    sources=$(find src -name '*.[ch]' ! -name '*.pb-c.[ch]' | sort)
    [ -n "$sources" ] || exit 0
    bad=0
    echo "$checks" | while IFS=';' read -r name regex skip by; do
        # the note's comment, from "note [NAME]:" to its end
        def=$(printf '%s\n' $sources | xargs grep -l "note \[$name\]:" 2>/dev/null | head -n 1)
        [ -n "$def" ] || continue
        said=$(awk -v n="note [$name]:" 'index($0, n) { on = 1 }
            on { line = $0; sub(/^[ \t]*\*?[ \t]*/, "", line); print line }
            on && /\*\// { exit }' "$def" | tr '\n' ' ' |
            sed -n 's/.*exceptions: \([0-9][0-9]*\).*/\1/p')
        if [ -z "$said" ]; then
            echo "one_notes: note [$name] ($def) states no \"exceptions: N\""
            echo 1 >"$tmp/bad"
            continue
        fi
        found=$(printf '%s\n' $sources | grep -v -E "^($skip)$" | xargs grep -n -E -- "$regex" |
            grep -v -E "^[^:]*:[0-9]+:[[:space:]]*(/\*|\*( |/|$)|//)")
        if [ "$by" = files ]; then
            count=$(printf '%s\n' "$found" | sed -n 's/:.*//p' | sort -u | grep -c .)
        else
            count=$(printf '%s\n' "$found" | grep -c .)
        fi
        if [ "$count" -ne "$said" ]; then
            echo "one_notes: note [$name] ($def) says $said exceptions, a grep finds $count:"
            printf '%s\n' "$found" | sed 's/^/    /'
            echo 1 >"$tmp/bad"
        fi
    done
    known=$( (echo "$checks"; echo "$uncounted") | sed 's/;.*//')
    printf '%s\n' $sources | xargs grep -o -H "note \[one [^]]*\]:" 2>/dev/null |
        sed 's/^\([^:]*\):note \[\(.*\)\]:$/\2;\1/' | sort -u |
        while IFS=';' read -r name def; do
            if ! printf '%s\n' "$known" | grep -q -x -F "$name"; then
                echo "one_notes: note [$name] ($def) is not counted here: add it to" \
                    "tests/one_notes.sh's checks or uncounted"
                echo 1 >"$tmp/bad"
            fi
        done
    [ ! -e "$tmp/bad" ]
)

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
if [ $# -ge 1 ]; then
    check_tree "$1"
    exit $?
fi
src=${GRAFT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
check_tree "$src" || exit 1
# A tree whose note admits one qsort, and a second one planted.
t=$tmp/tree
mkdir -p "$t/src/base" "$t/src/runtime"
printf '/* note [one sort]: sort_u32 (exceptions: 1, a.c'"'"'s) */\n' >"$t/src/base/util.h"
printf 'void f(void) { qsort(a, n, 4, cmp); }\n' >"$t/src/runtime/a.c"
printf '/* qsort(x) in a comment is not counted */\nvoid g(void) { qsort(b, n, 4, cmp); }\n' \
    >"$t/src/runtime/b.c"
got=$(check_tree "$t")
want='one_notes: note [one sort] (src/base/util.h) says 1 exceptions, a grep finds 2:
    src/runtime/a.c:1:void f(void) { qsort(a, n, 4, cmp); }
    src/runtime/b.c:2:void g(void) { qsort(b, n, 4, cmp); }'
if [ "$got" != "$want" ]; then
    printf 'FAIL: the planted qsort:\n%s\nwant:\n%s\n' "$got" "$want"
    exit 1
fi
# A new "one ..." note that neither list names.
rm -f "$tmp/bad"
printf '/* note [one thing]: the one way (exceptions: 0) */\n' >"$t/src/runtime/c.c"
rm "$t/src/runtime/b.c"
got=$(check_tree "$t")
want='one_notes: note [one thing] (src/runtime/c.c) is not counted here: add it to tests/one_notes.sh'"'"'s checks or uncounted'
if [ "$got" != "$want" ]; then
    printf 'FAIL: the planted note:\n%s\nwant:\n%s\n' "$got" "$want"
    exit 1
fi
echo "one_notes: each \"one ...\" note's exceptions are what a grep finds"
