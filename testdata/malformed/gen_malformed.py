#!/usr/bin/python3
"""Writes a corpus of malformed and hostile ONNX models.

    /usr/bin/python3 testdata/malformed/gen_malformed.py OUT_DIR
    /usr/bin/python3 testdata/malformed/gen_malformed.py --list
    /usr/bin/python3 testdata/malformed/gen_malformed.py --check-manifest CASES_TXT

Every case becomes OUT_DIR/<case>.onnx, plus any side file it needs next to it (external data
`<case>.bin`, the FIFO `<case>.fifo`). Each model is wrong on purpose -- bad arity, bad attributes,
bad versions, impossible shapes, hostile sizes, hostile external-data references, broken bytes --
and anvil-opt / anvil-run must reject each with a one-line error and exit code 1 instead of
crashing, hanging or allocating without bound. cases.txt lists the cases with the tool(s) to run
and the expected error; see README.md.

The output is deterministic (same bytes every run). Models are built with onnx.helper and
onnx.numpy_helper, or raw protos / raw bytes where helper would refuse; onnx.checker is never
called. Files stay small: huge sizes come from dims and attribute values, never from data.

Needs Debian's python3-onnx and python3-numpy (/usr/bin/python3).
"""
import argparse
import os
import stat
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
IR_VERSION = 8
MAX_FILE_BYTES = 100 * 1024
INT64_MIN = -(1 << 63)


# --------------------------------------------------------------------------
# Registry

CASES = {}      # case name -> builder(ctx), in definition order
CATEGORY = {}   # case name -> category title (the comment headers of cases.txt)


def case(category):
    """Registers the decorated builder under its function name."""
    def register(fn):
        assert fn.__name__ not in CASES, fn.__name__
        CASES[fn.__name__] = fn
        CATEGORY[fn.__name__] = category
        return fn
    return register


class Ctx:
    """What a builder may need to write side files next to its model."""

    def __init__(self, outdir, name):
        self.outdir = outdir
        self.name = name

    def path(self, suffix):
        return os.path.join(self.outdir, self.name + suffix)

    def write_side(self, suffix, data):
        """Writes OUT_DIR/<case><suffix> and returns its file name (relative to OUT_DIR)."""
        with open(self.path(suffix), "wb") as f:
            f.write(data)
        return self.name + suffix


# --------------------------------------------------------------------------
# Helpers

def vi(name, elem=TensorProto.FLOAT, shape=(2, 3)):
    return helper.make_tensor_value_info(name, elem, list(shape) if shape is not None else None)


def arr(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def scalar(name, value, dtype=np.float32):
    return numpy_helper.from_array(np.array(value, dtype=dtype), name)


def model(nodes, inputs, outputs, inits=(), value_info=(), opset=OPSET, ir_version=IR_VERSION,
          name="malformed"):
    graph = helper.make_graph(list(nodes), name, list(inputs), list(outputs), list(inits),
                              value_info=list(value_info))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="anvil-malformed")
    m.ir_version = ir_version
    return m


def unary(op, n_inputs=1, n_outputs=1, shape=(2, 3), **attrs):
    """One `op` node over graph inputs x0.. and outputs y0..."""
    ins = [f"x{i}" for i in range(n_inputs)]
    outs = [f"y{i}" for i in range(n_outputs)]
    return model([helper.make_node(op, ins, outs, **attrs)],
                 [vi(n, shape=shape) for n in ins], [vi(n, shape=None) for n in outs])


def ext_tensor(name, dims, entries, elem=TensorProto.FLOAT):
    """An initializer whose data lives in an external file described by `entries` (key, value)."""
    t = TensorProto()
    t.name = name
    t.data_type = elem
    t.dims.extend(dims)
    t.data_location = TensorProto.EXTERNAL
    for key, value in entries:
        e = t.external_data.add()
        e.key = key
        e.value = value
    return t


def ext_model(tensor):
    """x[16] + w[16] -> y, w being `tensor` (external data)."""
    return model([helper.make_node("Add", ["x", "w"], ["y"])],
                 [vi("x", shape=[16])], [vi("y", shape=[16])], [tensor])


W16 = np.arange(16, dtype=np.float32).tobytes()   # the 64 bytes of a valid w[16]


def const_of_shape(shape, out="y", value=1.0):
    """ConstantOfShape of a constant shape, so constant folding (and anvil-run) would allocate."""
    return model(
        [helper.make_node("ConstantOfShape", ["shape"], [out],
                          value=helper.make_tensor("v", TensorProto.FLOAT, [1], [value]))],
        [], [vi(out, shape=None)], [arr("shape", shape)])


# --------------------------------------------------------------------------
# 1. Arity and op schemas

SCHEMA = "Arity and op schemas"


@case(SCHEMA)
def arity_add_one_input(ctx):
    # Add needs exactly 2 inputs; this one has 1.
    return unary("Add", n_inputs=1)


@case(SCHEMA)
def arity_add_no_inputs(ctx):
    # Add with no inputs at all.
    return model([helper.make_node("Add", [], ["y"])], [], [vi("y", shape=None)])


