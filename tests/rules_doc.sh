#!/bin/sh
# rules_doc.sh - runs every example of doc/graft-rules.5 through graft check.
#
# Each .EX/.EE block of the man page is a rule file.  A ".\" example: NAME"
# line before it names the file (later examples may include it), a
# ".\" expect: error|warning" line says what graft check must report;
# without one the example must check clean (exit 0, no output at all).
set -u
page=${GRAFT_SRCDIR:?}/doc/graft-rules.5
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT

# Extract: writes the files and a manifest "FILE EXPECT" per example.
awk -v dir="$tmp" '
    /^\.\\" example: / { name = $3; next }
    /^\.\\" expect: / { expect = $3; next }
    /^\.EX$/ {
        n++
        file = name != "" ? name : "ex" n ".graft"
        inex = 1
        printf "" > (dir "/" file)
        next
    }
    /^\.EE$/ {
        close(dir "/" file)
        print file, (expect != "" ? expect : "clean") >> (dir "/MANIFEST")
        inex = 0; name = ""; expect = ""
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
while read -r file expect; do
    out=$(cd "$tmp" && "$GRAFT" check "$file" 2>&1)
    status=$?
    ok=0
    case $expect in
    clean) [ $status -eq 0 ] && [ -z "$out" ] && ok=1 ;;
    error) [ $status -eq 1 ] && printf '%s\n' "$out" | grep -q ': error: ' && ok=1 ;;
    warning) [ $status -eq 0 ] && printf '%s\n' "$out" | grep -q ': warning: ' && ok=1 ;;
    esac
    if [ $ok -eq 1 ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        echo "FAIL: example $file (expected $expect, exit $status):"
        sed 's/^/    /' "$tmp/$file"
        printf '%s\n' "$out" | sed 's/^/  | /'
    fi
done < "$tmp/MANIFEST"
echo "graft-rules(5) examples: $pass passed, $fail failed"
[ $pass -ge 20 ] || { echo "FAIL: expected at least 20 examples"; exit 1; }
[ $fail -eq 0 ]
