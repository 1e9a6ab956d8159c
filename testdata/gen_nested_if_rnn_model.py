#!/usr/bin/python3
"""Writes nested_if_rnn.onnx: a voice-activity network shaped as PyTorch exports it with its
functions inlined (silero VAD v5's structure, small), and its test data.

    /usr/bin/python3 testdata/gen_nested_if_rnn_model.py OUT_DIR

  input[B, 8], state[2, B, 4], sr (int64 scalar) -> output[B, 1], stateN[2, B, 4]
  If sr == 16000 (two copies of the network, each with its own weights as branch initializers):
    encoder: Relu(input @ w_enc), Unsqueeze -> [B, 4, 1]
    If dim 2 == 1: Squeeze it, else Identity (declared [B, 4] and [B, 4, ?]: rank unknown after)
    If state's dim 0 != 0 (both branches the same LSTM block, with its own names):
      not2 = the features' rank != 2
      If not2: Unsqueeze the features, else Identity
      If not2: Unsqueeze state[0] and state[1], else Identity
      LSTM on the Unsqueezed results, Squeeze of Y_h and Y_c (float[?, 4])
      If not2 (`If_4`): then two Ifs (dim 0 == 1: Squeeze, else Identity) of Y_h and Y_c,
        else Identity of both.
    output = Sigmoid(Relu(h) @ w_out), stateN = [h, c]
  From `If_4` down, and on the outputs of the If on state, every branch output carries a type
  with no kind at all (`type {}`) as that exporter writes it: inference must type them all.

The test data are two sets, sr = 16000 and sr = 8000 (each runs its own weights), as
OUT_DIR/nested_if_rnn_<sr>/input_K.pb and output_K.pb; the outputs come from numpy.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, checker, helper, numpy_helper, save

H = 4  # LSTM hidden size and feature count
T = 8  # input samples
B = 2  # batch of the test data
RNG = np.random.default_rng(20250101)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def no_kind(name):
    """A ValueInfoProto whose type is present and empty."""
    info = helper.make_empty_tensor_value_info(name)
    info.type.SetInParent()
    return info


def typed(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def ints(name, values):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.array(values, np.int64), name))


def make_weights():
    return {
        "w_enc": (RNG.standard_normal((T, H)) * 0.5).astype(np.float32),
        "W": (RNG.standard_normal((1, 4 * H, H)) * 0.5).astype(np.float32),
        "R": (RNG.standard_normal((1, 4 * H, H)) * 0.5).astype(np.float32),
        "B": (RNG.standard_normal((1, 8 * H)) * 0.1).astype(np.float32),
        "w_out": (RNG.standard_normal((H, 1)) * 0.5).astype(np.float32),
    }


def lstm_block(p, q, features, h_in, c_in):
    """The LSTM block of one branch of the If on state; names start with `p`, weights with `q`."""
    n = helper.make_node

    def pair_if(name, cond, then_nodes, then_outs, else_nodes, else_outs, outs):
        return n("If", [cond], outs, name=name,
                 then_branch=helper.make_graph(then_nodes, name + "_then", [], then_outs),
                 else_branch=helper.make_graph(else_nodes, name + "_else", [], else_outs))

    def squeeze_or_pass(name, src, out):
        # dim 0 == 1: Squeeze it, else pass through; branch outputs of no kind.
        return [
            n("Shape", [src], [name + "_shape"]),
            ints(name + "_zero", [0]),
            n("Gather", [name + "_shape", name + "_zero"], [name + "_dim"], axis=0),
            ints(name + "_one", [1]),
            n("Equal", [name + "_dim", name + "_one"], [name + "_cond"]),
            pair_if(name, name + "_cond",
                    [ints(name + "_axes", [0]),
                     n("Squeeze", [src, name + "_axes"], [name + "_squeezed"])],
                    [no_kind(name + "_squeezed")],
                    [n("Identity", [src], [name + "_same"])], [no_kind(name + "_same")],
                    [out]),
        ]

    if4_then = squeeze_or_pass(p + "If_2", p + "hs", p + "If_2_out") + squeeze_or_pass(
        p + "If_3", p + "cs", p + "If_3_out")
    nodes = [
        n("Shape", [features], [p + "shape"]),
        n("Size", [p + "shape"], [p + "rank"]),
        ints(p + "two", 2),
        n("Equal", [p + "rank", p + "two"], [p + "is2"]),
        n("Not", [p + "is2"], [p + "not2"]),
        n("Cast", [p + "not2"], [p + "c0"], to=TensorProto.BOOL),
        pair_if(p + "If", p + "c0",
                [ints(p + "ax0", [0]), n("Unsqueeze", [features, p + "ax0"], [p + "xu"])],
                [typed(p + "xu", [1, "S", H])],
                [n("Identity", [features], [p + "xi"])], [typed(p + "xi", ["S", H])],
                [p + "xin"]),
        n("Cast", [p + "not2"], [p + "c1"], to=TensorProto.BOOL),
        pair_if(p + "If_1", p + "c1",
                [ints(p + "ax1", [0]), n("Unsqueeze", [h_in, p + "ax1"], [p + "hu"]),
                 n("Unsqueeze", [c_in, p + "ax1"], [p + "cu"])],
                [typed(p + "hu", [1, "S", H]), typed(p + "cu", [1, "S", H])],
                [n("Identity", [h_in], [p + "hi"]), n("Identity", [c_in], [p + "ci"])],
                [typed(p + "hi", ["S", H]), typed(p + "ci", ["S", H])],
                [p + "h0", p + "c0v"]),
        ints(p + "ax3", [0]),
        n("Unsqueeze", [p + "xin", p + "ax3"], [p + "X"]),
        n("Unsqueeze", [p + "h0", p + "ax3"], [p + "H0"]),
        n("Unsqueeze", [p + "c0v", p + "ax3"], [p + "C0"]),
        n("LSTM", [p + "X", q + "W", q + "R", q + "B", "", p + "H0", p + "C0"],
          [p + "Y", p + "Y_h", p + "Y_c"], hidden_size=H),
        n("Squeeze", [p + "Y_h", p + "ax3"], [p + "hs"]),
        n("Squeeze", [p + "Y_c", p + "ax3"], [p + "cs"]),
        n("Cast", [p + "not2"], [p + "c2"], to=TensorProto.BOOL),
        pair_if(p + "If_4", p + "c2", if4_then, [no_kind(p + "If_2_out"), no_kind(p + "If_3_out")],
                [n("Identity", [p + "hs"], [p + "h5"]), n("Identity", [p + "cs"], [p + "c6"])],
                [no_kind(p + "h5"), no_kind(p + "c6")], [p + "hN", p + "cN"]),
    ]
    return nodes, [no_kind(p + "hN"), no_kind(p + "cN")]


def network(prefix, weights):
    """One branch of the If on the sample rate."""
    n = helper.make_node
    q = prefix
    then_nodes, then_outs = lstm_block(q + "rnn/", q, q + "feat", q + "h_in", q + "c_in")
    else_nodes, else_outs = lstm_block(q + "rnn_1/", q, q + "feat", q + "h_in", q + "c_in")
    nodes = [
        n("MatMul", ["input", q + "w_enc"], [q + "mm"]),
        n("Relu", [q + "mm"], [q + "relu"]),
        ints(q + "ax2", [2]),
        n("Unsqueeze", [q + "relu", q + "ax2"], [q + "enc"]),
        n("Shape", [q + "enc"], [q + "enc_shape"]),
        ints(q + "two", 2),
        n("Gather", [q + "enc_shape", q + "two"], [q + "last"], axis=0),
        ints(q + "one", 1),
        n("Equal", [q + "last", q + "one"], [q + "squeeze_last"]),
        n("If", [q + "squeeze_last"], [q + "feat"], name=q + "decoder/If",
          then_branch=helper.make_graph(
              [ints(q + "ax_last", [2]), n("Squeeze", [q + "enc", q + "ax_last"], [q + "sq"])],
              q + "sq", [], [typed(q + "sq", ["S", H])]),
          else_branch=helper.make_graph(
              [n("Identity", [q + "enc"], [q + "id"])], q + "id", [],
              [typed(q + "id", ["S", H, "D"])])),
        ints(q + "i0", 0),
        ints(q + "i1", 1),
        n("Gather", ["state", q + "i0"], [q + "h_in"], axis=0),
        n("Gather", ["state", q + "i1"], [q + "c_in"], axis=0),
        n("Shape", ["state"], [q + "state_shape"]),
        ints(q + "i0v", [0]),
        n("Gather", [q + "state_shape", q + "i0v"], [q + "state0"], axis=0),
        n("Squeeze", [q + "state0", q + "i0v"], [q + "state0s"]),
        n("Cast", [q + "state0s"], [q + "has_state"], to=TensorProto.BOOL),
        n("If", [q + "has_state"], [q + "hN", q + "cN"], name=q + "decoder/If_1",
          then_branch=helper.make_graph(then_nodes, q + "rnn", [], then_outs),
          else_branch=helper.make_graph(else_nodes, q + "rnn_1", [], else_outs)),
        n("Relu", [q + "hN"], [q + "hr"]),
        n("MatMul", [q + "hr", q + "w_out"], [q + "logit"]),
        n("Sigmoid", [q + "logit"], [q + "out"]),
        ints(q + "ax_s", [0]),
        n("Unsqueeze", [q + "hN", q + "ax_s"], [q + "hN1"]),
        n("Unsqueeze", [q + "cN", q + "ax_s"], [q + "cN1"]),
        n("Concat", [q + "hN1", q + "cN1"], [q + "stateN"], axis=0),
    ]
    inits = [numpy_helper.from_array(v, q + k) for k, v in weights.items()]
    return helper.make_graph(nodes, q + "graph", [], [typed(q + "out", ["?", 1]),
                                                      typed(q + "stateN", ["?", "?", "?"])],
                             initializer=inits)


def reference(x, state, w):
    """numpy: the network as run for rank-2 features (every If takes the Identity paths)."""
    feat = np.maximum(x @ w["w_enc"], 0)
    gates = feat @ w["W"][0].T + state[0] @ w["R"][0].T + w["B"][0, :4 * H] + w["B"][0, 4 * H:]
    i, o, f, c = np.split(gates, 4, axis=1)  # ONNX's gate order: i, o, f, c
    cell = sigmoid(f) * state[1] + sigmoid(i) * np.tanh(c)
    h = sigmoid(o) * np.tanh(cell)
    out = sigmoid(np.maximum(h, 0) @ w["w_out"])
    return out.astype(np.float32), np.stack([h, cell]).astype(np.float32)


def main(out_dir):
    n = helper.make_node
    weights = {16000: make_weights(), 8000: make_weights()}
    graph = helper.make_graph(
        [
            ints("rate", 16000),
            n("Equal", ["sr", "rate"], ["is16k"]),
            n("If", ["is16k"], ["out", "stateN"], name="If_0",
              then_branch=network("If_0_then_branch__", weights[16000]),
              else_branch=network("If_0_else_branch__", weights[8000])),
            n("Identity", ["out"], ["output"]),
            n("Identity", ["stateN"], ["stateN_out"]),
        ],
        "nested_if_rnn",
        [typed("input", ["?", "?"]), typed("state", [2, "?", H]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
        [typed("output", ["?", 1]), typed("stateN_out", ["?", "?", "?"])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)],
                              producer_name="anvil-testdata")
    model.ir_version = 8
    checker.check_model(model)
    os.makedirs(out_dir, exist_ok=True)
    save(model, os.path.join(out_dir, "nested_if_rnn.onnx"))

    data_rng = np.random.default_rng(7)
    x = data_rng.standard_normal((B, T)).astype(np.float32)
    state = (data_rng.standard_normal((2, B, H)) * 0.5).astype(np.float32)
    for sr in (16000, 8000):
        folder = os.path.join(out_dir, f"nested_if_rnn_{sr}")
        os.makedirs(folder, exist_ok=True)
        values = [x, state, np.array(sr, np.int64)] + list(reference(x, state, weights[sr]))
        names = ["input_0", "input_1", "input_2", "output_0", "output_1"]
        for name, value in zip(names, values):
            with open(os.path.join(folder, name + ".pb"), "wb") as f:
                f.write(numpy_helper.from_array(value, name).SerializeToString())


if __name__ == "__main__":
    main(sys.argv[1])
