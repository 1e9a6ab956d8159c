"""anvil_model_library: a fleet of ONNX models compiled into libraries in one build.

    load("@anvil//lower:anvil_model_library.bzl", "anvil_model_library")

    anvil_model_library(
        name = "zoo",
        models = {
            "mobilenet": {"model": "mobilenet.onnx", "input_shapes": {"x": [1, 3, 224, 224]}},
            "bert": {"model": "bert.onnx", "data": ["bert.onnx.data"], "cpu": "x86-64-v3"},
            "mlp": {"model": "mlp.onnx", "passes": "shape-inference,constprop,dce"},
        },
    )

Each entry becomes anvil_cc_model `<name>_<key>` (lower/anvil_cc_model.bzl; the entry's keys are
its arguments: model, data, passes, input_shapes, cpu, copts, kernel_host), whose actions depend
on nothing but that model, its data, its options and the compiler: independent actions that a
build farm runs in parallel and a remote cache serves to every other build. `name` is a
filegroup of the libraries (building it builds them all); `<name>_sources` the generated sources
and weights, for inspection and for the reproducibility check (scripts/model_cache_test.sh).

A binary links one model's library: every library exports the same C API names
(anvil_model_create, ...; lower/emit/aot.h). Several models in one process are shared
libraries (anvil-compile --shared), each loaded on its own.
"""

load(":anvil_cc_model.bzl", "anvil_cc_model")

_KEYS = ["model", "data", "passes", "input_shapes", "cpu", "copts", "kernel_host"]

def anvil_model_library(name, models, visibility = None, tags = []):
    """One anvil_cc_model per entry of `models`, and filegroup `name` of them all."""
    libraries = []
    sources = []
    for key in sorted(models.keys()):
        options = models[key]
        for option in options.keys():
            if option not in _KEYS:
                fail("anvil_model_library %s: model %s: unknown option '%s' (known: %s)" %
                     (name, key, option, ", ".join(_KEYS)))
        if "model" not in options:
            fail("anvil_model_library %s: model %s has no 'model'" % (name, key))
        target = "%s_%s" % (name, key)
        anvil_cc_model(
            name = target,
            visibility = visibility,
            tags = tags,
            **options
        )
        libraries.append(":" + target)
        sources.append(":" + target + "_sources")
    native.filegroup(name = name, srcs = libraries, visibility = visibility, tags = tags)
    native.filegroup(name = name + "_sources", srcs = sources, visibility = visibility, tags = tags)
