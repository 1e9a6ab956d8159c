"""anvil_cc_model: an ONNX model compiled ahead of time into a cc_library, as build actions.

    load("@anvil//lower:anvil_cc_model.bzl", "anvil_cc_model")

    anvil_cc_model(
        name = "my_model",
        model = "my_model.onnx",            # .onnx or .onnxtxt
        passes = "shape-inference,einsum-decompose,dce",   # optional: the pipeline before lowering
        data = ["my_model.onnx.data"],      # optional: the model's external data files
        input_shapes = {"x": [1, 3, 224, 224]},   # optional: fix input dims (anvil-compile --shape)
        cpu = "x86-64-v3",                  # optional: -march for the library's code
    )

    cc_binary(name = "app", srcs = ["app.c"], deps = [":my_model"])   # #include "my_model/model.h"

The generated library is the C API of lower/emit/aot.h (anvil_model_create/run/destroy). The
compiler, anvil-compile, is built from source by Bazel like any tool, and every input and
output is declared (the model, its external data, the options), so the actions are hermetic and
reproducible: the same inputs give the same bytes in any output base or machine
(scripts/model_cache_test.sh builds a zoo twice and compares), which is what lets a remote cache
or a build farm share them. Many models compile in parallel: see anvil_model_library.bzl.

Nodes that do not lower to loops or gemm (convolutions, pooling, ops without a lowering rule)
call Anvil's kernels through the kernel host, //lower:aot_host, which the library depends on;
gemm calls run on its packed SGEMM, and anvil_model_set_threads gives a context threads.
`kernel_host = False` leaves that dependency out (the build then compiles the model alone): a
self-contained serial library with a plain gemm loop nest, and a model that needs kernels is a
build error naming their ops.
"""

def anvil_cc_model(
        name,
        model,
        passes = None,
        kernel_host = True,
        data = [],
        input_shapes = {},
        cpu = None,
        copts = [],
        visibility = None,
        deps = [],
        **kwargs):
    """Compiles `model` into cc_library `name` (header `<name>/model.h`)."""
    outs = [name + "/model.cc", name + "/model.h", name + "/model_weights.inc"]
    flags = []
    if passes:
        flags.append("--pipeline='%s'" % passes)
    if not kernel_host:
        flags.append("--no-kernel-host")
    for input_name in sorted(input_shapes.keys()):
        flags.append("--shape='%s=%s'" % (input_name, ",".join([str(d) for d in input_shapes[input_name]])))
    native.genrule(
        name = name + "_sources",
        # External data files sit beside the model, as its `location` fields name them.
        srcs = [model] + data,
        outs = outs,
        tools = [Label("//tools:anvil-compile")],
        # A cc_library takes the weights as a .inc (the assembler embeds them, .incbin).
        # anvil-compile's progress lines only when it fails (they hold the error); they are kept
        # in a shell variable, not a temporary file outside the action's sandbox.
        cmd = "if ! log=$$($(location %s) $(location %s) -o $(RULEDIR)/%s --weights=model_weights.inc %s 2>&1 >/dev/null); then echo \"$$log\" >&2; exit 1; fi" % (
            Label("//tools:anvil-compile"),
            model,
            name,
            " ".join(flags),
        ),
        tags = kwargs.get("tags", []),
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
        ] + (["-march=" + cpu] if cpu else []) + copts,
        visibility = visibility,
        deps = deps + ([Label("//lower:aot_host")] if kernel_host else []),
        **kwargs
    )
