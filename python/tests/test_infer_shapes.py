"""anvil.infer_shapes: onnx.shape_inference.infer_shapes' contract, with exact symbolic dims."""

import numpy as np
import onnx
import onnx.shape_inference
from onnx import TensorProto, helper

import anvil
from conftest import add_model, foldable_model, make_model


def dims_of(model, name):
    for vi in list(model.graph.value_info) + list(model.graph.output):
        if vi.name == name:
            return [d.dim_value if d.HasField("dim_value") else d.dim_param
                    for d in vi.type.tensor_type.shape.dim]
    raise AssertionError(f"no type for {name}")


def test_every_value_gets_a_type_and_the_graph_is_unchanged():
    model = foldable_model()
    before = model.SerializeToString()
    inferred = anvil.infer_shapes(model)
    assert model.SerializeToString() == before
    assert [n.op_type for n in inferred.graph.node] == [n.op_type for n in model.graph.node]
    typed = {vi.name for vi in inferred.graph.value_info}
    assert {"W2", "b2", "h1", "a1", "r1", "h2", "a2", "r2"} <= typed
    assert dims_of(inferred, "h1") == ["N", 8]


def test_agrees_with_onnx_where_onnx_knows():
    model = foldable_model()
    ours = anvil.infer_shapes(model)
    theirs = onnx.shape_inference.infer_shapes(model)
    for vi in theirs.graph.value_info:
        assert dims_of(ours, vi.name) == dims_of(theirs, vi.name), vi.name


def test_symbolic_expressions_where_onnx_gives_up():
    model = make_model(
        [helper.make_node("Concat", ["x", "x"], ["c"], axis=0),
         helper.make_node("Constant", [], ["n1"], value=helper.make_tensor(
             "n1", TensorProto.INT64, [1], [-1])),
         helper.make_node("Constant", [], ["k"], value=helper.make_tensor(
             "k", TensorProto.INT64, [1], [2])),
         helper.make_node("Concat", ["n1", "k"], ["s2"], axis=0),
         helper.make_node("Reshape", ["x", "s2"], ["r"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("c", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, None)])
    inferred = anvil.infer_shapes(model)
    assert dims_of(inferred, "c") == ["2*N", 4]
    assert dims_of(inferred, "r") == ["2*N", 2]


def test_unknown_ops_are_left_untyped_unless_strict():
    model = make_model(
        [helper.make_node("Frob", ["x"], ["y"], domain="com.example")],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    anvil.infer_shapes(model)
    try:
        anvil.infer_shapes(model, strict_mode=True)
    except anvil.Error as e:
        assert "Frob" in str(e)
    else:
        raise AssertionError("strict_mode accepted an op without a shape rule")


def test_bytes_and_paths(tmp):
    import os
    path = os.path.join(tmp, "m.onnx")
    onnx.save(add_model(), path)
    assert anvil.infer_shapes(path) == anvil.infer_shapes(add_model().SerializeToString())


def nonzero_model():
    return make_model(
        [helper.make_node("NonZero", ["x"], ["nz"]),
         helper.make_node("Transpose", ["nz"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 8])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, None)])


def test_data_dependent_dims_are_named_with_ranges():
    inferred = anvil.infer_shapes(nonzero_model(), input_ranges={"N": (1, 16)})
    assert dims_of(inferred, "nz") == [2, "NonZero_nz_n"]
    assert dims_of(inferred, "y") == ["NonZero_nz_n", 2]
    props = {p.key: p.value for p in inferred.metadata_props}
    assert props["anvil.dim_ranges"] == "N=1:16,NonZero_nz_n=0:128"
    # Without input ranges the count is named all the same, bounded only by N's.
    props = {p.key: p.value for p in anvil.infer_shapes(nonzero_model()).metadata_props}
    assert "anvil.dim_ranges" not in props


def test_input_ranges_must_name_input_dims():
    try:
        anvil.infer_shapes(nonzero_model(), input_ranges={"M": (1, 4)})
    except anvil.Error as e:
        assert "`M` is not a symbolic dim of a graph input (they are: N)" in str(e)
    else:
        raise AssertionError("expected an error")


def test_session_with_ranges_refuses_inputs_outside_them():
    session = anvil.InferenceSession(nonzero_model().SerializeToString(),
                                     input_ranges={"N": (1, 16)})
    x = np.ones((3, 8), np.float32)
    (y,) = session.run(None, {"x": x})
    assert y.shape == (24, 2)
    try:
        session.run(None, {"x": np.ones((17, 8), np.float32)})
    except anvil.Error as e:
        assert "outside its range N=1:16" in str(e)
    else:
        raise AssertionError("expected an error")