@case(SCHEMA)
def arity_relu_three_inputs(ctx):
    # Relu takes 1 input; this one has 3.
    return unary("Relu", n_inputs=3)


@case(SCHEMA)
def arity_relu_two_outputs(ctx):
    # Relu has 1 output; this one declares 2.
    return unary("Relu", n_outputs=2)


@case(SCHEMA)
def arity_conv_missing_weight(ctx):
    # Conv needs X and W; W is missing.
    return unary("Conv", shape=(1, 1, 4, 4))


@case(SCHEMA)
def attr_relu_unknown(ctx):
    # Relu has no attributes; `foo` is not in its schema.
    return unary("Relu", foo=1)


@case(SCHEMA)
def attr_transpose_perm_floats(ctx):
    # Transpose's perm must be INTS; here it is FLOATS.
    return unary("Transpose", perm=[1.0, 0.0])


@case(SCHEMA)
def attr_gemm_alpha_int(ctx):
    # Gemm's alpha must be FLOAT; here it is INT.
    return model([helper.make_node("Gemm", ["a", "b"], ["y"], alpha=2)],
                 [vi("a", shape=[2, 3]), vi("b", shape=[3, 4])], [vi("y", shape=None)])


@case(SCHEMA)
def attr_concat_axis_string(ctx):
    # Concat's axis must be INT; here it is STRING "0".
    return unary("Concat", n_inputs=2, axis="0")


@case(SCHEMA)
def attr_concat_missing_axis(ctx):
    # Concat's axis is required and missing.
    return unary("Concat", n_inputs=2)


@case(SCHEMA)
def attr_cast_missing_to(ctx):
    # Cast's `to` is required and missing.
    return unary("Cast")


@case(SCHEMA)
def constant_value_and_value_float(ctx):
    # Constant must have exactly one value attribute; this one has `value` and `value_float`.
    node = helper.make_node("Constant", [], ["y"],
                            value=helper.make_tensor("v", TensorProto.FLOAT, [2], [1.0, 2.0]),
                            value_float=3.0)
    return model([node], [], [vi("y", shape=None)])


@case(SCHEMA)
def constant_no_value(ctx):
    # Constant without any value attribute.
    return model([helper.make_node("Constant", [], ["y"])], [], [vi("y", shape=None)])


@case(SCHEMA)
def op_unknown(ctx):
    # NoSuchOp does not exist in the default domain.
    return unary("NoSuchOp")


@case(SCHEMA)
def op_before_its_opset(ctx):
    # Einsum exists since opset 12; the model imports opset 11.
    return model([helper.make_node("Einsum", ["x0"], ["y0"], equation="ij->ji")],
                 [vi("x0")], [vi("y0", shape=None)], opset=11)


@case(SCHEMA)
def input_required_empty(ctx):
    # Gemm's input A is required but given as "" (the "absent optional input" spelling).
    return model([helper.make_node("Gemm", ["", "b", "c"], ["y"])],
                 [vi("b", shape=[3, 4]), vi("c", shape=[4])], [vi("y", shape=None)])


# --------------------------------------------------------------------------
# 2. IR and opset versions

VERSIONS = "IR and opset versions"


@case(VERSIONS)
def version_ir_zero(ctx):
    # ir_version 0 (unset): no valid IR.
    m = unary("Relu")
    m.ir_version = 0
    return m


@case(VERSIONS)
def version_ir_999(ctx):
    # ir_version 999: from the future.
    m = unary("Relu")
    m.ir_version = 999
    return m


@case(VERSIONS)
def version_opset_zero(ctx):
    # Default-domain opset 0: no op exists at version 0.
    return model([helper.make_node("Relu", ["x0"], ["y0"])], [vi("x0")], [vi("y0")], opset=0)


@case(VERSIONS)
def version_opset_999(ctx):
    # Default-domain opset 999: from the future.
    return model([helper.make_node("Relu", ["x0"], ["y0"])], [vi("x0")], [vi("y0")], opset=999)


@case(VERSIONS)
def version_no_opset_import(ctx):
    # No opset_import at all, yet the graph has a default-domain node.
    m = unary("Relu")
    del m.opset_import[:]
    return m


# --------------------------------------------------------------------------
# 3. Element types and dims

TYPES = "Element types and dims"


@case(TYPES)
def dims_negative_input(ctx):
    # A graph input with dim -5.
    return model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", shape=[2, -5])],
                 [vi("y", shape=None)])


@case(TYPES)
def tensor_raw_data_short(ctx):
    # Initializer declares float [4, 4] (64 bytes) but raw_data has 8 bytes.
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4, 4], raw_data=b"\0" * 8)
    return model([helper.make_node("Add", ["x", "w"], ["y"])], [vi("x", shape=[4, 4])],
                 [vi("y", shape=None)], [w])


