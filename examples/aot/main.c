/* A C program using a model compiled by anvil-compile (model.h, libmodel.so):
 *   main INPUT.raw D0 D1 ... > OUTPUT.raw
 * reads one float32 input of the given dims, runs the model, writes its first output (float32)
 * to stdout. Builds with any C compiler: cc -I DIR main.c -L DIR -lmodel. */
#include <stdio.h>
#include <stdlib.h>

#include "model.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: main INPUT.raw D0 [D1 ...]\n");
    return 2;
  }
  AnvilArg input = {1, (int32_t)(argc - 2), {0}, NULL};
  size_t n = 1;
  for (int i = 2; i < argc; ++i) {
    input.dims[i - 2] = atol(argv[i]);
    n *= (size_t)input.dims[i - 2];
  }
  float* x = malloc(n * sizeof(float));
  FILE* in = fopen(argv[1], "rb");
  if (in == NULL || fread(x, sizeof(float), n, in) != n) {
    fprintf(stderr, "cannot read %zu floats from %s\n", n, argv[1]);
    return 1;
  }
  fclose(in);
  input.data = x;
  AnvilArg outputs[ANVIL_MODEL_NUM_OUTPUTS];
  char error[256];
  AnvilModel* model = anvil_model_create();
  if (anvil_model_run(model, &input, outputs, error, sizeof(error)) != 0) {
    fprintf(stderr, "run failed: %s\n", error);
    return 1;
  }
  size_t m = 1;
  for (int d = 0; d < outputs[0].rank; ++d) m *= (size_t)outputs[0].dims[d];
  fwrite(outputs[0].data, sizeof(float), m, stdout);
  for (int i = 0; i < ANVIL_MODEL_NUM_OUTPUTS; ++i) anvil_model_free_output(&outputs[i]);
  anvil_model_destroy(model);
  free(x);
  return 0;
}
