#include "constprop/gc.h"

#include <memory>

#include "constprop/constprop.h"
#include "graph/pass_manager.h"
#include "graph/text_format.h"
#include "gtest/gtest.h"

namespace anvil {
namespace {

constexpr char kModel[] = R"(<ir_version: 8, opset_import: ["" : 17]>
g (float[4] x) => (float[4] y)
<float[4] w = {1, 2, 3, 4}>
{
  t = Neg (w)
  u = Abs (t)
  y = Add (x, u)
})";

TEST(PoolPerModelTest, EachModelFoldsIntoItsOwnPool) {
  absl::StatusOr<std::unique_ptr<Model>> a = ParseModelText(kModel);
  absl::StatusOr<std::unique_ptr<Model>> b = ParseModelText(kModel);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)->FindAttachment<DisposablePool>(), nullptr);  // none until constprop needs one
  EXPECT_NE(&PoolFor(**a), &PoolFor(**b));
  EXPECT_EQ(&PoolFor(**a), &PoolFor(**a));

  absl::StatusOr<PassManager> pm = PassManager::Parse("shape-inference,constprop");
  ASSERT_TRUE(pm.ok());
  auto* gc = pm->AddInstrumentation(std::make_unique<DisposableGarbageCollector>());
  ASSERT_TRUE(pm->Run(**a).ok());
  EXPECT_GT(gc->collections(), 0);
  // Folding a touched a's pool only.
  EXPECT_GT(PoolFor(**a).stats().bytes_peak, 0);
  EXPECT_EQ(PoolFor(**b).stats().bytes_peak, 0);
  // The folded constant Abs(Neg(w)) lives in a's pool; b's stays empty whatever a does.
  EXPECT_GT(PoolFor(**a).stats().bytes_live, 0);
  a->reset();
  EXPECT_EQ(PoolFor(**b).stats().bytes_live, 0);
}

TEST(PoolPerModelTest, ACollectorWithoutAPoolDoesNothing) {
  absl::StatusOr<std::unique_ptr<Model>> m = ParseModelText(kModel);
  ASSERT_TRUE(m.ok());
  absl::StatusOr<PassManager> pm = PassManager::Parse("shape-inference");
  ASSERT_TRUE(pm.ok());
  auto* gc = pm->AddInstrumentation(std::make_unique<DisposableGarbageCollector>());
  ASSERT_TRUE(pm->Run(**m).ok());
  EXPECT_EQ(gc->collections(), 0);
  EXPECT_EQ((*m)->FindAttachment<DisposablePool>(), nullptr);
}

}  // namespace
}  // namespace anvil
