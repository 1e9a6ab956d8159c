#!/usr/bin/python3
"""Writes the quantized models of the zoo in testdata/zoo/, as ONNX Runtime's quantizer writes them.

    /usr/bin/python3 testdata/generate_quantized_zoo.py [OUT_DIR]

The int8 networks the speed work is measured on against ONNX Runtime, built without it: the
float models of generate_zoo.py rewritten node by node into the patterns its Python quantization
tool (onnxruntime/python/tools/quantization) writes, with the same arithmetic for scales, zero
points and rounding. Deterministic (weights from generate_zoo.py's seeded generators, calibration
on a seeded standard-normal input), symbolic batch dim `N`, opset 17; every model passes
onnx.checker's full check and strict shape inference.

  resnet18_qdq.onnx     resnet18.onnx as quantize_static(quant_format=QDQ, per_channel=True,
                        activation_type=QUInt8, weight_type=QInt8) writes it from the pre-processed
                        (batch norm folded) model: x -> QuantizeLinear -> DequantizeLinear; each
                        Conv takes DequantizeLinear'd uint8 activations, int8 weights (symmetric,
                        per output channel, axis 0) and int32 biases (scale x_scale * w_scale[c]);
                        the Relu after a Conv or an Add is dropped into the following
                        QuantizeLinear (zero point 0); Add and GlobalAveragePool quantize their
                        inputs and output; MaxPool's output reuses its input's scale and zero
                        point; Flatten stays float between DequantizeLinear and QuantizeLinear;
                        Gemm as Conv (per-channel axis 0 for transB=1), its output y through a
                        last QuantizeLinear -> DequantizeLinear               (opset 17)
  mobilenetv2_qdq.onnx  mobilenetv2.onnx the same way: depthwise Convs, ReLU6 (Clip(0, 6)) dropped
                        into the QuantizeLinear after its Conv, residual Adds   (opset 17)
  bert_dynq.onnx        x[N,128,256] hidden states (after the embeddings) -> 4 BERT encoder layers
                        (hidden 256, 4 heads, FFN 1024, post-LayerNormalization, GELU in erf form
                        x * 0.5 * (1 + Erf(x / sqrt 2)), attention as MatMul, Reshape, Transpose,
                        Div, Softmax) -> y[N,128,256], as quantize_dynamic(weight_type=QInt8)
                        writes it: each MatMul by a constant weight becomes DynamicQuantizeLinear
                        (shared by the MatMuls reading the same activation) -> MatMulInteger with
                        the int8 weight (symmetric, per tensor) -> Cast -> Mul by x_scale * w_scale
                        (a Mul node), then the float bias Add; the activation-by-activation
                        MatMuls of attention stay float                         (opset 17)
"""
import collections
import contextlib
import io
import os
import sys
import tempfile
import zlib

