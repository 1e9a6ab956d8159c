"""Runs a library that `anvil-compile --shared` wrote on an ONNX backend test's data sets.

    aot_check.py LIBDIR TESTDIR

Loads LIBDIR/libmodel.so through ctypes (the C API of lower/emit/aot.h), passes each
TESTDIR/test_data_set_*/input_K.pb as an AnvilArg, and compares every output with output_K.pb
(rtol 1e-3, atol 1e-5, as `conformance run`). Prints one line `NAME: ok ...`, exit 0, or a
line naming the data set and output that differ or the run's error, exit 1. Tensor inputs and
outputs of numeric and bool types only (strings and sequences cannot cross this C API).
"""
import ctypes
import glob
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper


class AnvilArg(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int32), ("rank", ctypes.c_int32),
                ("dims", ctypes.c_int64 * 8), ("data", ctypes.c_void_p)]


def main(lib_dir, test_dir):
    name = os.path.basename(os.path.normpath(test_dir))
    lib = ctypes.CDLL(os.path.join(lib_dir, "libmodel.so"))
    lib.anvil_model_create.restype = ctypes.c_void_p
    lib.anvil_model_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(AnvilArg),
                                    ctypes.POINTER(AnvilArg), ctypes.c_char_p, ctypes.c_size_t]
    lib.anvil_model_destroy.argtypes = [ctypes.c_void_p]
    lib.anvil_model_free_output.argtypes = [ctypes.POINTER(AnvilArg)]
    with open(os.path.join(lib_dir, "model.h")) as f:
        outputs = int(f.read().split("ANVIL_MODEL_NUM_OUTPUTS = ")[1].split(" ")[0])
    worst = 0.0
    for case in sorted(glob.glob(os.path.join(test_dir, "test_data_set_*"))):
        ins = [onnx.load_tensor(f) for f in sorted(glob.glob(os.path.join(case, "input_*.pb")))]
        want = [numpy_helper.to_array(onnx.load_tensor(f))
                for f in sorted(glob.glob(os.path.join(case, "output_*.pb")))]
        arrays = [np.array(numpy_helper.to_array(t), order="C") for t in ins]  # keeps rank 0
        args = (AnvilArg * max(1, len(arrays)))()
        for i, (t, a) in enumerate(zip(ins, arrays)):
            args[i].type, args[i].rank, args[i].data = t.data_type, a.ndim, a.ctypes.data
            for d, v in enumerate(a.shape):
                args[i].dims[d] = v
        results = (AnvilArg * max(1, outputs))()
        error = ctypes.create_string_buffer(512)
        model = lib.anvil_model_create()
        if lib.anvil_model_run(model, args, results, error, 512) != 0:
            print(f"{name}: {os.path.basename(case)}: error: {error.value.decode()}")
            return 1
        for k, w in enumerate(want):
            r = results[k]
            dims = [r.dims[d] for d in range(r.rank)]
            dtype = np.dtype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[r.type])
            size = int(np.prod(dims)) * dtype.itemsize
            raw = ctypes.string_at(r.data, size) if size else b""
            got = np.frombuffer(raw, dtype=dtype).reshape(dims)
            if got.shape != w.shape or not np.allclose(got, w, rtol=1e-3, atol=1e-5,
                                                       equal_nan=True):
                print(f"{name}: {os.path.basename(case)}: output {k} differs "
                      f"(dims {list(got.shape)}, want {list(w.shape)})")
                return 1
            if got.size:
                worst = max(worst, float(np.max(np.abs(got.astype(np.float64) - w))))
        for k in range(outputs):
            lib.anvil_model_free_output(ctypes.byref(results[k]))
        lib.anvil_model_destroy(model)
    print(f"{name}: ok (max abs difference {worst:.3g})")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: aot_check.py LIBDIR TESTDIR")
    sys.exit(main(sys.argv[1], sys.argv[2]))
