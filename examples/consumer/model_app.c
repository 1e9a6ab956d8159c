/* A C program of this workspace using a model compiled by @anvil's anvil_cc_model rule. */
#include <math.h>
#include <stdio.h>

#include "tiny/model.h"

int main(void) {
  float x[8] = {1, 2, 3, 4, -1, -2, -3, -4};
  const float w[4] = {0.5f, -1, 2, 0.25f};
  AnvilArg in = {1, 2, {2, 4}, x};
  AnvilArg out;
  char error[256];
  AnvilModel* model = anvil_model_create();
  if (anvil_model_run(model, &in, &out, error, sizeof(error)) != 0) {
    printf("model_app: %s\n", error);
    return 1;
  }
  const float* y = (const float*)out.data;
  for (int i = 0; i < 8; ++i) {
    const float want = tanhf(x[i] * w[i % 4]) + x[i];
    if (fabsf(y[i] - want) > 1e-5f) {
      printf("model_app: y[%d] = %g, want %g\n", i, y[i], want);
      return 1;
    }
  }
  printf("model_app: tiny.onnxtxt compiled by anvil_cc_model, 8 outputs correct\n");
  anvil_model_free_output(&out);
  anvil_model_destroy(model);
  return 0;
}