@case(TYPES)
def tensor_huge_dims_empty(ctx):
    # Initializer with dims [2^62, 4] (element count overflows int64) and empty raw_data.
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1 << 62, 4], raw_data=b"")
    return model([helper.make_node("Add", ["x", "w"], ["y"])], [vi("x", shape=[1, 4])],
                 [vi("y", shape=None)], [w])


@case(TYPES)
def value_info_overflow_shape(ctx):
    # A value_info claims the intermediate h is [2^40, 2^40] (2^80 elements); h really is [2, 3].
    return model([helper.make_node("Relu", ["x"], ["h"]), helper.make_node("Neg", ["h"], ["y"])],
                 [vi("x")], [vi("y", shape=None)],
                 value_info=[vi("h", shape=[1 << 40, 1 << 40])])


@case(TYPES)
def elem_type_999_input(ctx):
    # A graph input with element type code 999 (no such TensorProto.DataType).
    x = vi("x")
    x.type.tensor_type.elem_type = 999
    return model([helper.make_node("Relu", ["x"], ["y"])], [x], [vi("y", shape=None)])


@case(TYPES)
def tensor_float16_odd_raw(ctx):
    # float16 initializer [3] (6 bytes) whose raw_data has an odd length, 5.
    w = TensorProto(name="w", data_type=TensorProto.FLOAT16, dims=[3],
                    raw_data=b"\x00\x3c" * 2 + b"\x00")
    return model([helper.make_node("Cast", ["w"], ["y"], to=TensorProto.FLOAT)], [],
                 [vi("y", shape=None)], [w])


# --------------------------------------------------------------------------
# 4. Graph structure

STRUCTURE = "Graph structure"


@case(STRUCTURE)
def graph_undefined_input(ctx):
    # Add reads "ghost", which no input, initializer or node defines.
    return model([helper.make_node("Add", ["x", "ghost"], ["y"])], [vi("x")], [vi("y", shape=None)])


@case(STRUCTURE)
def graph_value_defined_twice(ctx):
    # Two nodes both produce "h".
    return model([helper.make_node("Relu", ["x"], ["h"]), helper.make_node("Neg", ["x"], ["h"]),
                  helper.make_node("Identity", ["h"], ["y"])],
                 [vi("x")], [vi("y", shape=None)])


@case(STRUCTURE)
def graph_cycle(ctx):
    # A reads B's output and B reads A's: a two-node cycle.
    return model([helper.make_node("Relu", ["b"], ["a"], name="A"),
                  helper.make_node("Neg", ["a"], ["b"], name="B")],
                 [], [vi("a", shape=None)])


@case(STRUCTURE)
def graph_self_loop(ctx):
    # A node whose input is its own output.
    return model([helper.make_node("Add", ["x", "y"], ["y"])], [vi("x")], [vi("y", shape=None)])


@case(STRUCTURE)
def graph_output_undefined(ctx):
    # The graph output "nowhere" is produced by nothing.
    return model([helper.make_node("Relu", ["x"], ["h"])], [vi("x")],
                 [vi("h", shape=None), vi("nowhere", shape=None)])


@case(STRUCTURE)
def graph_duplicate_input_names(ctx):
    # Two graph inputs named "x".
    return model([helper.make_node("Add", ["x", "x"], ["y"])], [vi("x"), vi("x")],
                 [vi("y", shape=None)])


def if_model(then_branch, else_branch, n_outputs=1):
    attrs = {}
    if then_branch is not None:
        attrs["then_branch"] = then_branch
    if else_branch is not None:
        attrs["else_branch"] = else_branch
    outs = [f"y{i}" for i in range(n_outputs)]
    return model([helper.make_node("If", ["cond"], outs, **attrs)],
                 [vi("cond", TensorProto.BOOL, []), vi("x")], [vi(o, shape=None) for o in outs])


def branch(name, n_outputs=1):
    """A subgraph returning Relu(x) (x from the outer scope) n_outputs times."""
    outs = [f"{name}_out{i}" for i in range(n_outputs)]
    return helper.make_graph([helper.make_node("Relu", ["x"], [o]) for o in outs], name, [],
                             [vi(o, shape=None) for o in outs])


@case(STRUCTURE)
def if_missing_then_branch(ctx):
    # If has else_branch but no then_branch (required).
    return if_model(None, branch("else"))


@case(STRUCTURE)
def if_branch_output_count(ctx):
    # The If node has 1 output but both branches return 2.
    return if_model(branch("then", 2), branch("else", 2), n_outputs=1)


@case(STRUCTURE)
def loop_body_wrong_inputs(ctx):
    # Loop with one loop-carried value needs a body with 3 inputs (iter, cond, v); this has 1.
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_const"], ["cond_out"]),
         helper.make_node("Identity", ["v0"], ["v_out"])],
        "body", [vi("iter", TensorProto.INT64, [])],
        [vi("cond_out", TensorProto.BOOL, []), vi("v_out", shape=None)],
        [scalar("cond_const", True, np.bool_)])
    return model([helper.make_node("Loop", ["trip", "cond", "v0"], ["v_final"], body=body)],
                 [vi("v0")], [vi("v_final", shape=None)],
                 [scalar("trip", 3, np.int64), scalar("cond", True, np.bool_)])


