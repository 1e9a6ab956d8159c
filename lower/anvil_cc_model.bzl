"""anvil_cc_model: an ONNX model compiled ahead of time into a cc_library, as build actions.

    load("@anvil//lower:anvil_cc_model.bzl", "anvil_cc_model")

    anvil_cc_model(
        name = "my_model",
        model = "my_model.onnx",            # .onnx or .onnxtxt
        passes = "shape-inference,einsum-decompose,dce",   # optional: the pipeline before lowering
    )

    cc_binary(name = "app", srcs = ["app.c"], deps = [":my_model"])   # #include "my_model/model.h"

The generated library is the C API of lower/emit/aot.h (anvil_model_create/run/destroy). The
compiler, anvil-compile, is built from source by Bazel like any tool, and every input and
output is declared, so the actions are hermetic: many models compile in parallel, locally or on
remote execution, with no extra machinery. Limits are anvil-compile's: every node must lower to
loops or gemm.
"""

def anvil_cc_model(name, model, passes = None, visibility = None, **kwargs):
    """Compiles `model` into cc_library `name` (header `<name>/model.h`)."""
    outs = [name + "/model.cc", name + "/model.h", name + "/model_weights.inc"]
    pipeline = "--pipeline='%s'" % passes if passes else ""
    native.genrule(
        name = name + "_sources",
        srcs = [model],
        outs = outs,
        tools = [Label("//tools:anvil-compile")],
        # A cc_library takes the weights as a .inc (the assembler embeds them, .incbin).
        cmd = "$(location %s) $(location %s) -o $(RULEDIR)/%s --weights=model_weights.inc %s 2>/dev/null" % (
            Label("//tools:anvil-compile"),
            model,
            name,
            pipeline,
        ),
    )
    native.cc_library(
        name = name,
        srcs = [name + "/model.cc", name + "/model_weights.inc"],
        hdrs = [name + "/model.h"],
        # The assembler finds the weights next to the source (.incbin).
        copts = [
            "-ffp-contract=off",
            "-fno-math-errno",
            "-w",
            "-Wa,-I$(GENDIR)/%s/%s" % (native.package_name(), name),
        ],
        visibility = visibility,
        **kwargs
    )
