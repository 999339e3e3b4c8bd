# bench/corpus.awk - the tables of bench/corpus.sh.
#
# Input: its records, one a line of key=value pairs: "job=..." for a
# graft run of the partition or rewrite job on a model (instructions per
# phase, CPU, peak RSS), "rules=..." for a CNN model's compiled and
# interpreted rule set.  Variable: corpus (the directory).  The model
# "one" is the model of one op node each figure's set-up is read from.

{
    n++
    for (i = 1; i <= NF; i++) {
        eq = index($i, "=")
        val[n, substr($i, 1, eq - 1)] = substr($i, eq + 1)
    }
    if ($1 ~ /^job=/) {
        j = val[n, "job"]
        if (val[n, "model"] == "one")
            one[j] = n
        else
            rows[j, ++nrows[j]] = n
    } else if ($1 ~ /^rules=/)
        comp[++ncomp] = n
}

function per_op(k, key) { return val[k, key] / val[k, "ops"] }
function beyond(k) { return (val[k, "pass"] - val[k, "label"] - val[k, "verify"]) / val[k, "ops"] }
function rss_beyond(k) { return (val[k, "maxrss_kb"] * 1024 - val[k, "bytes"]) / val[k, "ops"] }
# The same figures beyond the job's run on the model of one op node.
function e2e_setup(k, o) { return (val[k, "main"] - val[o, "main"]) / (val[k, "ops"] - 1) }
function rss_setup(k, o,    grown) {
    grown = (val[k, "maxrss_kb"] - val[o, "maxrss_kb"]) * 1024
    return (grown - val[k, "bytes"] + val[o, "bytes"]) / (val[k, "ops"] - 1)
}
function yn(figure, limit) { return figure <= limit ? "yes" : "no" }
function cell(figure, limit) { return sprintf("%.0f %s", figure, yn(figure, limit)) }
function file_of(job, m) { return job == "partition" ? m ".simplified.relay" : m ".relay" }

function job_table(job, rules,    i, k, o) {
    o = one[job]
    print ""
    printf("## The corpus: %s (%s), instructions per op node (callgrind)\n", job, rules)
    print ""
    printf("`graft run %s MODEL -o OUT` as a process, -O2 build.  Phases counted as bench/e2e.sh\n", rules)
    print "counts them (bench/phases.sh); \"end to end\" is `main`, with graft's fixed set-up;"
    print "\"beyond one\" subtracts the same job's run on a model of one op node (set-up:"
    printf("%.0f instructions, peak RSS %.1f MB) and divides by the other op nodes.  CPU: fastest\n",
           val[o, "main"], val[o, "maxrss_kb"] / 1024)
    print "of five runs; RSS: the run's peak resident set."
    print ""
    printf("| file | op nodes | text B/op node | %s | load | load per byte | label | verify | %s beyond label and verify | print | end to end | end to end beyond one | CPU ms | peak RSS MB | RSS B/op node beyond the text | the same beyond one |\n",
           job == "partition" ? "groups" : "rewrites", job)
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= nrows[job]; i++) {
        k = rows[job, i]
        printf("| %s | %d | %.0f | %d | %.0f | %.1f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f | %.0f | %.0f |\n",
               file_of(job, val[k, "model"]), val[k, "ops"], val[k, "bytes"] / val[k, "ops"],
               val[k, "applied"], per_op(k, "load"), val[k, "load"] / val[k, "bytes"],
               per_op(k, "label"), per_op(k, "verify"), beyond(k), per_op(k, "print"),
               per_op(k, "main"), e2e_setup(k, o), val[k, "cpu_s"] * 1000,
               val[k, "maxrss_kb"] / 1024, rss_beyond(k), rss_setup(k, o))
    }
}

# worst(name, figure, model, limit): keeps the largest figure of a target.
function worst(name, figure, model) {
    if (!(name in top) || figure > top[name]) { top[name] = figure; where[name] = model }
}

function targets_table(job,    i, k, o, m) {
    o = one[job]
    print ""
    printf("## Issue 15's targets on the corpus, per model: the %s job\n", job)
    print ""
    print "Each cell: the figure per op node and whether it holds."
    print ""
    printf("| file | loading (<= 1,500) | %s beyond labelling and verifying (<= 1,500) | printing (<= 1,000) | end to end (<= 5,000) | peak RSS beyond the text, B (<= 300) |\n", job)
    print "|---|---:|---:|---:|---:|---:|"
    for (i = 1; i <= nrows[job]; i++) {
        k = rows[job, i]
        m = file_of(job, val[k, "model"])
        printf("| %s | %s | %s | %s | %s | %s |\n", m, cell(per_op(k, "load"), 1500),
               cell(beyond(k), 1500), cell(per_op(k, "print"), 1000), cell(per_op(k, "main"), 5000),
               cell(rss_beyond(k), 300))
        worst("load", per_op(k, "load"), m)
        worst(job, beyond(k), m)
        worst("print " job, per_op(k, "print"), m)
        worst("e2e " job, per_op(k, "main"), m)
        worst("e2e one " job, e2e_setup(k, o), m)
        worst("rss", rss_beyond(k), m)
        worst("rss one", rss_setup(k, o), m)
    }
}

function row(what, name, limit) {
    printf("| %s (<= %s) | %.0f (%s) | %s |\n", what, limit, top[name], where[name],
           yn(top[name], limit + 0))
}

