#!/bin/sh
# deep_guard.sh - where-clauses nested 4000 deep compile to C that every
# C compiler takes (note [flat guards] in src/compiler/emit_c_guard.c): no statement
# nests '(' or '[' deeper than 32, the C builds warning-free with gcc and
# clang (when installed), and the compiled rewriter gives graft run's
# output, which is tests/emit/deep_guard.expected.relay: of the model's two
# relus the guard holds for one (one user) and fails for the other (two).
#
# Environment: GRAFT, GRAFT_SRCDIR, GRAFT_BUILDDIR (set by make check), CC.
# Compiled at -O0 (gcc -O2 spends some 15 s on each of these 30,000-line
# files; the test is about what they compute).
. "${GRAFT_SRCDIR:?}/tests/emit/exe_env.sh"
includes="-I$GRAFT_SRCDIR/include/graft"
strict="-std=c11 -Wall -Wextra -Wpedantic -Werror"
depth=4000
bound=32

work=$(mktemp -d "${TMPDIR:-/tmp}/graft-deep-guard.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT INT TERM
cd "$GRAFT_SRCDIR" || exit 99
model=tests/emit/deep_guard.relay
expected=tests/emit/deep_guard.expected.relay
fail=0

# max_nest FILE: the deepest nesting of '(' and '[' in FILE's C code, with
# comments (the rule text is quoted in one) and literals left out.
max_nest() {
    awk '{
        n = length($0)
        for (i = 1; i <= n; i++) {
            ch = substr($0, i, 1)
            if (comment) {
                if (ch == "*" && substr($0, i + 1, 1) == "/") { comment = 0; i++ }
            } else if (quote != "") {
                if (ch == "\\") i++
                else if (ch == quote) quote = ""
            } else if (ch == "/" && substr($0, i + 1, 1) == "*") {
                comment = 1; i++
            } else if (ch == "\"" || ch == "\047") {
                quote = ch
            } else if (ch == "(" || ch == "[") {
                if (++nest > max) max = nest
            } else if (ch == ")" || ch == "]") {
                nest--
            }
        }
    } END { print max + 0 }' "$1"
}

# The measure itself: 3 levels here, none counted in comment or strings.
printf 'int x = f((a[1]), "((((", /* (((( */ 0);\nchar c = '"'('"';\n' >"$work/probe.c"
got=$(max_nest "$work/probe.c")
[ "$got" = 3 ] || { echo "FAIL: max_nest counts $got levels in its probe, not 3"; fail=1; }

# guard KIND: a where-clause $depth levels deep that holds exactly when
# users(r) == 1, built from one kind of operator.
guard() {
    awk -v n=$depth -v kind="$1" 'BEGIN {
        g = ""
        if (kind == "neg") {            # --...--users(r) == 1 (n even)
            for (i = 0; i < n; i++) g = g "-"
            g = g "users(r) == 1"
        } else if (kind == "not") {     # !!...!!(users(r) == 1)
            for (i = 0; i < n; i++) g = g "!"
            g = g "(users(r) == 1)"
        } else if (kind == "mixed") {   # !(!(rank(r) == 2 && (users(r) == 7 || (...
            split("!(,!(,rank(r) == 2 && (,users(r) == 7 || (", part, ",")
            for (i = 0; i < n; i++) g = g part[i % 4 + 1]
            g = g "users(r) == 1"
            for (i = 0; i < n; i++) g = g ")"
        } else if (kind == "arith") {   # 1 * (0 + (1 * (... users(r)))) == 1
            for (i = 0; i < n; i++) g = g (i % 2 ? "0 + (" : "1 * (")
            g = g "users(r)"
            for (i = 0; i < n; i++) g = g ")"
            g = g " == 1"
        } else if (kind == "and") {     # rank(r) == 2 && (... && (users(r) == 1))
            for (i = 0; i < n; i++) g = g "rank(r) == 2 && ("
            g = g "users(r) == 1"
            for (i = 0; i < n; i++) g = g ")"
        } else if (kind == "or") {      # ((users(r) == 1 || users(r) == 3) || ...)
            for (i = 0; i < n; i++) g = g "("
            g = g "users(r) == 1"
            for (i = 0; i < n; i++) g = g " || users(r) == " (i % 2 ? 0 : 3) ")"
        } else if (kind == "cmp") {     # ((users(r) == 1) == (rank(r) == 2)) != ...
            for (i = 0; i < n; i++) g = g "("
            g = g "(users(r) == 1)"
            for (i = 0; i < n; i++) g = g (i % 2 ? " != (rank(r) == 3))" : " == (rank(r) == 2))")
        }
        print "deep := r@nn.relu(x) where " g " => tanh(x)"
    }'
}

# check KIND: the C of guard KIND, built and run.
check() {
    r=$work/$1.graft
    guard "$1" >"$r"
    lim="--limit rule-depth=4096"
    if ! "$GRAFT" compile $lim "$r" -o "$work/$1.c" 2>"$work/err"; then
        echo "FAIL: $1: graft compile:"; head -c 2000 "$work/err"; echo; fail=1; return
    fi
    grep -q '^    const \(graft_guard_val\|bool\) t0 = ' "$work/$1.c" &&
        grep -q '\.guard_fn = deep_guard,' "$work/$1.c" ||
        { echo "FAIL: $1: the guard is not compiled with temporaries"; fail=1; }
    nest=$(max_nest "$work/$1.c")
    [ "$nest" -le $bound ] ||
        { echo "FAIL: $1: the C nests $nest levels (at most $bound)"; fail=1; }
    for cc in gcc clang; do
        command -v $cc >/dev/null 2>&1 || { echo "$1: $cc absent: skipped"; continue; }
        $cc $strict $includes -c "$work/$1.c" -o "$work/$1.o" 2>"$work/err" ||
            { echo "FAIL: $1: $cc $strict:"; head -20 "$work/err"; fail=1; }
    done
    "$GRAFT" run $lim "$r" $model >"$work/run.out" 2>"$work/err" ||
        { echo "FAIL: $1: graft run failed:"; head -c 2000 "$work/err"; echo; fail=1; }
    cmp -s "$work/run.out" $expected ||
        { echo "FAIL: $1: graft run:"; diff $expected "$work/run.out"; fail=1; }
    # The rewriter: the object just compiled linked with graft compile
    # --exe's main (tests/emit/standalone_main.c), the program --exe would
    # build from the same C; not --exe itself, which would run graft
    # compile again (8 s of CPU a kind, ten times that under ASan).
    [ -f "$work/$1.o" ] || $CC $strict $includes -c "$work/$1.c" -o "$work/$1.o"
    if $CC -o "$work/prog" "$work/main.o" "$work/$1.o" $GRAFT_LIBS 2>"$work/err" &&
       "$work/prog" $model >"$work/prog.out" 2>"$work/err"; then
        cmp -s "$work/prog.out" $expected ||
            { echo "FAIL: $1: compiled:"; diff $expected "$work/prog.out"; fail=1; }
    else
        echo "FAIL: $1: the rewriter or its program:"; head -20 "$work/err"; fail=1
    fi
    temps=$(grep -c '^    const [A-Za-z]* t[0-9]* = ' "$work/$1.c")
    echo "$1: $depth levels, C nests $nest, $temps temporaries"
}

$CC -std=c11 $GRAFT_CFLAGS -c "$GRAFT_SRCDIR/tests/emit/standalone_main.c" -o "$work/main.o" ||
    exit 99
for kind in neg not mixed arith and or cmp; do
    check $kind
done
exit $fail
