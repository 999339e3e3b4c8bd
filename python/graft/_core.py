"""The package's classes over libgraft.so (_lib.py)."""
import ctypes
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _lib

_LIB = _lib.load()
_SEVERITIES = ("error", "warning", "note")
_KINDS = ("unknown", "relay", "onnx-text", "onnx-bytes")

Model = Union[str, bytes, os.PathLike, Any]
"""A model: a path, model text, ONNX bytes, an onnx.ModelProto or an object
with astext()."""


def _str(b: Optional[bytes]) -> Optional[str]:
    return None if b is None else b.decode("utf-8", "replace")


@dataclass(frozen=True)
class Diagnostic:
    """One diagnostic of graft: where, how bad, what, and its notes.

    ``file`` is None (and line, column 0) for one that belongs to no place
    in a file; a file with line 0 for one about the file as a whole, or
    (``byte`` not None) about a byte of a binary file, an ONNX model.
    ``str(d)`` is the first line graft prints for it."""
    severity: str
    message: str
    file: Optional[str] = None
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0
    flag: Optional[str] = None
    source_line: Optional[str] = None
    notes: Tuple["Diagnostic", ...] = ()
    byte: Optional[int] = None

    def __str__(self) -> str:
        if self.file and self.line:
            where = f"{self.file}:{self.line}:{self.column}"
        else:
            where = self.file or "graft"
        at = f"byte {self.byte}: " if self.byte is not None else ""
        flag = f" [-W{self.flag}]" if self.flag else ""
        return f"{where}: {self.severity}: {at}{self.message}{flag}"

    @staticmethod
    def _from(m: "_lib.Message") -> "Diagnostic":
        return Diagnostic(
            severity=_SEVERITIES[m.severity], message=_str(m.text) or "",
            file=_str(m.file), line=m.line, column=m.column, end_line=m.end_line,
            end_column=m.end_column, flag=_str(m.flag), source_line=_str(m.source_line),
            notes=tuple(Diagnostic._from(m.notes[i]) for i in range(m.nnotes)),
            byte=m.byte if m.byte >= 0 else None)


class Error(Exception):
    """What graft reported: ``diagnostics`` is the list of
    :class:`Diagnostic`, errors and warnings in order; the message is their
    first lines."""

    def __init__(self, message: str, diagnostics: Sequence[Diagnostic] = ()):
        super().__init__(message)
        self.diagnostics: List[Diagnostic] = list(diagnostics)


@dataclass(frozen=True)
class Binding:
    """What a rule's variable holds: a node by name ("%3", "%x", "1f", as
    ``graft fmt`` prints the model), with its position when it has one, or
    an attribute value by its text."""
    value: str
    is_node: bool
    line: int = 0
    column: int = 0


@dataclass(frozen=True)
class Match:
    """One match: the rule, the root node (name, what it is, position in
    the model) and the bindings of the rule's variables, by name.  In an
    ONNX model's subgraph, where the root is: the subgraph's name (as the
    root's "GRAPH/" says), the node holding it, named as the graph around
    it names it, and its attribute there ("then_branch", "body"); None in
    the main graph."""
    rule: str
    root: str
    kind: str
    line: int
    column: int
    bindings: Dict[str, Binding] = field(default_factory=dict)
    subgraph: Optional[str] = None
    holder: Optional[str] = None
    attribute: Optional[str] = None


@dataclass(frozen=True)
class Verdict:
    """graft verify's verdict on one rule: "verified", "refuted",
    "unchecked" or "skipped", with the trials, the largest error against
    the tolerance, the instance tried and, unless verified, why."""
    rule: str
    verdict: str
    trials: int
    max_error: float
    tolerance: float
    instance: str
    why: str