# lowest(name, ratio, where): keeps the smallest ratio of a target.
function lowest(name, ratio, model) {
    if (!(name in top) || ratio < top[name]) { top[name] = ratio; where[name] = model }
}

function compiled_table(    i, k, m) {
    print ""
    print "## The corpus: compiled against interpreted rules on the CNN models"
    print ""
    print "Engine: graft match's work once the model and rules are loaded (a fresh engine,"
    print "labelling, verifying, listing; bench/bench_compiled.c, note [corpus ratio]);"
    print "instructions from callgrind (ten runs of each form, divided by ten), time the fastest"
    print "of at least 20 interleaved samples of ten runs, per run.  End to end: `graft run RULES MODEL -o OUT` against"
    print "the rewriter `graft compile --exe RULES` builds, `REWRITER MODEL -o OUT`: callgrind's"
    print "count of `main` and the fastest CPU time of five runs."
    print "Ratios are interpreted/compiled; \"same\": both wrote the same bytes."
    print ""
    print "| rules | model | nodes | matches | engine instr interp | compiled | ratio | engine us interp | compiled | ratio | end to end instr graft run | rewriter | ratio | CPU ms graft run | rewriter | ratio | same |"
    print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    for (i = 1; i <= ncomp; i++) {
        k = comp[i]
        m = val[k, "model"] ", " substr(val[k, "rules"], index(val[k, "rules"], "/") + 1)
        printf("| %s | %s | %d | %d | %d | %d | %.2fx | %.1f | %.1f | %.2fx | %d | %d | %.2fx | %.1f | %.1f | %s | %s |\n",
               val[k, "rules"], val[k, "model"], val[k, "nodes"], val[k, "matches"],
               val[k, "interp_ir"], val[k, "compiled_ir"], val[k, "interp_ir"] / val[k, "compiled_ir"],
               val[k, "interp_s"] * 1e6, val[k, "compiled_s"] * 1e6,
               val[k, "interp_s"] / val[k, "compiled_s"], val[k, "run_ir"], val[k, "exe_ir"],
               val[k, "run_ir"] / val[k, "exe_ir"], val[k, "run_cpu"] * 1000, val[k, "exe_cpu"] * 1000,
               val[k, "exe_cpu"] > 0 ? sprintf("%.2fx", val[k, "run_cpu"] / val[k, "exe_cpu"]) : "-",
               val[k, "same_output"])
        if (val[k, "matches"] != val[k, "compiled_matches"] || val[k, "same_output"] != "yes")
            differ = 1
        lowest("c engine ir", val[k, "interp_ir"] / val[k, "compiled_ir"], m)
        lowest("c engine s", val[k, "interp_s"] / val[k, "compiled_s"], m)
        lowest("c e2e ir", val[k, "run_ir"] / val[k, "exe_ir"], m)
        if (val[k, "exe_cpu"] > 0)
            lowest("c e2e s", val[k, "run_cpu"] / val[k, "exe_cpu"], m)
    }
    print ""
    print differ ? "**The two forms listed different matches or wrote different outputs.**" \
                 : "The two forms listed the same number of matches and wrote the same output on every model."
}

function ratio_row(what, name) {
    if (!(name in top)) {
        printf("| %s (>= 2x) | not measured | no |\n", what)
        return
    }
    printf("| %s (>= 2x) | %.2fx (%s) | %s |\n", what, top[name], where[name],
           top[name] >= 2 ? "yes" : "no")
}

END {
    job_table("partition", "stdpatterns/batchnorm_partition.graft")
    job_table("rewrite", "stdpatterns/fold_bn.graft")
    targets_table("partition")
    targets_table("rewrite")
    if (ncomp)
        compiled_table()
    print ""
    print "## Issue 15's targets on the corpus: the worst model"
    print ""
    printf("Corpus: %s.  Per op node unless said; the figure is the worst over the models\n", corpus)
    print "(the model in brackets).  The rows \"beyond one\" read the same target without graft's"
    print "fixed set-up (each model's run less the job's run on a model of one op node)."
    print ""
    print "| target | worst figure (where) | holds |"
    print "|---|---:|---|"
    row("loading, instructions", "load", 1500)
    row("partition beyond labelling and verifying, instructions", "partition", 1500)
    row("rewrite beyond labelling and verifying, instructions", "rewrite", 1500)
    row("printing the partition's output, instructions", "print partition", 1000)
    row("printing the rewrite's output, instructions", "print rewrite", 1000)
    row("partition end to end, instructions", "e2e partition", 5000)
    row("rewrite end to end, instructions", "e2e rewrite", 5000)
    row("peak RSS beyond the text, bytes", "rss", 300)
    row("partition end to end beyond one, instructions", "e2e one partition", 5000)
    row("rewrite end to end beyond one, instructions", "e2e one rewrite", 5000)
    row("peak RSS beyond the text and one, bytes", "rss one", 300)
    ratio_row("compiled faster than interpreted, CNN models, engine instructions", "c engine ir")
    ratio_row("compiled faster than interpreted, CNN models, engine time", "c engine s")
    ratio_row("compiled faster than interpreted, CNN models, end to end instructions", "c e2e ir")
    ratio_row("compiled faster than interpreted, CNN models, end to end CPU time", "c e2e s")
}
