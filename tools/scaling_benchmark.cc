// How Anvil's whole-model work grows with the number of nodes: import of a binary .onnx, the
// verifier, the default pipeline (tools/default_model.h) and export, on generated models of
// 10k, 100k and 1M nodes, each size in its own child process (so that its peak RSS is its own).
//
//   bazel run -c opt //tools:scaling_benchmark [-- --max-nodes=N]
//
// Models: `chain`, a straight line of Relu; `wide`, N Relu reading one input (identical: cse
// folds them into one) summed by a balanced tree of Add. Prints milliseconds per phase, µs per
// node, the growth of the total from the previous size (linear: 10x) and the peak RSS.
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "graph/onnx_export.h"
#include "graph/onnx_import.h"
#include "graph/pass_manager.h"
#include "graph/verifier.h"
#include "onnx/onnx_pb.h"
#include "tools/default_model.h"

namespace anvil {
namespace {

onnx::ValueInfoProto* Input(onnx::GraphProto* g, const std::string& name) {
  onnx::ValueInfoProto* v = g->add_input();
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  t->mutable_shape()->add_dim()->set_dim_value(4);
  return v;
}

void AddNode(onnx::GraphProto* g, const char* op, std::vector<std::string> inputs,
             const std::string& output) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  for (std::string& in : inputs) n->add_input(std::move(in));
  n->add_output(output);
}

// Writes the model with `nodes` nodes (about) to `path`.
void WriteModel(const std::string& kind, int64_t nodes, const std::string& path) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name(kind);
  Input(g, "x");
  std::string last;
  if (kind == "chain") {
    last = "x";
    for (int64_t i = 0; i < nodes; ++i) {
      const std::string out = absl::StrCat("v", i);
      AddNode(g, "Relu", {last}, out);
      last = out;
    }
  } else {
    std::vector<std::string> level;
    for (int64_t i = 0; i < nodes / 2; ++i) {
      level.push_back(absl::StrCat("r", i));
      AddNode(g, "Relu", {"x"}, level.back());
    }
    int64_t id = 0;
    while (level.size() > 1) {
      std::vector<std::string> next;
      for (size_t k = 0; k + 1 < level.size(); k += 2) {
        next.push_back(absl::StrCat("s", id++));
        AddNode(g, "Add", {level[k], level[k + 1]}, next.back());
      }
      if (level.size() % 2 == 1) next.push_back(level.back());
      level = std::move(next);
    }
    last = level[0];
  }
  onnx::ValueInfoProto* out = g->add_output();
  out->set_name(last);
  std::ofstream file(path, std::ios::binary);
  m.SerializeToOstream(&file);
}

double Ms(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since)
      .count();
}

// Runs one size in this (child) process; prints "import verify passes export" in ms.
int RunOne(const std::string& path, const std::string& out) {
  auto t = std::chrono::steady_clock::now();
  absl::StatusOr<std::unique_ptr<Model>> model = ImportModelFile(path);
  if (!model.ok()) {
    std::fprintf(stderr, "import: %s\n", std::string(model.status().message()).c_str());
    return 1;
  }
  const double import_ms = Ms(t);
  t = std::chrono::steady_clock::now();
  if (absl::Status s = VerifyModel(**model); !s.ok()) {
    std::fprintf(stderr, "verify: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  const double verify_ms = Ms(t);
  t = std::chrono::steady_clock::now();
  absl::StatusOr<PassManager> pm = PassManager::Parse(kDefaultPipeline);
  if (!pm.ok() || !pm->Run(**model).ok()) {
    std::fprintf(stderr, "pipeline failed\n");
    return 1;
  }
  const double passes_ms = Ms(t);
  t = std::chrono::steady_clock::now();
  if (absl::Status s = ExportModelFile(**model, out); !s.ok()) {
    std::fprintf(stderr, "export: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  const double export_ms = Ms(t);
  (void)model->release();  // the process ends: freeing is not part of the work measured
  std::printf("%.1f %.1f %.1f %.1f\n", import_ms, verify_ms, passes_ms, export_ms);
  return 0;
}

int Main(int argc, char** argv) {
  int64_t max_nodes = 1000000;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--max-nodes=", 0) == 0 && absl::SimpleAtoi(arg.substr(12), &max_nodes)) {
      continue;
    }
    std::fprintf(stderr, "usage: scaling_benchmark [--max-nodes=N]\n");
    return 2;
  }
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / absl::StrCat("anvil_scaling_", getpid());
  std::filesystem::create_directories(dir);
  std::printf("%-6s %9s %9s %9s %9s %9s %9s %8s %7s %9s\n", "model", "nodes", "import", "verify",
              "passes", "export", "total ms", "us/node", "growth", "peak RSS");
  for (const std::string kind : {"chain", "wide"}) {
    double previous = 0;
    for (int64_t nodes = 10000; nodes <= max_nodes; nodes *= 10) {
      const std::string path = (dir / absl::StrCat(kind, nodes, ".onnx")).string();
      WriteModel(kind, nodes, path);
      malloc_trim(0);  // a child starts with our resident pages: keep them few
      int pipe_fds[2];
      if (pipe(pipe_fds) != 0) return 1;
      std::fflush(stdout);  // or the child would write our buffered lines too
      const pid_t child = fork();
      if (child == 0) {
        dup2(pipe_fds[1], STDOUT_FILENO);
        close(pipe_fds[0]);
        const int code = RunOne(path, (dir / "out.onnx").string());
        std::fflush(stdout);
        std::_Exit(code);
      }
      close(pipe_fds[1]);
      char buffer[256] = {};
      const ssize_t n = read(pipe_fds[0], buffer, sizeof(buffer) - 1);
      close(pipe_fds[0]);
      int status = 0;
      struct rusage usage = {};
      wait4(child, &status, 0, &usage);
      double import_ms, verify_ms, passes_ms, export_ms;
      if (n <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
          std::sscanf(buffer, "%lf %lf %lf %lf", &import_ms, &verify_ms, &passes_ms, &export_ms) !=
              4) {
        std::printf("%-6s %9lld failed\n", kind.c_str(), static_cast<long long>(nodes));
        continue;
      }
      const double total = import_ms + verify_ms + passes_ms + export_ms;
      const std::string growth = previous > 0 ? absl::StrCat(total / previous) : "-";
      std::printf("%-6s %9lld %9.1f %9.1f %9.1f %9.1f %9.1f %8.2f %7.7s %6.0f MiB\n", kind.c_str(),
                  static_cast<long long>(nodes), import_ms, verify_ms, passes_ms, export_ms, total,
                  total * 1000 / nodes, growth.c_str(), usage.ru_maxrss / 1024.0);
      std::fflush(stdout);
      previous = total;
      std::filesystem::remove(path);
    }
  }
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace anvil

int main(int argc, char** argv) { return anvil::Main(argc, argv); }
