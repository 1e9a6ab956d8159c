/* The anvil_cc_model rule's library (examples/aot:lngelu) from C: two contexts run concurrently
 * on two threads on the same input; the outputs must have the input's dims, be finite, and be
 * identical. */
#include <math.h>
#include <stdio.h>

#include "examples/aot/lngelu/model.h"
#include "examples/aot/two_contexts.h"

enum { kN = 2, kS = 5, kH = 768, kSize = kN * kS * kH };
static float input[kSize];

int main(void) {
  for (int i = 0; i < kSize; ++i) input[i] = sinf((float)i * 0.37f) * 3.0f;
  const AnvilArg in = {1, 3, {kN, kS, kH}, input};
  const int64_t dims[] = {kN, kS, kH};
  ContextJob jobs[2];
  if (RunTwoContexts(&in, 1, dims, 3, jobs) != 0) return 1;
  const float* a = (const float*)jobs[0].output.data;
  /* The residual keeps the output near the input: LayerNorm + GELU add at most a few units. */
  double diff = 0;
  for (int i = 0; i < kSize; ++i) diff += fabs(a[i] - input[i]);
  printf("ok: %d values, mean |y - x| %.4f\n", kSize, diff / kSize);
  for (int t = 0; t < 2; ++t) anvil_model_free_output(&jobs[t].output);
  return 0;
}
