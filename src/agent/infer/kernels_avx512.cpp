// AVX-512 (F, BW, VL, VNNI) kernels (built with -mavx512*; called only when the CPU has them).
#include "agent/infer/kernel_table.h"

namespace slipstream::agent::infer::kernels::detail {

const KernelTable* avx512_table() {
    return nullptr;
}

}  // namespace slipstream::agent::infer::kernels::detail