# --------------------------------------------------------------------------
# 5. Huge results of constant folding / execution

HUGE = "Huge results (constant folding or execution would allocate without bound)"


@case(HUGE)
def huge_constantofshape_1e12(ctx):
    # ConstantOfShape [10^12] float: 4 TB.
    return const_of_shape([10 ** 12])


@case(HUGE)
def huge_constantofshape_overflow(ctx):
    # ConstantOfShape [2^62, 4]: the element count overflows int64.
    return const_of_shape([1 << 62, 4])


@case(HUGE)
def huge_constantofshape_6gb(ctx):
    # ConstantOfShape [1.5 * 10^9] float: 6 GB, plausible enough to be attempted.
    return const_of_shape([1500000000])


@case(HUGE)
def huge_expand_scalar(ctx):
    # Expand of a scalar to [100000, 100000]: 10^10 floats.
    return model([helper.make_node("Expand", ["s", "shape"], ["y"])], [], [vi("y", shape=None)],
                 [scalar("s", 1.0), arr("shape", [100000, 100000])])


@case(HUGE)
def huge_add_broadcast(ctx):
    # Add of constants [100000, 1] and [1, 100000] (each a small Expand of a scalar) broadcasts to
    # [100000, 100000]: 10^10 floats.
    return model([helper.make_node("Expand", ["s", "col_shape"], ["col"]),
                  helper.make_node("Expand", ["s", "row_shape"], ["row"]),
                  helper.make_node("Add", ["col", "row"], ["y"])],
                 [], [vi("y", shape=None)],
                 [scalar("s", 1.0), arr("col_shape", [100000, 1]), arr("row_shape", [1, 100000])])


@case(HUGE)
def huge_tile(ctx):
    # Tile of a [1, 1] tensor with repeats [10^9, 10^9]: 10^18 elements.
    return model([helper.make_node("Tile", ["t", "repeats"], ["y"])], [], [vi("y", shape=None)],
                 [arr("t", [[1.0]], np.float32), arr("repeats", [10 ** 9, 10 ** 9])])


@case(HUGE)
def huge_pad(ctx):
    # Pad of a [1] tensor by 10^12 at the end.
    return model([helper.make_node("Pad", ["t", "pads"], ["y"], mode="constant")], [],
                 [vi("y", shape=None)],
                 [arr("t", [1.0], np.float32), arr("pads", [0, 10 ** 12])])


@case(HUGE)
def huge_resize(ctx):
    # Resize of a [1, 1, 4, 4] tensor by scales [1, 1, 10^6, 10^6]: [1, 1, 4e6, 4e6].
    return model([helper.make_node("Resize", ["t", "", "scales"], ["y"], mode="nearest")], [],
                 [vi("y", shape=None)],
                 [arr("t", np.ones((1, 1, 4, 4)), np.float32),
                  arr("scales", [1.0, 1.0, 1e6, 1e6], np.float32)])


@case(HUGE)
def huge_onehot(ctx):
    # OneHot with depth 10^12: output [1, 10^12].
    return model([helper.make_node("OneHot", ["indices", "depth", "values"], ["y"])], [],
                 [vi("y", shape=None)],
                 [arr("indices", [0]), scalar("depth", 10 ** 12, np.int64),
                  arr("values", [0.0, 1.0], np.float32)])


@case(HUGE)
def huge_range_const(ctx):
    # Range(0, 10^9, 1) float, all constant: 4 GB.
    return model([helper.make_node("Range", ["start", "limit", "delta"], ["y"])], [],
                 [vi("y", shape=None)],
                 [scalar("start", 0.0), scalar("limit", 1e9), scalar("delta", 1.0)])


@case(HUGE)
def huge_range_runtime(ctx):
    # Range(0, Size(x) * 10^9, 1) float with x[N]: the limit is only known at run time (N
    # defaults to 1 in anvil-run), so only execution can hit the 4 GB result.
    return model([helper.make_node("Size", ["x"], ["n"]),
                  helper.make_node("Cast", ["n"], ["nf"], to=TensorProto.FLOAT),
                  helper.make_node("Mul", ["nf", "scale"], ["limit"]),
                  helper.make_node("Range", ["start", "limit", "delta"], ["y"])],
                 [vi("x", shape=["N"])], [vi("y", shape=None)],
                 [scalar("scale", 1e9), scalar("start", 0.0), scalar("delta", 1.0)])


@case(HUGE)
def huge_expand_runtime(ctx):
    # Expand of x[N, N] to Shape(x) * [100000, 100000]: only known at run time (N = 1 gives
    # [100000, 100000], 10^10 floats).
    return model([helper.make_node("Shape", ["x"], ["s"]),
                  helper.make_node("Mul", ["s", "factor"], ["shape"]),
                  helper.make_node("Expand", ["x", "shape"], ["y"])],
                 [vi("x", shape=["N", "N"])], [vi("y", shape=None)],
                 [arr("factor", [100000, 100000])])


