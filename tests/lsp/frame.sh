# tests/lsp/frame.sh - sourced by the shell tests that talk to graft lsp
# (lsp_protocol.sh, lsp_debounce.sh): msg JSON writes one message framed
# as the Language Server Protocol frames it, its Content-Length counted
# in bytes.
msg() {
    printf 'Content-Length: %d\r\n\r\n%s' "$(printf %s "$1" | LC_ALL=C wc -c)" "$1"
}
