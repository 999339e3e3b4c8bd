#!/bin/sh
# outfile.sh - what -o does to each kind of target (note [atomic output]
# in src/base/outfile.h), for every command that writes one: graft fmt, run,
# viz, compile, compile --exe and a compiled rewriter.  Targets: an
# existing file, a new file, a symbolic link, a dangling link, a chain of
# links, /dev/null, a FIFO, a directory, a place that cannot be written,
# and bad input into a link and a FIFO.  The cases run as the current
# user and, when that is root, again as nobody (setpriv or su).
#
# usage: outfile.sh            (from make check)
#        outfile.sh --cases DIR  (the cases, in DIR, as whoever runs them)
set -u

# ---- the cases: run in a directory holding in/ (inputs), prog (a
# compiled rewriter), inc/ and lib/ (libgraft for compile --exe) ----
cases() {
    cd "$1" || exit 99
    umask 022
    fails=0 count=0 me=$(id -un)
    fail() { echo "FAIL ($me): $*"; fails=$((fails + 1)); }
    export GRAFT_CFLAGS="-I$1/inc" GRAFT_LIBS="-L$1/lib -lgraft -lprotobuf-c -lm"
    printf 'def @main(%%x) {\n  add(%%x,\n}\n' >in/bad.relay
    printf 'r := nn.relu(x => x\n' >in/bad.graft
    for cmd in fmt run viz compile exe rewriter; do
        expected "$cmd" >"want.$cmd" || fail "$cmd: no expected output"
        targets "$cmd"
    done
    echo "outfile.sh as $me: $count cases, $fails failed"
    [ "$fails" -eq 0 ]
}

# run CMD OUT [bad]: the command writing to OUT (from bad input with "bad").
run() {
    m=in/bn.relay r=in/bn.graft
    [ "${3:-}" = bad ] && m=in/bad.relay r=in/bad.graft
    case $1 in
    fmt) "$GRAFT" fmt "$m" -o "$2" ;;
    run) "$GRAFT" run in/bn.graft "$m" -o "$2" ;;
    viz) "$GRAFT" viz "$m" -o "$2" ;;
    compile) "$GRAFT" compile "$r" -o "$2" ;;
    exe) "$GRAFT" compile --exe "$r" -o "$2" ;;
    rewriter) ./prog "$m" -o "$2" ;;
    esac
}

c_lines() {
    sed '/^#line [0-9]* "in\//!s/^#line .*/#line (the output)/'
}

# The output CMD must write: its standard output, or for compile --exe
# what the program it builds prints.
expected() {
    case $1 in
    exe) "$GRAFT" run in/bn.graft in/bn.relay ;;
    compile) run compile - | c_lines ;;
    *) run "$1" - ;;
    esac
}

# same CMD FILE: FILE holds what CMD must write (a program: one that runs
# and prints the rewritten model; C: its #line directives that name the
# output file as given aside).
same() {
    if [ "$1" = exe ]; then
        [ -x "$2" ] && "$2" in/bn.relay | cmp -s - want.exe
    elif [ "$1" = compile ]; then
        c_lines <"$2" | cmp -s - want.compile
    else
        cmp -s "$2" "want.$1"
    fi
}

# ok CMD OUT WHAT: CMD -o OUT succeeds silently.
ok() {
    count=$((count + 1))
    run "$1" "$2" >out 2>err || fail "$1 -o $3: exit $?: $(cat err)"
    [ -s err ] && fail "$1 -o $3: stderr: $(cat err)"
    [ -s out ] && fail "$1 -o $3: wrote to stdout"
}

# refused CMD OUT MESSAGE: CMD -o OUT fails (exit 1) with exactly MESSAGE.
refused() {
    count=$((count + 1))
    printf '%s\n' "$3" >want.err
    run "$1" "$2" >out 2>err
    st=$?
    [ "$st" -eq 1 ] || fail "$1 -o $2: exit $st, expected 1"
    cmp -s err want.err || fail "$1 -o $2: stderr '$(cat err)', expected '$3'"
}

# no_temp DIR: no temporary file of graft's is left in DIR.
no_temp() {
    left=$(ls -a "$1" | grep '\.tmp\.') && fail "temporary file left in $1: $left"
}

targets() {
    c=$1
    rm -rf t && mkdir t
    # an existing file: replaced, its permissions kept (a program's made
    # executable)
    echo old >t/file && chmod 640 t/file
    ok "$c" t/file "an existing file"
    same "$c" t/file || fail "$c -o an existing file: wrong contents"
    want_mode=640
    [ "$c" = exe ] && want_mode=751
    [ "$(stat -c %a t/file)" = $want_mode ] ||
        fail "$c -o an existing file: mode $(stat -c %a t/file), expected $want_mode"
    # a new file: 0666 (a program 0777) less the umask
    ok "$c" t/new "a new file"
    same "$c" t/new || fail "$c -o a new file: wrong contents"
    want_mode=644
    [ "$c" = exe ] && want_mode=755
    [ "$(stat -c %a t/new)" = $want_mode ] ||
        fail "$c -o a new file: mode $(stat -c %a t/new), expected $want_mode"
    # a symbolic link: the file it names is written, the link stays
    echo old >t/real && ln -s real t/link
    ok "$c" t/link "a symbolic link"
    [ -L t/link ] && [ "$(readlink t/link)" = real ] || fail "$c -o a link replaced the link"
    same "$c" t/real || fail "$c -o a link: the file it names is not written"
    # a dangling link: the file it names is created
    ln -s made t/dangling
    ok "$c" t/dangling "a dangling link"
    [ -L t/dangling ] && same "$c" t/made || fail "$c -o a dangling link"
    # a chain of links, one of them absolute, into another directory
    mkdir t/sub && echo old >t/sub/end
    ln -s "$PWD/t/sub/end" t/c2 && ln -s c2 t/c1
    ok "$c" t/c1 "a chain of links"
    [ -L t/c1 ] && [ -L t/c2 ] && same "$c" t/sub/end || fail "$c -o a chain of links"
    no_temp t
    no_temp t/sub
    # /dev/null: written through, still the device
    ok "$c" /dev/null /dev/null
    [ -c /dev/null ] || fail "$c -o /dev/null: /dev/null is no longer a character device"
    # a FIFO: the reader gets the output, the FIFO stays a FIFO
    mkfifo t/fifo
    timeout 20 cat t/fifo >t/from_fifo & # bounded: a graft that replaced the FIFO never writes
    ok "$c" t/fifo "a FIFO"
    wait
    [ -p t/fifo ] || fail "$c -o a FIFO replaced the FIFO"
    [ "$c" = exe ] && chmod +x t/from_fifo # the program, as the reader got it
    same "$c" t/from_fifo || fail "$c -o a FIFO: the reader got other bytes"
    # bad input into a FIFO: the reader gets nothing
    [ -p t/fifo ] || { rm -f t/fifo && mkfifo t/fifo; }
    timeout 20 cat t/fifo >t/from_fifo &
    run "$c" t/fifo bad >out 2>err && fail "$c -o FIFO with bad input succeeded"
    timeout 5 sh -c ': >t/fifo' # ends the reader if graft never opened the FIFO
    wait
    count=$((count + 1))
    [ -s t/from_fifo ] && fail "$c: bad input wrote $(wc -c <t/from_fifo) bytes into a FIFO"
    # bad input into a link: the file it names is kept
    echo keep >t/real
    count=$((count + 1))
    run "$c" t/link bad >out 2>err && fail "$c -o a link with bad input succeeded"
    [ "$(cat t/real)" = keep ] || fail "$c: bad input clobbered the file a link names"
    # a directory: refused, untouched
    mkdir t/dir
    refused "$c" t/dir "graft: error: cannot write 't/dir': Is a directory"
    [ -z "$(ls -A t/dir)" ] || fail "$c -o a directory wrote into it"
    refused "$c" t/dir/ "graft: error: cannot write 't/dir/': Is a directory"
    # a link to a directory: the same
    ln -s dir t/dirlink
    refused "$c" t/dirlink "graft: error: cannot write 't/dirlink': Is a directory"
    # a loop of links
    ln -s loop2 t/loop1 && ln -s loop1 t/loop2
    refused "$c" t/loop1 "graft: error: cannot write 't/loop1': Too many levels of symbolic links"
    # a read-only file, also for root, whom access() lets write it: its mode
    # bits decide (README: "a directory or read-only file is an error")
    echo keep >t/rofile && chmod 444 t/rofile
    refused "$c" t/rofile "graft: error: cannot write 't/rofile': Permission denied"
    [ "$(cat t/rofile)" = keep ] || fail "$c -o a read-only file changed it"
    if [ "$(id -u)" -ne 0 ]; then
        # a directory the user may not write
        mkdir t/ro && chmod 555 t/ro
        refused "$c" t/ro/x "graft: error: cannot write 't/ro/x': Permission denied"
        [ -z "$(ls -A t/ro)" ] || fail "$c -o into a read-only directory left a file"
        chmod 755 t/ro
    else
        # root may write anywhere the kernel lets it: /proc takes no new file
        count=$((count + 1))
        run "$c" /proc/graft-outfile-test >out 2>err
        st=$?
        [ "$st" -eq 1 ] && grep -qx "graft: error: cannot write '/proc/graft-outfile-test': .*" err ||
            fail "$c -o /proc/graft-outfile-test: exit $st: $(cat err)"
    fi
    rm -rf t
}

