# bench/phases.sh - instructions per phase of one `graft run` from a
# callgrind profile; sourced by bench/e2e.sh and bench/corpus.sh so that
# both count the phases the same way.
#
# Each takes the listings of one profile:
#   callgrind_annotate --inclusive=yes OUT > FLAT
#   callgrind_annotate --inclusive=yes --tree=caller OUT > CALLERS

# incl FLAT FUNCTION: the inclusive instruction count of FUNCTION (0 if it
# never ran).
incl() {
    awk -v fn="$2" '$0 ~ ":" fn " \\[" && !done { gsub(",", "", $1); print $1; done = 1 }
                    END { if (!done) print 0 }' "$1"
}

# from CALLERS CALLER FUNCTION: the instructions of FUNCTION's calls from
# CALLER, inclusive (0 if none).
from() {
    awk -v caller="$2" -v fn="$3" '
        /^$/ { n = 0; next }
        { line[++n] = $0 }
        $0 ~ "\\* +[^ ]*:" fn "( |$)" {
            for (i = 1; i < n; i++)
                if (line[i] ~ "< +[^ ]*:" caller "( |$)") {
                    split(line[i], w, " "); gsub(",", "", w[1]); total += w[1]
                }
        }
        END { print total + 0 }' "$1"
}

# phases FLAT CALLERS JOB: one line "MAIN LOAD LABEL VERIFY PASS PRINT",
# the inclusive instructions of the whole run (main), loading
# (relay_load_checked or relay_load_limited), labelling, verifying
# (matcher_try), the pass
# (engine_JOB, JOB partition or rewrite; labelling and verifying are
# inside it) and printing (relay_print).
phases() {
    # labelling: the walk that orders the graph and labels each node as
    # it comes (label_walk, the walk included since session 24: note [node
    # walk] in src/ir/graph_walk.c; when the compiler inlined label_walk,
    # its callers), picking the nodes that offer rules (labels_order,
    # which labels a node of no class with labels_node) and each node
    # labelled alone (labels_node)
    walk=$(incl "$1" label_walk)
    [ "$walk" != 0 ] || walk=$(incl "$1" labels_graph_order)
    label=$(( walk + $(incl "$1" labels_order) +
              $(incl "$1" labels_node) - $(from "$2" labels_order labels_node) ))
    # loading: graft run's (relay_load_checked: the text read, the model
    # checked against the registry, its types inferred), else a compiled
    # rewriter's (relay_load_limited)
    load=$(incl "$1" relay_load_checked)
    [ "$load" != 0 ] || load=$(incl "$1" relay_load_limited)
    echo "$(incl "$1" main) $load $label" \
         "$(incl "$1" matcher_try) $(incl "$1" "engine_$3") $(incl "$1" relay_print)"
}
