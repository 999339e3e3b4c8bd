"""libgraft.so through ctypes: finding it, and the C API's declarations
(include/graft/graft_api.h, graft.h)."""
import ctypes
import os
from ctypes import (POINTER, Structure, c_bool, c_char_p, c_double, c_int, c_size_t,
                    c_uint32, c_uint64, c_void_p)
from pathlib import Path
from typing import List

SONAME = "libgraft.so.0"
STEP_REWRITE, STEP_PARTITION = 1, 2  # graft_step


def candidates() -> List[str]:
    """Where libgraft.so.0 is looked for, in order: $GRAFT_LIBRARY (a file),
    the build tree the package was installed from, the install libdir it
    was configured with, then the dynamic linker's own search."""
    found = []
    env = os.environ.get("GRAFT_LIBRARY")
    if env:
        found.append(env)
    try:
        from . import _where
        found.append(str(Path(_where.BUILD_DIR) / ".libs" / SONAME))
        if _where.LIB_DIR:
            found.append(str(Path(_where.LIB_DIR) / SONAME))
    except ImportError:  # running from the source tree, not installed
        found.append(str(Path(__file__).resolve().parents[2] / ".libs" / SONAME))
    found.append(SONAME)
    return found


def load() -> ctypes.CDLL:
    """The first library of candidates() that loads."""
    errors = []
    for path in candidates():
        if os.sep in path and not os.path.exists(path):
            errors.append(f"{path}: no such file")
            continue
        try:
            return declare(ctypes.CDLL(path))
        except OSError as e:
            errors.append(str(e))
    raise ImportError("graft: cannot load libgraft.so.0 (build graft first, as its README "
                      "says, or make install):\n  " + "\n  ".join(errors))


class Message(Structure):
    pass


Message._fields_ = [
    ("severity", c_int), ("file", c_char_p), ("line", c_int), ("column", c_int),
    ("end_line", c_int), ("end_column", c_int), ("text", c_char_p), ("flag", c_char_p),
    ("source_line", c_char_p), ("nnotes", c_size_t), ("notes", POINTER(Message)),
    ("byte", ctypes.c_int64),
]


class LoadOptions(Structure):
    _fields_ = [("include_dirs", POINTER(c_char_p)), ("ninclude_dirs", c_int),
                ("limits", c_void_p)]


class RunOptions(Structure):
    _fields_ = [("max_rewrites", c_uint64), ("trace", c_void_p), ("limits", c_void_p),
                ("model", c_char_p)]


class MatchBinding(Structure):
    _fields_ = [("var", c_char_p), ("value", c_char_p), ("is_node", c_bool),
                ("line", c_int), ("column", c_int)]


class Match(Structure):
    _fields_ = [("rule", c_char_p), ("root", c_char_p), ("kind", c_char_p),
                ("line", c_int), ("column", c_int), ("nbindings", c_size_t),
                ("bindings", POINTER(MatchBinding)), ("subgraph", c_char_p),
                ("holder", c_char_p), ("attribute", c_char_p)]


class VerifyOptions(Structure):
    _fields_ = [("seed", c_uint64), ("trials", c_int)]


class Verdict(Structure):
    _fields_ = [("rule", c_char_p), ("verdict", c_char_p), ("trials", c_int),
                ("max_error", c_double), ("tolerance", c_double), ("instance", c_char_p),
                ("why", c_char_p)]


# name: (result type, argument types)
SIGNATURES = {
    "graft_diag_capture": (c_void_p, []),
    "graft_diag_free": (None, [c_void_p]),
    "graft_diag_count": (c_size_t, [c_void_p]),
    "graft_diag_message": (POINTER(Message), [c_void_p, c_size_t]),
    "graft_diag_errors": (ctypes.c_uint, [c_void_p]),
    "graft_string_free": (None, [c_void_p]),
    "graft_limits_new": (c_void_p, []),
    "graft_limits_free": (None, [c_void_p]),
    "graft_limits_set": (c_bool, [c_void_p, c_char_p, c_void_p]),
    "graft_model_load": (c_void_p, [c_char_p, c_void_p, c_void_p]),
    "graft_model_parse": (c_void_p, [c_char_p, c_char_p, c_size_t, c_void_p, c_void_p]),
    "graft_model_free": (None, [c_void_p]),
    "graft_model_print_string": (c_void_p, [c_void_p]),
    "graft_model_kind_of": (c_int, [c_char_p, c_size_t]),
    "graft_model_form": (c_int, [c_void_p]),
    "graft_model_write": (c_void_p, [c_void_p, POINTER(c_size_t), c_void_p]),
    "graft_rules_load": (c_void_p, [POINTER(c_char_p), c_int, POINTER(LoadOptions),
                                    c_void_p]),
    "graft_rules_parse": (c_void_p, [c_char_p, c_char_p, c_size_t, POINTER(LoadOptions),
                                     c_void_p]),
    "graft_rules_free": (None, [c_void_p]),
    "graft_rules_table": (c_void_p, [c_void_p]),
    "graft_rule_count": (c_uint32, [c_void_p]),
    "graft_rule_name": (c_char_p, [c_void_p, c_uint32]),
    "graft_rules_run": (c_bool, [c_void_p, c_void_p, POINTER(RunOptions), c_void_p]),
    "graft_rules_rewrite": (c_bool, [c_void_p, c_void_p, POINTER(RunOptions), c_void_p]),
    "graft_rules_partition": (c_bool, [c_void_p, c_void_p, POINTER(RunOptions), c_void_p]),
    "graft_rules_apply": (c_void_p, [c_void_p, c_char_p, c_char_p, c_size_t, ctypes.c_uint,
                                     POINTER(RunOptions), c_void_p]),
    "graft_rules_apply_model": (c_void_p, [c_void_p, c_char_p, c_char_p, c_size_t,
                                           ctypes.c_uint, POINTER(RunOptions),
                                           POINTER(c_size_t), POINTER(c_int), c_void_p]),
    "graft_rules_explain": (c_void_p, [c_void_p, c_void_p, c_char_p, c_char_p, c_void_p,
                                       c_void_p]),
    "graft_rules_match": (c_void_p, [c_void_p, c_void_p, c_void_p, c_void_p]),
    "graft_matches_count": (c_size_t, [c_void_p]),
    "graft_matches_get": (POINTER(Match), [c_void_p, c_size_t]),
    "graft_matches_free": (None, [c_void_p]),
    "graft_rules_verify": (c_void_p, [c_void_p, POINTER(VerifyOptions)]),
    "graft_verdicts_count": (c_size_t, [c_void_p]),
    "graft_verdicts_get": (POINTER(Verdict), [c_void_p, c_size_t]),
    "graft_verdicts_free": (None, [c_void_p]),
}


def declare(lib: ctypes.CDLL) -> ctypes.CDLL:
    """Gives each function of SIGNATURES its types."""
    for name, (restype, argtypes) in SIGNATURES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib
