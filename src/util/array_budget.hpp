// SPDX-License-Identifier: Apache-2.0
#pragma once

// How many bytes reading one array may allocate: the reader's limit and the memory the system has
// available, checked against the size an archive entry declares before any of it is inflated.
// Private to the library (src/).

#include <cstdint>
#include <optional>
#include <string>

namespace neurobench::detail {

/// The memory the system can give without swapping, in bytes: `MemAvailable` from
/// /proc/meminfo, else the free physical pages (sysconf); nothing when neither is known.
[[nodiscard]] std::optional<std::uint64_t> available_memory();

/// Throws InputError prefixed with `where` when an array of `bytes` bytes is more than `limit`
/// (the reader's max_array_bytes) or than `available` (memory the system has free, when known).
void check_array_bytes(std::uint64_t bytes, std::uint64_t limit,
                       std::optional<std::uint64_t> available, const std::string& where);

/// The same for a size counted in double precision (from options or spans that may be beyond any
/// integer): a size of 2^64 bytes or more, or not a number, is refused as the largest one.
void check_array_bytes(double bytes, std::uint64_t limit, std::optional<std::uint64_t> available,
                       const std::string& where);

/// Throws InputError `WHAT would take N bytes (X GiB), more than the M of memory available
/// (MemAvailable); nothing was made` when `bytes` (counted in double precision, so that no
/// product of options overflows) is more than the memory the system has free, when known. For
/// tensors whose size an option decides (an encoder's num_steps, a resampler's new_freq),
/// checked before they are made: a typing slip is refused at once, not paged out for minutes.
void check_memory_for(double bytes, const std::string& what);

}  // namespace neurobench::detail
