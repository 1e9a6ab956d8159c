#include "lower/ir/module.h"

#include <string_view>

namespace anvil::tir {

const Function* Module::FindFunction(std::string_view name) const {
  for (const Function& f : functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

Function* Module::FindFunction(std::string_view name) {
  for (Function& f : functions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

}  // namespace anvil::tir