class _Diags:
    """A capturing graft_diag for one call."""

    def __enter__(self) -> int:
        self.ptr = _LIB.graft_diag_capture()
        return self.ptr

    def __exit__(self, *exc: Any) -> None:
        _LIB.graft_diag_free(self.ptr)

    def error(self, what: str) -> Error:
        """An Error carrying the diagnostics recorded so far."""
        diags = [Diagnostic._from(_LIB.graft_diag_message(self.ptr, i).contents)
                 for i in range(_LIB.graft_diag_count(self.ptr))]
        errors = [str(d) for d in diags if d.severity == "error"] or [str(d) for d in diags]
        return Error(f"{what}: " + "; ".join(errors) if errors else what, diags)


def model_kind(model: Model) -> str:
    """"relay", "onnx-text", "onnx-bytes" or "unknown", as the loader tells
    the IRs apart (a path: from the file's first bytes)."""
    data = _model_input(model)[1]
    if data is None:
        with open(_model_input(model)[0], "rb") as f:
            data = f.read(4096)
    return _KINDS[_LIB.graft_model_kind_of(data, len(data))]


def _is_path(model: Any) -> bool:
    if isinstance(model, os.PathLike):
        return True
    return (isinstance(model, str) and "\n" not in model and len(model) < 4096
            and os.path.isfile(model))


def _model_input(model: Model) -> Tuple[str, Optional[bytes], str]:
    """(name, data or None for a file, kind of result) for model."""
    if _is_path(model):
        return os.fspath(model), None, "text"
    if isinstance(model, str):
        return "<model>", model.encode(), "text"
    if isinstance(model, (bytes, bytearray, memoryview)):
        return "<model>", bytes(model), "bytes"
    if hasattr(model, "SerializeToString") and type(model).__name__ == "ModelProto":
        return "<onnx.ModelProto>", model.SerializeToString(), "onnx"
    if callable(getattr(model, "astext", None)):
        return "<IRModule>", model.astext().encode(), "text"
    raise TypeError("graft: a model is a path, model text, ONNX bytes, an onnx.ModelProto "
                    f"or an object with astext(), not {type(model).__name__}")


def _result(out: bytes, kind: str, form: str) -> Any:
    """A rewritten model as the caller's type: an onnx.ModelProto for one,
    bytes for bytes and for a path to ONNX bytes, else text."""
    if kind == "onnx":
        import onnx
        return onnx.ModelProto.FromString(out)
    if kind == "bytes" or form == "onnx-bytes":
        return out
    return out.decode()


def _load_model(model: Model, limits: int, diags: _Diags) -> Tuple[int, str]:
    """The graft_graph of model (the caller frees it) and its result kind."""
    name, data, kind = _model_input(model)
    if data is None:
        g = _LIB.graft_model_load(name.encode(), limits, diags.ptr)
    else:
        g = _LIB.graft_model_parse(name.encode(), data, len(data), limits, diags.ptr)
    if not g:
        raise diags.error(f"cannot load the model {name}")
    return g, kind


class _Limits:
    """A graft_limits from "NAME=N,..." (``graft limits`` lists them)."""

    def __init__(self, spec: Optional[str]):
        self.ptr = _LIB.graft_limits_new()
        if spec:
            with _Diags() as d:
                ok = _LIB.graft_limits_set(self.ptr, spec.encode(), d)
                if not ok:
                    _LIB.graft_limits_free(self.ptr)
                    raise _diags_of(d).error("bad limits")

    def free(self) -> None:
        _LIB.graft_limits_free(self.ptr)


def _diags_of(ptr: int) -> _Diags:
    d = _Diags()
    d.ptr = ptr
    return d


