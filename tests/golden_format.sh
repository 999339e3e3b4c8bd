# golden_format.sh - sourced by the scripts that write or read golden files
# (tests/golden.sh, tests/std.sh, tests/std_compiled.sh, tests/engine_cli.sh);
# the format is described in tests/golden.sh and tests/README.md.

# golden_text COMMAND OUT ERR STATUS: prints the golden file of a run of
# COMMAND (the first line, "# graft ARGS...") that wrote the files OUT and
# ERR and exited with STATUS.
golden_text() {
    printf '%s\n' "$1"
    cat "$2"
    if [ -s "$3" ]; then
        echo "# stderr"
        cat "$3"
    fi
    echo "# exit $4"
}

# golden_stdout FILE: the standard output that golden FILE expects.
golden_stdout() {
    sed -e 1d -e '/^# stderr$/,$d' -e '/^# exit [0-9]*$/,$d' "$1"
}

# golden_stderr FILE: the standard error that golden FILE expects.
golden_stderr() {
    sed -n '/^# stderr$/,/^# exit [0-9]*$/p' "$1" | sed -e 1d -e '$d'
}
