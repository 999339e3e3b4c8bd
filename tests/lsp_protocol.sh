#!/bin/sh
# lsp_protocol.sh - graft lsp at the protocol level: one session sends
# every request kind the server knows (hover, completion, definition,
# document symbols, formatting, references, rename, signature help) and every kind of bad input
# (requests before initialize, malformed JSON, a JSON value that is no
# request, headers without a length, unknown methods, out-of-range
# positions, a document with NUL and control bytes, bytes that are not
# UTF-8, a document of 1 MiB, a message over the 64 MiB limit), and its
# output must be exactly tests/lsp/protocol.expected: an error response
# for each bad message, never a crash or a hang.  More sessions check the
# exit statuses.  GRAFT_REGEN=1 rewrites the expected file.
set -u
graft=${GRAFT:?}
srcdir=${GRAFT_SRCDIR:?}
expected=$srcdir/tests/lsp/protocol.expected
. "${GRAFT_SRCDIR:?}/tests/expect.sh" # check, $tmp

. "$srcdir/tests/lsp/frame.sh" # msg
uri=file:///lsp-test/rules.graft
doc() { # a textDocument parameter with a position: line, character, more
    printf '{"textDocument":{"uri":"%s"},"position":{"line":%s,"character":%s}%s}' \
        "$uri" "$1" "$2" "${3:-}"
}
bad_text='r := add(x, y) => multiply(x, 1)\ns := nn.conv2d(x, w, data_layout=\"\u00e9\ud83d\ude00\", groupz=1) => x\nt := addd(x, 0) => x\nt := add(x, 0) => x\n'
good_text='r := add(x, 0) => x\n'
defs=file:///lsp-test/defs.graft
fmtdoc=file:///lsp-test/fmt.graft
fmt_text='r:=add(x,0)=>x # kept\n# lead\n\n\nlet  m(p)=p|-p\n  # inside: moves before the item\n  | p\n'
refs=file:///lsp-test/refs.graft
refs_text='let sq(a) = multiply(a, a)\nlet two = add(y, y)\nu := sq(x) | two => x\nv := c@nn.relu(x) where users(c) == 1 \u0026\u0026 attr(c, x) == 1 => nn.relu(x)\ncv := nn.conv2d(x, k, groups=2, strides=[1, 1]) => x\np := nn.relu(split(x, indices_or_sections=2)[i]) where i > 0 => x\n'
guard=file:///lsp-test/guard.graft
guard_text='g := nn.relu(x) where users(z) == 1 => x\n'
opts='"options":{"tabSize":4,"insertSpaces":true}'
defs_text='include \"fold_bn.graft\"\nlet sq(a) = multiply(a, a)\nu := sq(x) => x\nop my.op(data, k: int = 1)\nv := my.op(x) => x\n'

