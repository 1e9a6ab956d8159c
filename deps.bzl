"""Anvil's external repositories, under their upstream names.

Offline, each is a `local_repository` of BUILD stubs in `third_party/` that link Debian's system
libraries. A project that builds Abseil, Protobuf, ONNX, Highway, GoogleTest and Benchmark from
source declares those repositories itself, under the same names, and skips this macro.
"""

def anvil_dependencies(anvil_path = "."):
    """Declares the stand-in repositories. `anvil_path` is this repository's path relative to
    the calling workspace (a consumer passes where it keeps Anvil)."""
    for name in [
        "com_github_google_benchmark",
        "com_google_absl",
        "com_google_googletest",
        "com_google_highway",
        "com_google_protobuf",
        "onnx",
        "remote_coverage_tools",
        "rules_cc",
        "rules_java",
    ]:
        native.local_repository(
            name = name,
            path = anvil_path + "/third_party/" + name,
        )
