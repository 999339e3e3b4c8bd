# bench/tables.awk - turns graft-bench's key=value lines into the Markdown
# tables of bench/RESULTS.md, with the bounds of issue 8 checked.
# Input lines start with graph, model, rules or compile (bench/run.sh).

function ns(key, i) { return val[i, key] * 1e9 / val[i, "ops"] }
# The graph as arrays (note [flat graph] in bench/bench_flat.c), per op node.
function flat_table(    i, k) {
    print ""
    print "## Match on the graph as arrays"
    print ""
    print "flat traverse = the bare traversal's work on the arrays; classes = deciding each"
    print "node's class (what a loader would store); flat label = labelling the arrays from"
    print "their classes; flat match = that, then verifying every offered rule (today's"
    print "matcher).  Per op node; bytes are the arrays' against graph_bytes."
    print ""
    print "| op nodes | traverse ns | flat traverse ns | classes ns | flat label ns | flat match ns | graft match ns | flat match/flat traverse | flat match/traverse | arrays B | graph B |"
    print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= ngraph; i++) {
        k = g[i]
        printf("| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1fx | %.1fx | %.0f | %.0f |\n",
               val[k, "ops"], ns("traverse_s", k), ns("flat_traverse_s", k),
               ns("flat_class_s", k), ns("flat_label_s", k), ns("flat_match_s", k),
               ns("match_s", k), val[k, "flat_match_s"] / val[k, "flat_traverse_s"],
               val[k, "flat_match_s"] / val[k, "traverse_s"],
               val[k, "flat_bytes"] / val[k, "ops"], val[k, "graph_bytes"] / val[k, "ops"])
    }
    print ""
    print agree(g, ngraph, "matches", "flat_matches", "graft match and the arrays' match")
}
function field(line,    k, parts, n, j, kv) {
    n = split(line, parts, " ")
    for (j = 2; j <= n; j++) {
        split(parts[j], kv, "=")
        val[nrec, kv[1]] = kv[2]
    }
}
# " lowest | highest | ratio | bound |" of a per-node cost over the graph
# sizes from `from` op nodes on; "" when fewer than two sizes qualify.
function ratio_cells(key, per_node, from,    i, v, lo, hi, n) {
    n = 0
    for (i = 1; i <= ngraph; i++) {
        if (val[g[i], "ops"] < from * 0.9) continue
        v = per_node ? ns(key, g[i]) : val[g[i], key] / val[g[i], "ops"]
        if (n == 0 || v < lo) lo = v
        if (n == 0 || v > hi) hi = v
        n++
    }
    if (n < 2) return " | | | |"
    return sprintf(" %.1f | %.1f | %.2fx | %s |", lo, hi, hi / lo,
                   hi / lo <= 1.5 ? "holds" : "**does not hold**")
}
# The bound from 10^4 and, beside it, from 10^5 (every graph beyond the
# last-level cache; the traversal floor shows the step between the two).
function bound_row(name, key, per_node) {
    printf("| %s |%s%s\n", name, ratio_cells(key, per_node, 10000),
           ratio_cells(key, per_node, 100000))
}

# A sentence saying whether two match counts agree in every row of rows.
function agree(rows, n, a, b, who,    i, bad) {
    bad = ""
    for (i = 1; i <= n; i++)
        if (val[rows[i], a] != val[rows[i], b])
            bad = bad " " (val[rows[i], "ops"] ? val[rows[i], "ops"] : val[rows[i], "n"])
    if (bad == "")
        return who " found the same matches in every row."
    return "**" who " found different matches** in the rows for" bad "."
}

{
    nrec++
    kind[nrec] = $1
    field($0)
    if ($1 == "graph") g[++ngraph] = nrec
    if ($1 == "rules") r[++nrules] = nrec
    if ($1 == "model") model = nrec
    if ($1 == "compile") c[++ncomp] = nrec
    if ($1 == "compiled") { cm[val[nrec, "n"]] = nrec; ncm++ }
}

