#!/bin/sh
# readable.sh - the C that graft compile writes for every stdpatterns
# file reads as issue 17 item 5 asks (doc/compile.md, "Reading the
# generated C"):
#  - no line is wider than 100 columns (the file is written as
#    stdpatterns/NAME.graft -> rules.c, so #line names stay short);
#  - no dead data: a rule with a compiled action has no action tree (a
#    guard keeps its tree beside its function: graft explain shows its
#    values from it), and nothing static is unreferenced: the C compiles
#    with -Wunused -Wunused-const-variable -Werror under gcc and clang
#    (each when installed) with -Wpedantic;
#  - constants are written once: no two static definitions other than
#    pattern nodes (tree nodes, one per place in a pattern, as the
#    interpreter has them) have the same type and initialiser.
. "${GRAFT_SRCDIR:?}/tests/emit/exe_env.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/graft-emit-readable.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cd "$GRAFT_SRCDIR" || exit 99

compilers=""
for c in gcc clang; do
    command -v $c >/dev/null 2>&1 && compilers="$compilers $c"
done
[ -n "$compilers" ] || compilers=$CC

# The static const definitions of C file $1, one a line without their
# names: "TYPE[] = INIT;" (a definition over several lines joined).
definitions() {
    awk '/^static const / { def = $0; if (def !~ /;$/) { open = 1; next } print def; next }
         open { sub(/^ +/, ""); def = def " " $0; if ($0 ~ /;$/) { open = 0; print def } }' "$1" |
        sed 's/^static const \(.*[^a-zA-Z0-9_]\)[a-zA-Z_][a-zA-Z0-9_]*\(\[\]\)* = /\1\2 = /'
}

fail=0
n=0
for f in stdpatterns/*.graft stdpatterns/onnx/*.graft; do
    base=$(basename "$f" .graft)
    [ "$base" = ops ] && continue # the op registry: no rules
    n=$((n + 1))
    mkdir -p "$work/$base"
    if ! "$GRAFT" compile "$f" -o "$work/$base/rules.c" 2>"$work/err"; then
        echo "FAIL: graft compile $f:"; cat "$work/err"; fail=1; continue
    fi
    c="$work/$base/rules.c"
    wide=$(awk -v f="$f" 'length($0) > 100 { printf "%s -> rules.c:%d: %d columns\n", f, NR, length($0) }' "$c")
    if [ -n "$wide" ]; then
        echo "FAIL: lines over 100 columns:"; echo "$wide" | head -5; fail=1
    fi
    dead=$(awk '/\.action = / { a = $3 } /\.build_fn = / && $3 != "NULL," && a != "NULL," { print "action" }' "$c")
    if [ -n "$dead" ]; then
        echo "FAIL: $f: a tree beside its compiled function ($dead)"; fail=1
    fi
    dups=$(definitions "$c" | grep -v '^PatNode ' | sort | uniq -d)
    if [ -n "$dups" ]; then
        echo "FAIL: $f: a definition written twice:"; echo "$dups" | head -5; fail=1
    fi
    for cc in $compilers; do
        if ! $cc -std=c11 -Wall -Wextra -Wpedantic -Wunused -Wunused-const-variable -Werror \
                $GRAFT_CFLAGS -c "$c" -o "$work/$base/rules.o" 2>"$work/err"; then
            echo "FAIL: $f: $cc warns about the generated C:"; head -20 "$work/err"; fail=1
        fi
    done
done

# The checks can fail: a wide line, a tree beside its function, a
# duplicate constant and an unused static are each found when planted.
printf '%0120d\n' 0 | sed 's/^/x/' >"$work/wide.c"
[ -n "$(awk 'length($0) > 100' "$work/wide.c")" ] || { echo "FAIL: width check inert"; fail=1; }
printf 'static const int a = 1;\nstatic const int b = 1;\n' >"$work/dup.c"
[ -n "$(definitions "$work/dup.c" | sort | uniq -d)" ] ||
    { echo "FAIL: duplicate check inert"; fail=1; }
for cc in $compilers; do
    printf 'static const int unused_table[] = {1};\nint f(void);\nint f(void) { return 0; }\n' >"$work/unused.c"
    if $cc -std=c11 -Wall -Wunused -Wunused-const-variable -Werror -c "$work/unused.c" \
            -o "$work/unused.o" 2>/dev/null; then
        echo "FAIL: $cc does not reject an unused static table"; fail=1
    fi
done

echo "readable: $n stdpatterns files,$compilers"
[ "$n" -gt 0 ] || { echo "FAIL: no stdpatterns file"; exit 1; }
exit $fail
