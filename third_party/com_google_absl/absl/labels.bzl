"""Declares upstream Abseil labels as aliases of the system library."""

def absl_targets(names):
    for name in names:
        native.cc_library(
            name = name,
            deps = ["//:system_absl"],
            visibility = ["//visibility:public"],
        )
