#!/bin/sh
# layering.sh - the include graph of src/ and grammar/ against the layer
# order of doc/architecture.md (note [layers] in Makefile.am):
#
#   public < base < ir < relay = onnx < runtime < compiler < api < cli, lsp
#
# (relay and onnx, the two IRs, are one rank: neither includes the other.)
# (public: the installed headers of include/graft, note [public names]).
# A file may include headers of its own layer and of earlier layers only,
# and no chain of #include lines may lead back to where it started.  The
# generated parser headers belong to the layer of their grammar
# (relay_* to relay, rules_* to compiler).  Prints every bad edge and every
# cycle, and exits 1 if there is one.
#
# Within a layer, the stages of doc/architecture.md's table are ordered
# too: a file includes headers of its own stage and the stages before it
# only, and every file of a layer with several stages is in one of them.
#
# It also refuses a second name for a public type or constant (note
# [public names] in include/graft/graft.h): a "typedef graft_x Name;" or a
# "#define NAME GRAFT_X" anywhere in src/.
#
# With an argument, checks that directory instead of the source tree (the
# test of this script gives it trees with known faults).
set -u
top=${1:-${GRAFT_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}}
cd "$top" || exit 2

# One line per file: "LAYER FILE" (FILE as #include names it).
layer_of_files() {
    for f in include/graft/*.h; do
        [ -e "$f" ] && echo "public $f"
    done
    for layer in base ir relay onnx runtime compiler api cli lsp; do
        for f in src/$layer/*.c src/$layer/*.h; do
            [ -e "$f" ] && echo "$layer $f"
        done
    done
    for f in grammar/*.y grammar/*.l; do
        [ -e "$f" ] || continue
        case $(basename "$f") in
        relay_*) echo "relay $f" ;;
        rules_*) echo "compiler $f" ;;
        onnx_*) echo "onnx $f" ;;
        *) echo "unknown $f" ;;
        esac
    done
}

# One line per edge: "FILE INCLUDED-NAME" for every #include "...".
edges() {
    layer_of_files | while read -r _ f; do
        sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
            while read -r inc; do echo "$f $inc"; done
    done
}

{ layer_of_files | sed 's/^/F /'; edges | sed 's/^/E /'; } | awk '
BEGIN {
    rank["public"] = 0; rank["base"] = 1; rank["ir"] = 2; rank["relay"] = 3; rank["onnx"] = 3
    rank["runtime"] = 4; rank["compiler"] = 5; rank["api"] = 6; rank["cli"] = 7
    rank["lsp"] = 7 # graft lsp: called by cli, beside it
    bad = 0
}
function base(path) { sub(/.*\//, "", path); return path }
$1 == "F" {
    layer[$3] = $2
    nfile++; file[nfile] = $3
    # A header is known by its base name; a grammar by the header bison
    # generates from it.
    name = base($3)
    if ($3 ~ /\.h$/) { header[name] = $3 }
    if ($3 ~ /\.y$/) { sub(/\.y$/, ".h", name); header[name] = $3 }
    if ($2 == "unknown") { print "layering: " $3 ": in no layer"; bad = 1 }
    next
}
$1 == "E" { nedge++; from[nedge] = $2; to[nedge] = $3 }
END {
    for (i = 1; i <= nedge; i++) {
        # generated into the build tree: configure, and protoc-c (src/onnx/onnx.am)
        if (to[i] == "config.h" || to[i] == "onnx.pb-c.h") continue
        if (!(to[i] in header)) {
            printf "layering: %s includes \"%s\", which is no header of src/\n", from[i], to[i]
            bad = 1
            continue
        }
        target = header[to[i]]
        if (rank[layer[target]] > rank[layer[from[i]]]) {
            printf "layering: %s (%s) includes %s (%s), a later layer\n", \
                from[i], layer[from[i]], target, layer[target]
            bad = 1
        }
        # The graph for the cycle search: file -> file.
        succ[from[i]] = succ[from[i]] " " target
    }
    # Cycles: an iterative depth-first search (0 new, 1 on the path, 2 done).
    for (f = 1; f <= nfile; f++) {
        start = file[f]
        if (state[start]) continue
        sp = 1; stack[sp] = start; pos[sp] = 0; state[start] = 1
        while (sp > 0) {
            node = stack[sp]
            n = split(succ[node], next_of, " ")
            if (pos[sp] < n) {
                pos[sp]++
                child = next_of[pos[sp]]
                if (state[child] == 1) {
                    cycle = child
                    for (k = sp; k >= 1 && stack[k] != child; k--)
                        cycle = stack[k] " -> " cycle
                    print "layering: include cycle: " child " -> " cycle
                    bad = 1
                } else if (!state[child]) {
                    sp++; stack[sp] = child; pos[sp] = 0; state[child] = 1
                }
            } else {
                state[node] = 2
                sp--
            }
        }
    }
    if (!bad) print "layering: " nedge " include edges, every one to the same or an earlier layer, no cycle"
    exit bad
}'
status=$?

# Aliases of public names: "FILE:LINE: NAME renames graft_x".
aliases=$(find src -name '*.[ch]' 2>/dev/null | sort | xargs -r awk '
    { line = $0; sub(/;.*/, "", line); n = split(line, w, /[ \t]+/) }
    w[1] == "" { for (i = 1; i < n; i++) w[i] = w[i + 1]; n-- }
    w[1] == "typedef" && w[2] ~ /^(struct|enum)$/ { for (i = 2; i < n; i++) w[i] = w[i + 1]; n-- }
    (w[1] == "typedef" || w[1] == "#define") && n == 3 && w[2] ~ /^(graft|GRAFT)_[A-Za-z0-9_]*$/ &&
        w[3] ~ /^[A-Za-z_][A-Za-z0-9_]*$/ && w[1] == "typedef" && w[3] != w[2] && /;/ {
        printf "layering: %s:%d: %s renames %s (one name per thing: note [public names])\n", FILENAME, FNR, w[3], w[2]
    }
    w[1] == "#define" && n == 3 && w[3] ~ /^(graft|GRAFT)_[A-Za-z0-9_]*$/ {
        printf "layering: %s:%d: %s renames %s (one name per thing: note [public names])\n", FILENAME, FNR, w[2], w[3]
    }')