@case(HUGE)
def reshape_shape_rank2(ctx):
    # Reshape's shape input must be 1-D; here it is [[1]] (rank 2).
    return model([helper.make_node("Reshape", ["x", "shape"], ["y"])], [vi("x", shape=[1])],
                 [vi("y", shape=None)], [arr("shape", [[1]])])


@case(HUGE)
def slice_step_int64_min(ctx):
    # Not an error: Slice of x[10] from -1 towards INT64_MIN with step INT64_MIN is [x[9]]; a
    # naive `-step` or `(end - start) / step` overflows.
    return model([helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])],
                 [vi("x", shape=[10])], [vi("y", shape=None)],
                 [arr("starts", [-1]), arr("ends", [INT64_MIN]), arr("axes", [0]),
                  arr("steps", [INT64_MIN])])


# --------------------------------------------------------------------------
# 6. Files and external data

FILES = "Files and external data"


@case(FILES)
def extdata_missing_file(ctx):
    # The external data file does not exist.
    return ext_model(ext_tensor("w", [16], [("location", ctx.name + ".bin"), ("offset", "0"),
                                            ("length", "64")]))


@case(FILES)
def extdata_path_escape(ctx):
    # location climbs out of the model's directory.
    return ext_model(ext_tensor("w", [16], [("location", "../../etc/passwd"), ("offset", "0"),
                                            ("length", "64")]))


@case(FILES)
def extdata_absolute_path(ctx):
    # location is an absolute path.
    return ext_model(ext_tensor("w", [16], [("location", "/etc/passwd"), ("offset", "0"),
                                            ("length", "64")]))


@case(FILES)
def extdata_embedded_nul(ctx):
    # location "<case>.bin\0junk": a reader that passes it to open() as a C string would read
    # <case>.bin (written here, valid) and silently accept the model.
    bin_name = ctx.write_side(".bin", W16)
    location = bin_name + "\x00junk"
    m = ext_model(ext_tensor("w", [16], [("location", location), ("offset", "0"),
                                         ("length", "64")]))
    reparsed = onnx.ModelProto()
    reparsed.ParseFromString(m.SerializeToString())
    stored = reparsed.graph.initializer[0].external_data[0].value
    assert stored == location and "\x00" in stored, repr(stored)
    return m


@case(FILES)
def extdata_offset_past_end(ctx):
    # offset 16 + length 64 runs past the end of the 32-byte file.
    bin_name = ctx.write_side(".bin", W16[:32])
    return ext_model(ext_tensor("w", [16], [("location", bin_name), ("offset", "16"),
                                            ("length", "64")]))


@case(FILES)
def extdata_offset_negative(ctx):
    # offset is "-8".
    bin_name = ctx.write_side(".bin", W16)
    return ext_model(ext_tensor("w", [16], [("location", bin_name), ("offset", "-8"),
                                            ("length", "64")]))


@case(FILES)
def extdata_length_negative(ctx):
    # length is "-64".
    bin_name = ctx.write_side(".bin", W16)
    return ext_model(ext_tensor("w", [16], [("location", bin_name), ("offset", "0"),
                                            ("length", "-64")]))


@case(FILES)
def extdata_length_not_number(ctx):
    # length is "sixty-four".
    bin_name = ctx.write_side(".bin", W16)
    return ext_model(ext_tensor("w", [16], [("location", bin_name), ("offset", "0"),
                                            ("length", "sixty-four")]))


@case(FILES)
def extdata_length_too_small(ctx):
    # length 32 for a float [16] tensor (64 bytes).
    bin_name = ctx.write_side(".bin", W16)
    return ext_model(ext_tensor("w", [16], [("location", bin_name), ("offset", "0"),
                                            ("length", "32")]))


@case(FILES)
def extdata_fifo(ctx):
    # location names a FIFO with no writer: opening or reading it blocks forever.
    fifo = ctx.path(".fifo")
    if os.path.lexists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    return ext_model(ext_tensor("w", [16], [("location", ctx.name + ".fifo"), ("offset", "0"),
                                            ("length", "64")]))


@case(FILES)
def file_truncated(ctx):
    # The first 100 bytes of a valid model (cut inside the graph).
    valid = model([helper.make_node("Add", ["x", "w"], ["y"])], [vi("x", shape=[64])],
                  [vi("y", shape=[64])], [arr("w", np.arange(64), np.float32)])
    data = valid.SerializeToString()
    assert len(data) > 200, len(data)
    return data[:100]


@case(FILES)
def file_random_bytes(ctx):
    # 4096 seeded random bytes.
    return np.random.default_rng(20240601).bytes(4096)


@case(FILES)
def file_empty(ctx):
    # A zero-byte file (parses as an empty ModelProto: no IR version, no graph).
    return b""


@case(FILES)
def graph_empty_output_undefined(ctx):
    # No nodes, inputs or initializers, but an output "y".
    return model([], [], [vi("y")])


# --------------------------------------------------------------------------
# 7. Subgraphs and attribute values

