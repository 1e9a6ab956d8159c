"""Rewrites an ONNX model with its large initializers in one external data file.

    to_external_data.py IN.onnx OUT.onnx

OUT.onnx's tensors of 1 KiB or more move to OUT.onnx.data beside it (`location` names it
relatively, as exporters write it), so that the zoo has a model whose weights live outside the
.onnx file.
"""
import os
import sys

import onnx


def main():
    src, dst = sys.argv[1], sys.argv[2]
    model = onnx.load(src)
    onnx.save_model(model, dst, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=os.path.basename(dst) + ".data", size_threshold=1024)


if __name__ == "__main__":
    main()
