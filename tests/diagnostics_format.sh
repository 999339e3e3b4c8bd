#!/bin/sh
# diagnostics_format.sh - --diagnostics-format=json|sarif: graft check's
# reports on a file with errors, a warning and notes are exactly
# tests/diagnostics_format/mistakes.{json,sarif}; the SARIF log is valid
# against SARIF 2.1.0's own JSON schema (tests/sarif/sarif-schema-2.1.0.json)
# and against tests/sarif/sarif-2.1.0-graft.schema.json, the stricter part
# graft writes (python3-jsonschema), each of which rejects a broken one; every command that reads rules or a model
# writes its errors as JSON and nothing else on stderr.  GRAFT_REGEN=1
# rewrites the expected files.
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
graft=$GRAFT
cd "$GRAFT_SRCDIR" || exit 99 # the paths in the expected reports are the tree's
dir=tests/diagnostics_format
schemas="tests/sarif/sarif-schema-2.1.0.json tests/sarif/sarif-2.1.0-graft.schema.json"
exact() { # expected file, actual file
    [ "${GRAFT_REGEN:-0}" = 1 ] && cp "$2" "$1"
    cmp -s "$1" "$2" || { diff "$1" "$2" | head -20; return 1; }
}
valid_sarif() { # SARIF log, schema
    python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$1" "$2"
}

for format in json sarif; do
    "$graft" check --diagnostics-format=$format $dir/mistakes.graft >"$tmp/out" 2>"$tmp/$format"
    check "check --diagnostics-format=$format exits 1" [ $? -eq 1 ]
    check "check --diagnostics-format=$format prints nothing on stdout" [ ! -s "$tmp/out" ]
    check "check --diagnostics-format=$format is $dir/mistakes.$format" \
        exact $dir/mistakes.$format "$tmp/$format"
done
sed 's/"level": "error"/"level": "fatal"/' "$tmp/sarif" >"$tmp/broken"
for schema in $schemas; do
    check "the SARIF log is valid against $schema" valid_sarif "$tmp/sarif" "$schema"
    valid_sarif "$tmp/broken" "$schema" 2>/dev/null
    check "$schema rejects a level SARIF does not have" [ $? -ne 0 ]
done
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/json"
check "the json output is JSON" [ $? -eq 0 ]

# Every command: its errors as one JSON document, its exit status kept.
model=tests/golden/seed_bn_partition/input.relay
expect_json() { # expected status, graft arguments...
    want=$1
    shift
    "$graft" "$@" --diagnostics-format=json >/dev/null 2>"$tmp/err"
    [ $? -eq "$want" ] && python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); assert d and d[0]["kind"] == "error", d' "$tmp/err"
}
for cmd in run match viz; do
    check "$cmd --diagnostics-format=json" expect_json 1 $cmd $dir/mistakes.graft $model
done
check "explain --diagnostics-format=json" \
    expect_json 1 explain $dir/mistakes.graft $model --at %0
check "compile --diagnostics-format=json" \
    expect_json 1 compile $dir/mistakes.graft -o "$tmp/x.c"
check "compile wrote no output" [ ! -e "$tmp/x.c" ]
check "verify --diagnostics-format=json" expect_json 1 verify $dir/mistakes.graft
check "fmt --diagnostics-format=json" expect_json 1 fmt $dir/bad.relay
check "--diagnostics-format=text is the default" sh -c \
    '"$1" check --diagnostics-format=text "$2" 2>&1 | head -1 | grep -q "^tests/diagnostics_format/mistakes.graft:4:1: error: duplicate"' \
    sh "$graft" $dir/mistakes.graft
# An error at a byte of ONNX bytes (diag_byte_error): the file and the
# byte, no line; in SARIF a region by byteOffset (the log stays valid).
bad_onnx=tests/onnx/bad/truncated.onnx
"$graft" fmt $bad_onnx -o "$tmp/t.onnx" --diagnostics-format=json 2>"$tmp/onnx.json"
check "a byte of ONNX bytes as JSON" [ "$(cat "$tmp/onnx.json")" = '[{"kind": "error", '\
'"message": "length 69 of field '"'graph'"' (7) of onnx.ModelProto runs past the end of the '\
'file (byte 40)", "locations": [{"caret": {"file": "'$bad_onnx'", "byte": 16}}], "children": []}]' ]
"$graft" fmt $bad_onnx -o "$tmp/t.onnx" --diagnostics-format=sarif 2>"$tmp/onnx.sarif"
for schema in $schemas; do
    check "a byte of ONNX bytes as SARIF: valid against $schema" \
        valid_sarif "$tmp/onnx.sarif" "$schema"
done
check "a byte of ONNX bytes as SARIF: the region by byteOffset" grep -q \
    '"artifactLocation": {"uri": "'$bad_onnx'"}, "region": {"byteOffset": 16}}' "$tmp/onnx.sarif"
"$graft" check --diagnostics-format=xml $dir/mistakes.graft 2>/dev/null
check "an unknown format is bad usage" [ $? -eq 2 ]

# JSON strings are UTF-8: a byte of no valid sequence becomes U+FFFD, one
# each; so does a code point past U+10FFFF (F4 90 80 80) and a surrogate
# (ED A0 80), while U+10FFFF itself and an emoji pass (a file name a
# message quotes; the mutant of issue 37 that let F4 90 through survived).
printf 'include "a\364\220\200\200b\364\217\277\277c\355\240\200d\360\237\230\200.graft"\n' \
    >"$tmp/utf8.graft"
"$graft" check --diagnostics-format=json "$tmp/utf8.graft" 2>"$tmp/utf8.json"
check "invalid UTF-8 in a message is U+FFFD in JSON" python3 -c 'import json, sys
d = json.loads(open(sys.argv[1], "rb").read().decode("utf-8", "strict"))
want = ("/a" + "\ufffd" * 4 + "b\U0010ffffc" + "\ufffd" * 3 + "d\U0001f600"
        ".graft\x27: No such file or directory")
m = d[0]["message"]
assert m.startswith("cannot read \x27") and m.endswith(want), m' "$tmp/utf8.json"
expect_end diagnostics_format
