/* The harness both anvil_cc_model tests share: two contexts of one AOT library run the same
 * input concurrently on two threads, each `runs` times (later runs reuse the context's kernels
 * and workspace), and their first outputs must have the expected dims and be finite and
 * identical. Include after the library's model.h. */
#ifndef ANVIL_EXAMPLES_AOT_TWO_CONTEXTS_H_
#define ANVIL_EXAMPLES_AOT_TWO_CONTEXTS_H_

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const AnvilArg* input;
  int runs;
  AnvilArg output;
  int rc;
  char error[256];
} ContextJob;

static void* RunContext(void* arg) {
  ContextJob* job = (ContextJob*)arg;
  AnvilModel* model = anvil_model_create();
  for (int r = 0; r < job->runs && job->rc == 0; ++r) {
    if (r > 0) anvil_model_free_output(&job->output);
    job->rc = anvil_model_run(model, job->input, &job->output, job->error, sizeof(job->error));
  }
  anvil_model_destroy(model);
  return NULL;
}

/* Runs the two contexts and checks their outputs against `dims` (rank of them); on success
 * returns 0 with jobs[0..1].output to free, else prints FAIL and returns 1. */
static int RunTwoContexts(const AnvilArg* input, int runs, const int64_t* dims, int rank,
                          ContextJob jobs[2]) {
  memset(jobs, 0, 2 * sizeof(ContextJob));
  pthread_t threads[2];
  for (int t = 0; t < 2; ++t) {
    jobs[t].input = input;
    jobs[t].runs = runs;
    pthread_create(&threads[t], NULL, RunContext, &jobs[t]);
  }
  for (int t = 0; t < 2; ++t) pthread_join(threads[t], NULL);
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) count *= dims[d];
  for (int t = 0; t < 2; ++t) {
    if (jobs[t].rc != 0) {
      printf("FAIL: run %d: %s\n", t, jobs[t].error);
      return 1;
    }
    const AnvilArg* o = &jobs[t].output;
    int same_dims = o->type == 1 && o->rank == rank;
    for (int d = 0; same_dims && d < rank; ++d) same_dims = o->dims[d] == dims[d];
    if (!same_dims) {
      printf("FAIL: run %d: output of type %d rank %d\n", t, o->type, o->rank);
      return 1;
    }
  }
  const float* a = (const float*)jobs[0].output.data;
  const float* b = (const float*)jobs[1].output.data;
  for (int64_t i = 0; i < count; ++i) {
    if (!isfinite(a[i]) || a[i] != b[i]) {
      printf("FAIL: element %lld: %g vs %g\n", (long long)i, a[i], b[i]);
      return 1;
    }
  }
  return 0;
}

#endif /* ANVIL_EXAMPLES_AOT_TWO_CONTEXTS_H_ */