if [ -n "$aliases" ]; then
    echo "$aliases"
    status=1
fi
# Stages: within a layer, a stage includes only headers of its own stage
# and the stages before it, in the order of doc/architecture.md's table
# (its files column names each stage's files: `automaton*.c` stands for
# every automaton* file, header or source).  Checked where the tree has
# that document; a file of a layer with several stages that no row names
# is a fault too (the table would be incomplete).
stages() {
    [ -f doc/architecture.md ] || return 0
    {
        grep '^| ' doc/architecture.md | awk -F'|' '
            $2 ~ /`src\// { layer = $2; gsub(/[ `]/, "", layer); sub(/^src\//, "", layer) }
            $2 ~ /`include\// { layer = "" }
            layer != "" {
                stage = $4; gsub(/^ +| +$/, "", stage); files = $5
                while (match(files, /`[^`]+`/)) {
                    print "S", layer, stage, substr(files, RSTART + 1, RLENGTH - 2)
                    files = substr(files, RSTART + RLENGTH)
                }
            }'
        layer_of_files | sed 's/^/F /'
        edges | sed 's/^/E /'
    } | awk '
    function base(path) { sub(/.*\//, "", path); return path }
    function stem(name) { sub(/\.[^.\/]*$/, "", name); return name }
    # a glob of the table (`relay_print*.c`, `grammar/relay_*`) as a regular
    # expression over a file stem, or over a path when it names a folder
    function pattern(glob) {
        glob = stem(glob)
        gsub(/\./, "\\.", glob); gsub(/\*/, ".*", glob)
        return "^" glob "$"
    }
    $1 == "S" {
        layer = $2; glob = $NF
        name = $0; sub(/^S [^ ]+ /, "", name); sub(/ [^ ]+$/, "", name)
        if (!(layer SUBSEP name in order)) { order[layer, name] = ++nstages[layer] }
        n = ++nglobs[layer]
        glob_re[layer, n] = pattern(glob); glob_dir[layer, n] = glob ~ /\//
        glob_stage[layer, n] = name
        next
    }
    $1 == "F" {
        layer = $2; f = $3
        if (f ~ /^grammar\//)
            layer = base(f) ~ /^relay_/ ? "relay" : base(f) ~ /^onnx_/ ? "onnx" : "compiler"
        flayer[f] = layer
        if (base(f) ~ /\.h$/) header[base(f)] = f
        if (base(f) ~ /\.y$/) { h = base(f); sub(/\.y$/, ".h", h); header[h] = f }
        for (i = 1; i <= nglobs[layer]; i++) {
            subject = glob_dir[layer, i] ? stem(f) : stem(base(f))
            if (subject ~ glob_re[layer, i]) { fstage[f] = glob_stage[layer, i]; break }
        }
        if (nstages[layer] > 1 && !(f in fstage))
            printf "layering: %s: in no stage of doc/architecture.md'"'"'s table\n", f
        next
    }
    $1 == "E" {
        from = $2; to = header[$3]
        if (to == "" || flayer[from] != flayer[to] || !(from in fstage) || !(to in fstage)) next
        l = flayer[from]
        if (order[l, fstage[to]] > order[l, fstage[from]])
            printf "layering: %s (%s) includes %s (%s), a later stage of src/%s\n", \
                from, fstage[from], to, fstage[to], l
    }'
}
staged=$(stages)
if [ -n "$staged" ]; then
    echo "$staged"
    status=1
elif [ -f doc/architecture.md ]; then
    echo "layering: within each layer, every include to the same or an earlier stage"
fi
exit $status
