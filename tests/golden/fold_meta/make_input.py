"""Writes conv_bn.relay for fold_meta.graft (tests/golden/fold_meta): a conv2d
and a dense, each followed by an inference batch norm, every weight and
statistic a meta[relay.Constant][i] whose value is in the #[metadata]
section, an NDArray as TVM v0.14 saves one (magic, reserved, CPU device,
rank, dtype, dims, byte count, bytes: SaveDLTensor in
tvm/include/tvm/runtime/ndarray.h), laid out as SaveJSON writes the printer's
meta map (tvm/src/node/serialization.cc), the layout src/runtime/eval_meta.c
reads.  Run: /usr/bin/python3 make_input.py."""
import base64
import struct

# (shape, first value, step) of meta[relay.Constant][i]; variances positive
CONSTS = [((4, 3, 3, 3), -0.5, 0.013),   # 0: conv weights (OIHW)
          ((4,), 0.75, 0.125),           # 1-4: gamma, beta, mean, var
          ((4,), -0.25, 0.1875),
          ((4,), 0.1, -0.05),
          ((4,), 0.5, 0.375),
          ((6, 8), 0.3, -0.0125),        # 5: dense weights (units, in)
          ((6,), 1.25, -0.0625),         # 6-9: gamma, beta, mean, var
          ((6,), 0.05, 0.1),
          ((6,), -0.2, 0.0625),
          ((6,), 0.25, 0.5)]

BODY = """\
def @main(%x: Tensor[(1, 3, 6, 6), float32], %v: Tensor[(2, 8), float32]) {
  %0 = nn.conv2d(%x, meta[relay.Constant][0] /* ty=Tensor[(4, 3, 3, 3), float32] */, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]) /* ty=Tensor[(1, 4, 6, 6), float32] */;
  %1 = nn.batch_norm(%0, meta[relay.Constant][1] /* ty=Tensor[(4), float32] */, meta[relay.Constant][2] /* ty=Tensor[(4), float32] */, meta[relay.Constant][3] /* ty=Tensor[(4), float32] */, meta[relay.Constant][4] /* ty=Tensor[(4), float32] */) /* ty=(Tensor[(1, 4, 6, 6), float32], Tensor[(4), float32], Tensor[(4), float32]) */;
  %2 = nn.dense(%v, meta[relay.Constant][5] /* ty=Tensor[(6, 8), float32] */, units=6) /* ty=Tensor[(2, 6), float32] */;
  %3 = nn.batch_norm(%2, meta[relay.Constant][6] /* ty=Tensor[(6), float32] */, meta[relay.Constant][7] /* ty=Tensor[(6), float32] */, meta[relay.Constant][8] /* ty=Tensor[(6), float32] */, meta[relay.Constant][9] /* ty=Tensor[(6), float32] */) /* ty=(Tensor[(2, 6), float32], Tensor[(6), float32], Tensor[(6), float32]) */;
  %4 = %1.0 /* ty=Tensor[(1, 4, 6, 6), float32] */;
  %5 = %3.0 /* ty=Tensor[(2, 6), float32] */;
  (%4, %5) /* ty=(Tensor[(1, 4, 6, 6), float32], Tensor[(2, 6), float32]) */
}
"""


def ndarray(shape, first, step):
    count = 1
    for d in shape:
        count *= d
    data = struct.pack("<%df" % count, *[first + step * (i % 11) for i in range(count)])
    head = struct.pack("<QQiiiBBH", 0xDD5E40F096B4A13F, 0, 1, 0, len(shape), 2, 32, 1)
    dims = b"".join(struct.pack("<q", d) for d in shape)
    return base64.b64encode(head + dims + struct.pack("<q", len(data)) + data).decode()


def section():
    """The section as TVM prints it: dmlc's JSONWriter, two-space indents,
    ', ' and a newline between members, a list of numbers on one line."""
    n = len(CONSTS)
    nodes = ['    {\n      "type_key": ""\n    }',
             '    {\n      "type_key": "Map", \n      "keys": [\n        "relay.Constant"\n'
             '      ], \n      "data": [2]\n    }',
             '    {\n      "type_key": "Array", \n      "data": [%s]\n    }'
             % ", ".join(str(3 + i) for i in range(n))]
    for i in range(n):
        nodes.append('    {\n      "type_key": "relay.Constant", \n      "attrs": {\n'
                     '        "_checked_type_": "0", \n        "data": "%d", \n'
                     '        "span": "0", \n        "virtual_device_": "0"\n      }\n    }' % i)
    arrays = ['    "%s"' % ndarray(*c) for c in CONSTS]
    return ('#[metadata]\n{\n  "root": 1, \n  "nodes": [\n' + ", \n".join(nodes)
            + '\n  ], \n  "b64ndarrays": [\n' + ", \n".join(arrays)
            + '\n  ], \n  "attrs": {"tvm_version": "0.14.0"}\n}\n')


with open("conv_bn.relay", "w") as f:
    f.write('#[version = "0.0.5"]\n' + BODY + "\n" + section())
