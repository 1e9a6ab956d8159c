#include "einsum/planner.h"

#include "gtest/gtest.h"
namespace anvil::einsum {
namespace {
TEST(PlannerTest, Placeholder) {}
}  // namespace
}  // namespace anvil::einsum