import numpy as np
import onnx
from numpy.lib.stride_tricks import sliding_window_view
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True  # no __pycache__ next to the sources
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate_zoo  # noqa: E402
from generate_zoo import Net, save  # noqa: E402


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def float_graph(build):
    """The graph generate_zoo.py's `build` writes, read back from a temporary file."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "float.onnx")
        with contextlib.redirect_stdout(io.StringIO()):
            build(path)
        return onnx.load(path).graph


# ---- Float forward in numpy, for calibration ----

def conv(x, w, b=None, kernel_shape=None, strides=(1, 1), pads=(0, 0, 0, 0), group=1,
         dilations=(1, 1)):
    assert tuple(dilations) == (1, 1)
    n, _, _, _ = x.shape
    cout, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    # Windows [N, C, OH, OW, kh, kw] as a strided view; the contraction copies them (im2col).
    win = sliding_window_view(xp, (kh, kw), axis=(2, 3))[:, :, ::strides[0], ::strides[1]]
    oh, ow = win.shape[2:4]
    if group == 1:
        y = np.tensordot(win, w, axes=([1, 4, 5], [1, 2, 3])).transpose(0, 3, 1, 2)
    else:
        win = win.reshape(n, group, cg, oh, ow, kh, kw)
        wg = w.reshape(group, cout // group, cg, kh, kw)
        y = np.einsum("ngchwij,gocij->ngohw", win, wg).reshape(n, cout, oh, ow)
    return y if b is None else y + b.reshape(1, -1, 1, 1)


def max_pool(x, kernel_shape, strides, pads=(0, 0, 0, 0)):
    xp = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])),
                constant_values=-np.inf)
    win = sliding_window_view(xp, tuple(kernel_shape), axis=(2, 3))
    return win[:, :, ::strides[0], ::strides[1]].max(axis=(4, 5))


def gemm(a, b, c=None, transA=0, transB=0, alpha=1.0, beta=1.0):  # noqa: N803 (ONNX's names)
    y = alpha * (a.T if transA else a) @ (b.T if transB else b)
    return y if c is None else y + beta * c


OPS = {
    "Conv": conv,
    "Relu": lambda x: np.maximum(x, 0),
    "Clip": lambda x, lo, hi: np.clip(x, lo, hi),
    "Add": np.add,
    "MaxPool": max_pool,
    "GlobalAveragePool": lambda x: x.mean(axis=(2, 3), keepdims=True),
    "Flatten": lambda x, axis=1: x.reshape(int(np.prod(x.shape[:axis])), -1),
    "Gemm": gemm,
}


def calibrate(nodes, inits, feeds):
    """(min, max) of every tensor over one forward pass: ORT's default MinMax calibrator."""
    env = dict(inits, **feeds)
    ranges = {name: (v.min(), v.max()) for name, v in feeds.items()}
    for node in nodes:
        y = OPS[node.op_type](*[env[i] for i in node.input], **attrs(node)).astype(np.float32)
        env[node.output[0]] = y
        ranges[node.output[0]] = (y.min(), y.max())
    return ranges


def fold_batch_norms(nodes, inits):
    """Folds each BatchNormalization into the Conv before it, as ORT's pre-processing does
    (quant_pre_process, whose optimizer fuses Conv + BatchNormalization)."""
    producer = {n.output[0]: n for n in nodes}
    kept = []
    for node in nodes:
        if node.op_type != "BatchNormalization":
            kept.append(node)
            continue
        conv_node = producer[node.input[0]]
        gamma, beta, mean, var = (inits.pop(i).astype(np.float64) for i in node.input[1:])
        s = gamma / np.sqrt(var + attrs(node).get("epsilon", 1e-5))
        w = conv_node.input[1]
        inits[w] = (inits[w] * s[:, None, None, None]).astype(np.float32)
        b = conv_node.input[2] if len(conv_node.input) > 2 else conv_node.output[0] + "_b"
        inits[b] = ((inits.get(b, 0.0) - mean) * s + beta).astype(np.float32)
        del conv_node.input[2:]
        conv_node.input.append(b)
        conv_node.output[0] = node.output[0]
    return kept


# ---- ORT's scale and zero-point arithmetic (quant_utils.compute_scale_zp, quantize_nparray) ----

def activation_qparams(rmin, rmax):
    """uint8, asymmetric, the range stretched to include 0: scale (rmax - rmin) / 255."""
    rmin, rmax = np.minimum(np.float32(rmin), 0), np.maximum(np.float32(rmax), 0)
    scale = np.float64(rmax - rmin) / 255.0
    if scale < np.finfo(np.float32).tiny:
        return np.float32(1.0), np.uint8(0)
    return np.float32(scale), np.uint8(np.round(0 - rmin / scale))


def weight_qparams(w, axis=None):
    """int8, symmetric (qmin -127, qmax 127, zero point 0): scale max|w| / 127, per channel
    along `axis` or per tensor; returns the int8 weight and the float32 scale(s)."""
    rows = w.reshape(1, -1) if axis is None else np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    absmax = np.maximum(np.abs(np.minimum(rows.min(1), 0)), np.abs(np.maximum(rows.max(1), 0)))
    scale = (absmax.astype(np.float64) * 2 / 254.0).astype(np.float32)
    scale[scale < np.finfo(np.float32).tiny] = 1.0
    shape = [1] * w.ndim
    if axis is not None:
        shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -128, 127).astype(np.int8)
    return q, (scale if axis is not None else scale[0])


def quantize_bias(b, input_scale, weight_scale):
    """int32, zero point 0, scale input_scale * weight_scale (base_quantizer's
    quantize_bias_static_impl, beta 1)."""
    scale = np.float32(input_scale) * weight_scale
    q = np.round(b.astype(np.float64) / scale.astype(np.float64))
    i32 = np.iinfo(np.int32)
    return np.clip(q, i32.min, i32.max).astype(np.int32), scale.astype(np.float32)


