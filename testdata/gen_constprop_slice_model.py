#!/usr/bin/python3
"""Generates the constprop memory benchmark's partial-slice model: one float32 weight W [R, 2048]
(external data next to the model) through Transpose -> Cast(float16) -> Cast(float32) ->
Mul(scalar) -> Add(scalar) -> Reshape [2048, 2, R/2] -> Slice keeping index 0 of axis 1 (half of
the elements: W's first R/2 rows) -> Reshape [2048, R/2], which feeds a MatMul on the graph input
x [N, 2048]. Folding leaves one constant of half W's size.

With --second-user, W also feeds a MatMul on a second input, so W itself stays in the model (an
elementwise fold then may not reuse W's memory).

Usage: gen_constprop_slice_model.py OUT.onnx [--gib 1.0] [--second-user]
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
    p.add_argument("--second-user", action="store_true")
    args = p.parse_args()
    cols = 2048
    rows = int(args.gib * (1 << 30) / 4 / cols) // 2 * 2
    half = rows // 2
    rng = np.random.default_rng(0)
    w = rng.standard_normal((rows, cols), dtype=np.float32)
    inits = [
        numpy_helper.from_array(w, "W"),
        numpy_helper.from_array(np.array(0.5, np.float32), "scale"),
        numpy_helper.from_array(np.array(0.25, np.float32), "bias"),
        numpy_helper.from_array(np.array([cols, 2, half], np.int64), "split"),
        numpy_helper.from_array(np.array([0], np.int64), "start"),
        numpy_helper.from_array(np.array([1], np.int64), "end"),
        numpy_helper.from_array(np.array([1], np.int64), "axis"),
        numpy_helper.from_array(np.array([cols, half], np.int64), "merge"),
    ]
    nodes = [
        helper.make_node("Transpose", ["W"], ["t"], perm=[1, 0]),
        helper.make_node("Cast", ["t"], ["h"], to=TensorProto.FLOAT16),
        helper.make_node("Cast", ["h"], ["f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["f", "scale"], ["m"]),
        helper.make_node("Add", ["m", "bias"], ["a"]),
        helper.make_node("Reshape", ["a", "split"], ["r"]),
        helper.make_node("Slice", ["r", "start", "end", "axis"], ["s"]),
        helper.make_node("Reshape", ["s", "merge"], ["k"]),
        helper.make_node("MatMul", ["x", "k"], ["y"]),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", cols])]
    outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", half])]
    if args.second_user:
        nodes.append(helper.make_node("MatMul", ["x2", "W"], ["y2"]))
        inputs.append(helper.make_tensor_value_info("x2", TensorProto.FLOAT, ["N", rows]))
        outputs.append(helper.make_tensor_value_info("y2", TensorProto.FLOAT, ["N", cols]))
    graph = helper.make_graph(nodes, "constprop_slice", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    data = os.path.basename(args.out) + ".data"
    data_path = os.path.join(os.path.dirname(args.out) or ".", data)
    if os.path.exists(data_path):
        os.remove(data_path)
    onnx.save_model(model, args.out, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data, size_threshold=1024)
    print(f"{args.out}: W [{rows}, {cols}] float32 = {rows * cols * 4 / (1 << 30):.2f} GiB"
          + (", second user" if args.second_user else ""))


if __name__ == "__main__":
    main()
