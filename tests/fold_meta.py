"""Checks graft's folds on Relay models (tests/fold_meta.sh): argv is the
input conv_bn.relay, graft's fold_meta.graft output of it, and graft run
--fold-constants' output of tensors.relay.

Each #[metadata] section is decoded as TVM v0.14 loads one: the JSON graph
of SaveJSON (tvm/src/node/serialization.cc: "root" a Map whose "keys" name
the kinds and whose "data" point to one Array of nodes each; a
relay.Constant node's attrs.data an index into "b64ndarrays"), each entry
the base64 of runtime::SaveDLTensor's bytes (tvm/include/tvm/runtime/ndarray.h:
u64 magic 0xDD5E40F096B4A13F, u64 reserved, the device as two i32 (kDLCPU
1, 0), i32 rank, the DLDataType as u8 code, u8 bits, u16 lanes, rank i64
dims, i64 byte count, the bytes).  The new values must equal their folds
computed here by numpy in float32, op by op in the rule's order, bit for
bit; the input's entries must be kept byte for byte, under their indices."""
import base64
import json
import re
import struct
import sys

import numpy as np

DTYPES = {(2, 32): np.float32, (2, 16): np.float16, (0, 32): np.int32, (0, 64): np.int64}


def split(path):
    text = open(path).read()
    body, _, section = text.partition("#[metadata]\n")
    return body, section


def ndarray(b64):
    raw = base64.b64decode(b64, validate=True)
    magic, reserved, dev_type, dev_id, rank, code, bits, lanes = struct.unpack_from("<QQiiiBBH", raw)
    assert (magic, reserved, dev_type, dev_id, lanes) == (0xDD5E40F096B4A13F, 0, 1, 0, 1)
    dims = struct.unpack_from("<%dq" % rank, raw, 32)
    at = 32 + 8 * rank
    (size,) = struct.unpack_from("<q", raw, at)
    assert len(raw) == at + 8 + size, "trailing or missing bytes"
    return np.frombuffer(raw[at + 8:], DTYPES[(code, bits)]).reshape(dims)


def constants(section):
    """The values of meta[relay.Constant][i], in index order."""
    graph = json.loads(section)
    nodes = graph["nodes"]
    root = nodes[graph["root"]]
    array = nodes[root["data"][root["keys"].index("relay.Constant")]]
    values = []
    for i in array["data"]:
        node = nodes[i]
        assert node["type_key"] == "relay.Constant"
        assert node["attrs"] == {"_checked_type_": "0", "data": node["attrs"]["data"],
                                 "span": "0", "virtual_device_": "0"}
        values.append(ndarray(graph["b64ndarrays"][int(node["attrs"]["data"])]))
    return values


def index_of(body, pattern):
    found = re.search(pattern.replace("(", r"\(").replace("K", r"meta\[relay\.Constant\]\[(\d+)\]"),
                      body)
    assert found, pattern
    return int(found.group(1))


def kept_lines(before, after):
    """Every line of the input's section is in the output's, in order: as
    it was, or followed by ", " (the last entry of a list that grew); the
    constant list's line only grew."""
    lines = iter(after.splitlines())
    for line in before.splitlines():
        if line.startswith('      "data": [3,'):
            line = line[:-1]
            assert any(out.startswith(line + ", ") for out in lines), line
        else:
            assert any(out in (line, line + ", ") for out in lines), "input line lost: " + line


def check_conv_bn(given, folded):
    body, section = split(folded)
    kept_lines(split(given)[1], section)
    old, new = constants(split(given)[1]), constants(section)
    assert len(new) == len(old) + 3, len(new)
    for a, b in zip(old, new):
        assert a.tobytes() == b.tobytes() and a.shape == b.shape
    eps = np.float32(1e-05)
    w, gamma, beta, mean, var = old[:5]
    scale = gamma / np.sqrt(var + eps)
    want = {index_of(body, "nn.conv2d(%x, K"): w * scale.reshape(4, 1, 1, 1),
            index_of(body, "nn.bias_add(%0, K"): beta - mean * scale,
            index_of(body, "multiply(%1, K"): old[6] / np.sqrt(old[9] + eps)}
    assert sorted(want) == [10, 11, 12], sorted(want)
    for k, value in want.items():
        assert value.dtype == np.float32 and new[k].dtype == np.float32
        assert new[k].shape == value.shape, (k, new[k].shape)
        assert new[k].tobytes() == value.tobytes(), (k, new[k], value)


def check_tensors(folded):
    body, section = split(folded)
    new = constants(section)
    half = np.expand_dims(np.broadcast_to(np.float32(2), (3,)) * np.float32(1.5), 0)
    want = {index_of(body, "add(%0, K"): half.astype(np.float16),
            index_of(body, "(%1, K"): half.astype(np.int32)}
    assert sorted(want) == [0, 1], sorted(want)
    for k, value in want.items():
        assert new[k].dtype == value.dtype and new[k].shape == value.shape, k
        assert new[k].tobytes() == value.tobytes(), (k, new[k], value)


check_conv_bn(sys.argv[1], sys.argv[2])
check_tensors(sys.argv[3])
print("fold_meta.py: 3 folds of conv_bn.relay and 2 of tensors.relay as numpy computes them")