session() {
    msg '{"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{}}'
    msg '{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}'
    msg '{"jsonrpc":"2.0","method":"initialized","params":{}}'
    msg '{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}'
    msg '{not json'
    msg '[1, 2]'
    msg '{"jsonrpc":"2.0","id":4}'
    printf 'Content-Type: application/vscode-jsonrpc\r\n\r\n'
    printf 'Content-Length: ten\r\n\r\n'
    # a body that is not UTF-8
    printf 'Content-Length: 4\r\n\r\n"\377\376"'
    msg '{"jsonrpc":"2.0","id":5,"method":"textDocument/frobnicate","params":{}}'
    msg '{"jsonrpc":"2.0","method":"$/unknownNotification","params":{}}'
    msg '{"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///not/open.graft"},"position":{"line":0,"character":0}}}'
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"$uri\",\"languageId\":\"graft\",\"version\":1,\"text\":\"$bad_text\"}}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"textDocument/hover\",\"params\":$(doc 0 6)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"textDocument/hover\",\"params\":$(doc 2 6)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"textDocument/hover\",\"params\":$(doc 40 0)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"textDocument/hover\",\"params\":$(doc 0 32)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"textDocument/hover\",\"params\":$(doc 0 33)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"textDocument/hover\",\"params\":$(doc -1 0)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":{\"uri\":\"$uri\"}}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"textDocument/completion\",\"params\":$(doc 3 9)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"textDocument/completion\",\"params\":$(doc 1 40)}"
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"$defs\",\"languageId\":\"graft\",\"version\":1,\"text\":\"$defs_text\"}}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"textDocument/documentSymbol\",\"params\":{\"textDocument\":{\"uri\":\"$defs\"}}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"textDocument/definition\",\"params\":$(uri=$defs doc 2 6)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"textDocument/definition\",\"params\":$(uri=$defs doc 4 7)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":23,\"method\":\"textDocument/definition\",\"params\":$(uri=$defs doc 0 12)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":24,\"method\":\"textDocument/definition\",\"params\":$(uri=$defs doc 1 14)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":25,\"method\":\"textDocument/definition\",\"params\":$(uri=$defs doc 2 11)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":26,\"method\":\"textDocument/definition\",\"params\":$(uri=$defs doc 9 0)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":28,\"method\":\"textDocument/hover\",\"params\":$(uri=$defs doc 2 6)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":29,\"method\":\"textDocument/hover\",\"params\":$(uri=$defs doc 4 0)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"textDocument/completion\",\"params\":$(uri=$defs doc 2 8)}"
    # formatting: one edit; none when formatted; no options; params no object
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"$fmtdoc\",\"languageId\":\"graft\",\"version\":1,\"text\":\"$fmt_text\"}}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":40,\"method\":\"textDocument/formatting\",\"params\":{\"textDocument\":{\"uri\":\"$fmtdoc\"},$opts}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":41,\"method\":\"textDocument/formatting\",\"params\":{\"textDocument\":{\"uri\":\"$defs\"},$opts}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"textDocument/formatting\",\"params\":{\"textDocument\":{\"uri\":\"$defs\"}}}"
    msg '{"jsonrpc":"2.0","id":43,"method":"textDocument/formatting","params":[1]}'
    # references and rename: a macro, a binding (attr(c, x) names an
    # attribute, not x), a macro parameter; renames that collide with a
    # variable, a rule's variable, a rule, an op; no name; bad params
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"$refs\",\"languageId\":\"graft\",\"version\":1,\"text\":\"$refs_text\"}}}"
    ref=',"context":{"includeDeclaration":true}'
    msg "{\"jsonrpc\":\"2.0\",\"id\":50,\"method\":\"textDocument/references\",\"params\":$(uri=$refs doc 0 5 "$ref")}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":51,\"method\":\"textDocument/references\",\"params\":$(uri=$refs doc 3 16 ',"context":{"includeDeclaration":false}')}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":52,\"method\":\"textDocument/references\",\"params\":$(uri=$refs doc 0 21 "$ref")}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":53,\"method\":\"textDocument/references\",\"params\":$(uri=$refs doc 3 9 "$ref")}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":54,\"method\":\"textDocument/references\",\"params\":$(uri=$refs doc 0 5 ',"context":{"includeDeclaration":1}')}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":55,\"method\":\"textDocument/references\",\"params\":$(uri=$refs doc 90 0 "$ref")}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":56,\"method\":\"textDocument/rename\",\"params\":$(uri=$refs doc 3 16 ',"newName":"inp"')}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":57,\"method\":\"textDocument/rename\",\"params\":$(uri=$refs doc 2 13 ',"newName":"pair"')}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":58,\"method\":\"textDocument/rename\",\"params\":$(uri=$refs doc 2 0 ',"newName":"w"')}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":59,\"method\":\"textDocument/rename\",\"params\":$(uri=$refs doc 3 16 ',"newName":"c"')}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":60,\"method\":\"textDocument/rename\",\"params\":$(uri=$refs doc 2 13 ',"newName":"x"')}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":61,\"method\":\"textDocument/rename\",\"params\":$(uri=$refs doc 2 0 ',"newName":"v"')}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":62,\"method\":\"textDocument/rename\",\"params\":$(uri=$refs doc 0 4 ',"newName":"add"')}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":63,\"method\":\"textDocument/rename\",\"params\":$(uri=$refs doc 3 9 ',"newName":"q"')}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":64,\"method\":\"textDocument/rename\",\"params\":$(uri=$refs doc 2 0 ',"newName":"float32"')}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":65,\"method\":\"textDocument/rename\",\"params\":$(uri=$refs doc 2 0 ',"newName":7')}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":66,\"method\":\"textDocument/rename\",\"params\":$(uri=$refs doc 2 0 '')}"
    # an index variable (p[i]): bound inside the brackets, used in the guard
    msg "{\"jsonrpc\":\"2.0\",\"id\":67,\"method\":\"textDocument/references\",\"params\":$(uri=$refs doc 5 55 "$ref")}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":68,\"method\":\"textDocument/rename\",\"params\":$(uri=$refs doc 5 55 ',"newName":"k"')}"
    # hover on a variable without a model: bound in the pattern, used in the
    # guard (bound at c@...), a macro's parameter, a named pattern's
    # variable; attr(c, x) names an attribute, no variable; a variable only
    # in a guard (not bound); a position that is not a number
    msg "{\"jsonrpc\":\"2.0\",\"id\":80,\"method\":\"textDocument/hover\",\"params\":$(uri=$refs doc 3 15)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":81,\"method\":\"textDocument/hover\",\"params\":$(uri=$refs doc 3 30)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":82,\"method\":\"textDocument/hover\",\"params\":$(uri=$refs doc 0 21)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":83,\"method\":\"textDocument/hover\",\"params\":$(uri=$refs doc 1 14)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":84,\"method\":\"textDocument/hover\",\"params\":$(uri=$refs doc 3 49)}"
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"$guard\",\"languageId\":\"graft\",\"version\":1,\"text\":\"$guard_text\"}}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":85,\"method\":\"textDocument/hover\",\"params\":$(uri=$guard doc 0 28)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":86,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":{\"uri\":\"$guard\"},\"position\":{\"line\":0,\"character\":\"28\"}}}"
    # signature help: an operand, the second operand, an attribute by its
    # name (the cursor inside it), one inside a list; outside any call; no
    # position
    msg "{\"jsonrpc\":\"2.0\",\"id\":70,\"method\":\"textDocument/signatureHelp\",\"params\":$(uri=$refs doc 3 15)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":71,\"method\":\"textDocument/signatureHelp\",\"params\":$(uri=$refs doc 1 17)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":72,\"method\":\"textDocument/signatureHelp\",\"params\":$(uri=$refs doc 4 24)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":75,\"method\":\"textDocument/signatureHelp\",\"params\":$(uri=$refs doc 4 42)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":73,\"method\":\"textDocument/signatureHelp\",\"params\":$(uri=$refs doc 2 0)}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":74,\"method\":\"textDocument/signatureHelp\",\"params\":{\"textDocument\":{\"uri\":\"$refs\"}}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":27,\"method\":\"textDocument/documentSymbol\",\"params\":{\"textDocument\":{\"uri\":\"file:///closed.graft\"}}}"
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{\"textDocument\":{\"uri\":\"$uri\",\"version\":2},\"contentChanges\":[{\"text\":\"$good_text\"}]}}"
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{\"textDocument\":{\"uri\":\"$uri\",\"version\":3},\"contentChanges\":[{\"text\":\"x := \\u0000\\u0001 add(\\u0007\\u0000\"}]}}"
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{\"textDocument\":{\"uri\":\"$uri\",\"version\":4},\"contentChanges\":[]}}"
    # formatting a document with syntax errors (and NUL bytes): refused
    msg "{\"jsonrpc\":\"2.0\",\"id\":44,\"method\":\"textDocument/formatting\",\"params\":{\"textDocument\":{\"uri\":\"$uri\"},$opts}}"
    # a document of 1 MiB: 16384 comment lines of 63 bytes and an error
    big=$(awk 'BEGIN { s = sprintf("%62s", ""); gsub(/ /, "a", s)
                       for (i = 0; i < 16384; i++) printf "# %s\\n", substr(s, 3) }')
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"file:///lsp-test/big.graft\",\"languageId\":\"graft\",\"version\":1,\"text\":\"${big}q := addd(x) => x\\n\"}}}"
    # over the limit: 64 MiB and a byte, skipped
    printf 'Content-Length: 67108865\r\n\r\n'
    head -c 67108865 /dev/zero
    msg '{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"file:///lsp-test/big.graft"}}}'
    # completion lists the document's macros as they are after each change
    # (note [completion items]): m1, then m2 alone
    cache=file:///lsp-test/cache.graft
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"$cache\",\"languageId\":\"graft\",\"version\":1,\"text\":\"let m1 = nn.relu(x)\\n\"}}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":90,\"method\":\"textDocument/completion\",\"params\":$(uri=$cache doc 1 0)}"
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{\"textDocument\":{\"uri\":\"$cache\",\"version\":2},\"contentChanges\":[{\"text\":\"let m2 = nn.relu(x)\\n\"}]}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":91,\"method\":\"textDocument/completion\",\"params\":$(uri=$cache doc 1 0)}"
    msg '{"jsonrpc":"2.0","id":16,"method":"shutdown"}'
    msg "{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"textDocument/hover\",\"params\":$(doc 0 0)}"
    msg '{"jsonrpc":"2.0","method":"exit"}'
}

# The output as one line per message ("Content-Length: N", then the body
# on a line of its own), and each length checked against its body.
unframe() {
    sed 's/}Content-Length: /}\nContent-Length: /g' | tr -d '\r' | LC_ALL=C awk '
        /^Content-Length: / { want = $2; next }
        /^$/ { next }
        { if (length($0) != want) print "FRAMING: " want " bytes declared, " length($0) " sent"
          print }'
}

session >"$tmp/in"
# (timeout: a hang fails the test instead of holding make check)
timeout 300 "$graft" lsp --no-debounce <"$tmp/in" >"$tmp/raw" 2>"$tmp/err"
status=$?
check "a full session exits 0 after shutdown and exit" [ $status -eq 0 ]
check "nothing on stderr" [ ! -s "$tmp/err" ]
# Paths of the source tree (go to an op's declaration) as @SRCDIR@.
abs_srcdir=$(cd "$srcdir" && pwd -P)
unframe <"$tmp/raw" | sed "s|file://$abs_srcdir/|file://@SRCDIR@/|g" >"$tmp/out"
if [ "${GRAFT_REGEN:-0}" = 1 ]; then
    cp "$tmp/out" "$expected"
fi
check "the session's responses are tests/lsp/protocol.expected" \
    cmp -s "$tmp/out" "$expected"
cmp -s "$tmp/out" "$expected" || diff "$expected" "$tmp/out" | head -40

# With a model in the settings (note [workspace model] in lsp_model.c):
# initializationOptions.model relative to rootUri, the configuration
# request after initialized, code lenses (match counts), graft.explain of a
# rule and at a node and with bad arguments, a refresh request after an
# edit; a model that does not load (settings.graft.model), then none (the
# configuration response's null): no lenses, explain refused.
model_session() {
    root=file://$abs_srcdir/tests/std/simplify
    lens_uri=file://$abs_srcdir/tests/lsp/unsaved.graft # no such file: the text is the one sent
    many_uri=file://$abs_srcdir/tests/lsp/many.graft # nor this: more than 5 matches
    lens_text='mul_one := x * 1 => x\nrelu_relu := nn.relu(nn.relu(x)) => nn.relu(x)\nnever := nn.conv2d(x, _) => x\n'
    explain() { # id, then the first argument
        msg "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"workspace/executeCommand\",\"params\":{\"command\":\"graft.explain\",\"arguments\":[$2]}}"
    }
    lenses() { # id
        msg "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"textDocument/codeLens\",\"params\":{\"textDocument\":{\"uri\":\"$lens_uri\"}}}"
    }
    msg "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"rootUri\":\"$root\",\"initializationOptions\":{\"model\":\"input.relay\"},\"capabilities\":{\"workspace\":{\"configuration\":true,\"codeLens\":{\"refreshSupport\":true}}}}}"
    msg '{"jsonrpc":"2.0","method":"initialized","params":{}}'
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"$lens_uri\",\"text\":\"$lens_text\"}}}"
    lenses 2
    # hover on a variable with the model: each match's node; a rule
    # without a match; a variable of the action; a rule of 7 matches (5
    # shown)
    hover() { # id, line, character
        msg "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":{\"uri\":\"$lens_uri\"},\"position\":{\"line\":$2,\"character\":$3}}}"
    }
    hover 20 0 11
    hover 21 2 19
    hover 22 1 44
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"$many_uri\",\"text\":\"many := multiply(x, c) => add(x, c)\\n\"}}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":23,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":{\"uri\":\"$many_uri\"},\"position\":{\"line\":0,\"character\":20}}}"
    explain 3 "{\"uri\":\"$lens_uri\",\"rule\":\"never\"}"
    explain 4 "{\"uri\":\"$lens_uri\",\"rule\":\"mul_one\",\"node\":\"%1\"}"
    explain 5 "{\"uri\":\"$lens_uri\",\"node\":\"%999\"}"
    explain 6 "{\"uri\":\"$lens_uri\"}"
    explain 7 "{\"uri\":\"file:///not/open.graft\",\"rule\":\"never\"}"
    msg '{"jsonrpc":"2.0","id":8,"method":"workspace/executeCommand","params":{"command":"graft.frobnicate","arguments":[]}}'
    msg '{"jsonrpc":"2.0","id":9,"method":"workspace/executeCommand","params":{"command":"graft.explain","arguments":{}}}'
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{\"textDocument\":{\"uri\":\"$lens_uri\",\"version\":2},\"contentChanges\":[{\"text\":\"mul_one := x * 1 => x\\n\"}]}}"
    lenses 10
    msg '{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"graft":{"model":"nope.relay"}}}}'
    lenses 11
    explain 12 "{\"uri\":\"$lens_uri\",\"rule\":\"mul_one\"}"
    msg '{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":null}}'
    msg '{"jsonrpc":"2.0","id":"graft/configuration/5","result":[{"model":null}]}'
    explain 13 "{\"uri\":\"$lens_uri\",\"rule\":\"mul_one\"}"
    msg '{"jsonrpc":"2.0","id":14,"method":"shutdown"}'
    msg '{"jsonrpc":"2.0","method":"exit"}'
}
model_session >"$tmp/model_in"
timeout 300 "$graft" lsp --no-debounce <"$tmp/model_in" >"$tmp/model_raw" 2>"$tmp/model_err"
check "the model session exits 0" [ $? -eq 0 ]
check "the model session writes nothing on stderr" [ ! -s "$tmp/model_err" ]
unframe <"$tmp/model_raw" | sed "s|$abs_srcdir/|@SRCDIR@/|g" >"$tmp/model_out"
[ "${GRAFT_REGEN:-0}" = 1 ] && cp "$tmp/model_out" "$srcdir/tests/lsp/model.expected"
check "the model session's responses are tests/lsp/model.expected" \
    cmp -s "$tmp/model_out" "$srcdir/tests/lsp/model.expected"
cmp -s "$tmp/model_out" "$srcdir/tests/lsp/model.expected" ||
    diff "$srcdir/tests/lsp/model.expected" "$tmp/model_out" | head -40

# Exit statuses: exit without shutdown, the input ending, a body cut short.
msg '{"jsonrpc":"2.0","method":"exit"}' >"$tmp/exit_only"
check "exit without shutdown exits 1" sh -c '"$1" lsp <"$2" >/dev/null; [ $? -eq 1 ]' \
    sh "$graft" "$tmp/exit_only"
check "the input ending exits 1" sh -c '"$1" lsp </dev/null >/dev/null; [ $? -eq 1 ]' \
    sh "$graft"
printf 'Content-Length: 100\r\n\r\n{"jsonrpc"' >"$tmp/cut"
check "a body cut short exits 1 and answers nothing" sh -c \
    '"$1" lsp <"$2" >"$3"; [ $? -eq 1 ] && [ ! -s "$3" ]' sh "$graft" "$tmp/cut" "$tmp/o"
# A header line is read up to 1023 bytes: a Content-Length padded past
# that would lose its last digits (44 read as 4, the body then parsed from
# its fifth byte), so the message is refused; one that fits is read.
long_length() { # the header line's length before its CRLF
    awk -v n="$1" 'BEGIN { printf "Content-Length:%*s\r\n\r\n", n - 15, "44" }'
    printf '{"jsonrpc":"2.0","id":1,"method":"shutdown"}'
}
long_length 1023 >"$tmp/fits"
long_length 1024 >"$tmp/long"
check "a Content-Length line of 1023 bytes is read" sh -c \
    '"$1" lsp <"$2" | grep -q "server is not initialized"' sh "$graft" "$tmp/fits"
check "a Content-Length line cut at 1023 bytes refuses the message" sh -c \
    '"$1" lsp <"$2" >"$3"; grep -q "without Content-Length" "$3" && ! grep -q "malformed" "$3"' \
    sh "$graft" "$tmp/long" "$tmp/o"
# A message with a character past U+FFFF (four UTF-8 bytes, here in the
# path of an include) reaches the client as that character, not as U+FFFD
# (lsp_valid_utf8 keeps every well-formed sequence).
astral='include \"\ud83d\ude00.graft\"\nr := add(x, 0) => x\n'
{
    msg '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":\
{\"textDocument\":{\"uri\":\"file:///lsp-test/astral.graft\",\"languageId\":\"graft\",\
\"version\":1,\"text\":\"$astral\"}}}"
    msg '{"jsonrpc":"2.0","id":2,"method":"shutdown"}'
    msg '{"jsonrpc":"2.0","method":"exit"}'
} >"$tmp/astral"
"$graft" lsp --no-debounce <"$tmp/astral" >"$tmp/astral_out" 2>/dev/null
emoji=$(printf '\360\237\230\200')
check "a message keeps a character past U+FFFF" \
    grep -qF "cannot read '/lsp-test/$emoji.graft'" "$tmp/astral_out"
check "graft lsp --help" sh -c '"$1" lsp --help | grep -q "^usage: graft lsp"' sh "$graft"
check "graft lsp with an unknown option exits 2" sh -c \
    '"$1" lsp --frobnicate 2>/dev/null; [ $? -eq 2 ]' sh "$graft"
# Go to definition where no include is (the blank after "nn.relu(x)"), in
# a file of 600 rules, whose items (19,200 bytes) get an allocation of
# their own (arena.c): the answer null, and the search for an include
# reads no item past the last (which ASan and valgrind would report).
many=$(awk 'BEGIN { for (i = 0; i < 600; i++) printf "r%d := nn.relu(x) => x\\n", i }')
{
    msg '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":\
{\"textDocument\":{\"uri\":\"file:///lsp-test/many.graft\",\"languageId\":\"graft\",\
\"version\":1,\"text\":\"$many\"}}}"
    msg "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/definition\",\"params\":\
$(uri=file:///lsp-test/many.graft doc 599 18)}"
    msg '{"jsonrpc":"2.0","id":3,"method":"shutdown"}'
    msg '{"jsonrpc":"2.0","method":"exit"}'
} >"$tmp/many"
"$graft" lsp --no-debounce <"$tmp/many" >"$tmp/many_out" 2>"$tmp/many_err"
check "go to definition on a blank of 600 rules answers null" \
    grep -qF '{"jsonrpc":"2.0","id":2,"result":null}' "$tmp/many_out"
check "go to definition on a blank of 600 rules writes nothing on stderr" [ ! -s "$tmp/many_err" ]

expect_end lsp_protocol
