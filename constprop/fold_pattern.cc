#include "constprop/fold_pattern.h"

namespace anvil {

std::vector<std::unique_ptr<FoldPattern>> DefaultFoldPatterns() {
  std::vector<std::unique_ptr<FoldPattern>> patterns;
  patterns.push_back(MakeInlineIfPattern());
  patterns.push_back(MakeSequencePattern());
  patterns.push_back(MakeEvaluatePattern());
  patterns.push_back(MakeShapeSizePattern());
  patterns.push_back(MakeIdentityPattern());
  patterns.push_back(MakeReassociatePattern());
  return patterns;
}

}  // namespace anvil
