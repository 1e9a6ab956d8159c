#include "graph/pass_reports.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace anvil {

// ---- PassTimingReport ----

absl::Duration PassTimingReport::total() const {
  absl::Duration sum;
  for (const Entry& e : entries_) sum += e.wall;
  return sum;
}

void PassTimingReport::Record(const PassBase& pass, bool changed, bool failed) {
  entries_.push_back({pass.ToPipelineText(), now_() - start_, changed, failed});
}

void PassTimingReport::PrintReport(std::ostream& os) const {
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

// ---- PassStatisticsReport ----

int64_t PassStatisticsReport::Get(std::string_view pass, std::string_view statistic) const {
  for (const PassStatistics& p : statistics_) {
    if (p.pass != pass) continue;
    for (const auto& [name, value] : p.values) {
      if (name == statistic) return value;
    }
  }
  return 0;
}

void PassStatisticsReport::Add(const PassBase& pass, const PassContext& ctx) {
  if (ctx.statistics().empty() && ctx.remarks().empty()) return;
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
}

void PassStatisticsReport::PrintReport(std::ostream& os) const {
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

// ---- PrintIrOptions ----

bool PrintIrOptions::PrintsBefore(std::string_view pass) const {
  return before_all || std::find(before.begin(), before.end(), pass) != before.end();
}

bool PrintIrOptions::PrintsAfter(std::string_view pass) const {
  return after_all || std::find(after.begin(), after.end(), pass) != after.end();
}

}  // namespace anvil
