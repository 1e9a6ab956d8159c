"""anvil.InferenceSession: ONNX Runtime's interface over Anvil's runtime and its JIT."""

import concurrent.futures
import os
import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import anvil
from conftest import add_model, make_model, run_tools, suite_models, tool, tool_error


def read_value(path, type_string):
    """A .pb value file as Python: tensor, sequence (list) or optional (None or the value)."""
    data = open(path, "rb").read()
    if type_string.startswith("seq("):
        proto = onnx.SequenceProto()
        proto.ParseFromString(data)
        return [numpy_helper.to_array(t) for t in proto.tensor_values]
    if type_string.startswith("optional("):
        proto = onnx.OptionalProto()
        proto.ParseFromString(data)
        if proto.HasField("tensor_value"):
            return numpy_helper.to_array(proto.tensor_value)
        if proto.HasField("sequence_value"):
            return [numpy_helper.to_array(t) for t in proto.sequence_value.tensor_values]
        return None
    proto = onnx.TensorProto()
    proto.ParseFromString(data)
    if proto.data_type == TensorProto.BFLOAT16:  # numpy has none; anvil gives float32
        bits = (np.frombuffer(proto.raw_data, np.uint16) if proto.raw_data
                else np.array(proto.int32_data, np.uint16))
        return (bits.astype(np.uint32) << 16).view(np.float32).reshape(tuple(proto.dims))
    array = numpy_helper.to_array(proto)
    if type_string == "tensor(bfloat16)" and array.dtype == np.uint16:  # bits stored as uint16
        return (array.astype(np.uint32) << 16).view(np.float32)
    return array


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(
            same(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype == object or b.dtype == object:
        norm = lambda v: v.decode() if isinstance(v, bytes) else v
        return [norm(v) for v in a.ravel()] == [norm(v) for v in b.ravel()]
    if a.dtype != b.dtype:
        return False
    return np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def compare_with_anvil_run(tmp, models, backend):
    """Each model's first test data set through anvil-run and the Python session: the same
    outputs bit for bit, or the same error."""
    agreed = failed_alike = 0
    mismatches = []
    models = [d for d in models if os.path.isdir(os.path.join(d, "test_data_set_0"))]
    runs = run_tools([[tool("anvil-run"), os.path.join(d, "model.onnx"), "--input-dir",
                       os.path.join(d, "test_data_set_0"), "--iters", "1", "--warmup", "0",
                       "--out", os.path.join(tmp, f"out{i}"), f"--backend={backend}"]
                      for i, d in enumerate(models)])
    for i, (d, done) in enumerate(zip(models, runs)):
        data_dir = os.path.join(d, "test_data_set_0")
        out_dir = os.path.join(tmp, f"out{i}")
        cli_error = tool_error(done, "anvil-run")
        py_error = None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                session = anvil.InferenceSession(os.path.join(d, "model.onnx"), backend=backend)
            feed = {}
            for k, arg in enumerate(session.get_inputs()):
                path = os.path.join(data_dir, f"input_{k}.pb")
                if os.path.exists(path):
                    feed[arg.name] = read_value(path, arg.type)
            outputs = session.run(None, feed)
        except anvil.Error as e:
            py_error = str(e)
        if cli_error is not None and "element type uint16, expected bfloat16" in cli_error:
            # The suite stores this bfloat16 input as uint16 bits: anvil-run refuses the file,
            # while Python gives bfloat16 as float32 (read_value converts the bits).
            continue
        if cli_error is not None or py_error is not None:
            if cli_error is not None and py_error is not None:
                failed_alike += 1  # messages differ only by where the inputs came from
            else:
                mismatches.append(f"{d}: anvil-run error {cli_error!r}, Python {py_error!r}")
            continue
        for k, (arg, got) in enumerate(zip(session.get_outputs(), outputs)):
            expected = read_value(os.path.join(out_dir, f"output_{k}.pb"), arg.type)
            if not same(expected, got):
                mismatches.append(f"{d}: output {arg.name} differs")
                break
        else:
            agreed += 1
    print(f"{backend}: {agreed} models agree with anvil-run, {failed_alike} fail in both, "
          f"{len(mismatches)} mismatches")
    return agreed, mismatches


def test_interpreter_equals_anvil_run_on_the_backend_suite(tmp):
    agreed, mismatches = compare_with_anvil_run(tmp, suite_models(), "interpreter")
    assert agreed >= 1065  # a floor: it only goes up
    assert not mismatches, "\n".join(mismatches[:20])


def test_compiled_equals_anvil_run_on_a_sample_of_the_suite(tmp):
    # Every 25th model: each one is a C++ compile (about a second); the JIT cache makes
    # anvil-run's and the session's one compile. (The runs of anvil-run go first, in parallel.)
    agreed, mismatches = compare_with_anvil_run(tmp, suite_models()[::25], "compiled")
    assert agreed >= 43  # a floor: it only goes up
    assert not mismatches, "\n".join(mismatches[:20])


def test_inputs_and_outputs_describe_the_model():
    s = anvil.InferenceSession(add_model())
    assert [(a.name, a.shape, a.type) for a in s.get_inputs()] == [
        ("x", ["N", 4], "tensor(float)"), ("y", [4], "tensor(float)")]
    assert [(a.name, a.shape, a.type) for a in s.get_outputs()] == [
        ("z", ["N", 4], "tensor(float)")]
    assert "NodeArg(name='x'" in repr(s.get_inputs()[0])
    assert s.get_providers() == ["CPUExecutionProvider"]


def test_run_selects_outputs_by_name():
    model = make_model(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Neg", ["x"], ["n"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("r", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("n", TensorProto.FLOAT, [3])])
    s = anvil.InferenceSession(model)
    x = np.array([-1, 0, 2], np.float32)
    n, r = s.run(["n", "r"], {"x": x})
    assert np.array_equal(n, -x) and np.array_equal(r, np.maximum(x, 0))


def test_strings_sequences_and_optionals():
    model = make_model(
        [helper.make_node("Identity", ["s"], ["s_out"]),
         helper.make_node("SequenceConstruct", ["a", "a"], ["seq"]),
         helper.make_node("Optional", [], ["none"], type=helper.make_tensor_type_proto(
             TensorProto.FLOAT, [2]))],
        [helper.make_tensor_value_info("s", TensorProto.STRING, [2]),
         helper.make_tensor_value_info("a", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("s_out", TensorProto.STRING, [2]),
         helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, [2]),
         helper.make_value_info("none", helper.make_optional_type_proto(
             helper.make_tensor_type_proto(TensorProto.FLOAT, [2])))],
        opset=17)
    s = anvil.InferenceSession(model)
    a = np.array([1, 2], np.float32)
    s_out, seq, none = s.run(None, {"s": np.array(["héllo", "wörld"], dtype=object), "a": a})
    assert s_out.dtype == object and list(s_out) == ["héllo", "wörld"]
    assert isinstance(seq, list) and len(seq) == 2 and np.array_equal(seq[1], a)
    assert none is None
    assert s.get_outputs()[1].type == "seq(tensor(float))"
    assert s.get_outputs()[2].type == "optional(tensor(float))"


def test_outputs_are_numpy_arrays_over_anvils_buffers():
    s = anvil.InferenceSession(add_model())
    x = np.ones((2, 4), np.float32)
    (z,) = s.run(None, {"x": x, "y": np.arange(4, dtype=np.float32)})
    assert not z.flags.owndata  # the array's base holds Anvil's buffer: no copy
    assert type(z.base).__name__ == "PyCapsule"
    (z2,) = s.run(None, {"x": x, "y": np.arange(4, dtype=np.float32)})
    assert not np.shares_memory(z, z2)  # a held result is never overwritten by the next run
    assert np.array_equal(z, z2)


def rss_bytes():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_a_1_gib_input_is_read_in_place():
    model = make_model(
        [helper.make_node("ReduceMax", ["x"], ["m"], keepdims=0)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"])],
        [helper.make_tensor_value_info("m", TensorProto.FLOAT, [])])
    s = anvil.InferenceSession(model)
    # 1 GiB, every page written: np.zeros alone maps untouched pages, which the reduction's
    # reads would fault in (on kernels where the zero page counts toward RSS) as if copied.
    x = np.empty(1 << 28, np.float32)
    x.fill(0)
    x[12345] = 7
    before = rss_bytes()
    (m,) = s.run(None, {"x": x})
    grown = rss_bytes() - before
    assert m == 7
    assert grown < 256 << 20, f"RSS grew by {grown >> 20} MiB: the input was copied"
    # A strided view is another layout: converted once, with the same result.
    (m2,) = s.run(None, {"x": x[::2]})
    assert m2 == 0


def test_non_contiguous_and_python_list_inputs():
    s = anvil.InferenceSession(add_model())
    x = np.arange(32, dtype=np.float32).reshape(4, 8)[:, ::2]
    y = [1.0, 2.0, 3.0, 4.0]
    (z,) = s.run(None, {"x": x, "y": y})
    assert np.array_equal(z, x + np.array(y, np.float32))
    big_endian = np.arange(4, dtype=">f4")
    (z,) = s.run(None, {"x": x, "y": big_endian})
    assert np.array_equal(z, x + np.arange(4, dtype=np.float32))


def matmul_model(n=256):
    rng = np.random.default_rng(1)
    w = numpy_helper.from_array(rng.standard_normal((n, n)).astype(np.float32), "w")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h0"])]
    for i in range(7):
        nodes.append(helper.make_node("MatMul", [f"h{i}", "w"], [f"h{i + 1}"]))
    nodes.append(helper.make_node("Tanh", ["h7"], ["y"]))
    return make_model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", n])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["B", n])], [w])


@pytest.mark.parametrize("backend", ["interpreter", "compiled"])
def test_two_threads_two_sessions(backend):
    model = matmul_model()
    rng = np.random.default_rng(2)
    feeds = [{"x": rng.standard_normal((64, 256)).astype(np.float32) * 0.05} for _ in range(8)]
    alone = anvil.InferenceSession(model, backend=backend)
    expected = [alone.run(None, f)[0] for f in feeds]
    sessions = [anvil.InferenceSession(model, backend=backend) for _ in range(2)]

    def work(t):
        return [sessions[t].run(None, f)[0] for f in feeds for _ in range(3)][::3]

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = list(pool.map(work, [0, 1]))
    for got in results:
        for e, g in zip(expected, got):
            assert np.array_equal(e, g)


def test_one_session_shared_by_threads_serializes_runs():
    s = anvil.InferenceSession(matmul_model(64))
    x = np.ones((4, 64), np.float32) * 0.01
    (expected,) = s.run(None, {"x": x})
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda _: s.run(None, {"x": x})[0], range(32)))
    assert all(np.array_equal(expected, o) for o in outs)


def test_context_manager_closes():
    with anvil.InferenceSession(add_model()) as s:
        s.run(None, {"x": np.ones((1, 4), np.float32), "y": np.ones(4, np.float32)})
    with pytest.raises(anvil.Error, match="closed"):
        s.run(None, {"x": np.ones((1, 4), np.float32), "y": np.ones(4, np.float32)})


def test_threads_option_gives_the_same_bits():
    model = matmul_model(128)
    x = np.random.default_rng(3).standard_normal((32, 128)).astype(np.float32) * 0.05
    one = anvil.InferenceSession(model, threads=1).run(None, {"x": x})[0]
    two = anvil.InferenceSession(model, threads=2).run(None, {"x": x})[0]
    assert np.array_equal(one, two)