# ---- quantize_static, QDQ format ----

def plan_qdq(nodes, inits, graph_outputs):
    """Walks the nodes as ORT's QDQ op quantizers do (registry.py: QDQConv, QDQGemm,
    QDQRemovableActivation, QDQMaxPool, QDQOperatorBase for the QLinear ops Add and
    GlobalAveragePool; ops in neither registry, Flatten here, stay float).

    Returns the nodes kept, {tensor: tensor whose scale and zero point it uses},
    {weight: per-channel axis} and {bias: (input, weight)}.
    """
    consumers = collections.Counter(i for n in nodes for i in n.input)
    producer = {n.output[0]: n for n in nodes}
    tensors, weights, biases, kept = {}, {}, {}, []

    def mark(name):
        if name not in inits:
            tensors.setdefault(name, name)

    for node in nodes:
        op, ins, out = node.op_type, list(node.input), node.output[0]
        if op in ("Conv", "Gemm"):
            mark(ins[0])
            mark(out)
            # Output channels: Conv's axis 0, Gemm's B axis 0 when transposed (transB=1), else 1.
            weights[ins[1]] = 0 if op == "Conv" or attrs(node).get("transB", 0) else 1
            if len(ins) > 2:
                biases[ins[2]] = (ins[0], ins[1])
        elif op in ("Relu", "Clip") and ins[0] in tensors:
            # try_replacing_upstream_output: the producer writes the activation's output, whose
            # (calibrated, so clipped) range the following QuantizeLinear saturates to.
            if consumers[ins[0]] == 1 and ins[0] in producer and ins[0] not in graph_outputs:
                producer[ins[0]].output[0] = out
                del tensors[ins[0]]
                mark(out)
                continue
            mark(out)
        elif op == "MaxPool" and ins[0] in tensors:
            tensors.setdefault(out, ins[0])  # quantize_output_same_as_input
        elif op in ("Add", "GlobalAveragePool"):
            for name in ins + [out]:
                mark(name)
        kept.append(node)
    return kept, tensors, weights, biases


def emit_qdq(plan, inits, ranges, graph_inputs, graph_outputs):
    """The QDQ graph's nodes and initializers: one QuantizeLinear -> DequantizeLinear pair per
    quantized activation, shared by its consumers; DequantizeLinear for weights and biases."""
    kept, tensors, weights, biases = plan
    nodes, new_inits = [], {}
    qparams, dq, w_scales = {}, {}, {}

    def params(t):
        if tensors[t] != t:
            return params(tensors[t])
        if t not in qparams:
            new_inits[t + "_scale"], new_inits[t + "_zero_point"] = activation_qparams(*ranges[t])
            qparams[t] = (t + "_scale", t + "_zero_point")
        return qparams[t]

    def qdq(t, q_input, dq_output):
        scale, zp = params(t)
        nodes.append(helper.make_node("QuantizeLinear", [q_input, scale, zp],
                                      [t + "_QuantizeLinear_Output"], t + "_QuantizeLinear"))
        nodes.append(helper.make_node("DequantizeLinear", [t + "_QuantizeLinear_Output", scale, zp],
                                      [dq_output], t + "_DequantizeLinear"))
        dq[t] = dq_output

    for t in graph_inputs:
        if t in tensors:
            qdq(t, t, t + "_DequantizeLinear_Output")
    for node in kept:
        for k, name in enumerate(node.input):
            if name in weights:
                if name not in w_scales:
                    q, w_scales[name] = weight_qparams(inits[name], weights[name])
                    new_inits[name + "_quantized"] = q
                    new_inits[name + "_scale"] = w_scales[name]
                    new_inits[name + "_zero_point"] = np.zeros(q.shape[weights[name]], np.int8)
                    nodes.append(helper.make_node(
                        "DequantizeLinear", [name + "_quantized", name + "_scale",
                                             name + "_zero_point"],
                        [name + "_DequantizeLinear_Output"], name + "_DequantizeLinear",
                        axis=weights[name]))
                node.input[k] = name + "_DequantizeLinear_Output"
            elif name in biases:
                x_name, w_name = biases.pop(name)
                q, scale = quantize_bias(inits[name], new_inits[params(x_name)[0]], w_scales[w_name])
                qb = name + "_quantized"
                new_inits[qb], new_inits[qb + "_scale"] = q, scale
                new_inits[qb + "_zero_point"] = np.zeros(q.shape, np.int32)
                # The bias's DequantizeLinear writes the bias's own name.
                nodes.append(helper.make_node(
                    "DequantizeLinear", [qb, qb + "_scale", qb + "_zero_point"], [name],
                    name + "_DequantizeLinear", axis=0))
            elif name in dq:
                node.input[k] = dq[name]
        y = node.output[0]
        if y in tensors and y in graph_outputs:
            # A graph output keeps its name on the DequantizeLinear; the producer gets a new one.
            node.output[0] = y + "_QuantizeLinear_Input"
            nodes.append(node)
            qdq(y, node.output[0], y)
        else:
            nodes.append(node)
            if y in tensors:
                qdq(y, y, y + "_DequantizeLinear_Output")
    return nodes, new_inits


