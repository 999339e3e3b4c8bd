#!/bin/sh
# onnx_text.sh - ONNX's text syntax (note [onnx text] in src/onnx/onnx_text.h)
# on the corpus of tests/onnx/: every model printed as text and read back
# (graft fmt M.onnx -o M.onnxtxt; graft fmt M.onnxtxt -o M.onnx) is the
# original byte for byte (cmp), but for the four small models that use
# what the text cannot say (doc/onnx.md; tests/onnx_text_python.sh checks
# that they lose that and nothing else); the text read back prints the
# same text again, and printing a text file gives the same text.
set -u
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
data="$src/tests/onnx"
test_tmpdir onnx_text

# What the text cannot carry: a node's doc string (conv_bn), a sparse
# initializer (attributes), training info (local_function), and the
# presence of an opset's empty domain (all four, made by python3-onnx's
# helper, which writes it; exporters leave it out).
lossy="attributes conv_bn if_subgraph local_function"

n=0
for model in "$data"/*.onnx; do
    name=$(basename "$model" .onnx)
    n=$((n + 1))
    if ! "$GRAFT" fmt "$model" -o "$tmp/$name.onnxtxt" 2>"$tmp/err" ||
       ! "$GRAFT" fmt "$tmp/$name.onnxtxt" -o "$tmp/$name.onnx" 2>>"$tmp/err" ||
       ! "$GRAFT" fmt "$tmp/$name.onnx" -o "$tmp/$name.again.onnxtxt" 2>>"$tmp/err" ||
       ! "$GRAFT" fmt "$tmp/$name.onnxtxt" >"$tmp/$name.stdout.onnxtxt" 2>>"$tmp/err"; then
        fail "$name: $(cat "$tmp/err")"
        continue
    fi
    case " $lossy " in
    *" $name "*)
        if cmp -s "$model" "$tmp/$name.onnx"; then
            fail "$name came back byte for byte; the list of models the text loses parts of is stale"
        fi ;;
    *)
        if ! cmp "$model" "$tmp/$name.onnx"; then
            fail "$name.onnx -> text -> .onnx is not the original"
        fi ;;
    esac
    for again in again stdout; do
        if ! cmp "$tmp/$name.onnxtxt" "$tmp/$name.$again.onnxtxt"; then
            fail "$name: the text printed again ($again) differs"
        fi
    done
done

# A partition's calls print with their op type quoted, graft.composite.
# "graft.conv_bn" (note [quoted op types] in grammar/onnx_text_parse.y),
# and the text read back is the binary output of the same run, byte for
# byte, for every model the text carries whole.
partitioned=0
for model in "$data"/*.onnx; do
    name=$(basename "$model" .onnx)
    case " $lossy " in *" $name "*) continue ;; esac
    rules="$src/stdpatterns/onnx_partition.graft"
    if ! "$GRAFT" run "$rules" "$model" -o "$tmp/$name.part.onnx" 2>"$tmp/err" ||
       ! "$GRAFT" run "$rules" "$model" >"$tmp/$name.part.onnxtxt" 2>>"$tmp/err" ||
       ! "$GRAFT" fmt "$tmp/$name.part.onnxtxt" -o "$tmp/$name.back.onnx" 2>>"$tmp/err"; then
        fail "partitioning $name through the text: $(cat "$tmp/err")"
        continue
    fi
    if ! cmp "$tmp/$name.part.onnx" "$tmp/$name.back.onnx"; then
        fail "$name partitioned, printed and read back is not the binary output"
    fi
    grep -q '= graft\.composite\."graft\.conv_bn[_0-9]*" (' "$tmp/$name.part.onnxtxt" &&
        partitioned=$((partitioned + 1))
done
if [ "$partitioned" -ne 6 ]; then
    fail "$partitioned models print a quoted partition call, not the six CNNs"
fi

# The exporters' names, which the syntax can only quote, are quoted.
if ! grep -q '^  \["/features/features.0/features.0.0/Conv"\] "/features/features.0/features.0.0/Conv_output_0" = Conv <' \
        "$tmp/mobilenet_v2_op17.onnxtxt"; then
    fail "mobilenet_v2_op17's first Conv is not printed with its quoted names"
fi

# The README shows graft fmt tests/onnx/tiny.onnx's print, indented.
sed 's/^/    /' "$tmp/tiny.stdout.onnxtxt" >"$tmp/quoted"
awk 'NR==FNR { want = want $0 "\n"; next } { text = text $0 "\n" }
     END { exit index(text, want) ? 0 : 1 }' "$tmp/quoted" "$src/README.md" || {
    echo "FAIL: README.md does not show graft fmt tests/onnx/tiny.onnx's print"
    failures=$((failures + 1)); }

if [ "$failures" -ne 0 ]; then
    echo "onnx_text: $failures failures"
    exit 1
fi
echo "onnx_text: $n models through the text form, $partitioned partitioned"