VALUES = "Subgraphs and attribute values"


@case(VALUES)
def attr_graph_on_relu(ctx):
    # Relu with a `body` graph attribute (Relu is not a control-flow op). The body itself is a
    # self-contained, valid graph.
    body = helper.make_graph([helper.make_node("Neg", ["b_in"], ["b_out"])], "body",
                             [vi("b_in")], [vi("b_out")])
    return unary("Relu", body=body)


@case(VALUES)
def attr_tensor_dtype_999(ctx):
    # Constant whose `value` tensor has data_type 999.
    t = TensorProto(name="v", data_type=999, dims=[2], raw_data=b"\0" * 8)
    return model([helper.make_node("Constant", [], ["y"], value=t)], [], [vi("y", shape=None)])


@case(VALUES)
def cast_to_999(ctx):
    # Cast to element type 999.
    return unary("Cast", to=999)


@case(VALUES)
def transpose_perm_repeated(ctx):
    # Transpose perm [0, 0] is not a permutation.
    return unary("Transpose", perm=[0, 0])


@case(VALUES)
def transpose_perm_wrong_length(ctx):
    # Transpose perm of length 3 on a rank-2 input.
    return unary("Transpose", perm=[1, 0, 2])


@case(VALUES)
def gather_index_out_of_range(ctx):
    # Gather index 7 from a constant [4] (all constant, so folding evaluates it).
    return model([helper.make_node("Gather", ["data", "indices"], ["y"], axis=0)], [],
                 [vi("y", shape=None)],
                 [arr("data", [1.0, 2.0, 3.0, 4.0], np.float32), arr("indices", [7])])


@case(VALUES)
def concat_axis_out_of_range(ctx):
    # Concat axis 5 on rank-2 inputs.
    return unary("Concat", n_inputs=2, axis=5)


@case(VALUES)
def softmax_axis_out_of_range(ctx):
    # Softmax axis -7 on a rank-2 input.
    return unary("Softmax", axis=-7)


@case(VALUES)
def split_sizes_exceed_dim(ctx):
    # Split sizes [3, 3] sum to 6 but axis 0 has 4.
    return model([helper.make_node("Split", ["x", "split"], ["y0", "y1"], axis=0)],
                 [vi("x", shape=[4, 2])], [vi("y0", shape=None), vi("y1", shape=None)],
                 [arr("split", [3, 3])])


@case(VALUES)
def conv_kernel_larger_than_input(ctx):
    # A 5x5 kernel on an unpadded 3x3 input: the output size would be negative.
    return model([helper.make_node("Conv", ["x", "w"], ["y"])], [vi("x", shape=[1, 1, 3, 3])],
                 [vi("y", shape=None)], [arr("w", np.ones((1, 1, 5, 5)), np.float32)])


@case(VALUES)
def maxpool_kernel_zero(ctx):
    # MaxPool with kernel_shape [0, 0].
    return unary("MaxPool", shape=(1, 1, 4, 4), kernel_shape=[0, 0])


@case(VALUES)
def reshape_two_minus_one(ctx):
    # Reshape to [-1, -1]: at most one dim may be inferred.
    return model([helper.make_node("Reshape", ["x", "shape"], ["y"])], [vi("x")],
                 [vi("y", shape=None)], [arr("shape", [-1, -1])])


@case(VALUES)
def reshape_product_mismatch(ctx):
    # Reshape [2, 3] (6 elements) to [4, 2] (8 elements).
    return model([helper.make_node("Reshape", ["x", "shape"], ["y"])], [vi("x")],
                 [vi("y", shape=None)], [arr("shape", [4, 2])])


# --------------------------------------------------------------------------
# 8. Nesting, node order, names and limits

LIMITS = "Nesting, node order, names and limits"
NAME_BYTES = 90000  # hostile names: long, with line breaks, escapes and invalid UTF-8


def nested_if(depth):
    """`depth` Ifs, each in the previous one's then_branch; every else_branch returns x. Valid
    ONNX (unique names, every branch typed) apart from the depth."""
    v = lambda n: vi(n, shape=[2])
    body = helper.make_graph([helper.make_node("Identity", ["x"], [f"y{depth}"])], f"g{depth}", [],
                             [v(f"y{depth}")])
    for k in range(depth - 1, -1, -1):
        other = helper.make_graph([helper.make_node("Identity", ["x"], [f"z{k}"])], f"e{k}", [],
                                  [v(f"z{k}")])
        node = helper.make_node("If", ["c"], [f"y{k}"], then_branch=body, else_branch=other)
        if k == 0:
            return model([node], [vi("c", TensorProto.BOOL, []), v("x")], [v("y0")])
        body = helper.make_graph([node], f"g{k}", [], [v(f"y{k}")])


