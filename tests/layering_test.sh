#!/bin/sh
# layering_test.sh - tests/layering.sh passes on the source tree, and
# finds each kind of fault in a small tree made to have it.
set -u
src=${GRAFT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
fails=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

check() { # name, expected status, expected output, directory
    out=$(sh "$src/tests/layering.sh" "$4" 2>&1)
    status=$?
    if [ "$status" -ne "$2" ] || [ "$out" != "$3" ]; then
        printf 'FAIL: %s: exit %s (want %s), output:\n%s\nwant:\n%s\n' "$1" "$status" "$2" "$out" "$3"
        fails=$((fails + 1))
    fi
}

# The real tree: every edge goes down the layers.
out=$(sh "$src/tests/layering.sh" "$src")
case $out in
"layering: "*" include edges, every one to the same or an earlier layer, no cycle
layering: within each layer, every include to the same or an earlier stage") ;;
*) echo "FAIL: the source tree: $out"; fails=$((fails + 1)) ;;
esac

# A runtime file that includes a compiler header, and a header the tree
# does not have.
t=$tmp/backward
mkdir -p "$t/src/base" "$t/src/runtime" "$t/src/compiler" "$t/grammar"
printf '#include "util.h"\n' > "$t/src/base/util.c"
: > "$t/src/base/util.h"
printf '#include "util.h"\n#include "checker.h"\n#include <stdio.h>\n' > "$t/src/runtime/match.c"
printf '#include "match.h"\n' > "$t/src/compiler/checker.h"
check backward 1 'layering: src/runtime/match.c (runtime) includes src/compiler/checker.h (compiler), a later layer
layering: src/compiler/checker.h includes "match.h", which is no header of src/' "$t"

# A second name for a public type and for a public constant.
t=$tmp/alias
mkdir -p "$t/src/ir"
printf '#include "graft.h"\ntypedef graft_node Node;\n#define ATTR_INT GRAFT_ATTR_INT\ntypedef struct graft_graph graft_graph;\n' > "$t/src/ir/graph.h"
mkdir -p "$t/include/graft" && : > "$t/include/graft/graft.h"
check alias 1 'layering: 1 include edges, every one to the same or an earlier layer, no cycle
layering: src/ir/graph.h:2: Node renames graft_node (one name per thing: note [public names])
layering: src/ir/graph.h:3: ATTR_INT renames GRAFT_ATTR_INT (one name per thing: note [public names])' "$t"

# Two headers of one layer that include each other, and a grammar whose
# generated header closes a cycle.
t=$tmp/cycle
mkdir -p "$t/src/compiler" "$t/grammar"
printf '#include "b.h"\n' > "$t/src/compiler/a.h"
printf '#include "a.h"\n' > "$t/src/compiler/b.h"
check cycle 1 'layering: include cycle: src/compiler/a.h -> src/compiler/b.h -> src/compiler/a.h' "$t"
printf '#include "rules_build.h"\n' > "$t/grammar/rules_parse.y"
printf '#include "rules_parse.h"\n' > "$t/src/compiler/rules_build.h"
rm "$t/src/compiler/b.h"; : > "$t/src/compiler/b.h"
check grammar_cycle 1 'layering: include cycle: src/compiler/rules_build.h -> grammar/rules_parse.y -> src/compiler/rules_build.h' "$t"

# A public header (include/graft) that includes a header of src/.
t=$tmp/public
mkdir -p "$t/include/graft" "$t/src/base"
: > "$t/src/base/util.h"
printf '#include "util.h"\n' > "$t/include/graft/graft.h"
printf '#include "graft.h"\n' > "$t/src/base/diag.h"
check public 1 'layering: include/graft/graft.h (public) includes src/base/util.h (base), a later layer' "$t"

# A file outside every layer.
t=$tmp/stray
mkdir -p "$t/grammar"
: > "$t/grammar/other.y"
check stray 1 'layering: grammar/other.y: in no layer' "$t"

# Stages: a runtime file of the first stage that includes a header of the
# second, and a file no row of the table names (a planted violation of
# doc/architecture.md's order; the glob of a row covers headers too).
t=$tmp/stages
mkdir -p "$t/src/runtime" "$t/doc"
cat > "$t/doc/architecture.md" <<'TABLE'
| layer | library | stage | files | job |
|---|---|---|---|---|
| `src/runtime` | libgraft | automaton | `automaton*.c` | states |
| | | driver | `engine*.c`, `match.c` | matching |
TABLE
printf '#include "engine.h"\n' > "$t/src/runtime/automaton_label.c"
: > "$t/src/runtime/engine.h"
printf '#include "automaton.h"\n' > "$t/src/runtime/match.c"
: > "$t/src/runtime/automaton.h"
: > "$t/src/runtime/stray.c"
check stages 1 'layering: 2 include edges, every one to the same or an earlier layer, no cycle
layering: src/runtime/stray.c: in no stage of doc/architecture.md'"'"'s table
layering: src/runtime/automaton_label.c (automaton) includes src/runtime/engine.h (driver), a later stage of src/runtime' "$t"

[ "$fails" -eq 0 ] && echo "layering_test: 7 cases passed"
[ "$fails" -eq 0 ]
