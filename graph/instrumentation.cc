#include "graph/instrumentation.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "base/absl_compat.h"
#include "base/status_macros.h"
#include "graph/text_format.h"
#include "graph/verifier.h"

namespace anvil {
namespace {

std::string PassLabel(const Pass& pass) {
  std::string options = pass.OptionsToString();
  if (options.empty()) return std::string(pass.name());
  return absl::StrCat(AsAbsl(pass.name()), "{", options, "}");
}

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

// ---- TimingInstrumentation ----

absl::Duration TimingInstrumentation::total() const {
  absl::Duration sum;
  for (const Entry& e : entries_) sum += e.wall;
  return sum;
}

absl::Status TimingInstrumentation::RunBeforePass(const Pass& pass, Model& model) {
  start_ = now_();
  return absl::OkStatus();
}

absl::Status TimingInstrumentation::RunAfterPass(const Pass& pass, Model& model,
                                                 const PassContext& ctx, bool changed) {
  Record(pass, changed, /*failed=*/false);
  return absl::OkStatus();
}

void TimingInstrumentation::RunAfterPassFailed(const Pass& pass, Model& model,
                                               const absl::Status& status) {
  Record(pass, /*changed=*/false, /*failed=*/true);
}

void TimingInstrumentation::Record(const Pass& pass, bool changed, bool failed) {
  entries_.push_back({PassLabel(pass), now_() - start_, changed, failed});
}

void TimingInstrumentation::PrintReport(std::ostream& os) const {
  size_t width = std::string_view("Total").size();
  for (const Entry& e : entries_) width = std::max(width, e.pass.size());
  const double total_ms = absl::ToDoubleMilliseconds(total());
  auto percent = [&](double ms) { return total_ms > 0 ? 100.0 * ms / total_ms : 0.0; };

  os << "===----- Pass execution timing report -----===\n";
  os << absl::StrFormat("%-*s  %10s  %7s  %s\n", width, "Pass", "Wall (ms)", "% total", "Changed");
  for (const Entry& e : entries_) {
    const double ms = absl::ToDoubleMilliseconds(e.wall);
    os << absl::StrFormat("%-*s  %10.3f  %6.1f%%  %s\n", width, e.pass, ms, percent(ms),
                          e.failed ? "failed" : (e.changed ? "yes" : "no"));
  }
  // With no entries the total is 0 and its share is shown as 100% only when
  // there is time.
  os << absl::StrFormat("%-*s  %10.3f  %6.1f%%\n", width, "Total", total_ms,
                        total_ms > 0 ? 100.0 : 0.0);
}

// ---- VerifierInstrumentation ----

absl::Status VerifierInstrumentation::RunAfterPass(const Pass& pass, Model& model,
                                                   const PassContext& ctx, bool changed) {
  if (!changed && !verify_unchanged_) return absl::OkStatus();
  std::vector<std::string> found;
  ANVIL_RETURN_IF_ERROR(VerifyModel(model, &found));
  for (std::string& warning : found) {
    if (seen_.insert(warning).second) warnings_.push_back(std::move(warning));
  }
  return absl::OkStatus();
}

// ---- PrintIrInstrumentation ----

std::unique_ptr<PrintIrInstrumentation> PrintIrInstrumentation::AfterAll(std::ostream& os) {
  Options options;
  options.after_all = true;
  return std::make_unique<PrintIrInstrumentation>(os, std::move(options));
}

std::unique_ptr<PrintIrInstrumentation> PrintIrInstrumentation::AfterPasses(
    std::ostream& os, std::vector<std::string> passes) {
  Options options;
  options.after = std::move(passes);
  return std::make_unique<PrintIrInstrumentation>(os, std::move(options));
}

bool PrintIrInstrumentation::PrintsAfter(const Pass& pass) const {
  return options_.after_all || Contains(options_.after, pass.name());
}

absl::Status PrintIrInstrumentation::RunBeforePass(const Pass& pass, Model& model) {
  if (options_.before_all || Contains(options_.before, pass.name())) {
    Dump(absl::StrCat("// ----- IR before ", AsAbsl(pass.name()), " -----"), model);
  }
  return absl::OkStatus();
}

absl::Status PrintIrInstrumentation::RunAfterPass(const Pass& pass, Model& model,
                                                  const PassContext& ctx, bool changed) {
  if (PrintsAfter(pass) && (changed || !options_.only_if_changed)) {
    Dump(absl::StrCat("// ----- IR after ", AsAbsl(pass.name()), " -----"), model);
  }
  return absl::OkStatus();
}

void PrintIrInstrumentation::RunAfterPassFailed(const Pass& pass, Model& model,
                                                const absl::Status& status) {
  if (options_.after_failure && PrintsAfter(pass)) {
    Dump(absl::StrCat("// ----- IR after ", AsAbsl(pass.name()), " (failed) -----"), model);
  }
}

void PrintIrInstrumentation::Dump(std::string_view header, const Model& model) {
  std::string text = PrintModel(model);
  os_ << header << "\n" << text;
  if (text.empty() || text.back() != '\n') os_ << "\n";
}

// ---- StatisticsInstrumentation ----

int64_t StatisticsInstrumentation::Get(std::string_view pass, std::string_view statistic) const {
  for (const PassStatistics& p : statistics_) {
    if (p.pass != pass) continue;
    for (const auto& [name, value] : p.values) {
      if (name == statistic) return value;
    }
  }
  return 0;
}

absl::Status StatisticsInstrumentation::RunAfterPass(const Pass& pass, Model& model,
                                                     const PassContext& ctx, bool changed) {
  if (ctx.statistics().empty() && ctx.remarks().empty()) return absl::OkStatus();
  auto it = std::find_if(statistics_.begin(), statistics_.end(),
                         [&](const PassStatistics& p) { return p.pass == pass.name(); });
  if (it == statistics_.end()) {
    statistics_.push_back({std::string(pass.name()), {}});
    it = statistics_.end() - 1;
  }
  for (const auto& statistic : ctx.statistics()) {
    const auto& [name, delta] = statistic;
    // A named reference, not the binding: clang 15 cannot capture structured bindings.
    const auto& key = statistic.first;
    auto value = std::find_if(it->values.begin(), it->values.end(),
                              [&](const auto& v) { return v.first == key; });
    if (value == it->values.end()) {
      it->values.emplace_back(name, delta);
    } else {
      value->second += delta;
    }
  }
  it->remarks.insert(it->remarks.end(), ctx.remarks().begin(), ctx.remarks().end());
  return absl::OkStatus();
}

void StatisticsInstrumentation::PrintReport(std::ostream& os) const {
  size_t pass_width = std::string_view("Pass").size();
  size_t stat_width = std::string_view("Statistic").size();
  size_t value_width = std::string_view("Value").size();
  for (const PassStatistics& p : statistics_) {
    pass_width = std::max(pass_width, p.pass.size());
    for (const auto& [name, value] : p.values) {
      stat_width = std::max(stat_width, name.size());
      value_width = std::max(value_width, absl::StrCat(value).size());
    }
  }
  os << "===----- Pass statistics report -----===\n";
  if (statistics_.empty()) {
    os << "(no statistics)\n";
    return;
  }
  os << absl::StrFormat("%-*s  %-*s  %*s\n", pass_width, "Pass", stat_width, "Statistic",
                        value_width, "Value");
  for (const PassStatistics& p : statistics_) {
    for (const auto& [name, value] : p.values) {
      os << absl::StrFormat("%-*s  %-*s  %*d\n", pass_width, p.pass, stat_width, name, value_width,
                            value);
    }
  }
  bool header = false;
  for (const PassStatistics& p : statistics_) {
    for (size_t i = 0; i < p.remarks.size(); ++i) {
      if (!header) os << "remarks:\n";
      header = true;
      if (i == kMaxRemarksShown) {
        os << "  " << p.pass << ": ... and " << p.remarks.size() - i << " more\n";
        break;
      }
      os << "  " << p.pass << ": " << p.remarks[i] << "\n";
    }
  }
}

}  // namespace anvil
