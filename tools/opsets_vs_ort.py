#!/usr/bin/python3
"""ONNX ops as opsets 18 to 26 define them (ONNX 1.13 to 1.21) in Anvil and in ONNX Runtime 1.30.

    tools/opsets_vs_ort.py [--only SUBSTRING] [--seed S] [--keep DIR] [--ort-only]

Runs a fixed list of single-node models written at the opset each case names (ir_version 8 at
opset 18, 9 at 19-20, 10 at 21-22, 11 at 23, 12 at 24, 13 at 25-26, as ONNX Runtime checks
them): the reductions with axes as an input (an initializer, a graph input, absent, empty with
noop_with_empty_axes) and ReduceMax on bool, Split's num_outputs and split input, Pad's axes
input and wrap mode, ScatterElements and ScatterND with reduction max and min, Resize's
half_pixel_symmetric and axes, DFT with axis as an input, GridSample-20 (linear, cubic, nearest;
align_corners 0 and 1), Gelu, Mish, the Bitwise ops, GroupNormalization, RMSNormalization,
RotaryEmbedding and Attention of opsets 23 and 24, Swish and TensorScatter of opset 24, and ops
whose newer versions only add types (Reshape-21 ... QuantizeLinear-21, TopK-24, Relu-26).
Inputs are seeded numpy arrays (--seed, default 1; every case is built, --only then picks the
ones whose name contains SUBSTRING, so a case sees the same inputs either way); each case runs
with the same inputs in ONNX Runtime (../shared/bench/ort_run.js) and in anvil-run, and every
output is compared within abs 1e-5 + rel 1e-4 (1e-4 + 1e-3 for Attention, GridSample cubic, DFT
and Resize). Prints one line per case: ok, MISMATCH (max abs diff ...), or Anvil's error line; an
error saying Anvil has no kernel or shape rule for the op (or is unimplemented) counts as
"unimplemented", not as a failure. Last line "N of M cases within tolerance, U unimplemented,
F failed"; exits 1 when F > 0. --ort-only runs ONNX Runtime alone and says which cases it accepts
(exits 1 if it refuses any). --keep DIR keeps each case's model, inputs and outputs there.

Needs node (ort_run.js installs onnxruntime-node on first use), Debian's python3-onnx and
python3-numpy, and an opt anvil-run (bazel build -c opt //tools:anvil-run; $ANVIL_RUN overrides).
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from ort_cases import ANVIL_RUN, compare, run, vi, write_case

F32 = TensorProto.FLOAT
I64 = TensorProto.INT64
BOOL = TensorProto.BOOL
IR_VERSION = {18: 8, 19: 9, 20: 9, 21: 10, 22: 10, 23: 11, 24: 12, 25: 13, 26: 13}
# anvil-run prints only a status's message: these are the messages of its Unimplemented errors
# (kernels/op_kernel_registry.cc, shape/shape_rule_registry.cc) and the word itself.
UNIMPLEMENTED = re.compile(r"no kernel for|no shape rule for|unimplemented|not implemented",
                           re.IGNORECASE)


class Case:
    def __init__(self, name, opset, node, inputs, outputs, inits=(), atol=1e-5, rtol=1e-4):
        self.name, self.opset, self.node = name, opset, node
        self.inputs = list(inputs)    # (name, array): graph inputs, fed as input_K.pb
        self.inits = list(inits)      # (name, array): initializers
        self.outputs = list(outputs)  # ValueInfoProto
        self.atol, self.rtol = atol, rtol


def model(case):
    graph = helper.make_graph([case.node], "case", [vi(n, a) for n, a in case.inputs],
                              case.outputs, [numpy_helper.from_array(a, n) for n, a in case.inits])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", case.opset)])
    m.ir_version = IR_VERSION[case.opset]
    return m


def out(name, elem=F32):
    return helper.make_tensor_value_info(name, elem, None)


def i64(*values):
    return np.array(values, np.int64)


def reductions(r):
    ops = ["ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean",
           "ReduceMin", "ReduceProd", "ReduceSumSquare"]
    cases = []
    for op in ops:
        x = r.uniform(0.5, 2, (3, 4, 5)).astype(np.float32)
        cases.append(Case(f"{op}-18 axes=[-1] initializer keepdims=1", 18,
                          helper.make_node(op, ["x", "axes"], ["y"], keepdims=1),
                          [("x", x)], [out("y")], inits=[("axes", i64(-1))]))
        cases.append(Case(f"{op}-18 axes=[0, 2] input keepdims=0", 18,
                          helper.make_node(op, ["x", "axes"], ["y"], keepdims=0),
                          [("x", x), ("axes", i64(0, 2))], [out("y")]))
        cases.append(Case(f"{op}-18 no axes (all)", 18, helper.make_node(op, ["x"], ["y"]),
                          [("x", x)], [out("y")]))
        # No axis reduced, but ONNX Runtime still applies the op's elementwise part: ReduceLogSum
        # gives log(x), ReduceSumSquare x * x, ReduceL1 |x| (seen with ONNX Runtime 1.30).
        cases.append(Case(f"{op}-18 axes=[] noop_with_empty_axes=1", 18,
                          helper.make_node(op, ["x", "axes"], ["y"], noop_with_empty_axes=1),
                          [("x", x)], [out("y")], inits=[("axes", i64())]))
    b = np.array([[False, True, False], [False, False, False]])
    cases.append(Case("ReduceMax-20 bool [2, 3] axes=[1]", 20,
                      helper.make_node("ReduceMax", ["x", "axes"], ["y"]),
                      [("x", b)], [out("y", BOOL)], inits=[("axes", i64(1))]))
    return cases


def split(r):
    x9 = r.uniform(-1, 1, (2, 9, 4)).astype(np.float32)
    x7 = r.uniform(-1, 1, (7, 3)).astype(np.float32)
    outs = [out("y0"), out("y1"), out("y2")]
    return [
        Case("Split-18 num_outputs=3 dim 9", 18,
             helper.make_node("Split", ["x"], ["y0", "y1", "y2"], axis=1, num_outputs=3),
             [("x", x9)], outs),
        Case("Split-18 num_outputs=3 dim 7 (3, 3, 1)", 18,
             helper.make_node("Split", ["x"], ["y0", "y1", "y2"], axis=0, num_outputs=3),
             [("x", x7)], outs),
        Case("Split-18 split=[2, 5] input", 18,
             helper.make_node("Split", ["x", "split"], ["y0", "y1"], axis=0),
             [("x", x7)], outs[:2], inits=[("split", i64(2, 5))]),
    ]


def pad(r):
    x = r.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    return [
        Case("Pad-18 axes=[-1] pads=[1, 2] constant 1.5", 18,
             helper.make_node("Pad", ["x", "pads", "value", "axes"], ["y"], mode="constant"),
             [("x", x)], [out("y")],
             inits=[("pads", i64(1, 2)), ("value", np.array(1.5, np.float32)),
                    ("axes", i64(-1))]),
        Case("Pad-18 axes=[0, 2] pads=[1, 0, 0, 2] reflect", 18,
             helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], mode="reflect"),
             [("x", x)], [out("y")], inits=[("pads", i64(1, 0, 0, 2)), ("axes", i64(0, 2))]),
        Case("Pad-19 wrap pads=[0, 1, 2, 0, 2, 1]", 19,
             helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap"),
             [("x", x)], [out("y")], inits=[("pads", i64(0, 1, 2, 0, 2, 1))]),
        # An end pad wider than its dim (6 on 4) and a begin pad as wide as its dim (3 on 3).
        # ONNX Runtime 1.30 takes a begin pad wider than its dim (5 on 3) but leaves the rows
        # past one period zero (np.pad and a modular index wrap on), so no case has one.
        Case("Pad-19 wrap pads=[0, 3, 1, 1, 0, 6] (as wide as and wider than the dims)", 19,
             helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap"),
             [("x", x)], [out("y")], inits=[("pads", i64(0, 3, 1, 1, 0, 6))]),
    ]


def scatter(r):
    cases = []
    for reduction in ("max", "min"):
        data = r.uniform(-1, 1, (3, 5)).astype(np.float32)
        indices = np.array([[0, 0, 3], [4, 1, 4], [2, 2, 2]], np.int64)  # repeats within rows
        updates = r.uniform(-1, 1, (3, 3)).astype(np.float32)
        cases.append(Case(f"ScatterElements-18 reduction={reduction}", 18,
                          helper.make_node("ScatterElements", ["data", "indices", "updates"],
                                           ["y"], axis=1, reduction=reduction),
                          [("data", data), ("indices", indices), ("updates", updates)],
                          [out("y")]))
        data = r.uniform(-1, 1, (4, 5)).astype(np.float32)
        indices = np.array([[1], [3], [1], [0]], np.int64)
        updates = r.uniform(-1, 1, (4, 5)).astype(np.float32)
        cases.append(Case(f"ScatterND-18 reduction={reduction}", 18,
                          helper.make_node("ScatterND", ["data", "indices", "updates"], ["y"],
                                           reduction=reduction),
                          [("data", data), ("indices", indices), ("updates", updates)],
                          [out("y")]))
    return cases


def resize(r):
    x = r.uniform(-1, 1, (1, 2, 5, 7)).astype(np.float32)
    return [
        Case("Resize-19 linear half_pixel_symmetric scales=[1, 1, 1.7, 0.6]", 19,
             helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear",
                              coordinate_transformation_mode="half_pixel_symmetric"),
             [("x", x)], [out("y")], inits=[("scales", np.array([1, 1, 1.7, 0.6], np.float32))],
             atol=1e-4, rtol=1e-3),
        Case("Resize-18 linear axes=[2, 3] scales=[1.5, 0.5]", 18,
             helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear", axes=[2, 3]),
             [("x", x)], [out("y")], inits=[("scales", np.array([1.5, 0.5], np.float32))],
             atol=1e-4, rtol=1e-3),
    ]


def dft(r):
    real = r.uniform(-1, 1, (2, 8, 1)).astype(np.float32)
    cplx = r.uniform(-1, 1, (2, 8, 2)).astype(np.float32)
    axis = [("axis", np.array(1, np.int64))]
    return [
        Case("DFT-20 axis=1 input real [2, 8, 1]", 20,
             helper.make_node("DFT", ["x", "", "axis"], ["y"]),
             [("x", real)], [out("y")], inits=axis, atol=1e-4, rtol=1e-3),
        Case("DFT-20 axis absent complex [2, 8, 2]", 20, helper.make_node("DFT", ["x"], ["y"]),
             [("x", cplx)], [out("y")], atol=1e-4, rtol=1e-3),
        Case("DFT-20 axis=1 input real onesided=1", 20,
             helper.make_node("DFT", ["x", "", "axis"], ["y"], onesided=1),
             [("x", real)], [out("y")], inits=axis, atol=1e-4, rtol=1e-3),
    ]


def grid_sample(r):
    cases = []
    for mode in ("linear", "cubic", "nearest"):
        for align in (0, 1):
            x = r.uniform(-1, 1, (1, 2, 4, 5)).astype(np.float32)
            grid = r.uniform(-1.1, 1.1, (1, 3, 3, 2)).astype(np.float32)
            tol = (1e-4, 1e-3) if mode == "cubic" else (1e-5, 1e-4)
            cases.append(Case(f"GridSample-20 {mode} align_corners={align}", 20,
                              helper.make_node("GridSample", ["x", "grid"], ["y"], mode=mode,
                                               align_corners=align),
                              [("x", x), ("grid", grid)], [out("y")], atol=tol[0], rtol=tol[1]))
    return cases


def activations(r):
    x = r.uniform(-4, 4, (3, 17)).astype(np.float32)
    return [
        Case("Gelu-20 approximate=none", 20, helper.make_node("Gelu", ["x"], ["y"]),
             [("x", x)], [out("y")]),
        Case("Gelu-20 approximate=tanh", 20,
             helper.make_node("Gelu", ["x"], ["y"], approximate="tanh"), [("x", x)], [out("y")]),
        Case("Mish-18", 18, helper.make_node("Mish", ["x"], ["y"]), [("x", x)], [out("y")]),
    ]


def bitwise(r):
    a = r.integers(-2**31, 2**31, (3, 4), dtype=np.int64).astype(np.int32)
    b = r.integers(-2**31, 2**31, (4,), dtype=np.int64).astype(np.int32)
    cases = [Case(f"{op}-18 int32 [3, 4] and [4]", 18, helper.make_node(op, ["a", "b"], ["y"]),
                  [("a", a), ("b", b)], [out("y", TensorProto.INT32)])
             for op in ("BitwiseAnd", "BitwiseOr", "BitwiseXor")]
    u8 = r.integers(0, 256, (2, 5), dtype=np.uint8)
    s64 = r.integers(-2**62, 2**62, (2, 5), dtype=np.int64)
    cases.append(Case("BitwiseNot-18 uint8", 18, helper.make_node("BitwiseNot", ["x"], ["y"]),
                      [("x", u8)], [out("y", TensorProto.UINT8)]))
    cases.append(Case("BitwiseNot-18 int64", 18, helper.make_node("BitwiseNot", ["x"], ["y"]),
                      [("x", s64)], [out("y", I64)]))
    return cases


def norms(r):
    x = r.uniform(-2, 2, (2, 6, 4, 4)).astype(np.float32)
    cases = []
    for opset, channels in ((21, 6), (18, 3)):
        scale = r.uniform(0.5, 1.5, channels).astype(np.float32)
        bias = r.uniform(-1, 1, channels).astype(np.float32)
        cases.append(Case(f"GroupNormalization-{opset} num_groups=3 scale [{channels}]", opset,
                          helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"],
                                           num_groups=3, epsilon=1e-5),
                          [("x", x), ("scale", scale), ("bias", bias)], [out("y")]))
    x = r.uniform(-2, 2, (2, 5, 16)).astype(np.float32)
    scale = r.uniform(0.5, 1.5, 16).astype(np.float32)
    cases.append(Case("RMSNormalization-23 [2, 5, 16] axis=-1", 23,
                      helper.make_node("RMSNormalization", ["x", "scale"], ["y"], axis=-1,
                                       epsilon=1e-6),
                      [("x", x), ("scale", scale)], [out("y")]))
    return cases


def rotary_caches(rows, half):
    angles = np.outer(np.arange(rows), 1.0 / 10000 ** (np.arange(half) / half))
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def rotary(r):
    x4 = r.uniform(-1, 1, (1, 2, 5, 8)).astype(np.float32)
    x3 = r.uniform(-1, 1, (1, 5, 16)).astype(np.float32)
    pos = r.integers(0, 16, (1, 5)).astype(np.int64)
    cos, sin = rotary_caches(16, 4)
    cos2, sin2 = rotary_caches(16, 2)
    node = lambda **attrs: helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"],
                                            **attrs)
    caches = lambda c, s: [("cos", c), ("sin", s)]
    cases = [
        Case("RotaryEmbedding-23 4-D [1, 2, 5, 8] position_ids", 23, node(),
             [("x", x4)] + caches(cos, sin) + [("pos", pos)], [out("y")]),
        Case("RotaryEmbedding-23 3-D [1, 5, 16] num_heads=2", 23, node(num_heads=2),
             [("x", x3)] + caches(cos, sin) + [("pos", pos)], [out("y")]),
        Case("RotaryEmbedding-23 4-D interleaved=1", 23, node(interleaved=1),
             [("x", x4)] + caches(cos, sin) + [("pos", pos)], [out("y")]),
        Case("RotaryEmbedding-23 4-D rotary_embedding_dim=4", 23, node(rotary_embedding_dim=4),
             [("x", x4)] + caches(cos2, sin2) + [("pos", pos)], [out("y")]),
    ]
    # Without position_ids the caches are [B, S, D / 2]: the rows of the positions.
    cos_bs, sin_bs = cos[pos[0]][None], sin[pos[0]][None]
    cases.append(Case("RotaryEmbedding-23 4-D no position_ids (caches [1, 5, 4])", 23,
                      helper.make_node("RotaryEmbedding", ["x", "cos", "sin"], ["y"]),
                      [("x", x4)] + caches(cos_bs, sin_bs), [out("y")]))
    return cases


def attention(r):
    def qkv(q_shape, kv_shape):
        return [("q", r.uniform(-1, 1, q_shape).astype(np.float32)),
                ("k", r.uniform(-1, 1, kv_shape).astype(np.float32)),
                ("v", r.uniform(-1, 1, kv_shape).astype(np.float32))]

    tol = dict(atol=1e-4, rtol=1e-3)
    node = lambda ins, outs=("y",), **attrs: helper.make_node("Attention", ins, list(outs), **attrs)
    mask = r.uniform(-2, 0, (6, 6)).astype(np.float32)
    bool_mask = r.random((6, 6)) < 0.6
    np.fill_diagonal(bool_mask, True)  # every query attends to something
    past = [("past_key", r.uniform(-1, 1, (1, 2, 3, 8)).astype(np.float32)),
            ("past_value", r.uniform(-1, 1, (1, 2, 3, 8)).astype(np.float32))]
    return [
        Case("Attention-23 4-D [1, 4, 6, 8] is_causal=1", 23,
             node(["q", "k", "v"], is_causal=1), qkv((1, 4, 6, 8), (1, 4, 6, 8)), [out("y")],
             **tol),
        Case("Attention-23 3-D GQA q_num_heads=4 kv_num_heads=2", 23,
             node(["q", "k", "v"], q_num_heads=4, kv_num_heads=2),
             qkv((1, 6, 32), (1, 6, 16)), [out("y")], **tol),
        Case("Attention-23 4-D float attn_mask [6, 6]", 23, node(["q", "k", "v", "mask"]),
             qkv((1, 4, 6, 8), (1, 4, 6, 8)) + [("mask", mask)], [out("y")], **tol),
        Case("Attention-23 4-D bool attn_mask [6, 6]", 23, node(["q", "k", "v", "mask"]),
             qkv((1, 4, 6, 8), (1, 4, 6, 8)) + [("mask", bool_mask)], [out("y")], **tol),
        Case("Attention-23 4-D GQA past [1, 2, 3, 8] present_key/value", 23,
             node(["q", "k", "v", "", "past_key", "past_value"],
                  ["y", "present_key", "present_value"]),
             qkv((1, 4, 6, 8), (1, 2, 6, 8)) + past,
             [out("y"), out("present_key"), out("present_value")], **tol),
        Case("Attention-23 4-D softcap=30", 23, node(["q", "k", "v"], softcap=30.0),
             qkv((1, 4, 6, 8), (1, 4, 6, 8)), [out("y")], **tol),
        Case("Attention-23 4-D softcap=1 float attn_mask is_causal=1", 23,
             node(["q", "k", "v", "mask"], softcap=1.0, is_causal=1),
             qkv((1, 4, 6, 8), (1, 4, 6, 8)) + [("mask", mask)], [out("y")], **tol),
        Case("Attention-24 nonpad_kv_seqlen [3, 5]", 24,
             node(["q", "k", "v", "", "", "", "nonpad"]),
             qkv((2, 2, 3, 8), (2, 2, 5, 8)) + [("nonpad", np.array([3, 5], np.int64))],
             [out("y")], **tol),
        # (A mask narrower than the keys, which Attention-24 allows, ONNX Runtime 1.30 refuses.)
    ]


def opsets24_26(r):
    x = r.uniform(-4, 4, (3, 17)).astype(np.float32)
    cache = r.uniform(-1, 1, (2, 2, 6, 4)).astype(np.float32)
    update = r.uniform(-1, 1, (2, 2, 2, 4)).astype(np.float32)
    scatter = lambda **attrs: helper.make_node("TensorScatter", ["cache", "update", "w"], ["y"],
                                               **attrs)
    return [
        Case("Swish-24", 24, helper.make_node("Swish", ["x"], ["y"]), [("x", x)], [out("y")]),
        Case("Swish-24 alpha=0.5", 24, helper.make_node("Swish", ["x"], ["y"], alpha=0.5),
             [("x", x)], [out("y")]),
        Case("TensorScatter-24 linear write_indices [1, 4]", 24, scatter(),
             [("cache", cache), ("update", update), ("w", i64(1, 4))], [out("y")]),
        Case("TensorScatter-24 circular write_indices [5, 2]", 24, scatter(mode="circular"),
             [("cache", cache), ("update", update), ("w", i64(5, 2))], [out("y")]),
        Case("Relu-26", 26, helper.make_node("Relu", ["x"], ["y"]), [("x", x)], [out("y")]),
        Case("Cast-25 float to int64", 25, helper.make_node("Cast", ["x"], ["y"], to=I64),
             [("x", x)], [out("y", I64)]),
        Case("TopK-24 k=3", 24, helper.make_node("TopK", ["x", "k"], ["v", "i"]),
             [("x", x), ("k", i64(3))], [out("v"), out("i", I64)]),
    ]


def type_bumps(r):
    x = r.uniform(-10, 10, (2, 3, 4)).astype(np.float32)

    def one(op, opset, what="", ins=("x",), outs=(F32,), arrays=None, inits=(), **attrs):
        names = [f"y{k}" for k in range(len(outs))]
        return Case(f"{op}-{opset}{what}", opset, helper.make_node(op, list(ins), names, **attrs),
                    [("x", x)] if arrays is None else arrays,
                    [out(n, e) for n, e in zip(names, outs)], inits=inits)

    u8 = r.integers(0, 256, (3, 4), dtype=np.uint8)
    return [
        one("Reshape", 21, " [2, 3, 4] to [4, -1]", ins=("x", "shape"),
            inits=[("shape", i64(4, -1))]),
        one("Transpose", 21, " perm=[2, 0, 1]", perm=[2, 0, 1]),
        one("Cast", 21, " float to int32", outs=(TensorProto.INT32,), to=TensorProto.INT32),
        one("Squeeze", 23, " axes=[1, 3]", ins=("x", "axes"),
            arrays=[("x", r.uniform(-1, 1, (2, 1, 3, 1)).astype(np.float32))],
            inits=[("axes", i64(1, 3))]),
        one("Unsqueeze", 23, " axes=[0, 3]", ins=("x", "axes"), inits=[("axes", i64(0, 3))]),
        one("Flatten", 21, " axis=2", axis=2),
        one("ConstantOfShape", 21, " [2, 3] value 2.5", arrays=[("x", i64(2, 3))],
            value=helper.make_tensor("value", F32, [1], [2.5])),
        one("Identity", 21),
        one("Shape", 21, " start=1", outs=(I64,), start=1),
        # Strings cannot be fed through ort_run.js's .pb inputs: both operands are initializers.
        one("Equal", 19, " strings", ins=("a", "b"), outs=(BOOL,), arrays=[],
            inits=[("a", np.array(["ab", "c", "", "x"], dtype=object)),
                   ("b", np.array(["ab", "d", "", "X"], dtype=object))]),
        one("Cos", 22),
        one("Conv", 22, " [1, 2, 5, 5] 3x3 pads 1", ins=("x", "w", "b"),
            arrays=[("x", r.uniform(-1, 1, (1, 2, 5, 5)).astype(np.float32))],
            inits=[("w", r.uniform(-1, 1, (3, 2, 3, 3)).astype(np.float32)),
                   ("b", r.uniform(-1, 1, 3).astype(np.float32))],
            kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        one("AveragePool", 22, " 3x3 stride 2 pads 1", kernel_shape=[3, 3], strides=[2, 2],
            pads=[1, 1, 1, 1], arrays=[("x", r.uniform(-1, 1, (1, 2, 6, 6)).astype(np.float32))]),
        one("DequantizeLinear", 21, " uint8 per-axis", ins=("x", "scale", "zero"), axis=1,
            arrays=[("x", u8)], inits=[("scale", r.uniform(0.01, 0.1, 4).astype(np.float32)),
                                       ("zero", r.integers(0, 256, 4, dtype=np.uint8))]),
        one("QuantizeLinear", 21, " output_dtype=int8 no zero point", ins=("x", "scale"),
            outs=(TensorProto.INT8,), output_dtype=TensorProto.INT8,
            inits=[("scale", np.array(0.07, np.float32))]),
    ]


def all_cases(seed):
    r = np.random.default_rng(seed)
    cases = []
    for make in (reductions, split, pad, scatter, resize, dft, grid_sample, activations, bitwise,
                 norms, rotary, attention, type_bumps, opsets24_26):
        cases += make(r)
    return cases


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--only", help="run the cases whose name contains this")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--keep")
    p.add_argument("--ort-only", action="store_true", help="run ONNX Runtime alone")
    args = p.parse_args()
    cases = [c for c in all_cases(args.seed) if not args.only or args.only in c.name]
    if not cases:
        sys.exit(f"opsets_vs_ort: no case name contains {args.only!r}")
    if not args.ort_only and not os.access(ANVIL_RUN, os.X_OK):
        sys.exit(f"opsets_vs_ort: no anvil-run at {ANVIL_RUN} "
                 "(bazel build -c opt //tools:anvil-run, or set $ANVIL_RUN)")
    work = args.keep or tempfile.mkdtemp(prefix="opsets_")
    passed = unimplemented = failed = 0
    for i, case in enumerate(cases):
        case_dir = os.path.join(work, f"case_{i}")
        write_case(case_dir, model(case), case.inputs)
        error = run("ort", case_dir)
        if args.ort_only:
            passed += error is None
            failed += error is not None
            print(f"{'ok  ' if error is None else 'FAIL'} {case.name}: "
                  f"{'ONNX Runtime accepts it' if error is None else error}", flush=True)
            continue
        if error is not None:
            failed += 1
            print(f"FAIL {case.name}: ONNX Runtime: {error}", flush=True)
            continue
        error = run("anvil", case_dir)
        if error is not None:
            if UNIMPLEMENTED.search(error):
                unimplemented += 1
                print(f"unim {case.name}: unimplemented: {error}", flush=True)
            else:
                failed += 1
                print(f"FAIL {case.name}: {error}", flush=True)
            continue
        mismatch, worst = compare(case_dir, len(case.outputs), case.atol, case.rtol)
        if mismatch is None:
            passed += 1
            print(f"ok   {case.name}: max abs diff {worst:.2e}", flush=True)
        else:
            failed += 1
            print(f"FAIL {case.name}: {mismatch}", flush=True)
    if args.ort_only:
        print(f"{passed} of {len(cases)} cases accepted by ONNX Runtime")
    else:
        print(f"{passed} of {len(cases)} cases within tolerance, {unimplemented} unimplemented, "
              f"{failed} failed")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
