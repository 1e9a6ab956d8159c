#include "lower/passes/tir_pass_manager.h"

#include "graph/pass_manager_base.inc"

namespace anvil {
template class PassManagerBase<tir::Module, tir::Pass>;
}  // namespace anvil

namespace anvil::tir {

PassManager::PassManager() : PassManagerBase(CreatePass) {}

}  // namespace anvil::tir
