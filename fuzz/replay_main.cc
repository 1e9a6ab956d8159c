// main() for fuzz targets outside libFuzzer: runs every file named on the command line, or found
// (recursively) under a directory named there, through LLVMFuzzerTestOneInput once. Files are run
// in sorted order; prints how many, and which file it is on (so a crash names its input).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_target.h"

int main(int argc, char** argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path path(argv[i]);
    if (argv[i][0] == '-') continue;  // libFuzzer flags mean nothing here
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(path)) {
        if (entry.is_regular_file()) files.push_back(entry.path().string());
      }
    } else {
      files.push_back(path.string());
    }
  }
  std::sort(files.begin(), files.end());
  const bool verbose = std::getenv("ANVIL_REPLAY_VERBOSE") != nullptr;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    if (verbose) std::fprintf(stderr, "replay: %s\n", file.c_str());
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  }
  std::printf("replayed %zu inputs\n", files.size());
  return 0;
}

// libFuzzer's byte mutator, for custom mutators; never called when replaying.
extern "C" size_t LLVMFuzzerMutate(uint8_t* /*data*/, size_t size, size_t /*max_size*/) {
  return size;
}
