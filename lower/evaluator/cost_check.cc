#include "lower/evaluator/cost_check.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "runtime/session.h"

namespace anvil::lower {

namespace {

constexpr char kCostCheckHeader[] = "anvil cost check 1";

}  // namespace

absl::flat_hash_set<std::string> NodesSlowerThanKernels(
    const std::vector<EmittedModule::Group>& groups, const GroupProfile& profile,
    const absl::flat_hash_map<std::string, double>& kernel_seconds,
    const absl::flat_hash_set<std::string>& view_nodes, CostCheckStats* stats) {
  absl::flat_hash_set<std::string> slower;
  for (size_t g = 0; g < groups.size() && g < profile.group_seconds.size(); ++g) {
    const EmittedModule::Group& group = groups[g];
    if (!group.emitted_work) continue;
    double kernels = 0;
    bool any = false;
    for (const std::string& node : group.nodes) {
      auto it = kernel_seconds.find(node);
      if (it == kernel_seconds.end()) continue;
      kernels += it->second;
      any |= !view_nodes.contains(node);
    }
    if (!any) continue;  // nothing a kernel would run instead (views, constants)
    ++stats->groups;
    if (profile.group_seconds[g] <= kernels * kCostCheckSlack + kCostCheckFloorSeconds) continue;
    ++stats->slower;
    for (const std::string& node : group.nodes) {
      if (!view_nodes.contains(node) && kernel_seconds.contains(node)) slower.insert(node);
    }
  }
  return slower;
}

absl::StatusOr<std::unique_ptr<KernelTimer>> KernelTimer::Load(const Model& model, int threads) {
  SessionOptions options;
  options.pipeline = "";  // the model is prepared already
  options.threads = threads;
  options.profile = true;
  // The weights are the compiled module's too: the interpreter packs its own copies.
  options.release_packed_weights = false;
  std::unique_ptr<KernelTimer> timer(new KernelTimer());
  ANVIL_ASSIGN_OR_RETURN(timer->session_, Session::Load(model.Clone(), options));
  return timer;
}

KernelTimer::~KernelTimer() = default;

absl::StatusOr<double> KernelTimer::Run(const absl::flat_hash_map<std::string, Tensor>& inputs,
                                        absl::flat_hash_map<std::string, double>* least) {
  session_->ResetProfile();
  ANVIL_RETURN_IF_ERROR(session_->Run(inputs).status());
  int64_t total = 0;
  for (const NodeProfile& p : session_->NodeProfiles()) {
    total += p.total_nanos;
    if (p.output.empty()) continue;
    const double s = p.total_nanos * 1e-9;
    auto [it, inserted] = least->try_emplace(p.output, s);
    if (!inserted) it->second = std::min(it->second, s);
  }
  return total * 1e-9;
}

void KeepLeast(const GroupProfile& run, GroupProfile* least) {
  if (least->run_seconds <= 0) {  // nothing folded yet
    *least = run;
    return;
  }
  least->run_seconds = std::min(least->run_seconds, run.run_seconds);
  for (size_t g = 0; g < least->group_seconds.size() && g < run.group_seconds.size(); ++g) {
    least->group_seconds[g] = std::min(least->group_seconds[g], run.group_seconds[g]);
  }
}

std::string CostCheckPath(const std::string& library, const std::vector<Tensor>& inputs,
                          int threads) {
  std::string key = absl::StrCat("threads ", threads);
  for (const Tensor& t : inputs) {
    absl::StrAppend(&key, "; ", static_cast<int>(t.type()), " [", absl::StrJoin(t.dims(), ","),
                    "]");
  }
  return absl::StrCat(library, ".kernels-", JitCacheHash(key));
}

std::optional<std::vector<std::string>> ReadCostCheck(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line) || line != kCostCheckHeader) return std::nullopt;
  std::vector<std::string> nodes;
  while (std::getline(in, line)) {
    if (!line.empty()) nodes.push_back(line);
  }
  return nodes;
}

absl::Status WriteCostCheck(const std::string& path, const std::vector<std::string>& nodes) {
  const std::string temp = absl::StrCat(path, ".", getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << kCostCheckHeader << "\n";
    for (const std::string& n : nodes) out << n << "\n";
    if (!out.flush()) return absl::DataLossError(absl::StrCat("cannot write '", temp, "'"));
  }
  std::error_code error;
  std::filesystem::rename(temp, path, error);
  if (error) return absl::DataLossError(absl::StrCat("cannot store '", path, "'"));
  return absl::OkStatus();
}

}  // namespace anvil::lower
