// The libFuzzer entry points every target in fuzz/ defines. Built with --config=fuzz (clang-15,
// -fsanitize=fuzzer), libFuzzer supplies main() and mutates; in the ordinary build,
// replay_main.cc supplies a main() that runs the given files and directories once each, so the
// seed corpus and every crash found (fuzz/regressions/) are regression tests of `bazel test`.
#ifndef ANVIL_FUZZ_FUZZ_TARGET_H_
#define ANVIL_FUZZ_FUZZ_TARGET_H_

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// Optional (weak): a target-specific mutator (model_fuzzer.cc).
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed);

#endif  // ANVIL_FUZZ_FUZZ_TARGET_H_
