# python_onnx.sh - sourced by the shell tests that run python3-onnx
# (onnx_checker.sh, onnx_rewrite.sh, onnx_text_python.sh): python_onnx
# IMPORTS sets $python to a python3 that runs IMPORTS ('import onnx,
# numpy'), or skips the test (exit 77) without one.  Debian's python3-onnx
# is for Debian's python3: /usr/bin/python3 comes before another python3
# first on PATH (a pyenv one, say).
python_onnx() {
    python=
    for candidate in /usr/bin/python3 python3; do
        if "$candidate" -c "$1" >/dev/null 2>&1; then
            python=$candidate
            return 0
        fi
    done
    echo "SKIP: python3-onnx not installed"
    exit 77
}

# onnx_checked FILE: whether onnx.checker's full check passes on the model
# FILE (its complaint printed when not), with the $python python_onnx set.
onnx_checked() {
    "$python" - "$1" <<'PY'
import sys
import onnx
try:
    onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)
except Exception as e:  # every checker failure, whatever its class
    print(e)
    sys.exit(1)
PY
}
