#!/bin/sh
# rules_doc.sh - runs every example of doc/graft-rules.5 through graft check.
#
# Each .EX/.EE block of the man page is a rule file.  A ".\" example: NAME"
# line before it names the file (later examples may include it), a
# ".\" expect: error|warning" line says what graft check must report;
# without one the example must check clean (exit 0, no output at all).
# A ".\" run: MODEL" line says the example runs on tests/doc/MODEL.relay,
# where it fires on some nodes and leaves others alone: the golden file
# tests/doc/MODEL.golden (run by tests/golden.sh) runs tests/doc/MODEL.graft,
# which must be the example byte for byte (GRAFT_REGEN=1 rewrites it from
# the page; regenerate the golden file after, tests/README.md), and the
# rewriter graft compile --exe builds from the example must print that
# golden file's output too.
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
. "$src/tests/golden_format.sh"
GRAFT_CFLAGS="-I$src/include/graft"
GRAFT_LIBS="-L$build -lgraft -lprotobuf-c -lm"
export GRAFT_CFLAGS GRAFT_LIBS
mkdir examples || exit 99

# Extract: writes the files and a manifest "FILE EXPECT [MODEL]" per example.
awk -v dir="$tmp/examples" '
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
' "$src/doc/graft-rules.5" || exit 99

# check_example FILE EXPECT: graft check on the example says what the page
# expects of it.
check_example() {
    out=$(cd examples && "$GRAFT" check "$1" 2>&1)
    status=$?
    case $2 in
    clean) [ $status -eq 0 ] && [ -z "$out" ] && return ;;
    error) [ $status -eq 1 ] && printf '%s\n' "$out" | grep -q ': error: ' && return ;;
    warning) [ $status -eq 0 ] && printf '%s\n' "$out" | grep -q ': warning: ' && return ;;
    esac
    fail "example $1 (expected $2, exit $status):"
    sed 's/^/    /' "examples/$1"
    printf '%s\n' "$out" | sed 's/^/  | /'
}

# run_example FILE MODEL: the example is tests/doc/MODEL.graft, and its
# compiled rewriter prints tests/doc/MODEL.golden.
run_example() {
    doc=$src/tests/doc
    if [ "${GRAFT_REGEN:-0}" = 1 ]; then
        cp "examples/$1" "$doc/$2.graft"
    fi
    cmp -s "examples/$1" "$doc/$2.graft" ||
        { fail "example $1 is not tests/doc/$2.graft"; diff "examples/$1" "$doc/$2.graft" | head; }
    if ! "$GRAFT" compile --exe "examples/$1" -o rewriter >cc.err 2>&1; then
        fail "example $1 (graft compile --exe):"
        head -10 cc.err
        return
    fi
    (cd "$doc" && "$tmp/rewriter" "$2.relay") >out 2>err
    golden_text "$(head -n 1 "$doc/$2.golden")" out err $? >actual
    cmp -s actual "$doc/$2.golden" ||
        { fail "example $1 on $2.relay (compiled rewriter)"; diff "$doc/$2.golden" actual | head -20; }
    rm -f rewriter
}

runs=0
while read -r file expect model; do
    cases=$((cases + 1))
    check_example "$file" "$expect"
    if [ -n "$model" ]; then
        runs=$((runs + 1))
        run_example "$file" "$model"
    fi
done < examples/MANIFEST
[ "$cases" -ge 20 ] || fail "expected at least 20 examples, found $cases"
[ "$runs" -ge 16 ] || fail "expected at least 16 examples run on a model, found $runs"
expect_end "graft-rules(5) examples"
