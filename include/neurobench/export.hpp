// SPDX-License-Identifier: Apache-2.0
#pragma once

/// What the shared library exports. It is compiled with hidden visibility
/// (`-fvisibility=hidden`): a function or class is callable from a program or a plugin only when
/// it is declared in a public header, between `NEUROBENCH_API_BEGIN` and `NEUROBENCH_API_END`.
/// Every public header wraps its declarations so, and `tests/scripts/check_layout.py` checks it;
/// the headers in `src/` do not, so what they declare stays private to the library.
///
/// `NEUROBENCH_API` marks one declaration the same way, for the rare one outside such a block.
#if defined(__GNUC__) || defined(__clang__)
#define NEUROBENCH_API __attribute__((visibility("default")))
#define NEUROBENCH_API_BEGIN _Pragma("GCC visibility push(default)")
#define NEUROBENCH_API_END _Pragma("GCC visibility pop")
#else
#define NEUROBENCH_API
#define NEUROBENCH_API_BEGIN
#define NEUROBENCH_API_END
#endif
