// The textual pass pipeline shared by the graph's PassManager (pass_manager.h) and the Tensor
// IR's (lower/passes/tir_pass_manager.h): one parser, one printer, whatever IR the passes rewrite.
//
// Grammar (whitespace between tokens is ignored):
//   pipeline := [ pass { "," pass } ]
//   pass     := NAME [ "{" [ option { "," option } ] "}" ]
//   option   := NAME "=" value
//   value    := bare | '"' chars '"'          (in quotes \" and \\ escape)
//   bare     := item { "," item }             (a "," followed by `NAME =` starts the next option)
//   item     := { bare-char | "{" balanced "}" }+
// NAME is [A-Za-z0-9_.-]+; a bare char is any character other than blanks and , { } = " and \.
// Braces inside a bare value nest, so an option may hold a pipeline of its own without quotes:
// `lower-to-tir{pipeline=fuse,tile-rows{tile-bytes=98304},mark-loops,tile-bytes=4096}` gives
// lower-to-tir the options pipeline (`fuse,tile-rows{tile-bytes=98304},mark-loops`) and
// tile-bytes.
//
// Printing is canonical: no blanks, only options that differ from their defaults, in
// declaration order, `{}` omitted, values bare whenever they read back as the same bare value;
// parsing the printed text gives the same pipeline and printing it again the same text.
#ifndef ANVIL_GRAPH_PIPELINE_TEXT_H_
#define ANVIL_GRAPH_PIPELINE_TEXT_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/status_macros.h"
#include "graph/pass_options.h"

namespace anvil {

struct PassOptionSpec {
  std::string key;
  std::string value;
  size_t column;  // 1-based, of the key
};

// One pass of a pipeline as written: its name and option texts.
struct PassSpec {
  std::string name;
  size_t column;  // 1-based
  std::vector<PassOptionSpec> options;
};

// Parses pipeline text. InvalidArgument on a syntax error, one line: "invalid pass pipeline at
// column C: <what> in '<text>'".
absl::StatusOr<std::vector<PassSpec>> ParsePipelineText(std::string_view text);

// Parses `text` and creates its passes with `create` (a registry's CreatePass: the pass named so
// with default options, or an error), setting each pass's options. Errors are InvalidArgument:
// syntax, an unknown pass (the registry's message), an unknown option or a bad value.
template <typename PassT>
absl::StatusOr<std::vector<std::unique_ptr<PassT>>> CreatePipelinePasses(
    std::string_view text,
    const std::function<absl::StatusOr<std::unique_ptr<PassT>>(std::string_view)>& create) {
  ANVIL_ASSIGN_OR_RETURN(std::vector<PassSpec> specs, ParsePipelineText(text));
  std::vector<std::unique_ptr<PassT>> created;
  for (const PassSpec& spec : specs) {
    absl::StatusOr<std::unique_ptr<PassT>> pass = create(spec.name);
    // The registry reports NotFound; for a pipeline the text is what is wrong.
    if (!pass.ok()) return absl::InvalidArgumentError(pass.status().message());
    for (const PassOptionSpec& option : spec.options) {
      ANVIL_RETURN_IF_ERROR((*pass)->SetOption(option.key, option.value));
    }
    created.push_back(*std::move(pass));
  }
  return created;
}

// Canonical text of a pipeline of passes: their ToPipelineText() joined by ",".
template <typename PassT>
std::string PipelineToText(const std::vector<std::unique_ptr<PassT>>& passes) {
  std::string out;
  for (const auto& pass : passes) {
    if (!out.empty()) out += ",";
    out += static_cast<const PassBase&>(*pass).ToPipelineText();
  }
  return out;
}

}  // namespace anvil

#endif  // ANVIL_GRAPH_PIPELINE_TEXT_H_