END {
    print "## Graph size (rules: bench/rules/models.graft)"
    print ""
    print "Per op node; each size in a fresh process.  match = label every node and verify"
    print "every rule the automaton offers (`graft match`); rewrite = to a fixpoint;"
    print "partition = every partition pass; print = canonical text to /dev/null."
    print ""
    print "| op nodes | all nodes | text MB | load MB/s | load ns | match ns | (label ns) | rewrite ns | partition ns | print ns | graph B | peak RSS B |"
    print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= ngraph; i++) {
        k = g[i]
        printf("| %d | %d | %.1f | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n",
               val[k, "ops"], val[k, "nodes"], val[k, "text_bytes"] / 1e6,
               val[k, "text_bytes"] / 1e6 / val[k, "load_s"], ns("load_s", k),
               ns("match_s", k), ns("label_s", k), ns("rewrite_s", k),
               ns("partition_s", k), ns("print_s", k),
               val[k, "graph_bytes"] / val[k, "ops"], val[k, "peak_rss"] / val[k, "ops"])
    }
    print ""
    print "Bound: cost per node flat within 1.5x from 10^4 to the largest size (left);"
    print "the same from 10^5 on, where every graph is larger than the last-level cache"
    print "(right).  The bare traversal (next table) shows the cache step alone."
    print ""
    print "| per node | from 10^4: lowest | highest | ratio | bound | from 10^5: lowest | highest | ratio | bound |"
    print "|---|---:|---:|---:|---|---:|---:|---:|---|"
    bound_row("traverse ns", "traverse_s", 1)
    bound_row("load ns", "load_s", 1)
    bound_row("match ns", "match_s", 1)
    bound_row("rewrite ns", "rewrite_s", 1)
    bound_row("partition ns", "partition_s", 1)
    bound_row("print ns", "print_s", 1)
    bound_row("graph bytes", "graph_bytes", 0)
    bound_row("peak RSS bytes", "peak_rss", 0)
    print ""
    print "## Baselines (same run, same graphs)"
    print ""
    print "traverse = one pass touching every node and operand once (the floor);"
    print "order = the depth-first order graft match reports matches in (graph_topo_ids);"
    print "naive = every rule at every node of that order, recursively (TVM/OpenVINO"
    print "style; note [fair naive] in bench/bench_baseline.c)."
    print ""
    print "| op nodes | traverse ns | order ns | graft match ns | match/traverse | naive ns | naive/graft | matches graft | matches naive | rewrites | groups |"
    print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= ngraph; i++) {
        k = g[i]
        printf("| %d | %.1f | %.1f | %.1f | %.1fx | %.1f | %.2fx | %d | %d | %d | %d |\n",
               val[k, "ops"], ns("traverse_s", k), ns("order_s", k), ns("match_s", k),
               val[k, "match_s"] / val[k, "traverse_s"], ns("naive_s", k),
               val[k, "naive_s"] / val[k, "match_s"], val[k, "matches"],
               val[k, "naive_matches"], val[k, "rewrites"], val[k, "groups"])
    }
    print ""
    print agree(g, ngraph, "matches", "naive_matches", "graft and the naive matcher")
    if ((g[1], "flat_match_s") in val)
        flat_table()
    if (nrules) {
        m = model
        print ""
        printf("## Rule count (model of %d op nodes, %d nodes)\n", val[m, "ops"], val[m, "nodes"])
        print ""
        print "Generated rules (bench/bench_rules.c, note [bench rules]); per op node.  match ="
        print "label + verify, interpreted (lowered tables); compiled = the same rules through"
        print "`graft compile`, linked into the measuring program (when that works)."
        printf("Bare traversal of this model: %.1f ns/node.\n", val[m, "traverse_s"] * 1e9 / val[m, "ops"])
        print ""
        printf("| rules | items | preds | states | load+lower ms | label ns | match ns | vs 1st row | match/traverse | naive ns | naive/graft | matches graft | matches naive |")
        if (ncm) printf(" compiled match ns | compiled matches |")
        printf("\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        if (ncm) printf("---:|---:|")
        printf("\n")
        base = val[r[1], "match_s"]
        worst = 0
        for (i = 1; i <= nrules; i++) {
            k = r[i]
            q = val[k, "match_s"] / base
            if (q > worst) worst = q
            printf("| %d | %d | %d | %d | %.1f | %.1f | %.1f | %.2fx | %.1fx | %.1f | %.1fx | %d | %d |",
                   val[k, "n"], val[k, "items"], val[k, "preds"], val[k, "states"],
                   val[k, "compile_s"] * 1e3, val[k, "label_s"] * 1e9 / val[m, "ops"],
                   val[k, "match_s"] * 1e9 / val[m, "ops"], q,
                   val[k, "match_s"] / val[m, "traverse_s"],
                   val[k, "naive_s"] * 1e9 / val[m, "ops"], val[k, "naive_s"] / val[k, "match_s"],
                   val[k, "matches"], val[k, "naive_matches"])
            if (ncm && (val[k, "n"] in cm))
                printf(" %.1f | %d |", val[cm[val[k, "n"]], "match_s"] * 1e9 / val[cm[val[k, "n"]], "ops"],
                       val[cm[val[k, "n"]], "matches"])
            else if (ncm)
                printf(" | |")
            printf("\n")
        }
        print ""
        print agree(r, nrules, "matches", "naive_matches", "graft and the naive matcher")
        if (ncm) {
            for (i = 1; i <= nrules; i++)
                if (val[r[i], "n"] in cm && val[r[i], "matches"] != val[cm[val[r[i], "n"]], "matches"])
                    bad = bad " " val[r[i], "n"]
            print (bad == "" ? "Compiled and interpreted rules found the same matches in every row." \
                             : "**Compiled and interpreted rules found different matches** at rule counts" bad ".")
            print ""
        }
        printf("Bound: matching cost per node within 2x from %d to %d rules: %.2fx, %s.\n",
               val[r[1], "n"], val[r[nrules], "n"], worst,
               worst <= 2 ? "holds" : "**does not hold**")
    }
    if (ncomp) {
        print ""
        print "## Rule compile time (graft compile)"
        print ""
        print "| rules | graft compile s | generated C bytes | lines | cc -O2 -c s |"
        print "|---:|---:|---:|---:|---:|"
        for (i = 1; i <= ncomp; i++) {
            k = c[i]
            printf("| %d | %.3f | %d | %d | %.2f |\n", val[k, "n"], val[k, "graft_s"],
                   val[k, "c_bytes"], val[k, "c_lines"], val[k, "cc_s"])
        }
    }
    match_targets()
}