if [ "${1:-}" = --cases ]; then
    cases "$2"
    exit $?
fi

# ---- the driver: a work directory anyone can read, the inputs, a
# compiled rewriter and libgraft in it ----
. "${GRAFT_SRCDIR:?}/tests/shell_lib.sh"
test_tmpdir graft-outfile
chmod 755 "$tmp"
mkdir "$tmp/share" "$tmp/share/in" "$tmp/share/inc" "$tmp/share/lib" || exit 99
cp "$GRAFT_SRCDIR/examples/bn.relay" "$GRAFT_SRCDIR/examples/bn.graft" "$tmp/share/in/"
cp "$GRAFT_SRCDIR"/include/graft/*.h "$tmp/share/inc/" || exit 99
cp "$GRAFT_BUILDDIR/libgraft.a" "$tmp/share/lib/" && cp "$0" "$tmp/share/outfile.sh" &&
    cp "$GRAFT" "$tmp/share/graft" || exit 99
GRAFT=$tmp/share/graft
export GRAFT
env GRAFT_CFLAGS="-I$tmp/share/inc" GRAFT_LIBS="-L$tmp/share/lib -lgraft -lprotobuf-c -lm" \
    "$GRAFT" compile --exe "$tmp/share/in/bn.graft" -o "$tmp/share/prog" || exit 99
chmod -R a+rX "$tmp/share"
cd "$tmp" || exit 99

status=0
mkdir "$tmp/self" && cp -R "$tmp/share/." "$tmp/self/"
(cases "$tmp/self") || status=1

if [ "$(id -u)" -eq 0 ]; then
    mkdir "$tmp/user" && cp -R "$tmp/share/." "$tmp/user/" && chown -R nobody "$tmp/user"
    as_nobody="env GRAFT=$GRAFT TMPDIR=$tmp/user sh $tmp/share/outfile.sh --cases $tmp/user"
    if command -v setpriv >/dev/null 2>&1; then
        # shellcheck disable=SC2086
        setpriv --reuid=nobody --regid=nogroup --clear-groups $as_nobody || status=1
    elif command -v su >/dev/null 2>&1; then
        su nobody -s /bin/sh -c "$as_nobody" || status=1
    else
        echo "outfile.sh: not run as an unprivileged user: neither setpriv nor su is installed"
    fi
fi
exit $status