def quantize_static_qdq(build, name):
    """generate_zoo.py's model written by `build`, batch norms folded, calibrated on a seeded
    standard-normal image and rewritten into QDQ form."""
    graph = float_graph(build)
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    nodes = fold_batch_norms(list(graph.node), inits)
    x = np.random.default_rng(zlib.crc32(b"calibration")).standard_normal((1, 3, 224, 224))
    ranges = calibrate(nodes, inits, {"x": x.astype(np.float32)})
    inputs, outputs = [v.name for v in graph.input], [v.name for v in graph.output]
    plan = plan_qdq(nodes, inits, outputs)
    nodes, new_inits = emit_qdq(plan, inits, ranges, inputs, outputs)
    used = {i for n in nodes for i in n.input}
    initializers = [numpy_helper.from_array(np.asarray(v), k) for k, v in new_inits.items()
                    if k in used]
    return helper.make_graph(nodes, name, list(graph.input), list(graph.output), initializers)


# ---- quantize_static, QOperator format ----

def qdq_to_qoperator(graph, name):
    """The QDQ graph as quantize_static(quant_format=QOperator) writes the same model: each
    DequantizeLinear -> op -> QuantizeLinear group becomes the op's QLinear form on the 8-bit
    tensors (Conv: ONNX's QLinearConv; Add, GlobalAveragePool, Gemm: ONNX Runtime's com.microsoft
    QLinearAdd, QLinearGlobalAveragePool, QGemm), MaxPool runs on the 8-bit tensor, and ops
    without a QLinear form (Flatten) stay float between DequantizeLinear and QuantizeLinear."""
    producer = {o: n for n in graph.node for o in n.output}
    consumers = collections.defaultdict(list)
    for n in graph.node:
        for i in n.input:
            consumers[i].append(n)
    inits = {t.name for t in graph.initializer}

    def dq_inputs(node):  # (x, scale, zero point) of each input, all DequantizeLinear outputs
        out = []
        for i in node.input:
            d = producer.get(i)
            if d is None or d.op_type != "DequantizeLinear":
                return None
            out.append(list(d.input) + [""] * (3 - len(d.input)))
        return out

    def q_output(node):  # the QuantizeLinear that is the op's only consumer
        users = consumers[node.output[0]]
        if len(users) == 1 and users[0].op_type == "QuantizeLinear":
            return users[0]
        return None

    nodes, replaced = [], set()
    for node in graph.node:
        if node.op_type in ("QuantizeLinear", "DequantizeLinear"):
            continue
        ins, q = dq_inputs(node), q_output(node)
        op = node.op_type
        if ins is not None and q is not None and op in ("Conv", "Add", "GlobalAveragePool",
                                                        "MaxPool", "Gemm"):
            y = [q.output[0]]
            if op == "Conv":
                flat = ins[0] + ins[1] + list(q.input[1:]) + ([ins[2][0]] if len(ins) > 2 else [])
                nodes.append(helper.make_node("QLinearConv", flat, y, (node.name or y[0]) + "_quant",
                                              **attrs(node)))
            elif op == "Add":
                nodes.append(helper.make_node("QLinearAdd", ins[0] + ins[1] + list(q.input[1:]),
                                              y, (node.name or y[0]) + "_quant", domain="com.microsoft"))
            elif op == "GlobalAveragePool":
                nodes.append(helper.make_node("QLinearGlobalAveragePool",
                                              ins[0] + list(q.input[1:]), y, (node.name or y[0]) + "_quant",
                                              domain="com.microsoft", channels_last=0))
            elif op == "MaxPool":
                nodes.append(helper.make_node("MaxPool", [ins[0][0]], y, node.name,
                                              **attrs(node)))
            else:  # Gemm: C is the int32 bias; beta is 1 (QGemm has none)
                a = dict(attrs(node))
                a.pop("beta", None)
                flat = ins[0] + ins[1] + ([ins[2][0]] if len(ins) > 2 else [""]) + list(q.input[1:])
                nodes.append(helper.make_node("QGemm", flat, y, (node.name or y[0]) + "_quant",
                                              domain="com.microsoft", **a))
            replaced.add(q.name)
            continue
        nodes.append(node)
    # The QuantizeLinear / DequantizeLinear nodes still needed: activations' around float ops and
    # graph edges, not weights' (whose DequantizeLinear the QLinear ops replaced).
    needed = {i for n in nodes for i in n.input} | {o.name for o in graph.output}
    kept_qdq = []
    changed = True
    pool = [n for n in graph.node if n.op_type in ("QuantizeLinear", "DequantizeLinear")
            and n.name not in replaced]
    while changed:  # a QuantizeLinear is needed when a kept DequantizeLinear reads it
        changed = False
        for n in pool:
            if n not in kept_qdq and n.output[0] in needed:
                kept_qdq.append(n)
                needed |= set(n.input)
                changed = True
    order = {id(n): k for k, n in enumerate(graph.node)}
    all_nodes = sorted(nodes + kept_qdq, key=lambda n: order.get(id(n), 0))
    # Ops made above have no place in graph.node: topological order by dependencies.
    ready = set(t.name for t in graph.input) | inits | {""}
    ordered, pending = [], list(all_nodes)
    while pending:
        rest = []
        for n in pending:
            if all(i in ready for i in n.input):
                ordered.append(n)
                ready |= set(n.output)
            else:
                rest.append(n)
        assert len(rest) < len(pending), "cycle"
        pending = rest
    used = {i for n in ordered for i in n.input}
    initializers = [t for t in graph.initializer if t.name in used]
    return helper.make_graph(ordered, name, list(graph.input), list(graph.output), initializers)


