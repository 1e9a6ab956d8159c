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
remote execution, with no extra machinery.

Nodes that do not lower to loops or gemm (convolutions, pooling, ops without a lowering rule)
call Anvil's kernels through the kernel host, //lower:aot_host, which the library depends on;
gemm calls run on its packed SGEMM, and anvil_model_set_threads gives a context threads.
`kernel_host = False` leaves that dependency out (the build then compiles the model alone): a
self-contained serial library with a plain gemm loop nest, and a model that needs kernels is a
build error naming their ops.
"""

def anvil_cc_model(name, model, passes = None, kernel_host = True, visibility = None, deps = [], **kwargs):
    """Compiles `model` into cc_library `name` (header `<name>/model.h`)."""
    outs = [name + "/model.cc", name + "/model.h", name + "/model_weights.inc"]
    pipeline = "--pipeline='%s'" % passes if passes else ""
    if not kernel_host:
        pipeline += " --no-kernel-host"
    native.genrule(
        name = name + "_sources",
        srcs = [model],
        outs = outs,
        tools = [Label("//tools:anvil-compile")],
        # A cc_library takes the weights as a .inc (the assembler embeds them, .incbin).
        # anvil-compile's progress lines only when it fails (they hold the error).
        cmd = "log=$$(mktemp) && if $(location %s) $(location %s) -o $(RULEDIR)/%s --weights=model_weights.inc %s 2>$$log; then rm -f $$log; else cat $$log >&2; rm -f $$log; exit 1; fi" % (
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
        deps = deps + ([Label("//lower:aot_host")] if kernel_host else []),
        **kwargs
    )