def hostile_name(tag):
    """A NAME_BYTES-byte name of line breaks, terminal escapes, NULs and invalid UTF-8."""
    unit = (tag + "\n\x1b[2J\r\x00\xff\xfe\t").encode("latin-1")
    return (unit * (NAME_BYTES // len(unit) + 1))[:NAME_BYTES]


def placeholder(tag):
    """An ASCII stand-in of hostile_name's length: protobuf's Python API takes only UTF-8 strings,
    so builders use this and with_hostile_names swaps the bytes in the serialized model."""
    return ("@" + tag + "@" * NAME_BYTES)[:NAME_BYTES]


def with_hostile_names(m, *tags):
    data = m.SerializeToString()
    for tag in tags:
        assert data.count(placeholder(tag).encode()) == 1, tag
        data = data.replace(placeholder(tag).encode(), hostile_name(tag))
    return data


@case(LIMITS)
def nested_if_100(ctx):
    # Ifs nested exactly as deep as Anvil allows (100 levels): both tools succeed.
    return nested_if(100)


@case(LIMITS)
def nested_if_101(ctx):
    # One level deeper than Anvil allows (binary; protobuf's default limit would stop near 33).
    return nested_if(101)


TEXT_HEADER = '<ir_version: 8, opset_import: ["" : 13]>\n'


@case(LIMITS)
def nested_if_101_text(ctx):
    # The same 101 levels as ONNX text (.onnxtxt): the import's exact check.
    depth = 101
    text = f"g{depth} () => (float[2] y{depth}) {{ y{depth} = Identity (x) }}"
    for k in range(depth - 1, 0, -1):
        text = (f"g{k} () => (float[2] y{k}) {{ y{k} = If <then_branch = {text}, else_branch = "
                f"e{k} () => (float[2] z{k}) {{ z{k} = Identity (x) }}> (c) }}")
    return (TEXT_HEADER + "main (bool c, float[2] x) => (float[2] y0) {\n"
            f"  y0 = If <then_branch = {text}, else_branch = e0 () => (float[2] z0) "
            "{ z0 = Identity (x) }> (c)\n}\n")


@case(LIMITS)
def nested_if_1500_text(ctx):
    # Ifs nested 1500 deep as ONNX text, valid apart from the depth (each then_branch holds the
    # next If, each else_branch returns x; types left to inference to stay under 100 KB): both
    # tools overflowed the stack in their recursive walks.
    depth = 1500
    opens = "".join(f"y{k}=If<then_branch=g()=>(y{k + 1}){{" for k in range(depth))
    return (TEXT_HEADER + "main (bool c, float[2] x) => (float[2] y0) {\n" + opens +
            f"y{depth}=Identity(x)" + "},else_branch=e()=>(x){}>(c)" * depth + "\n}\n")


def reversed_chain(n):
    """x -> Neg/Relu chain of n nodes listed last to first, plus an If whose branch captures a value
    of a node listed after it."""
    nodes = [helper.make_node("Relu" if i % 2 else "Neg", [f"v{i}"], [f"v{i + 1}"])
             for i in range(n)]
    then_g = helper.make_graph([helper.make_node("Identity", ["late"], ["t"])], "then", [],
                               [vi("t", shape=None)])
    else_g = helper.make_graph([helper.make_node("Identity", ["v0"], ["e"])], "else", [],
                               [vi("e", shape=None)])
    tail = [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
            helper.make_node("Relu", [f"v{n}"], ["late"])]
    return list(reversed(nodes)) + tail


@case(LIMITS)
def order_reversed(ctx):
    # 2000 nodes listed last to first, and an If whose then_branch reads a value defined after
    # the If: ONNX Runtime sorts and runs such graphs, so import sorts them (with a warning).
    return model(reversed_chain(2000), [vi("v0", shape=[4]), vi("c", TensorProto.BOOL, [])],
                 [vi("y", shape=None)])


@case(LIMITS)
def order_reversed_text(ctx):
    # A chain of 200 nodes listed last to first, as ONNX text.
    n = 200
    nodes = "".join(f"  v{i + 1} = {'Relu' if i % 2 else 'Neg'} (v{i})\n" for i in reversed(range(n)))
    return TEXT_HEADER + f"main (float[4] v0) => (float[4] v{n}) {{\n{nodes}}}\n"


@case(LIMITS)
def order_cycle_through_capture(ctx):
    # A's then_branch reads b, and B reads A's output: a cycle only the capture closes.
    then_g = helper.make_graph([helper.make_node("Identity", ["b"], ["t"])], "then", [],
                               [vi("t", shape=None)])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [],
                               [vi("e", shape=None)])
    return model([helper.make_node("If", ["c"], ["a"], then_branch=then_g, else_branch=else_g,
                                   name="A"),
                  helper.make_node("Neg", ["a"], ["b"], name="B")],
                 [vi("x"), vi("c", TensorProto.BOOL, [])], [vi("b", shape=None)])


@case(LIMITS)
def name_hostile_undefined_input(ctx):
    # Add reads a 90,000-byte name of line breaks, escapes and invalid UTF-8 that nothing defines.
    return with_hostile_names(
        model([helper.make_node("Add", ["x", placeholder("in")], ["y"])], [vi("x")],
              [vi("y", shape=None)]), "in")


@case(LIMITS)
def name_hostile_op_type(ctx):
    # An op type of line breaks, escapes and invalid UTF-8, 90,000 bytes long.
    return with_hostile_names(
        model([helper.make_node(placeholder("op"), ["x"], ["y"])], [vi("x")],
              [vi("y", shape=None)]), "op")


@case(LIMITS)
def name_hostile_node_name(ctx):
    # A Transpose with an invalid perm, named with 90,000 hostile bytes.
    return with_hostile_names(
        model([helper.make_node("Transpose", ["x"], ["y"], perm=[0, 0], name=placeholder("node"))],
              [vi("x")], [vi("y", shape=None)]), "node")


@case(LIMITS)
def name_hostile_attribute(ctx):
    # Relu with an attribute whose name is 90,000 hostile bytes.
    return with_hostile_names(
        model([helper.make_node("Relu", ["x"], ["y"], **{placeholder("attr"): 1})], [vi("x")],
              [vi("y", shape=None)]), "attr")


@case(LIMITS)
def name_hostile_domain(ctx):
    # A node whose domain (90,000 hostile bytes) the model does not import.
    return with_hostile_names(
        model([helper.make_node("Relu", ["x"], ["y"], domain=placeholder("domain"))], [vi("x")],
              [vi("y", shape=None)]), "domain")


@case(LIMITS)
def name_hostile_graph_output(ctx):
    # A graph output named with 90,000 hostile bytes that nothing defines.
    return with_hostile_names(
        model([helper.make_node("Relu", ["x"], ["y"])], [vi("x")],
              [vi("y", shape=None), vi(placeholder("out"), shape=None)]), "out")


@case(LIMITS)
def concat_dim_mismatch(ctx):
    # Concat along axis 1 of [1, 16, 12, 12] and [1, 32, 12, 32]: dim 3 differs (12 vs 32).
    return model([helper.make_node("Concat", ["a", "b"], ["y"], axis=1, name="/stage1/Concat_2")],
                 [vi("a", shape=[1, 16, 12, 12]), vi("b", shape=[1, 32, 12, 32])],
                 [vi("y", shape=None)])


@case(LIMITS)
def loop_scan_over_limit(ctx):
    # A Loop of 100 iterations whose body makes a 256 MB tensor each time, stacked as a scan
    # output of 25 GB: the pieces held before stacking count against the allocation limit.
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("ConstantOfShape", ["piece_shape"], ["piece"],
                          value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]))],
        "body", [vi("i", TensorProto.INT64, []), vi("cond_in", TensorProto.BOOL, [])],
        [vi("cond_out", TensorProto.BOOL, []), vi("piece", shape=[1 << 26])])
    return model([helper.make_node("Loop", ["trips", "cond"], ["stacked"], body=body)], [],
                 [vi("stacked", shape=None)],
                 [scalar("trips", 100, np.int64), scalar("cond", True, np.bool_),
                  arr("piece_shape", [1 << 26])])


