"""Writes input.relay for stdpatterns/multiroot.graft (tests/std.sh), and
verify.relay (the merges alone): the graphs below with its weights as constants in #[metadata], each an NDArray
as TVM saves one (magic, reserved, CPU device, rank, dtype, dims, bytes),
the layout src/runtime/eval_meta.c reads.  Run: python3 make_input.py."""
import base64
import json
import struct

# (shape) of each constant, meta[relay.Constant][i]; values 0.01 * (k % 7)
CONSTS = [(8, 8), (8, 8), (8, 8),      # 0-2: Q, K, V of the attention block
          (8, 8), (4, 8), (4, 8),      # 3-5: Q, K, V of the grouped-query block
          (4, 3, 3, 3), (4, 3, 3, 3),  # 6-7: two sibling convolutions
          (4, 3, 1, 1)]                # 8: a sibling of another shape

BODY = """\
// Inputs for stdpatterns/multiroot.graft (tests/std.sh).  "yes: RULE" marks
// a group RULE must rewrite, "no: RULE" one it must leave alone.
def @main(%x: Tensor[(4, 8), float32], %img: Tensor[(1, 3, 8, 8), float32],
          %w: Tensor[(8, 8), float32]) {
  // yes: qkv_merge (an attention block with three projections)
  %0 = nn.dense(%x, meta[relay.Constant][0] /* ty=Tensor[(8, 8), float32] */, units=8);
  %1 = nn.dense(%x, meta[relay.Constant][1] /* ty=Tensor[(8, 8), float32] */, units=8);
  %2 = nn.dense(%x, meta[relay.Constant][2] /* ty=Tensor[(8, 8), float32] */, units=8);
  %3 = multiply(%0, %1);
  %4 = add(%3, %2);
  // yes: kv_merge (grouped-query: Q has 8 units, K and V 4);
  // no: qkv_merge (the units differ)
  %5 = nn.relu(%4);
  %6 = nn.dense(%5, meta[relay.Constant][3] /* ty=Tensor[(8, 8), float32] */, units=8);
  %7 = nn.dense(%5, meta[relay.Constant][4] /* ty=Tensor[(4, 8), float32] */, units=4);
  %8 = nn.dense(%5, meta[relay.Constant][5] /* ty=Tensor[(4, 8), float32] */, units=4);
  %9 = add(%7, %8);
  // no: kv_merge (a weight that is no constant)
  %10 = nn.dense(%x, %w, units=8);
  // yes: conv_merge (the two 3x3 convolutions)
  // no: conv_merge (the 1x1 sibling: its weights have another shape)
  %11 = nn.conv2d(%img, meta[relay.Constant][6] /* ty=Tensor[(4, 3, 3, 3), float32] */, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %12 = nn.conv2d(%img, meta[relay.Constant][7] /* ty=Tensor[(4, 3, 3, 3), float32] */, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %13 = nn.conv2d(%img, meta[relay.Constant][8] /* ty=Tensor[(4, 3, 1, 1), float32] */, channels=4, kernel_size=[1, 1]);
  %14 = add(%11, %12);
  %15 = add(%14, %13);
  // yes: shape_share, then take_share (the shape read and indexed twice)
  // no: take_share of another index
  %16 = shape_of(%15, dtype="int32");
  %17 = take(%16, 1, axis=0);
  %18 = shape_of(%15, dtype="int32");
  %19 = take(%18, 1, axis=0);
  %20 = add(%17, %19);
  // yes: split_concat
  %21 = split(%6, indices_or_sections=2, axis=1);
  %22 = %21.0;
  %23 = %21.1;
  %24 = concatenate((%22, %23), axis=1);
  %25 = take(%18, 0, axis=0);
  // no: shape_share (another dtype)
  %26 = shape_of(%15, dtype="int64");
  // no: split_concat (the pieces concatenated in the other order)
  %27 = split(%24, indices_or_sections=2, axis=1);
  %28 = %27.1;
  %29 = %27.0;
  %30 = concatenate((%28, %29), axis=1);
  (%30, %9, %10, %20, %25, %26)
}
"""

# The merges alone, for graft run --verify (verify.golden): the evaluator
# has no shape_of, so the sharing rules are left out.
VERIFY_BODY = """\
def @main(%x: Tensor[(4, 8), float32], %img: Tensor[(1, 3, 8, 8), float32]) {
  %0 = nn.dense(%x, meta[relay.Constant][0] /* ty=Tensor[(8, 8), float32] */, units=8);
  %1 = nn.dense(%x, meta[relay.Constant][1] /* ty=Tensor[(8, 8), float32] */, units=8);
  %2 = nn.dense(%x, meta[relay.Constant][2] /* ty=Tensor[(8, 8), float32] */, units=8);
  %3 = multiply(%0, %1);
  %4 = add(%3, %2);
  %5 = nn.relu(%4);
  %6 = nn.dense(%5, meta[relay.Constant][3] /* ty=Tensor[(8, 8), float32] */, units=8);
  %7 = nn.dense(%5, meta[relay.Constant][4] /* ty=Tensor[(4, 8), float32] */, units=4);
  %8 = nn.dense(%5, meta[relay.Constant][5] /* ty=Tensor[(4, 8), float32] */, units=4);
  %9 = multiply(%7, %8);
  %10 = nn.conv2d(%img, meta[relay.Constant][6] /* ty=Tensor[(4, 3, 3, 3), float32] */, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %11 = nn.conv2d(%img, meta[relay.Constant][7] /* ty=Tensor[(4, 3, 3, 3), float32] */, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3]);
  %12 = subtract(%10, %11);
  %13 = split(%6, indices_or_sections=2, axis=1);
  %14 = %13.0;
  %15 = %13.1;
  %16 = concatenate((%14, %15), axis=1);
  (%16, %9, %12)
}
"""


def ndarray(shape, k):
    dtype = (2, 32, 1)  # float32
    count = 1
    for d in shape:
        count *= d
    data = struct.pack("<%df" % count, *[0.01 * ((k + i) % 7) for i in range(count)])
    head = struct.pack("<QQiii", 0xDD5E40F096B4A13F, 0, 1, 0, len(shape))
    head = head[:24] + struct.pack("<iBBH", len(shape), *dtype)
    dims = b"".join(struct.pack("<q", d) for d in shape)
    return base64.b64encode(head + dims + struct.pack("<q", len(data)) + data).decode()


def main():
    n = len(CONSTS)
    nodes = [{"type_key": ""}, {"type_key": "Map", "keys": ["relay.Constant"], "data": [2]},
             {"type_key": "Array", "data": list(range(3, 3 + n))}]
    for i in range(n):
        nodes.append({"type_key": "relay.Constant",
                      "attrs": {"_checked_type_": "0", "data": str(i), "span": "0",
                                "virtual_device_": "0"}})
    meta = {"root": 1, "nodes": nodes,
            "b64ndarrays": [ndarray(s, k) for k, s in enumerate(CONSTS)],
            "attrs": {"tvm_version": "0.14.0"}}
    for name, body in (("input.relay", BODY), ("verify.relay", VERIFY_BODY)):
        with open(name, "w") as f:
            f.write('#[version = "0.0.5"]\n' + body + "#[metadata]\n" + json.dumps(meta) + "\n")


main()
