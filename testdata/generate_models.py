#!/usr/bin/python3
"""Writes the small benchmark and test models in testdata/models/.

    /usr/bin/python3 testdata/generate_models.py [OUT_DIR]

Each model has a symbolic batch dim `N` (the transformer also a symbolic sequence dim `S`), so
the runtime's shape re-inference and memory re-planning get exercised, and deterministic weights
(numpy's generator with a fixed seed), so regenerating gives identical files:

  mlp.onnx          x[N,256] -> 3 x (Gemm + Relu) -> Gemm -> Softmax              (opset 17)
  cnn.onnx          x[N,3,32,32] -> 3 x (Conv + BatchNormalization + Relu + MaxPool)
                    -> GlobalAveragePool -> Flatten -> Gemm                        (opset 17)
  transformer.onnx  x[N,S,64] -> LayerNormalization -> 4-head self-attention
                    (MatMul, Reshape, Transpose, Softmax) -> residual Add -> LayerNormalization
                    -> MLP (MatMul, Relu, MatMul) -> residual Add                  (opset 17)
  lngelu.onnx       x[N,S,768] -> LayerNorm written as primitives (ReduceMean, Sub, Mul,
                    ReduceMean, Add, Sqrt, Div, Mul, Add) -> GELU (erf form: Div, Erf, Add,
                    Mul, Mul) -> residual Add: a memory-bound chain fusion is for     (opset 17)
  mobilenet.onnx    x[N,3,64,64] -> a MobileNetV3-style network as exporters write it: stem
                    Conv + BatchNormalization + HardSwish spelled x * Clip(x + 3, 0, 6) / 6,
                    depthwise-separable blocks (1x1 expand, depthwise 3x3 with stride 1 or 2,
                    squeeze-excitation: GlobalAveragePool, 1x1 Conv, Relu, 1x1 Conv,
                    HardSigmoid, Mul; 1x1 project, residual Add), Resize x2 (nearest and
                    linear), a ConvTranspose head                                    (opset 17)
  matmul_M_N_K.onnx x[M,K] x constant W[K,N]: the GEMM sweep of tools/bench_vs_ort.sh
                    (GEMM_SHAPES below)                                              (opset 17)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
RNG = np.random.default_rng(20240521)


def weight(name, shape, scale=None):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else int(shape[0])
    scale = scale if scale is not None else 1.0 / np.sqrt(max(fan_in, 1))
    return numpy_helper.from_array(
        (RNG.standard_normal(shape) * scale).astype(np.float32), name)


def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


def save(graph, path):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="anvil-testdata")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def mlp(path):
    sizes = [256, 512, 512, 256, 10]
    nodes, inits = [], []
    cur = "x"
    for i in range(len(sizes) - 1):
        inits += [weight(f"w{i}", [sizes[i + 1], sizes[i]]), weight(f"b{i}", [sizes[i + 1]], 0.1)]
        out = f"h{i}" if i < len(sizes) - 2 else "logits"
        gemm_out = out if i == len(sizes) - 2 else f"g{i}"
        nodes.append(helper.make_node("Gemm", [cur, f"w{i}", f"b{i}"], [gemm_out], transB=1))
        if i < len(sizes) - 2:
            nodes.append(helper.make_node("Relu", [gemm_out], [out]))
        cur = out
    nodes.append(helper.make_node("Softmax", ["logits"], ["y"], axis=-1))
    graph = helper.make_graph(
        nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 256])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])], inits)
    save(graph, path)


def cnn(path):
    nodes, inits = [], []
    cur, channels = "x", 3
    for i, out_channels in enumerate([16, 32, 64]):
        inits += [
            weight(f"conv{i}_w", [out_channels, channels, 3, 3]),
            weight(f"conv{i}_b", [out_channels], 0.1),
            numpy_helper.from_array(
                (1 + 0.1 * RNG.standard_normal(out_channels)).astype(np.float32), f"bn{i}_scale"),
            weight(f"bn{i}_bias", [out_channels], 0.1),
            weight(f"bn{i}_mean", [out_channels], 0.1),
            numpy_helper.from_array(
                (1 + 0.1 * np.abs(RNG.standard_normal(out_channels))).astype(np.float32),
                f"bn{i}_var"),
        ]
        nodes += [
            helper.make_node("Conv", [cur, f"conv{i}_w", f"conv{i}_b"], [f"c{i}"],
                             kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization",
                             [f"c{i}", f"bn{i}_scale", f"bn{i}_bias", f"bn{i}_mean",
                              f"bn{i}_var"], [f"n{i}"], epsilon=1e-5),
            helper.make_node("Relu", [f"n{i}"], [f"r{i}"]),
        ]
        if i < 2:
            nodes.append(helper.make_node("MaxPool", [f"r{i}"], [f"p{i}"], kernel_shape=[2, 2],
                                          strides=[2, 2]))
            cur = f"p{i}"
        else:
            cur = f"r{i}"
        channels = out_channels
    inits += [weight("fc_w", [10, channels]), weight("fc_b", [10], 0.1)]
    nodes += [
        helper.make_node("GlobalAveragePool", [cur], ["gap"]),
        helper.make_node("Flatten", ["gap"], ["flat"], axis=1),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["y"], transB=1),
    ]
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 32, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])], inits)
    save(graph, path)


def transformer(path):
    d, heads, hidden = 64, 4, 256
    head_dim = d // heads
    inits = [
        numpy_helper.from_array(np.ones(d, np.float32), "ln1_g"),
        numpy_helper.from_array(np.zeros(d, np.float32), "ln1_b"),
        numpy_helper.from_array(np.ones(d, np.float32), "ln2_g"),
        numpy_helper.from_array(np.zeros(d, np.float32), "ln2_b"),
        weight("wq", [d, d]), weight("wk", [d, d]), weight("wv", [d, d]), weight("wo", [d, d]),
        weight("w1", [d, hidden]), weight("b1", [hidden], 0.1),
        weight("w2", [hidden, d]), weight("b2", [d], 0.1),
        const("heads_shape", [0, 0, heads, head_dim]),
        const("model_shape", [0, 0, d]),
        numpy_helper.from_array(np.array(1.0 / np.sqrt(head_dim), np.float32), "scale"),
    ]
    n = helper.make_node
    nodes = [
        n("LayerNormalization", ["x", "ln1_g", "ln1_b"], ["ln1"], axis=-1, epsilon=1e-5),
        n("MatMul", ["ln1", "wq"], ["q"]),
        n("MatMul", ["ln1", "wk"], ["k"]),
        n("MatMul", ["ln1", "wv"], ["v"]),
        n("Reshape", ["q", "heads_shape"], ["q4"]),
        n("Reshape", ["k", "heads_shape"], ["k4"]),
        n("Reshape", ["v", "heads_shape"], ["v4"]),
        n("Transpose", ["q4"], ["qh"], perm=[0, 2, 1, 3]),
        n("Transpose", ["k4"], ["kt"], perm=[0, 2, 3, 1]),
        n("Transpose", ["v4"], ["vh"], perm=[0, 2, 1, 3]),
        n("MatMul", ["qh", "kt"], ["scores"]),
        n("Mul", ["scores", "scale"], ["scaled"]),
        n("Softmax", ["scaled"], ["attn"], axis=-1),
        n("MatMul", ["attn", "vh"], ["ctx"]),
        n("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3]),
        n("Reshape", ["ctx_t", "model_shape"], ["ctx_m"]),
        n("MatMul", ["ctx_m", "wo"], ["proj"]),
        n("Add", ["proj", "x"], ["res1"]),
        n("LayerNormalization", ["res1", "ln2_g", "ln2_b"], ["ln2"], axis=-1, epsilon=1e-5),
        n("MatMul", ["ln2", "w1"], ["up"]),
        n("Add", ["up", "b1"], ["up_b"]),
        n("Relu", ["up_b"], ["act"]),
        n("MatMul", ["act", "w2"], ["down"]),
        n("Add", ["down", "b2"], ["down_b"]),
        n("Add", ["down_b", "res1"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "transformer",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "S", d])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", "S", d])], inits)
    save(graph, path)


def lngelu(path):
    hidden = 768
    inits = [weight("gamma", [hidden], 0.1), weight("beta", [hidden], 0.1),
             numpy_helper.from_array(np.array(1e-5, dtype=np.float32), "eps"),
             numpy_helper.from_array(np.array(np.sqrt(2.0), dtype=np.float32), "sqrt2"),
             numpy_helper.from_array(np.array(1.0, dtype=np.float32), "one"),
             numpy_helper.from_array(np.array(0.5, dtype=np.float32), "half")]
    n = helper.make_node
    nodes = [
        n("ReduceMean", ["x"], ["mean"], axes=[-1]),
        n("Sub", ["x", "mean"], ["d"]),
        n("Mul", ["d", "d"], ["sq"]),
        n("ReduceMean", ["sq"], ["var"], axes=[-1]),
        n("Add", ["var", "eps"], ["ve"]),
        n("Sqrt", ["ve"], ["sd"]),
        n("Div", ["d", "sd"], ["nrm"]),
        n("Mul", ["nrm", "gamma"], ["scaled"]),
        n("Add", ["scaled", "beta"], ["ln"]),
        n("Div", ["ln", "sqrt2"], ["u"]),
        n("Erf", ["u"], ["e"]),
        n("Add", ["e", "one"], ["e1"]),
        n("Mul", ["ln", "e1"], ["g2"]),
        n("Mul", ["g2", "half"], ["gelu"]),
        n("Add", ["gelu", "x"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "lngelu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "S", hidden])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", "S", hidden])], inits)
    save(graph, path)


def mobilenet(path):
    nodes, inits = [], []
    n = helper.make_node
    counter = [0]

    def fresh(prefix):
        counter[0] += 1
        return f"{prefix}{counter[0]}"

    def conv_bn(x, cin, cout, k, stride=1, group=1):
        i = fresh("c")
        w = weight(f"{i}_w", [cout, cin // group, k, k])
        inits.extend([w,
                      numpy_helper.from_array(
                          (1 + 0.1 * RNG.standard_normal(cout)).astype(np.float32), f"{i}_s"),
                      weight(f"{i}_b", [cout], 0.1), weight(f"{i}_m", [cout], 0.1),
                      numpy_helper.from_array(
                          (1 + 0.1 * np.abs(RNG.standard_normal(cout))).astype(np.float32),
                          f"{i}_v")])
        pad = k // 2
        nodes.append(n("Conv", [x, f"{i}_w"], [f"{i}_y"], kernel_shape=[k, k],
                       strides=[stride, stride], pads=[pad] * 4, group=group))
        nodes.append(n("BatchNormalization", [f"{i}_y", f"{i}_s", f"{i}_b", f"{i}_m", f"{i}_v"],
                       [f"{i}_n"], epsilon=1e-5))
        return f"{i}_n"

    def hardswish(x):  # x * Clip(x + 3, 0, 6) / 6, as PyTorch exports it at opset < 14
        i = fresh("hs")
        nodes.extend([n("Add", [x, "three"], [f"{i}_a"]),
                      n("Clip", [f"{i}_a", "zero", "six"], [f"{i}_c"]),
                      n("Mul", [x, f"{i}_c"], [f"{i}_m"]),
                      n("Div", [f"{i}_m", "six"], [f"{i}_y"])])
        return f"{i}_y"

    def relu(x):
        y = fresh("r")
        nodes.append(n("Relu", [x], [y]))
        return y

    def squeeze_excite(x, c):
        i = fresh("se")
        mid = max(8, c // 4)
        inits.extend([weight(f"{i}_w1", [mid, c, 1, 1]), weight(f"{i}_b1", [mid], 0.1),
                      weight(f"{i}_w2", [c, mid, 1, 1]), weight(f"{i}_b2", [c], 0.1)])
        nodes.extend([n("GlobalAveragePool", [x], [f"{i}_p"]),
                      n("Conv", [f"{i}_p", f"{i}_w1", f"{i}_b1"], [f"{i}_c1"]),
                      n("Relu", [f"{i}_c1"], [f"{i}_r"]),
                      n("Conv", [f"{i}_r", f"{i}_w2", f"{i}_b2"], [f"{i}_c2"]),
                      n("HardSigmoid", [f"{i}_c2"], [f"{i}_h"], alpha=1.0 / 6, beta=0.5),
                      n("Mul", [x, f"{i}_h"], [f"{i}_y"])])
        return f"{i}_y"

    def block(x, cin, expand, cout, stride, se, act):
        h = act(conv_bn(x, cin, expand, 1))
        h = act(conv_bn(h, expand, expand, 3, stride, group=expand))
        if se:
            h = squeeze_excite(h, expand)
        h = conv_bn(h, expand, cout, 1)
        if stride == 1 and cin == cout:
            y = fresh("res")
            nodes.append(n("Add", [h, x], [y]))
            return y
        return h

    inits += [numpy_helper.from_array(np.array(v, np.float32), name)
              for name, v in [("three", 3.0), ("zero", 0.0), ("six", 6.0)]]
    x = hardswish(conv_bn("x", 3, 16, 3, 2))                          # 32x32
    x = block(x, 16, 16, 16, 1, False, relu)
    x = block(x, 16, 64, 24, 2, False, relu)                          # 16x16
    x = block(x, 24, 72, 24, 1, True, relu)
    x = block(x, 24, 96, 40, 2, True, hardswish)                      # 8x8
    x = block(x, 40, 120, 40, 1, True, hardswish)
    # Decoder-style head: upsample twice (nearest, then linear), then a ConvTranspose.
    inits += [const("up_scales", [1.0, 1.0, 2.0, 2.0], np.float32)]
    nodes.append(n("Resize", [x, "", "up_scales"], ["up1"], mode="nearest"))   # 16x16
    nodes.append(n("Resize", ["up1", "", "up_scales"], ["up2"], mode="linear",
                   coordinate_transformation_mode="half_pixel"))                # 32x32
    inits += [weight("head_w", [40, 8, 2, 2]), weight("head_b", [8], 0.1)]
    nodes.append(n("ConvTranspose", ["up2", "head_w", "head_b"], ["y"], strides=[2, 2]))  # 64x64
    graph = helper.make_graph(
        nodes, "mobilenet", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 64, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 8, 64, 64])], inits)
    save(graph, path)


# The GEMM sweep: (M, N, K) of constant-weight MatMul models, x[M, K] x W[K, N].
GEMM_SHAPES = [(m, nk, nk) for m in (1, 8, 64, 197, 512, 1024) for nk in (256, 768, 1024)] + \
    [(m, 3136, 256) for m in (1, 64, 197)] + [(m, 256, 3136) for m in (1, 64, 197)]


def matmul(path, m, n_, k):
    inits = [weight("w", [k, n_])]
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])], f"matmul_{m}_{n_}_{k}",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n_])], inits)
    save(graph, path)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "models")
    os.makedirs(out, exist_ok=True)
    mlp(os.path.join(out, "mlp.onnx"))
    cnn(os.path.join(out, "cnn.onnx"))
    transformer(os.path.join(out, "transformer.onnx"))
    lngelu(os.path.join(out, "lngelu.onnx"))
    mobilenet(os.path.join(out, "mobilenet.onnx"))
    for m, n_, k in GEMM_SHAPES:
        matmul(os.path.join(out, f"matmul_{m}_{n_}_{k}.onnx"), m, n_, k)


if __name__ == "__main__":
    main()
