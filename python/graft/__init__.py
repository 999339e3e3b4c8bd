"""graft: rewrite the dataflow graphs of ML models with graft rules.

A rule set is loaded once and applied to models::

    import graft
    rules = graft.Rules.from_text("add_zero := add(x, 0f) => x")
    print(rules.run(model_text))           # the rewritten model, as text
    for m in rules.match("model.relay"):   # every match, with its bindings
        print(m.rule, m.root, m.bindings)

A model is a path (pathlib.Path, or a str naming an existing file), model
text (Relay, or ONNX's text form: told apart by their first tokens), ONNX
bytes, an ``onnx.ModelProto`` (run returns one), or any object with TVM's
``astext()`` (a ``tvm.IRModule``); a rewritten model comes back in the
form it came in.  Rules for ONNX start with ``opset onnx N``.  Problems
raise :class:`Error`, whose ``diagnostics`` carry file, line and column
(for bad ONNX bytes, the byte offset).

The package calls libgraft.so (doc/api.md); separate Rules objects may be
used from separate threads at once.
"""
from ._core import Binding, Diagnostic, Error, Match, Rules, Verdict, model_kind

__all__ = ["Rules", "Error", "Diagnostic", "Match", "Binding", "Verdict", "model_kind"]
__version__ = "0.1.0"

# help() and repr name them graft.X, where users find them.
for _cls in (Rules, Error, Diagnostic, Match, Binding, Verdict):
    _cls.__module__ = __name__
model_kind.__module__ = __name__
del _cls