function rules_named(n) { return n " generated rule" (n == 1 ? "" : "s") }

# Issue 15's matching targets, each with its figure and whether it holds:
# over every graph size from 10^4 op nodes on and every rule count.
function match_targets(    i, k, q, lo, hi, where_lo, where_hi, clo, cwhere, n) {
    lo = 0; hi = 0; n = 0
    for (i = 1; i <= ngraph; i++) {
        k = g[i]
        if (val[k, "ops"] < 9000) continue
        q = val[k, "naive_s"] / val[k, "match_s"]
        if (n == 0 || q < lo) { lo = q; where_lo = val[k, "ops"] " op nodes, models.graft" }
        q = val[k, "match_s"] / val[k, "traverse_s"]
        if (n == 0 || q > hi) { hi = q; where_hi = val[k, "ops"] " op nodes, models.graft" }
        n++
    }
    for (i = 1; i <= nrules; i++) {
        k = r[i]
        q = val[k, "naive_s"] / val[k, "match_s"]
        if (n == 0 || q < lo) { lo = q; where_lo = rules_named(val[k, "n"]) }
        q = val[k, "match_s"] / val[model, "traverse_s"]
        if (n == 0 || q > hi) { hi = q; where_hi = rules_named(val[k, "n"]) }
        n++
    }
    if (n == 0) return
    print ""
    print "## Issue 15: matching targets"
    print ""
    print "Over every graph size from 10^4 op nodes and every rule count above (the"
    print "worst row is named)."
    print ""
    print "| target | figure | holds |"
    print "|---|---|---|"
    printf("| graft match faster than the naive matcher | naive/graft %.2fx at worst (%s) | %s |\n",
           lo, where_lo, lo > 1 ? "yes" : "**no**")
    printf("| graft match within 3x of a bare traversal | match/traverse %.2fx at worst (%s) | %s |\n",
           hi, where_hi, hi <= 3 ? "yes" : "**no**")
    clo = 0; cwhere = ""
    for (i = 1; i <= nrules; i++) {
        k = r[i]
        if (!(val[k, "n"] in cm)) continue
        q = val[k, "match_s"] / val[cm[val[k, "n"]], "match_s"]
        if (cwhere == "" || q < clo) { clo = q; cwhere = rules_named(val[k, "n"]) }
    }
    if (cwhere != "")
        printf("| compiled rules at least 2x faster than interpreted (match, generated rules, corpus-block model) | interpreted/compiled %.2fx at worst (%s) | %s |\n",
               clo, cwhere, clo >= 2 ? "yes" : "**no**")
    else
        print "| compiled rules at least 2x faster than interpreted | not measured (graft compile did not build) | **no** |"
}
