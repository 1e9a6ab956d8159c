"""float16 networks compute in float32 and round where a value leaves a float16 region (the load
pipeline's widen-float16 pass; a single op rounds once, as its kernel does), as ONNX Runtime's CPU
provider computes float16 through its inserted casts. Each float16 model runs against its float32
twin (the same float16-exact weights and inputs, widened): the kernels take the same float32 path
in both, so the float16 output is the float32 output rounded to float16, bit for bit (LeakyRelu,
fused into a Conv only where it commutes with rounding, within an ulp)."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import anvil
from conftest import make_model


def weight(name, rng, shape, dtype):
    """A float16-exact weight initializer of `dtype`."""
    values = rng.uniform(-1, 1, shape).astype(np.float16).astype(dtype)
    return numpy_helper.from_array(values, name)


def twins(build, rng_seed=0):
    """The float16 and float32 models `build(elem_type, dtype, rng)` makes from one seed."""
    return [build(t, d, np.random.default_rng(rng_seed))
            for t, d in ((TensorProto.FLOAT16, np.float16), (TensorProto.FLOAT, np.float32))]


def run_twins(build, x, backend="interpreter"):
    half, single = twins(build)
    y16 = anvil.InferenceSession(half.SerializeToString(), backend=backend).run(
        None, {"x": x.astype(np.float16)})
    y32 = anvil.InferenceSession(single.SerializeToString(), backend=backend).run(
        None, {"x": x.astype(np.float16).astype(np.float32)})
    return y16, y32


CONVS = {
    # name: (input dims, weight dims, attributes): the depthwise kernel (stride 2), the implicit
    # GEMM (pointwise), the few-channel direct kernel (a first layer).
    "depthwise": ([1, 8, 33, 35], [8, 1, 3, 3], {"group": 8, "pads": [1, 1, 1, 1],
                                                 "strides": [2, 2]}),
    "pointwise": ([1, 16, 20, 21], [24, 16, 1, 1], {}),
    "first_layer": ([1, 3, 30, 31], [8, 3, 3, 3], {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
}


def conv_model(elem, dtype, rng, conv, activation):
    """Conv (constant weight and bias) + activation: a FusedConv after the load pipeline."""
    x_dims, w_dims, attrs = CONVS[conv]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], **attrs)]
    inits = [weight("w", rng, w_dims, dtype), weight("b", rng, [w_dims[0]], dtype)]
    if activation == "Clip":
        inits += [numpy_helper.from_array(np.array(0, dtype), "lo"),
                  numpy_helper.from_array(np.array(6, dtype), "hi")]
        nodes.append(helper.make_node("Clip", ["c", "lo", "hi"], ["y"]))
    else:
        nodes.append(helper.make_node(activation, ["c"], ["y"]))
    return make_model(nodes, [helper.make_tensor_value_info("x", elem, x_dims)],
                      [helper.make_tensor_value_info("y", elem, None)], inits)


@pytest.mark.parametrize("conv", sorted(CONVS))
@pytest.mark.parametrize("activation", ["Relu", "Clip", "LeakyRelu"])
def test_conv_is_the_float32_conv_rounded(conv, activation):
    x = np.random.default_rng(1).uniform(-2, 2, CONVS[conv][0])
    (y16,), (y32,) = run_twins(lambda e, d, r: conv_model(e, d, r, conv, activation), x)
    assert y16.dtype == np.float16
    if activation == "LeakyRelu":
        # Its own node rounds the convolution first, then its result: within one ulp of that.
        np.testing.assert_allclose(y16.astype(np.float32), y32, rtol=2e-3, atol=1e-3)
    else:
        # Relu and Clip(0, 6) commute with rounding: in the epilogue, the same bits.
        np.testing.assert_array_equal(y16, y32.astype(np.float16))


def matmul_model(elem, dtype, rng):
    """x[4, 300] x W[300, 70] + bias through Gemm, then MatMul by a second constant."""
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["g"]),
             helper.make_node("MatMul", ["g", "w2"], ["y"])]
    inits = [weight("w", rng, [300, 70], dtype), weight("b", rng, [70], dtype),
             weight("w2", rng, [70, 9], dtype)]
    return make_model(nodes, [helper.make_tensor_value_info("x", elem, [4, 300])],
                      [helper.make_tensor_value_info("y", elem, None)], inits)


def test_constant_float16_weights_are_packed_widened():
    """Gemm then MatMul in one float16 region: the float32 twin's products, rounded once."""
    x = np.random.default_rng(2).uniform(-1, 1, (4, 300))
    (y16,), (y32,) = run_twins(matmul_model, x)
    assert y16.dtype == np.float16
    np.testing.assert_array_equal(y16, y32.astype(np.float16))


@pytest.mark.parametrize("op", ["Add", "Mul", "Sub", "Div", "Max"])
def test_elementwise_float16_is_the_float32_op_rounded(op):
    """Broadcast rows longer than one 512-element chunk, a scalar and a strided operand."""
    rng = np.random.default_rng(3)
    a = rng.uniform(-4, 4, (3, 1100)).astype(np.float16)
    b = rng.uniform(0.5, 4, (1, 1100)).astype(np.float16)
    c = rng.uniform(0.5, 4, (3, 1)).astype(np.float16)
    nodes = [helper.make_node(op, ["a", "b"], ["ab"]), helper.make_node(op, ["ab", "c"], ["y"])]

    def model(elem):
        return make_model(nodes, [helper.make_tensor_value_info("a", elem, [3, 1100]),
                                  helper.make_tensor_value_info("b", elem, [1, 1100]),
                                  helper.make_tensor_value_info("c", elem, [3, 1])],
                          [helper.make_tensor_value_info("y", elem, None)])

    (y16,) = anvil.InferenceSession(model(TensorProto.FLOAT16).SerializeToString()).run(
        None, {"a": a, "b": b, "c": c})
    fn = {"Add": np.add, "Mul": np.multiply, "Sub": np.subtract, "Div": np.divide,
          "Max": np.maximum}[op]
    f32 = lambda v: v.astype(np.float32)  # noqa: E731
    # Both ops in float32, in one region: the chain rounded once.
    want = fn(fn(f32(a), f32(b)), f32(c)).astype(np.float16)
    np.testing.assert_array_equal(y16, want)


@pytest.mark.parametrize("mode", ["linear", "cubic", "nearest"])
def test_resize_float16_is_the_float32_resize_rounded(mode):
    """A UNet decoder's upsampling (x2 and a fractional scale) on planes of float16."""
    x = np.random.default_rng(4).uniform(-3, 3, (1, 5, 9, 13)).astype(np.float16)

    def model(elem):
        scales = numpy_helper.from_array(np.array([1, 1, 2, 1.5], np.float32), "scales")
        return make_model([helper.make_node("Resize", ["x", "", "scales"], ["y"], mode=mode)],
                          [helper.make_tensor_value_info("x", elem, [1, 5, 9, 13])],
                          [helper.make_tensor_value_info("y", elem, None)], [scales])

    (y16,) = anvil.InferenceSession(model(TensorProto.FLOAT16).SerializeToString()).run(
        None, {"x": x})
    (y32,) = anvil.InferenceSession(model(TensorProto.FLOAT).SerializeToString()).run(
        None, {"x": x.astype(np.float32)})
    assert y16.shape == (1, 5, 18, 19)
    np.testing.assert_array_equal(y16, y32.astype(np.float16))
