// libanvil_aot_host.so: the kernel host's C API (aot_host.h) as a shared library. Nothing in the
// library calls the API, so this table keeps the linker from dropping it.
#include "lower/emit/aot_host.h"

extern "C" __attribute__((used, visibility("default"))) void* const anvil_aot_host_exports[] = {
    reinterpret_cast<void*>(&anvil_aot_packed_weights_create),
    reinterpret_cast<void*>(&anvil_aot_packed_weights_destroy),
    reinterpret_cast<void*>(&anvil_aot_host_create),
    reinterpret_cast<void*>(&anvil_aot_host_destroy),
    reinterpret_cast<void*>(&anvil_aot_host_kernel),
    reinterpret_cast<void*>(&anvil_aot_host_begin_run),
    reinterpret_cast<void*>(&anvil_aot_host_end_run),
    reinterpret_cast<void*>(&anvil_aot_host_parallel_for),
    reinterpret_cast<void*>(&anvil_aot_host_gemm),
};
