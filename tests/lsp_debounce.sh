#!/bin/sh
# lsp_debounce.sh - graft lsp's debouncing (note [debounce] in
# src/lsp/lsp_server.c): while changes are waiting on the input, the
# server answers requests and checks nothing; it checks each changed
# document once, as it is at the last change, when the input is quiet.
#
# The session goes into a FIFO held open by this shell before the server
# starts, so every message is waiting when it reads the first one (the
# input is 3 KB, well inside a pipe's 64 KiB): a document opened and then
# changed 20 times, each version naming another unknown op (bad1 ... bad21),
# and a hover between the changes.  Expected: the initialize and hover
# responses, then exactly one publishDiagnostics, the last version's
# (bad21).  Then, with --no-debounce, the same input published 21 times.
# The server exits after the shutdown and exit this shell writes last
# (timeout: a server that hangs fails the test, never holds make check).
. "${GRAFT_SRCDIR:?}/tests/expect.sh"
. "$src/tests/lsp/frame.sh"
graft=$GRAFT
uri=file:///lsp-test/debounce.graft
text() { # version: a rule naming the unknown op bad<version>
    printf 'r := bad%s(x) => x\\n' "$1"
}
first_part() {
    msg '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'
    msg '{"jsonrpc":"2.0","method":"initialized","params":{}}'
    msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{\"textDocument\":{\"uri\":\"$uri\",\"languageId\":\"graft\",\"version\":1,\"text\":\"$(text 1)\"}}}"
    v=2
    while [ $v -le 21 ]; do
        msg "{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didChange\",\"params\":{\"textDocument\":{\"uri\":\"$uri\",\"version\":$v},\"contentChanges\":[{\"text\":\"$(text $v)\"}]}}"
        [ $v -eq 10 ] &&
            msg "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":{\"uri\":\"$uri\"},\"position\":{\"line\":0,\"character\":0}}}"
        v=$((v + 1))
    done
}
last_part() {
    msg '{"jsonrpc":"2.0","id":3,"method":"shutdown"}'
    msg '{"jsonrpc":"2.0","method":"exit"}'
}

# run OUT [OPTION]: the server on the FIFO with the first part waiting;
# the last part once a publishDiagnostics has come (60 s at most).
run() {
    out=$1
    shift
    rm -f "$tmp/fifo"
    mkfifo "$tmp/fifo"
    exec 3<>"$tmp/fifo" # read-write: opening does not wait for a reader
    first_part >&3
    timeout 120 "$graft" lsp "$@" <"$tmp/fifo" >"$out" 2>"$tmp/err" 3>&- &
    server=$!
    tries=0
    while ! grep -q publishDiagnostics "$out" && [ $tries -lt 600 ]; do
        sleep 0.1
        tries=$((tries + 1))
    done
    sleep 0.5 # time for any further publication to arrive
    last_part >&3
    exec 3>&-
    wait $server
}

count() { # how many of the output's messages contain $2
    sed 's/Content-Length: /\n/g' "$1" | grep -c "$2"
}
run "$tmp/out"
check "the debounced server exits 0" [ $? -eq 0 ]
check "nothing on stderr" [ ! -s "$tmp/err" ]
check "one publishDiagnostics for 21 versions waiting at once" \
    [ "$(count "$tmp/out" publishDiagnostics)" -eq 1 ]
check "... the last version's: unknown op 'bad21'" \
    grep -q "unknown op 'bad21'" "$tmp/out"
check "the hover between the changes answered before it" sh -c \
    'sed "s/Content-Length: /\n/g" "$1" | grep -n "\"id\":2\|publishDiagnostics" |
     head -n 1 | grep -q "\"id\":2"' sh "$tmp/out"
check "the initialize and shutdown responses" sh -c \
    'grep -q "\"id\":1,\"result\"\|\"result\":{[^}]*capabilities" "$1" && grep -q "\"id\":3" "$1"' \
    sh "$tmp/out"

run "$tmp/out_each" --no-debounce
check "--no-debounce: the server exits 0" [ $? -eq 0 ]
check "--no-debounce: a publishDiagnostics for each of the 21 versions" \
    [ "$(count "$tmp/out_each" publishDiagnostics)" -eq 21 ]
check "--no-debounce: bad1 first, bad21 last" sh -c \
    'sed "s/Content-Length: /\n/g" "$1" | grep -o "unknown op .bad[0-9]*." |
     sed -n "1p;\$p" | tr "\n" " " | grep -qx "unknown op .bad1. unknown op .bad21. "' \
    sh "$tmp/out_each"
expect_end lsp_debounce
