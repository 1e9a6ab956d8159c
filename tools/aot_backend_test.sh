#!/usr/bin/env bash
# AOT libraries on ONNX backend tests whose nodes the library runs through Anvil's kernel host:
# control flow with subgraphs (If, Loop, Scan), data-sized outputs between nodes (NonZero),
# convolutions, pooling with indices, Resize, LRN, TopK, and gemm (MatMul, Gemm). Each model
# goes through `anvil-compile --shared`, and tools/aot_check.py runs libmodel.so on the test's
# data sets through the C API and compares the outputs.
set -uo pipefail
R="$TEST_SRCDIR/anvil"
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
DATA=/usr/include/onnx/backend/test/data/node
TESTS=(
  test_if test_loop11 test_scan9_sum test_nonzero_example
  test_conv_with_strides_and_asymmetric_padding test_convtranspose_pads
  test_maxpool_with_argmax_2d_precomputed_pads test_averagepool_2d_pads
  test_resize_upsample_scales_linear test_lrn test_top_k test_gemm_all_attributes
  test_matmul_3d test_globalaveragepool test_instancenorm_example test_gathernd_example_int32
)
failed=0
for t in "${TESTS[@]}"; do
  if ! "$R/tools/anvil-compile" "$DATA/$t/model.onnx" -o "$TMP/$t" --shared 2>"$TMP/$t.log"; then
    echo "FAIL: $t: $(grep error "$TMP/$t.log")"
    failed=1
    continue
  fi
  /usr/bin/python3 "$R/tools/aot_check.py" "$TMP/$t" "$DATA/$t" || failed=1
done
exit $failed
