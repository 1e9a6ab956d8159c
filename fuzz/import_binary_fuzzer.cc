// Fuzzes the binary ONNX importer: any bytes either fail to parse or import, or give a model that
// the verifier judges and the exporter writes back. Never a crash, hang or huge allocation.
#include <string>

#include "fuzz/fuzz_target.h"
#include "graph/onnx_export.h"
#include "graph/onnx_import.h"
#include "graph/verifier.h"
#include "onnx/onnx_pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  onnx::ModelProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<std::unique_ptr<anvil::Model>> model = anvil::ImportModelProto(proto, {});
  if (!model.ok()) return 0;
  if (!anvil::VerifyModel(**model).ok()) return 0;
  onnx::ModelProto out;
  (void)anvil::ExportModelProto(**model, &out);
  return 0;
}
