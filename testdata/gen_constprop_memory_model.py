#!/usr/bin/python3
"""Generates the constprop memory benchmark model: >= 1 GiB of float32 weights flowing through
chains of foldable ops into the graph's compute.

Each of K weight matrices W_k [rows, 2048] (float32, stored as external data next to the model)
goes through Transpose -> Cast(float16) -> Cast(float32) -> Mul(scale) -> Add(bias) -> Reshape;
pairs are Concat-ed, Slice-d back to half, and a small constant is Expand-ed and added; the
results feed MatMuls on the graph input x [N, 2048]. Folding turns every chain into one constant.

Usage: gen_constprop_memory_model.py OUT.onnx [--gib 1.0]
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--gib", type=float, default=1.0)
    args = p.parse_args()
    cols = 2048
    k = 4
    rows = int(args.gib * (1 << 30) / 4 / cols / k)
    rng = np.random.default_rng(0)
    inits, nodes = [], []
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", cols])
    feeds = []
    for i in range(k):
        w = rng.standard_normal((rows, cols), dtype=np.float32)
        inits.append(numpy_helper.from_array(w, f"W{i}"))
        inits.append(numpy_helper.from_array(np.array(0.5, np.float32), f"scale{i}"))
        inits.append(numpy_helper.from_array(np.array(0.25, np.float32), f"bias{i}"))
        nodes += [
            helper.make_node("Transpose", [f"W{i}"], [f"t{i}"], perm=[1, 0]),
            helper.make_node("Cast", [f"t{i}"], [f"h{i}"], to=TensorProto.FLOAT16),
            helper.make_node("Cast", [f"h{i}"], [f"f{i}"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [f"f{i}", f"scale{i}"], [f"m{i}"]),
            helper.make_node("Add", [f"m{i}", f"bias{i}"], [f"a{i}"]),
            helper.make_node("Reshape", [f"a{i}", "shape"], [f"r{i}"]),
        ]
        feeds.append(f"r{i}")
    inits.append(numpy_helper.from_array(np.array([cols, rows], np.int64), "shape"))
    inits.append(numpy_helper.from_array(np.array([0], np.int64), "start"))
    inits.append(numpy_helper.from_array(np.array([rows], np.int64), "end"))
    inits.append(numpy_helper.from_array(np.array([1], np.int64), "axis1"))
    inits.append(numpy_helper.from_array(np.array([cols, rows], np.int64), "expand_shape"))
    inits.append(numpy_helper.from_array(np.array([1.0], np.float32), "small"))
    nodes.append(helper.make_node("Expand", ["small", "expand_shape"], ["ones"]))
    outputs = []
    for j in range(0, k, 2):
        nodes += [
            helper.make_node("Concat", [feeds[j], feeds[j + 1]], [f"c{j}"], axis=1),
            helper.make_node("Slice", [f"c{j}", "start", "end", "axis1"], [f"s{j}"]),
            helper.make_node("Add", [f"s{j}", "ones"], [f"w{j}"]),
            helper.make_node("MatMul", ["x", f"w{j}"], [f"y{j}"]),
            helper.make_node("MatMul", ["x", feeds[j + 1]], [f"z{j}"]),
        ]
        outputs += [f"y{j}", f"z{j}"]
    graph = helper.make_graph(
        nodes, "constprop_memory", [x],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, ["N", rows]) for o in outputs],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    data = os.path.basename(args.out) + ".data"
    if os.path.exists(os.path.join(os.path.dirname(args.out) or ".", data)):
        os.remove(os.path.join(os.path.dirname(args.out) or ".", data))
    onnx.save_model(model, args.out, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data, size_threshold=1024)
    print(f"{args.out}: {k} weights of [{rows}, {cols}] float32 = "
          f"{k * rows * cols * 4 / (1 << 30):.2f} GiB")


if __name__ == "__main__":
    main()
