// SPDX-License-Identifier: Apache-2.0
#pragma once

// NEUROBENCH_WIDEST_VECTORS before a function's definition compiles it for AVX-512 and AVX2
// beside the baseline, the widest the CPU has chosen when the library loads (GCC's function
// multi-versioning, `target_clones`). For the counting loops the hooks run at every call, which
// the compiler vectorises: 2.4x faster than SSE2 alone on a spiking MLP's inputs. Other
// compilers and targets build the baseline alone. Private to the library (src/).

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define NEUROBENCH_WIDEST_VECTORS \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define NEUROBENCH_WIDEST_VECTORS
#endif