def save_qoperator(graph, path):
    """save() with ONNX Runtime's com.microsoft opset imported. onnx.checker checks every node
    of the domains it knows (ai.onnx); ONNX has no schemas for com.microsoft's."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", generate_zoo.OPSET),
                                                    helper.make_opsetid("com.microsoft", 1)],
                              producer_name="anvil-testdata")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=False)
    onnx.save(model, path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


# ---- A BERT encoder and quantize_dynamic ----

def bert_float(layers=4, seq=128, hidden=256, heads=4, ffn=1024):
    """BERT's encoder layers as PyTorch exports them (post-LayerNormalization), from the
    hidden states after the embeddings; weights with variance 1 / fan_in so activations stay
    O(1) through the layers."""
    net = Net("bert")
    head_shape = net.tensor_i64([0, 0, heads, hidden // heads])
    model_shape = net.tensor_i64([0, 0, hidden])

    def dense(x, cin, cout, gain=1.0):  # nn.Linear on [N, S, C]: MatMul then the bias Add
        i = net.fresh("dense")
        w = net.tensor(f"{i}_w", net.rng.standard_normal((cin, cout)) * np.sqrt(gain / cin))
        return net.add(net.node("MatMul", [x, w]), net.bias(f"{i}_b", cout))

    def layer_norm(x, y=None):
        i = net.fresh("ln")
        gamma = net.tensor(f"{i}_g", 1 + 0.1 * net.rng.standard_normal(hidden))
        beta = net.tensor(f"{i}_b", 0.05 * net.rng.standard_normal(hidden))
        y = y or i
        net.nodes.append(helper.make_node("LayerNormalization", [x, gamma, beta], [y], axis=-1,
                                          epsilon=1e-12))
        return y

    def heads_of(x, perm):
        return net.node("Transpose", [net.node("Reshape", [x, head_shape])], perm=perm)

    x = "x"
    for layer in range(layers):
        q = heads_of(dense(x, hidden, hidden), [0, 2, 1, 3])
        k = heads_of(dense(x, hidden, hidden), [0, 2, 3, 1])
        v = heads_of(dense(x, hidden, hidden), [0, 2, 1, 3])
        scores = net.node("Div", [net.node("MatMul", [q, k]),
                                  net.scalar(float(np.sqrt(hidden // heads)))])
        ctx = net.node("MatMul", [net.node("Softmax", [scores], axis=-1), v])
        ctx = net.node("Reshape", [net.node("Transpose", [ctx], perm=[0, 2, 1, 3]), model_shape])
        h = layer_norm(net.add(dense(ctx, hidden, hidden), x))
        u = dense(h, hidden, ffn, gain=2.0)
        erf = net.node("Erf", [net.node("Div", [u, net.scalar(float(np.sqrt(2.0)))])])
        gelu = net.node("Mul", [net.node("Mul", [u, net.add(erf, net.scalar(1.0))]),
                                net.scalar(0.5)])
        x = layer_norm(net.add(dense(gelu, ffn, hidden), h), "y" if layer == layers - 1 else None)
    shape = ["N", seq, hidden]
    return net.graph("bert", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                     [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)])


def quantize_dynamic(graph, name):
    """ORT's quantize_dynamic(weight_type=QInt8) of `graph`: MatMulInteger for MatMuls by an
    initializer (MatMulConstBOnly, its default), as operators/matmul.py's MatMulInteger writes
    it; the rest unchanged."""
    inits = {t.name: t for t in graph.initializer}
    nodes, new_inits, quantized = [], [], set()
    for node in graph.node:
        if node.op_type != "MatMul" or node.input[1] not in inits:
            nodes.append(node)
            continue
        x, w = node.input
        if x not in quantized:  # one DynamicQuantizeLinear per activation, however many read it
            quantized.add(x)
            nodes.append(helper.make_node(
                "DynamicQuantizeLinear", [x], [x + "_quantized", x + "_scale", x + "_zero_point"],
                x + "_QuantizeLinear"))
        q, scale = weight_qparams(numpy_helper.to_array(inits.pop(w)))
        new_inits += [numpy_helper.from_array(q, w + "_quantized"),
                      numpy_helper.from_array(np.asarray(scale, np.float32), w + "_scale"),
                      numpy_helper.from_array(np.array(0, np.int8), w + "_zero_point")]
        y = node.output[0]
        integer = y + "_output_quantized"
        scales = f"{x}_scale_{w}_scale_mul"
        nodes += [
            helper.make_node("MatMulInteger", [x + "_quantized", w + "_quantized",
                                               x + "_zero_point", w + "_zero_point"], [integer]),
            helper.make_node("Cast", [integer], [integer + "_cast_output"], integer + "_cast",
                             to=TensorProto.FLOAT),
            helper.make_node("Mul", [x + "_scale", w + "_scale"], [scales + ":0"], scales),
            helper.make_node("Mul", [integer + "_cast_output", scales + ":0"], [y]),
        ]
    return helper.make_graph(nodes, name, list(graph.input), list(graph.output),
                             list(inits.values()) + new_inits)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "zoo")
    os.makedirs(out, exist_ok=True)
    save(quantize_static_qdq(generate_zoo.resnet18, "resnet18_qdq"),
         os.path.join(out, "resnet18_qdq.onnx"))
    save(quantize_static_qdq(generate_zoo.mobilenetv2, "mobilenetv2_qdq"),
         os.path.join(out, "mobilenetv2_qdq.onnx"))
    save_qoperator(qdq_to_qoperator(quantize_static_qdq(generate_zoo.resnet18, "resnet18_qop"),
                                    "resnet18_qop"), os.path.join(out, "resnet18_qop.onnx"))
    save_qoperator(qdq_to_qoperator(quantize_static_qdq(generate_zoo.mobilenetv2,
                                                        "mobilenetv2_qop"), "mobilenetv2_qop"),
                   os.path.join(out, "mobilenetv2_qop.onnx"))
    save(quantize_dynamic(bert_float(), "bert_dynq"), os.path.join(out, "bert_dynq.onnx"))


if __name__ == "__main__":
    main()
