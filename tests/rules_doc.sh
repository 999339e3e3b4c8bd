#!/bin/sh
# rules_doc.sh - runs every example of doc/graft-rules.5 through graft check.
#
# Each .EX/.EE block of the man page is a rule file.  A ".\" example: NAME"
# line before it names the file (later examples may include it), a
# ".\" expect: error|warning" line says what graft check must report;
# without one the example must check clean (exit 0, no output at all).
# A ".\" run: MODEL" line runs the example on tests/doc/MODEL.relay, where
# it fires on some nodes and leaves others alone: graft run's output must
# equal tests/doc/MODEL.expected byte for byte, and so must the output of
# the rewriter graft compile --exe builds from the example (when
# GRAFT_BUILDDIR names the build tree).
set -u
srcdir=${GRAFT_SRCDIR:?}
page=$srcdir/doc/graft-rules.5
if [ -n "${GRAFT_BUILDDIR:-}" ]; then
    GRAFT_CFLAGS="-I$srcdir/include/graft"
    GRAFT_LIBS="-L$GRAFT_BUILDDIR -lgraft -lm"
    export GRAFT_CFLAGS GRAFT_LIBS
fi
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# Extract: writes the files and a manifest "FILE EXPECT" per example.
awk -v dir="$tmp" '
    /^\.\\" example: / { name = $3; next }
    /^\.\\" expect: / { expect = $3; next }
    /^\.\\" run: / { run = $3; next }
    /^\.EX$/ {
        n++
        file = name != "" ? name : "ex" n ".graft"
        inex = 1
        printf "" > (dir "/" file)
        next
    }
    /^\.EE$/ {
        close(dir "/" file)
        print file, (expect != "" ? expect : "clean"), run >> (dir "/MANIFEST")
        inex = 0; name = ""; expect = ""; run = ""
        next
    }
    inex {
        line = $0
        gsub(/\\-/, "-", line)
        gsub(/\\\(aq/, "\047", line)
        gsub(/\\&/, "", line)
        gsub(/\\e/, "\\", line)
        print line >> (dir "/" file)
    }
' "$page" || exit 99

pass=0
fail=0
# Runs example file on tests/doc/MODEL.relay, interpreted and compiled.
run_example() {
    file=$1 model=$srcdir/tests/doc/$2.relay want=$srcdir/tests/doc/$2.expected
    # GRAFT_REGEN=1 rewrites the expected output (review the diff after)
    if [ "${GRAFT_REGEN:-0}" = 1 ]; then
        (cd "$tmp" && "$GRAFT" run "$file" "$model") >"$want" 2>&1
    fi
    if ! (cd "$tmp" && "$GRAFT" run "$file" "$model") >"$tmp/run.out" 2>&1 ||
        ! cmp -s "$want" "$tmp/run.out"; then
        echo "FAIL: example $file on $2.relay (graft run):"
        diff "$want" "$tmp/run.out" | head -20
        return 1
    fi
    [ -n "${GRAFT_BUILDDIR:-}" ] || return 0
    if ! (cd "$tmp" && "$GRAFT" compile --exe "$file" -o "$tmp/rewriter") >"$tmp/cc.err" 2>&1; then
        echo "FAIL: example $file (graft compile --exe):"
        head -10 "$tmp/cc.err"
        return 1
    fi
    if ! "$tmp/rewriter" "$model" >"$tmp/run.out" 2>&1 || ! cmp -s "$want" "$tmp/run.out"; then
        echo "FAIL: example $file on $2.relay (compiled rewriter):"
        diff "$want" "$tmp/run.out" | head -20
        return 1
    fi
    rm -f "$tmp/rewriter"
}

runs=0
while read -r file expect model; do
    out=$(cd "$tmp" && "$GRAFT" check "$file" 2>&1)
    status=$?
    ok=0
    case $expect in
    clean) [ $status -eq 0 ] && [ -z "$out" ] && ok=1 ;;
    error) [ $status -eq 1 ] && printf '%s\n' "$out" | grep -q ': error: ' && ok=1 ;;
    warning) [ $status -eq 0 ] && printf '%s\n' "$out" | grep -q ': warning: ' && ok=1 ;;
    esac
    if [ $ok -eq 1 ] && [ -n "$model" ]; then
        runs=$((runs + 1))
        run_example "$file" "$model" || ok=2
    fi
    if [ $ok -eq 1 ]; then
        pass=$((pass + 1))
    elif [ $ok -eq 2 ]; then
        fail=$((fail + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: example $file (expected $expect, exit $status):"
        sed 's/^/    /' "$tmp/$file"
        printf '%s\n' "$out" | sed 's/^/  | /'
    fi
done < "$tmp/MANIFEST"
echo "graft-rules(5) examples: $pass passed ($runs run on a model), $fail failed"
[ $pass -ge 20 ] || { echo "FAIL: expected at least 20 examples"; exit 1; }
[ $fail -eq 0 ]
