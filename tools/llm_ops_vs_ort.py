#!/usr/bin/python3
"""ONNX Runtime's decoder LLM ops in Anvil and in ONNX Runtime 1.30, on random shapes.

    tools/llm_ops_vs_ort.py [--cases N] [--seed S] [--keep DIR]

Draws N cases (default 60) of single-op models: MatMulNBits (M 1 to 64, K and N up to 4864,
block sizes 16 to 256, zero points absent or packed, accuracy_level 0 and 4, bias),
GroupQueryAttention (prompts and decode steps over past lengths 0 to 2048, packed or separate
key and value, rotary half-split or interleaved, batch up to 2), RotaryEmbedding (3-D and 4-D,
offset or ids), SimplifiedLayerNormalization, SkipSimplifiedLayerNormalization and
SkipLayerNormalization; runs each with the same inputs in ONNX Runtime (../shared/bench/ort_run.js)
and in anvil-run, and compares every output within the tolerances ONNX Runtime's own tests use:
MatMulNBits abs 1e-5 + rel 1e-4 with float activations (scaled by sqrt(K / 64): the float sums of
long rows round differently), abs 0.1 + rel 0.02 with int8 ones; GroupQueryAttention 1e-3; the rest
1e-5 + 1e-4. Prints one line per case and "N of M cases within tolerance"; exits 1 otherwise.

Needs node (ort_run.js installs onnxruntime-node on first use), Debian's python3-onnx and
python3-numpy, and an opt anvil-run (bazel build -c opt //tools:anvil-run; $ANVIL_RUN overrides).
"""
import argparse
import os
import random
import shutil
import sys
import tempfile

import numpy as np
from onnx import TensorProto, helper

from ort_cases import compare, run, vi, write_case

F32 = TensorProto.FLOAT


def model(node, inputs, outputs):
    graph = helper.make_graph([node], "case", inputs, outputs)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    return m


def out(name, elem=F32):
    return helper.make_tensor_value_info(name, elem, None)


