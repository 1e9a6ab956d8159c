#!/usr/bin/python3
"""Writes value_types.onnx: every ONNX value type and control flow as exporters write them.

    /usr/bin/python3 testdata/gen_value_types_model.py OUT.onnx

  x[N] float, words[W] string ->
    string pre-processing: StringNormalizer (lower case, stopword "the") -> Cast to float
      -> ReduceSum = total
    Loop (3 trips) with a sequence accumulator: SequenceInsert(acc, x * i) each trip
      -> ConcatFromSequence -> ReduceSum = s
    If (a Constant condition, so constant propagation inlines the branch) whose then-branch holds
      a nested If on total > 0; neither branch's values nor the If outputs declare types, as
      exporters leave subgraph values: inference must type them (nested to any depth)
      -> y = s + total or s - total
    count = SequenceLength of the accumulator, an optional of the total and whether it is set.

Test data for anvil-run: x = [1, 2], words = [" 1.5", "THE", "2"] give total 3.5, s = 9
(x * (0 + 1 + 2) summed) and y = 12.5.
"""
import sys

from onnx import TensorProto, helper, checker, save


def untyped(name):
    return helper.make_empty_tensor_value_info(name)


def main(path):
    n = helper.make_node
    # Loop body: (i, cond, acc) -> (cond, acc').
    body = helper.make_graph(
        [
            n("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
            n("Mul", ["x", "fi"], ["scaled"]),
            n("SequenceInsert", ["acc_in", "scaled"], ["acc_out"]),
            n("Identity", ["cond"], ["cond_out"]),
        ],
        "loop_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         untyped("acc_in")],
        [untyped("cond_out"), untyped("acc_out")])
    # The nested If: neither branch declares its output's type.
    plus = helper.make_graph([n("Add", ["s", "total"], ["plus"])], "plus", [], [untyped("plus")])
    minus = helper.make_graph([n("Sub", ["s", "total"], ["minus"])], "minus", [], [untyped("minus")])
    then_branch = helper.make_graph(
        [
            n("Greater", ["total", "zero"], ["positive"]),
            n("If", ["positive"], ["inner"], then_branch=plus, else_branch=minus),
        ],
        "then", [], [untyped("inner")])
    else_branch = helper.make_graph([n("Identity", ["s"], ["same"])], "else", [], [untyped("same")])
    nodes = [
        n("StringNormalizer", ["words"], ["normalized"], case_change_action="LOWER",
          stopwords=["the"]),
        n("Cast", ["normalized"], ["numbers"], to=TensorProto.FLOAT),
        n("ReduceSum", ["numbers"], ["total"], keepdims=0),
        n("Constant", [], ["zero"], value=helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0])),
        n("Constant", [], ["trips"], value=helper.make_tensor("trips", TensorProto.INT64, [], [3])),
        n("Constant", [], ["go"], value=helper.make_tensor("go", TensorProto.BOOL, [], [True])),
        n("SequenceEmpty", [], ["empty"], dtype=TensorProto.FLOAT),
        n("Loop", ["trips", "go", "empty"], ["acc"], body=body),
        n("ConcatFromSequence", ["acc"], ["joined"], axis=0),
        n("ReduceSum", ["joined"], ["s"], keepdims=0),
        n("If", ["go"], ["y"], then_branch=then_branch, else_branch=else_branch),
        n("SequenceLength", ["acc"], ["count"]),
        n("Optional", ["total"], ["maybe_total"]),
        n("OptionalHasElement", ["maybe_total"], ["has_total"]),
    ]
    graph = helper.make_graph(
        nodes, "value_types",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N"]),
         helper.make_tensor_value_info("words", TensorProto.STRING, ["W"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("count", TensorProto.INT64, []),
         helper.make_tensor_value_info("has_total", TensorProto.BOOL, [])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="anvil-testdata")
    model.ir_version = 8
    checker.check_model(model)
    save(model, path)


if __name__ == "__main__":
    main(sys.argv[1])
