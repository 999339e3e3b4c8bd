#!/bin/sh
# line_length.sh [DIR] - no line of the hand-written C of src/ is longer
# than 100 columns (a reader's window; generated C and grammar/ are
# exempt: protoc-c's src/onnx/onnx.pb-c.[ch], made in an in-tree build),
# and no function longer than 60 lines (one screen: a function that needs
# more is two jobs).  Prints "FILE:LINE: N columns" and "FILE:LINE:
# function of N lines" for each and exits 1 if any.
# Without an argument, checks the source tree, then shows that it finds
# a planted long line (so the check cannot pass by reading nothing).
set -u
check_tree() {
    ( cd "$1" && find src -name '*.[ch]' ! -name '*.pb-c.[ch]' | sort | xargs -r awk '
        length($0) > 100 { printf "%s:%d: %d columns\n", FILENAME, FNR, length($0); bad = 1 }
        FNR == 1 { open = 0 }
        /^\{/ { open = FNR }
        /^\}/ && open {
            if (FNR - open - 1 > 60) {
                printf "%s:%d: function of %d lines\n", FILENAME, open, FNR - open - 1; bad = 1
            }
            open = 0
        }
        END { exit bad }' )
}
if [ $# -ge 1 ]; then
    check_tree "$1"
    exit $?
fi
src=${GRAFT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
check_tree "$src" || exit 1
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/base"
printf 'int x;\n/* %0101d */\nint f(void)\n{\n' 0 > "$tmp/src/base/long.c"
for i in $(seq 61); do echo '    x++;'; done >> "$tmp/src/base/long.c"
printf '}\nint g(void)\n{\n' >> "$tmp/src/base/long.c"
for i in $(seq 60); do echo '    x++;'; done >> "$tmp/src/base/long.c"
echo '}' >> "$tmp/src/base/long.c"
out=$(check_tree "$tmp")
if [ $? -eq 0 ] || [ "$out" != "src/base/long.c:2: 107 columns
src/base/long.c:4: function of 61 lines" ]; then
    echo "FAIL: the planted long line and function were not found: $out"
    exit 1
fi
n=$(cd "$src" && find src -name '*.[ch]' ! -name '*.pb-c.[ch]' | wc -l)
echo "line_length: $n files of src/, no line over 100 columns, no function over 60 lines"