def matmul_nbits(rng):
    block = rng.choice([16, 32, 64, 128, 256])
    k = rng.choice([block * rng.randint(1, 8), 896, 4864, block * 3 + 2 * rng.randint(0, 7)])
    n = rng.choice([7, 64, 896, 1152, rng.randint(1, 300)])
    m = rng.choice([1, 1, 2, 7, 64])
    level = rng.choice([0, 4])
    zeros = rng.choice([False, True])
    bias = rng.choice([False, True])
    blocks = (k + block - 1) // block
    r = np.random.default_rng(rng.randint(0, 1 << 30))
    a = r.uniform(-1, 1, (m, k)).astype(np.float32)
    b = r.integers(0, 256, (n, blocks, block // 2), dtype=np.uint8)
    s = r.uniform(0.01, 0.1, n * blocks).astype(np.float32)
    arrays = [("A", a), ("B", b), ("scales", s)]
    names = ["A", "B", "scales"]
    if zeros or bias:
        if zeros:
            arrays.append(("zp", r.integers(0, 256, n * ((blocks + 1) // 2), dtype=np.uint8)))
            names.append("zp")
        else:
            names.append("")
    if bias:
        names += ["", "bias"]
        arrays.append(("bias", r.uniform(-1, 1, n).astype(np.float32)))
    node = helper.make_node("MatMulNBits", names, ["Y"], domain="com.microsoft", K=k, N=n,
                            bits=4, block_size=block, accuracy_level=level)
    int8 = level == 4
    atol, rtol = (0.1, 0.02) if int8 else (1e-5 * max(1.0, (k / 64) ** 0.5), 1e-4)
    what = f"MatMulNBits M={m} K={k} N={n} block={block} zp={int(zeros)} bias={int(bias)} level={level}"
    return what, node, arrays, [out("Y")], atol, rtol


def rotary_caches(r, rows, half):
    angles = np.outer(np.arange(rows), 1.0 / 10000 ** (np.arange(half) / half))
    return np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)


def gqa(rng):
    heads, kv = rng.choice([(14, 2), (8, 2), (4, 4), (16, 8)])
    head = rng.choice([32, 64])
    batch = rng.choice([1, 1, 2])
    prompt = rng.random() < 0.4
    past = 0 if prompt else rng.choice([0, 1, 17, 255, rng.randint(0, 2047), 2047])
    seq = rng.randint(2, 40) if prompt else 1
    total = past + seq
    packed = rng.choice([False, True])
    rotary = rng.choice([False, True])
    interleaved = rng.choice([False, True])
    half = rng.choice([head // 2, head // 4]) if rotary else 0
    r = np.random.default_rng(rng.randint(0, 1 << 30))
    width = heads + 2 * kv if packed else heads
    arrays = [("query", r.uniform(-1, 1, (batch, seq, width * head)).astype(np.float32))]
    names = ["query"]
    if packed:
        names += ["", ""]
    else:
        for name in ("key", "value"):
            arrays.append((name, r.uniform(-1, 1, (batch, seq, kv * head)).astype(np.float32)))
            names.append(name)
    for name in ("past_key", "past_value"):
        arrays.append((name, r.uniform(-1, 1, (batch, kv, past, head)).astype(np.float32)))
        names.append(name)
    arrays.append(("seqlens_k", np.full(batch, total - 1, np.int32)))
    arrays.append(("total_sequence_length", np.array([total], np.int32)))
    names += ["seqlens_k", "total_sequence_length"]
    attrs = dict(num_heads=heads, kv_num_heads=kv)
    if rotary:
        cos, sin = rotary_caches(r, total + 8, half)
        arrays += [("cos_cache", cos), ("sin_cache", sin)]
        names += ["cos_cache", "sin_cache"]
        attrs.update(do_rotary=1, rotary_interleaved=int(interleaved))
    node = helper.make_node("GroupQueryAttention", names, ["output", "present_key", "present_value"],
                            domain="com.microsoft", **attrs)
    what = (f"GroupQueryAttention B={batch} S={seq} past={past} heads={heads}/{kv} H={head} "
            f"packed={int(packed)} rotary={int(rotary)}{'i' if interleaved and rotary else ''}")
    return what, node, arrays, [out("output"), out("present_key"), out("present_value")], 1e-3, 1e-3


def rotary_embedding(rng):
    batch, seq, heads, head = rng.randint(1, 3), rng.randint(1, 20), rng.choice([2, 14]), 64
    bnsh = rng.choice([False, True])
    interleaved = rng.choice([False, True])
    r = np.random.default_rng(rng.randint(0, 1 << 30))
    shape = (batch, heads, seq, head) if bnsh else (batch, seq, heads * head)
    x = r.uniform(-1, 1, shape).astype(np.float32)
    offset = rng.choice([False, True])
    pos = (np.array([rng.randint(0, 30)], np.int64) if offset
           else r.integers(0, 60, (batch, seq)).astype(np.int64))
    cos, sin = rotary_caches(r, 64, head // 2)
    attrs = dict(interleaved=int(interleaved))
    if not bnsh:
        attrs["num_heads"] = heads
    node = helper.make_node("RotaryEmbedding", ["x", "pos", "cos", "sin"], ["y"],
                            domain="com.microsoft", **attrs)
    arrays = [("x", x), ("pos", pos), ("cos", cos), ("sin", sin)]
    what = f"RotaryEmbedding {list(shape)} {'offset' if offset else 'ids'} interleaved={int(interleaved)}"
    return what, node, arrays, [out("y")], 1e-5, 1e-4


def norms(rng):
    kind = rng.choice(["SimplifiedLayerNormalization", "SkipSimplifiedLayerNormalization",
                       "SkipLayerNormalization"])
    batch, seq, hidden = rng.randint(1, 3), rng.randint(1, 30), rng.choice([64, 896, 1000])
    r = np.random.default_rng(rng.randint(0, 1 << 30))
    x = r.uniform(-2, 2, (batch, seq, hidden)).astype(np.float32)
    gamma = r.uniform(0.5, 1.5, hidden).astype(np.float32)
    if kind == "SimplifiedLayerNormalization":
        node = helper.make_node(kind, ["x", "g"], ["y"], epsilon=1e-6, axis=-1, stash_type=1)
        return (f"{kind} [{batch}, {seq}, {hidden}]", node, [("x", x), ("g", gamma)], [out("y")],
                1e-5, 1e-4)
    skip = r.uniform(-2, 2, (seq, hidden) if rng.random() < 0.3 else (batch, seq, hidden))
    arrays = [("x", x), ("skip", skip.astype(np.float32)), ("g", gamma)]
    names = ["x", "skip", "g"]
    if kind == "SkipLayerNormalization":
        arrays.append(("beta", r.uniform(-1, 1, hidden).astype(np.float32)))
        names.append("beta")
    bias = rng.choice([False, True]) and kind == "SkipLayerNormalization"
    if bias:
        arrays.append(("bias", r.uniform(-1, 1, hidden).astype(np.float32)))
        names.append("bias")
    node = helper.make_node(kind, names, ["y", "", "", "sum"], domain="com.microsoft",
                            epsilon=1e-6)
    return (f"{kind} [{batch}, {seq}, {hidden}] skip {list(skip.shape)} bias={int(bias)}", node,
            arrays, [out("y"), out("sum")], 1e-5, 1e-4)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cases", type=int, default=60)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--keep")
    args = p.parse_args()
    rng = random.Random(args.seed)
    work = args.keep or tempfile.mkdtemp(prefix="llm_ops_")
    makers = [matmul_nbits, matmul_nbits, gqa, gqa, rotary_embedding, norms]
    passed = 0
    for i in range(args.cases):
        what, node, arrays, outputs, atol, rtol = rng.choice(makers)(rng)
        case = os.path.join(work, f"case_{i}")
        inputs = [vi(name, a) for name, a in arrays]
        write_case(case, model(node, inputs, outputs), arrays)
        detail = run("ort", case) or run("anvil", case)
        ok = detail is None
        if ok:
            mismatch, worst = compare(case, len(outputs), atol, rtol)
            ok = mismatch is None
            detail = f"max abs diff {worst:.2e}" if ok else mismatch
        passed += ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}: {detail}", flush=True)
    print(f"{passed} of {args.cases} cases within tolerance")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if passed == args.cases else 1)


if __name__ == "__main__":
    main()