# --------------------------------------------------------------------------
# Driver

def manifest_names(path):
    names = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            names.append(line.split(" ", 1)[0])
    # A case may have one line per tool.
    return list(dict.fromkeys(names))


def write_all(outdir):
    os.makedirs(outdir, exist_ok=True)
    for name, build in CASES.items():
        ctx = Ctx(outdir, name)
        result = build(ctx)
        # ONNX text (a str) goes to <case>.onnxtxt, the rest to <case>.onnx.
        if isinstance(result, str):
            path, data = ctx.path(".onnxtxt"), result.encode()
        else:
            path = ctx.path(".onnx")
            data = result if isinstance(result, bytes) else result.SerializeToString()
        with open(path, "wb") as f:
            f.write(data)
    # Every regular file must stay small; sizes come from dims, never from data.
    for entry in sorted(os.listdir(outdir)):
        path = os.path.join(outdir, entry)
        st = os.lstat(path)
        if stat.S_ISREG(st.st_mode) and st.st_size >= MAX_FILE_BYTES:
            sys.exit(f"{path} is {st.st_size} bytes (limit {MAX_FILE_BYTES})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("outdir", nargs="?", help="directory to write <case>.onnx files into")
    p.add_argument("--list", action="store_true", help="print the case names, one per line")
    p.add_argument("--check-manifest", metavar="CASES_TXT",
                   help="exit 1 unless CASES_TXT lists exactly the generator's cases, in order")
    args = p.parse_args()
    if args.list:
        print("\n".join(CASES))
        return
    if args.check_manifest:
        listed = manifest_names(args.check_manifest)
        if listed != list(CASES):
            missing = [n for n in CASES if n not in listed]
            extra = [n for n in listed if n not in CASES]
            sys.exit(f"{args.check_manifest} does not match the generator "
                     f"(missing: {missing}, unknown: {extra}, or out of order)")
        return
    if not args.outdir:
        p.error("OUT_DIR is required (or --list / --check-manifest)")
    write_all(args.outdir)


if __name__ == "__main__":
    main()
