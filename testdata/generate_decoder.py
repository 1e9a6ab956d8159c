#!/usr/bin/python3
"""Writes decoder LLMs as ONNX Runtime's model builder (onnxruntime-genai) writes them for CPU int4.

    /usr/bin/python3 testdata/generate_decoder.py OUT_DIR [NAME ...]

NAME (default: all):
  decoder_2layer  Qwen2-0.5B's layer shapes (hidden 896, 14 query heads and 2 key/value heads of
                  64, MLP 4864) with 2 layers and a vocabulary of 4096: the tests' model
                  (37 MB, inline weights)
  qwen2_0_5b      the layout of Qwen2-0.5B: 24 layers, vocabulary 151936, 32768 positions
                  (~0.8 GB as external data, model.onnx.data's way): the benchmark's model
  decoder_2layer_fp32, qwen2_0_5b_fp32
                  the same in float32 (-p fp32): plain MatMuls by [K, N] weights, and the
                  lm_head MatMul(h, Transpose(embedding)) of a tied embedding, as torch
                  exports it (qwen2_0_5b_fp32: ~2 GB of external data)

The graph is the builder's (builders/base.py, -p int4 -e cpu), names included:
  input_ids [batch_size, sequence_length] int64, attention_mask [batch_size,
  total_sequence_length] int64, past_key_values.{i}.key / .value [batch_size, 2,
  past_sequence_length, 64] -> logits [batch_size, sequence_length, vocab], present.{i}.key /
  .value [batch_size, 2, total_sequence_length, 64]
  seqlens_k = Cast<int32>(ReduceSum(attention_mask, 1) - 1); total_sequence_length =
  Cast<int32>(Shape(attention_mask)[1]); embedding Gather; layer 0's input norm a
  SimplifiedLayerNormalization, every later norm a com.microsoft SkipSimplifiedLayerNormalization
  whose output 3 carries the residual stream; per layer a packed QKV MatMulNBits + bias Add ->
  GroupQueryAttention (do_rotary = 1, cos_cache / sin_cache [positions, 32] with theta 1e6, scale
  0.125, packed QKV) -> o_proj MatMulNBits; MLP gate and up MatMulNBits, SiLU as Sigmoid and Mul,
  down MatMulNBits; final norm and the lm_head MatMulNBits (the tied embedding quantized as a
  second copy, as the builder does without shared_embeddings).
Weights are ONNX Runtime's MatMulNBitsQuantizer's default: 4 bits, blocks of 32, symmetric
(scale = -v / 8 for the block's value v of largest magnitude, q = clamp(roundf(w / scale + 8), 0,
15), no zero points), accuracy_level 4. Deterministic: seeded normal weights. Opsets "" 21 and
com.microsoft 1, IR 10, as the builder writes them.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

CONFIGS = {
    "decoder_2layer": dict(layers=2, vocab=4096, positions=4096, external=False),
    "qwen2_0_5b": dict(layers=24, vocab=151936, positions=32768, external=True),
    "decoder_2layer_fp32": dict(layers=2, vocab=4096, positions=4096, external=False,
                                float32=True),
    "qwen2_0_5b_fp32": dict(layers=24, vocab=151936, positions=32768, external=True,
                            float32=True),
}
HIDDEN, HEADS, KV_HEADS, HEAD, MLP = 896, 14, 2, 64, 4864
BLOCK = 32
EPS = 1e-6
THETA = 1e6


def round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def quantize_int4(w):
    """w [K, N] float32 -> (B uint8 [N, blocks, BLOCK / 2], scales float32 [N * blocks])."""
    k, n = w.shape
    blocks = (k + BLOCK - 1) // BLOCK
    padded = np.zeros((blocks * BLOCK, n), np.float32)
    padded[:k] = w
    v = padded.T.reshape(n, blocks, BLOCK)
    largest = np.take_along_axis(v, np.abs(v).argmax(axis=2)[..., None], axis=2)[..., 0]
    scale = (-largest / 8.0).astype(np.float32)
    scale[scale == 0] = 1.0
    q = np.clip(round_half_away(v / scale[..., None] + 8.0), 0, 15).astype(np.uint8)
    packed = (q[..., 0::2] | (q[..., 1::2] << 4)).astype(np.uint8)
    return packed, scale.reshape(-1)


class Builder:
    def __init__(self, seed, float32):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits = [], []
        self.float32 = float32

    def weight(self, name, array):
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def normal(self, shape, std):
        return (self.rng.standard_normal(shape, dtype=np.float32) * std).astype(np.float32)

    def node(self, op, inputs, outputs, name, domain="", **attrs):
        self.nodes.append(helper.make_node(op, inputs, outputs, name=name, domain=domain, **attrs))
        return outputs[0]

    def const(self, name, array):
        out = f"/model/constants/{name}"
        if not any(n.output[0] == out for n in self.nodes):
            self.nodes.append(helper.make_node(
                "Constant", [], [out], name=f"/model/constant_nodes/{name}",
                value=numpy_helper.from_array(array, out)))
        return out

    def matmul_nbits(self, name, x, weight_name, w):
        """The builder's MatMul <name> by w [K, N], as MatMulNBitsQuantizer rewrites it (a plain
        MatMul in float32 models)."""
        if self.float32:
            return self.node("MatMul", [x, self.weight(weight_name, w)], [f"{name}/output_0"],
                             name)
        packed, scales = quantize_int4(w)
        k, n = w.shape
        b = self.weight(f"{weight_name}_Q4", packed)
        s = self.weight(f"{weight_name}_scales", scales)
        return self.node("MatMulNBits", [x, b, s], [f"{name}/output_0"], f"{name}_Q4",
                         domain="com.microsoft", K=k, N=n, bits=4, block_size=BLOCK,
                         accuracy_level=4)


def build(layers, vocab, positions, float32=False):
    g = Builder(seed=20261130 + layers, float32=float32)
    kv_dim = ["batch_size", KV_HEADS, "past_sequence_length", HEAD]
    present_dim = ["batch_size", KV_HEADS, "total_sequence_length", HEAD]
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64,
                                      ["batch_size", "sequence_length"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                      ["batch_size", "total_sequence_length"]),
    ]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                             ["batch_size", "sequence_length", vocab])]
    for kind in ("key", "value"):
        for i in range(layers):
            inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kind}",
                                                        TensorProto.FLOAT, kv_dim))
            outputs.append(helper.make_tensor_value_info(f"present.{i}.{kind}",
                                                         TensorProto.FLOAT, present_dim))

    # attention_mask -> seqlens_k, total_sequence_length.
    base = "/model/attn_mask_reformat/attn_mask_subgraph"
    one_list = g.const("INT64/[1]", np.array([1], np.int64))
    one = g.const("INT64/1", np.array(1, np.int64))
    s = g.node("ReduceSum", ["attention_mask", one_list], [f"{base}/ReduceSum/output_0"],
               f"{base}/ReduceSum", keepdims=0)
    s = g.node("Sub", [s, one_list], [f"{base}/Sub/output_0"], f"{base}/Sub")
    seqlens = g.node("Cast", [s], [f"{base}/Sub/Cast/output_0"], f"{base}/Sub/Cast",
                     to=TensorProto.INT32)
    shape = g.node("Shape", ["attention_mask"], [f"{base}/Shape/output_0"], f"{base}/Shape")
    total = g.node("Gather", [shape, one], [f"{base}/Gather/output_0"], f"{base}/Gather", axis=0)
    total = g.node("Cast", [total], [f"{base}/Gather/Cast/output_0"], f"{base}/Gather/Cast",
                   to=TensorProto.INT32)

    # Rotary caches: the builder's [positions, HEAD / 2] of cos and sin of t * inv_freq.
    inv_freq = (1.0 / (THETA ** (np.arange(0, HEAD, 2, dtype=np.float32) / HEAD))).astype(np.float32)
    freqs = np.outer(np.arange(positions, dtype=np.float32), inv_freq).astype(np.float32)
    g.weight("cos_cache", np.cos(freqs).astype(np.float32))
    g.weight("sin_cache", np.sin(freqs).astype(np.float32))

    embedding = g.normal((vocab, HIDDEN), 0.02)
    g.weight("model.embed_tokens.weight", embedding)
    residual = g.node("Gather", ["model.embed_tokens.weight", "input_ids"],
                      ["/model/embed_tokens/Gather/output_0"], "/model/embed_tokens/Gather")
    x = None
    skip = None
    qkv_width = (HEADS + 2 * KV_HEADS) * HEAD

    def norm(prefix, weight_name, last=False):
        nonlocal residual, skip
        g.weight(weight_name, (1.0 + g.normal((HIDDEN,), 0.05)).astype(np.float32))
        if skip is None:
            return g.node("SimplifiedLayerNormalization", [residual, weight_name],
                          [f"{prefix}/output_0"], f"{prefix}/LayerNorm", epsilon=EPS, axis=-1,
                          stash_type=1)
        outs = [f"{prefix}/output_0"] + ([] if last else ["", "", f"{prefix}/output_3"])
        y = g.node("SkipSimplifiedLayerNormalization", [residual, skip, weight_name], outs,
                   f"{prefix}/SkipLayerNorm", domain="com.microsoft", epsilon=EPS)
        if not last:
            residual = outs[3]
        return y

    for i in range(layers):
        p = f"/model/layers.{i}"
        x = norm(f"{p}/input_layernorm", f"model.layers.{i}.input_layernorm.weight")
        qkv = g.matmul_nbits(f"{p}/attn/qkv_proj/MatMul", x,
                             f"model.layers.{i}.attn.qkv_proj.MatMul.weight",
                             g.normal((HIDDEN, qkv_width), 0.02))
        bias = g.weight(f"model.layers.{i}.attn.qkv_proj.Add.bias", g.normal((qkv_width,), 0.02))
        qkv = g.node("Add", [qkv, bias], [f"{p}/attn/qkv_proj/Add/output_0"],
                     f"{p}/attn/qkv_proj/Add")
        attn = g.node("GroupQueryAttention",
                      [qkv, "", "", f"past_key_values.{i}.key", f"past_key_values.{i}.value",
                       seqlens, total, "cos_cache", "sin_cache"],
                      [f"{p}/attn/GroupQueryAttention/output_0", f"present.{i}.key",
                       f"present.{i}.value"],
                      f"{p}/attn/GroupQueryAttention", domain="com.microsoft", num_heads=HEADS,
                      kv_num_heads=KV_HEADS, scale=1.0 / np.sqrt(HEAD), softcap=0.0, do_rotary=1,
                      rotary_interleaved=0)
        skip = g.matmul_nbits(f"{p}/attn/o_proj/MatMul", attn,
                              f"model.layers.{i}.attn.o_proj.MatMul.weight",
                              g.normal((HIDDEN, HIDDEN), 0.02))
        x = norm(f"{p}/post_attention_layernorm",
                 f"model.layers.{i}.post_attention_layernorm.weight")
        gate = g.matmul_nbits(f"{p}/mlp/gate_proj/MatMul", x,
                              f"model.layers.{i}.mlp.gate_proj.MatMul.weight",
                              g.normal((HIDDEN, MLP), 0.02))
        up = g.matmul_nbits(f"{p}/mlp/up_proj/MatMul", x,
                            f"model.layers.{i}.mlp.up_proj.MatMul.weight",
                            g.normal((HIDDEN, MLP), 0.02))
        sig = g.node("Sigmoid", [gate], [f"{p}/mlp/act_fn/Sigmoid/output_0"],
                     f"{p}/mlp/act_fn/Sigmoid")
        act = g.node("Mul", [gate, sig], [f"{p}/mlp/act_fn/Mul/output_0"], f"{p}/mlp/act_fn/Mul")
        prod = g.node("Mul", [act, up], [f"{p}/mlp/Mul/output_0"], f"{p}/mlp/Mul")
        skip = g.matmul_nbits(f"{p}/mlp/down_proj/MatMul", prod,
                              f"model.layers.{i}.mlp.down_proj.MatMul.weight",
                              g.normal((MLP, HIDDEN), 0.02))
    x = norm(f"/model/layers.{layers}/final_norm_layernorm",
             f"model.layers.{layers}.final_norm_layernorm.weight", last=True)
    if float32:
        # lm_head: the tied embedding read through a Transpose, as torch exports a tied Linear.
        t = g.node("Transpose", ["model.embed_tokens.weight"], ["/lm_head/Transpose/output_0"],
                   "/lm_head/Transpose", perm=[1, 0])
        g.node("MatMul", [x, t], ["logits"], "/lm_head/MatMul")
    else:
        add_quantized_lm_head(g, x, embedding, vocab)

    graph = helper.make_graph(g.nodes, "main_graph", inputs, outputs, g.inits)
    # Opset 21 and IR 10, as ONNX Runtime's model builder writes them.
    model = helper.make_model(graph, producer_name="anvil generate_decoder.py",
                              opset_imports=[helper.make_opsetid("", 21),
                                             helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 10
    return model


def add_quantized_lm_head(g, x, embedding, vocab):
    # lm_head: the tied embedding, transposed to the builder's [hidden, vocab] MatMul weight.
    packed, scales = quantize_int4(embedding.T)
    g.weight("lm_head.MatMul.weight_Q4", packed)
    g.weight("lm_head.MatMul.weight_scales", scales)
    g.node("MatMulNBits", [x, "lm_head.MatMul.weight_Q4", "lm_head.MatMul.weight_scales"],
           ["logits"], "/lm_head/MatMul_Q4", domain="com.microsoft", K=HIDDEN, N=vocab, bits=4,
           block_size=BLOCK, accuracy_level=4)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out_dir = sys.argv[1]
    names = sys.argv[2:] or list(CONFIGS)
    os.makedirs(out_dir, exist_ok=True)
    for name in names:
        if name not in CONFIGS:
            sys.exit(f"unknown model {name}; one of {', '.join(CONFIGS)}")
        config = dict(CONFIGS[name])
        external = config.pop("external")
        model = build(**config)
        path = os.path.join(out_dir, f"{name}.onnx")
        if external:
            data = f"{name}.onnx.data"
            if os.path.exists(os.path.join(out_dir, data)):
                os.remove(os.path.join(out_dir, data))
            onnx.save_model(model, path, save_as_external_data=True,
                            all_tensors_to_one_file=True, location=data, size_threshold=0)
        else:
            onnx.save_model(model, path)
        print(path)


if __name__ == "__main__":
    main()
