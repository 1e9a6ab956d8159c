/* The anvil_cc_model rule's library (examples/aot:lngelu) from C: two contexts run concurrently
 * on two threads on the same input; the outputs must have the input's dims, be finite, and be
 * identical. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "examples/aot/lngelu/model.h"

enum { kN = 2, kS = 5, kH = 768, kSize = kN * kS * kH };
static float input[kSize];

typedef struct {
  AnvilArg output;
  int rc;
  char error[256];
} Job;

static void* RunOnce(void* arg) {
  Job* job = (Job*)arg;
  AnvilArg in = {1, 3, {kN, kS, kH}, input};
  AnvilModel* model = anvil_model_create();
  job->rc = anvil_model_run(model, &in, &job->output, job->error, sizeof(job->error));
  anvil_model_destroy(model);
  return NULL;
}

int main(void) {
  for (int i = 0; i < kSize; ++i) input[i] = sinf((float)i * 0.37f) * 3.0f;
  Job jobs[2];
  memset(jobs, 0, sizeof(jobs));
  pthread_t threads[2];
  for (int t = 0; t < 2; ++t) pthread_create(&threads[t], NULL, RunOnce, &jobs[t]);
  for (int t = 0; t < 2; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < 2; ++t) {
    if (jobs[t].rc != 0) {
      printf("FAIL: run %d: %s\n", t, jobs[t].error);
      return 1;
    }
    const AnvilArg* o = &jobs[t].output;
    if (o->type != 1 || o->rank != 3 || o->dims[0] != kN || o->dims[1] != kS || o->dims[2] != kH) {
      printf("FAIL: run %d: output of type %d rank %d\n", t, o->type, o->rank);
      return 1;
    }
  }
  const float* a = (const float*)jobs[0].output.data;
  const float* b = (const float*)jobs[1].output.data;
  for (int i = 0; i < kSize; ++i) {
    if (!isfinite(a[i]) || a[i] != b[i]) {
      printf("FAIL: element %d: %g vs %g\n", i, a[i], b[i]);
      return 1;
    }
  }
  /* The residual keeps the output near the input: LayerNorm + GELU add at most a few units. */
  double diff = 0;
  for (int i = 0; i < kSize; ++i) diff += fabs(a[i] - input[i]);
  printf("ok: %d values, mean |y - x| %.4f\n", kSize, diff / kSize);
  for (int t = 0; t < 2; ++t) anvil_model_free_output(&jobs[t].output);
  return 0;
}
