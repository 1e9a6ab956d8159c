/* The anvil_cc_model rule's library of the generated CNN (examples/aot:cnn), whose Conv and
 * pooling nodes run Anvil's kernels through the kernel host: two contexts run concurrently on
 * two threads on the same batch; the [N, 10] outputs must be finite, identical, and differ
 * between images; one context gives the same scores across batch sizes; an input of the wrong
 * channel count is an error naming the input. The values
 * themselves are checked against anvil-run by //tools:anvil_compile_test. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "examples/aot/cnn/model.h"
#include "examples/aot/two_contexts.h"

enum { kN = 3, kC = 3, kH = 32, kW = 32, kSize = kN * kC * kH * kW, kClasses = 10 };
static float input[kSize];

int main(void) {
  for (int i = 0; i < kSize; ++i) input[i] = sinf((float)i * 0.011f) + 0.25f * cosf((float)i);
  const AnvilArg in = {1, 4, {kN, kC, kH, kW}, input};
  const int64_t dims[] = {kN, kClasses};
  ContextJob jobs[2];
  /* Two runs per context: the second reuses the context's kernels (created by the first). */
  if (RunTwoContexts(&in, 2, dims, 2, jobs) != 0) return 1;
  const float* a = (const float*)jobs[0].output.data;
  double spread = 0;
  for (int i = 0; i < kClasses; ++i) spread += fabs(a[i] - a[kClasses + i]);
  if (spread == 0) {
    printf("FAIL: images 0 and 1 give the same scores\n");
    return 1;
  }

  /* One context across batch sizes: its workspace is re-planned for each (buffers that are not
   * live together share bytes), so a stale plan would overlap live buffers. Batch 1 gives image
   * 0's scores (to rounding: the GEMM's blocking may depend on the batch), batch 3 again the
   * first run's bits. */
  AnvilModel* one = anvil_model_create();
  for (int n = 1; n <= kN; n += kN - 1) {
    AnvilArg in = {1, 4, {n, kC, kH, kW}, input};
    AnvilArg out;
    char message[256] = "";
    if (anvil_model_run(one, &in, &out, message, sizeof(message)) != 0) {
      printf("FAIL: batch %d: %s\n", n, message);
      return 1;
    }
    const float* got = (const float*)out.data;
    for (int i = 0; i < n * kClasses; ++i) {
      if (n == kN ? got[i] != a[i] : fabsf(got[i] - a[i]) > 1e-5f * (1.0f + fabsf(a[i]))) {
        printf("FAIL: batch %d, element %d: %g vs %g\n", n, i, got[i], a[i]);
        return 1;
      }
    }
    anvil_model_free_output(&out);
  }
  anvil_model_destroy(one);
  for (int t = 0; t < 2; ++t) anvil_model_free_output(&jobs[t].output);

  AnvilArg bad = {1, 4, {kN, 4, kH, kW}, input};
  AnvilArg out[ANVIL_MODEL_NUM_OUTPUTS];
  char error[256] = "";
  AnvilModel* model = anvil_model_create();
  const int rc = anvil_model_run(model, &bad, out, error, sizeof(error));
  anvil_model_destroy(model);
  if (rc == 0 || strstr(error, "x") == NULL) {
    printf("FAIL: 4 channels: rc %d, error '%s'\n", rc, error);
    return 1;
  }
  printf("ok: %d scores agree across contexts; 4 channels: %s\n", kN * kClasses, error);
  return 0;
}