class Rules:
    """A rule set, loaded once (:meth:`from_file`, :meth:`from_text`) and
    applied to any number of models.  ``limits`` is "NAME=N,..." as graft's
    --limit takes it; ``include_dirs`` are where ``include "f"`` looks
    after the including file's directory.

    Close it with :meth:`close` or a ``with`` block (the garbage collector
    does too); a closed rule set raises :class:`Error`.  Calls on one Rules
    object are serialized; separate objects run in parallel threads."""

    def __init__(self, _handle: int, _limits: _Limits):
        self._handle: Optional[int] = _handle
        self._limits = _limits
        self._lock = threading.Lock()
        self._run_options = ctypes.byref(_lib.RunOptions(0, None, _limits.ptr, None))

    # ---- loading ----

    @classmethod
    def from_file(cls, *paths: Union[str, os.PathLike],
                  include_dirs: Sequence[Union[str, os.PathLike]] = (),
                  limits: Optional[str] = None) -> "Rules":
        """The rule files ``paths`` (.graft) as one rule set."""
        if not paths:
            raise TypeError("graft: Rules.from_file needs a rule file")
        names = [os.fsencode(p) for p in paths]
        return cls._load(lambda opts, d: _LIB.graft_rules_load(
            (ctypes.c_char_p * len(names))(*names), len(names), opts, d),
            include_dirs, limits, "cannot load the rules " + ", ".join(map(str, paths)))

    @classmethod
    def from_text(cls, text: str, name: str = "<rules>",
                  include_dirs: Sequence[Union[str, os.PathLike]] = (),
                  limits: Optional[str] = None) -> "Rules":
        """The rule set written in ``text``; ``name`` names it in
        diagnostics; its includes resolve against the current directory,
        then ``include_dirs``."""
        data = text.encode()
        return cls._load(lambda opts, d: _LIB.graft_rules_parse(
            name.encode(), data, len(data), opts, d), include_dirs, limits,
            f"cannot load the rules {name}")

    @classmethod
    def _load(cls, load: Any, include_dirs: Sequence[Union[str, os.PathLike]],
              limits: Optional[str], what: str) -> "Rules":
        lim = _Limits(limits)
        dirs = [os.fsencode(p) for p in include_dirs]
        opts = _lib.LoadOptions((ctypes.c_char_p * max(len(dirs), 1))(*dirs), len(dirs),
                                lim.ptr)
        with _Diags() as d:
            handle = load(ctypes.byref(opts), d)
            if not handle:
                lim.free()
                raise _diags_of(d).error(what)
        return cls(handle, lim)

    # ---- lifetime ----

    def close(self) -> None:
        """Frees the rule set; calling close again does nothing."""
        with self._lock:
            if self._handle:
                _LIB.graft_rules_free(self._handle)
                self._limits.free()
            self._handle = None

    def __enter__(self) -> "Rules":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        # At interpreter exit the module's globals may be gone already;
        # the process is ending then, so nothing is lost by skipping.
        if getattr(self, "_handle", None) and _LIB is not None:
            self.close()

    def _live(self) -> int:
        if not self._handle:
            raise Error("graft: this rule set was closed")
        return self._handle

    @property
    def rule_names(self) -> List[str]:
        """The rules' names, in file order."""
        with self._lock:
            table = _LIB.graft_rules_table(self._live())
            return [_LIB.graft_rule_name(table, i).decode()
                    for i in range(_LIB.graft_rule_count(table))]

    # ---- applying ----

    def _on_model(self, model: Model, step: Any, what: str) -> Any:
        """step(rules, graph, diags) on the loaded model, then the result."""
        with self._lock, _Diags() as d:
            handle = self._live()
            g, kind = _load_model(model, self._limits.ptr, _diags_of(d))
            try:
                return step(handle, g, _diags_of(d), kind)
            finally:
                _LIB.graft_model_free(g)

    def _rewriting(self, steps: int, model: Model, what: str) -> Any:
        """graft_rules_apply_model: one call loads, rewrites and writes the
        model in the form it came in."""
        name, data, kind = _model_input(model)
        d = _LIB.graft_diag_capture()
        size, form = ctypes.c_size_t(0), ctypes.c_int(0)
        try:
            with self._lock:
                p = _LIB.graft_rules_apply_model(
                    self._live(), name.encode(), data, len(data) if data is not None else 0,
                    steps, self._run_options, ctypes.byref(size), ctypes.byref(form), d)
            if not p:
                raise _diags_of(d).error(what)
            try:
                out = ctypes.string_at(p, size.value)
            finally:
                _LIB.graft_string_free(p)
        finally:
            _LIB.graft_diag_free(d)
        return _result(out, kind, _KINDS[form.value])

    def run(self, model: Model) -> Any:
        """The model rewritten to a fixpoint and partitioned (graft run), as
        the type given: text for text or a path to a text model (Relay, ONNX
        text), bytes for bytes or a path to ONNX bytes (.onnx), an
        onnx.ModelProto for one, Relay text for an object with astext().
        An ONNX model needs rules for ONNX (``opset onnx N``)."""
        return self._rewriting(_lib.STEP_REWRITE | _lib.STEP_PARTITION, model,
                              "graft run failed")

    def rewrite(self, model: Model) -> Any:
        """As :meth:`run`, the rewrite rules only (no partition passes)."""
        return self._rewriting(_lib.STEP_REWRITE, model, "graft rewrite failed")

    def partition(self, model: Model) -> Any:
        """As :meth:`run`, the partition passes only (no rewrites)."""
        return self._rewriting(_lib.STEP_PARTITION, model, "graft partition failed")

    def match(self, model: Model) -> List[Match]:
        """Every match in the model (graft match): nodes operands first,
        rules in file order at each node.  In an ONNX model the matches
        inside If's branches and Loop's and Scan's bodies come first,
        their nodes named "GRAPH/NAME" ("then_body/a"), as graft match
        prints them."""
        def step(handle: int, g: int, d: _Diags, kind: str) -> List[Match]:
            ms = _LIB.graft_rules_match(handle, g, self._limits.ptr, d.ptr)
            if not ms:
                raise d.error("graft match failed")
            try:
                return [_match(_LIB.graft_matches_get(ms, i).contents)
                        for i in range(_LIB.graft_matches_count(ms))]
            finally:
                _LIB.graft_matches_free(ms)
        return self._on_model(model, step, "graft match failed")

    def explain(self, model: Model, at: Optional[str] = None,
                rule: Optional[str] = None) -> str:
        """Why rules match or not (graft explain): at the node ``at`` ("%7",
        "%x", ":LINE[:COL]", an ONNX subgraph's "then_body/a"), for every
        rule or only ``rule``; with ``rule`` alone, the rule's near misses
        in the whole model, an ONNX model's subgraphs too."""
        def step(handle: int, g: int, d: _Diags, kind: str) -> str:
            p = _LIB.graft_rules_explain(handle, g, at.encode() if at else None,
                                         rule.encode() if rule else None,
                                         self._limits.ptr, d.ptr)
            if not p:
                raise d.error("graft explain failed")
            try:
                return ctypes.string_at(p).decode()
            finally:
                _LIB.graft_string_free(p)
        return self._on_model(model, step, "graft explain failed")

    def verify(self, seed: int = 1, trials: int = 20) -> List[Verdict]:
        """Each rule checked on random instances of its two sides (graft
        verify), one :class:`Verdict` per rule in file order."""
        with self._lock:
            opts = _lib.VerifyOptions(seed, trials)
            vs = _LIB.graft_rules_verify(self._live(), ctypes.byref(opts))
            try:
                return [_verdict(_LIB.graft_verdicts_get(vs, i).contents)
                        for i in range(_LIB.graft_verdicts_count(vs))]
            finally:
                _LIB.graft_verdicts_free(vs)

    def __repr__(self) -> str:
        if not self._handle:
            return "<graft.Rules (closed)>"
        return f"<graft.Rules {', '.join(self.rule_names)}>"


def _match(m: "_lib.Match") -> Match:
    bindings = {}
    for i in range(m.nbindings):
        b = m.bindings[i]
        bindings[b.var.decode()] = Binding(b.value.decode(), bool(b.is_node), b.line,
                                           b.column)
    return Match(m.rule.decode(), m.root.decode(), m.kind.decode(), m.line, m.column,
                 bindings, _str(m.subgraph), _str(m.holder), _str(m.attribute))


def _verdict(v: "_lib.Verdict") -> Verdict:
    return Verdict(v.rule.decode(), v.verdict.decode(), v.trials, v.max_error, v.tolerance,
                   v.instance.decode(), v.why.decode())
