// The output side shared by the parts of the ONNX text printer (private to //graph:text_format;
// text_format_values.h and text_format_graphs.h build on it): the text being written, the
// report of what the text cannot carry (PrintOptions::losses), the names values are printed
// under, quoting and comma-separated lists.
//
// Contracts:
//  - Loss(kind, example) counts one instance of a kind of loss; the first instance is the
//    example. The destructor appends one line per kind, in the order kinds were first met,
//    "<kind>: <count>, e.g. '<example>'", to options.losses when set.
//  - ValueName(name) is `name` when the parser reads it as one identifier, else a sanitized name
//    that no value of the model uses and that this writer has not handed out before; the same
//    name always gets the same printed name within one writer.
//  - Quote never fails; a string holding `"` is escaped as newer parsers read it, and reported.
#ifndef ANVIL_GRAPH_TEXT_FORMAT_WRITER_H_
#define ANVIL_GRAPH_TEXT_FORMAT_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "graph/ir.h"
#include "graph/text_format.h"

namespace anvil::text_format_internal {

// One element of a comma-separated list; `comment` forces the list onto several lines.
struct ListItem {
  std::string text;
  std::string comment;
};

class TextWriter {
 public:
  // `model` (may be null) holds the names fresh names must avoid.
  TextWriter(const Model* model, const PrintOptions& options) : model_(model), options_(options) {}
  TextWriter(const TextWriter&) = delete;
  TextWriter& operator=(const TextWriter&) = delete;
  // Hands the collected losses to options.losses.
  virtual ~TextWriter();

  // The text written so far.
  std::string& out() { return out_; }

 protected:
  const PrintOptions& options() const { return options_; }

  void Loss(const std::string& kind, absl::string_view example);

  void Indent(int n) { out_.append(n, ' '); }

  // Node inputs or outputs; an omitted slot is empty between commas (`a, , c`, `a,`).
  static std::string SlotList(const std::vector<std::string>& names);

  // Comments end at a newline, so whatever goes into one must not contain any.
  static std::string OneLine(absl::string_view s);

  std::string Quote(absl::string_view s);

  // `items` joined by ", " between `open` and `close`; one item per line (at indent + 2) when
  // `multiline` or when an item carries a comment.
  void AppendList(const std::vector<ListItem>& items, char open, char close, int indent,
                  bool multiline = false);

  std::string ValueName(const std::string& name);

  // `base`, or `base_1`, `base_2`, ...: the first that no value of the model uses and that this
  // writer has not handed out.
  std::string FreshName(const std::string& base);

 private:
  struct LossInfo {
    int64_t count = 0;
    std::string example;
  };

  const Model* model_;
  const PrintOptions& options_;
  std::string out_;
  absl::flat_hash_map<std::string, std::string> renamed_;
  absl::flat_hash_set<std::string> assigned_;
  absl::flat_hash_map<std::string, LossInfo> losses_;
  std::vector<std::string> loss_order_;
};

}  // namespace anvil::text_format_internal

#endif  // ANVIL_GRAPH_TEXT_FORMAT_WRITER_H_
