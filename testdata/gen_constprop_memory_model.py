#!/usr/bin/python3
"""Generates the constprop memory benchmark model: >= 1 GiB of float32 weights flowing through
chains of foldable ops into the graph's compute.

Each of K weight matrices W_k [rows, 2048] (float32, stored as external data next to the model)
goes through Transpose -> Cast(float16) -> Cast(float32) -> Mul(scale) -> Add(bias) -> Reshape;
pairs are Concat-ed, Slice-d back to half, and a small constant is Expand-ed and added; the
results feed MatMuls on the graph input x [N, 2048]. Folding turns every chain into one constant.

With --layout, one weight W [R, 2048] instead, through Transpose -> Cast(float16) ->
Cast(float32) -> Mul(scalar) -> Add(bias row [R]) and then layout ops the transposed, broadcast
leaves cannot express as strided views, keeping a quarter of the elements for a MatMul on x:
  reshape-slice  Reshape [4096, R/2], Slice keeping its first quarter of rows
  slice-reshape  Slice keeping the first quarter of rows of [2048, R], Reshape [1024, R/2]
  split          Reshape [4096, R/2], Split into 4 along axis 0, the first part read
  gather         Reshape [4096, R/2], Gather 1024 random distinct rows with 2-D indices
                 [2, 512], Reshape [1024, R/2]
With --second-user, W also feeds a MatMul on a second input (it stays in the output).

Usage: gen_constprop_memory_model.py OUT.onnx [--gib 1.0] [--layout L] [--second-user]
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
    p.add_argument("--layout", choices=["reshape-slice", "slice-reshape", "split", "gather"])
    p.add_argument("--second-user", action="store_true")
    args = p.parse_args()
    if args.layout:
        save(layout_model(args), args.out)
        return
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
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), args.out)
    print(f"{args.out}: {k} weights of [{rows}, {cols}] float32 = "
          f"{k * rows * cols * 4 / (1 << 30):.2f} GiB")


def layout_model(args):
    """One weight through an elementwise chain and layout ops keeping a quarter (--layout)."""
    cols = 2048
    rows = int(args.gib * (1 << 30) / 4 / cols) // 8 * 8
    half = rows // 2
    rng = np.random.default_rng(0)
    i64 = lambda v: np.array(v, np.int64)
    inits = [
        numpy_helper.from_array(rng.standard_normal((rows, cols), dtype=np.float32), "W"),
        numpy_helper.from_array(np.array(0.5, np.float32), "scale"),
        numpy_helper.from_array(rng.standard_normal((rows,), dtype=np.float32), "bias"),
        numpy_helper.from_array(i64([2 * cols, half]), "wide"),
        numpy_helper.from_array(i64([cols // 2, half]), "narrow"),
        numpy_helper.from_array(i64([0]), "zero"),
        numpy_helper.from_array(i64([cols // 2]), "quarter_wide"),
        numpy_helper.from_array(i64([cols // 4]), "quarter"),
        numpy_helper.from_array(i64([cols // 2] * 4), "parts"),
    ]
    nodes = [
        helper.make_node("Transpose", ["W"], ["t"], perm=[1, 0]),
        helper.make_node("Cast", ["t"], ["h"], to=TensorProto.FLOAT16),
        helper.make_node("Cast", ["h"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["f", "scale"], ["m"]),
        helper.make_node("Add", ["m", "bias"], ["a"]),
    ]
    if args.layout == "reshape-slice":
        nodes += [
            helper.make_node("Reshape", ["a", "wide"], ["r"]),
            helper.make_node("Slice", ["r", "zero", "quarter_wide", "zero"], ["k"]),
        ]
    elif args.layout == "slice-reshape":
        nodes += [
            helper.make_node("Slice", ["a", "zero", "quarter", "zero"], ["s"]),
            helper.make_node("Reshape", ["s", "narrow"], ["k"]),
        ]
    elif args.layout == "split":
        nodes += [
            helper.make_node("Reshape", ["a", "wide"], ["r"]),
            helper.make_node("Split", ["r", "parts"], ["k", "k1", "k2", "k3"], axis=0),
        ]
    else:
        index = rng.permutation(2 * cols)[:cols // 2].reshape(2, -1)
        inits.append(numpy_helper.from_array(i64(index), "index"))
        nodes += [
            helper.make_node("Reshape", ["a", "wide"], ["r"]),
            helper.make_node("Gather", ["r", "index"], ["g"], axis=0),
            helper.make_node("Reshape", ["g", "narrow"], ["k"]),
        ]
    nodes.append(helper.make_node("MatMul", ["x", "k"], ["y"]))
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", cols // 2])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", half])]
    if args.second_user:
        nodes.append(helper.make_node("MatMul", ["x2", "W"], ["y2"]))
        inputs.append(helper.make_tensor_value_info("x2", TensorProto.FLOAT, ["N", rows]))
        outputs.append(helper.make_tensor_value_info("y2", TensorProto.FLOAT, ["N", cols]))
    graph = helper.make_graph(nodes, "constprop_layout", inputs, outputs, inits)
    print(f"{args.out}: W [{rows}, {cols}] float32 = {rows * cols * 4 / (1 << 30):.2f} GiB, "
          f"{args.layout}" + (", second user" if args.second_user else ""))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def save(model, out):
    """Writes `model` with every tensor over 1 KiB in OUT.data next to it."""
    data = os.path.basename(out) + ".data"
    data_path = os.path.join(os.path.dirname(out) or ".", data)
    if os.path.exists(data_path):
        os.remove(data_path)
    onnx.save_model(model, out, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data, size_threshold=1024)


if __name__ == "__main__":
    main()
