// SPDX-License-Identifier: Apache-2.0
#pragma once

// Byte order of the binary file formats (.npy, IDX). Private to the library (src/).

#include <cstddef>
#include <cstdint>

namespace neurobench::detail {

/// True on a little-endian machine, such as every machine LibTorch is built for today.
inline constexpr bool kLittleEndianHost = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

template <class Word>
void swap_words(void* data, std::size_t count) {
  // The callers' buffers are tensors, aligned for their element type.
  auto* words = static_cast<Word*>(data);
  for (std::size_t i = 0; i < count; ++i) {
    if constexpr (sizeof(Word) == 2) {
      words[i] = __builtin_bswap16(words[i]);
    } else if constexpr (sizeof(Word) == 4) {
      words[i] = __builtin_bswap32(words[i]);
    } else {
      words[i] = __builtin_bswap64(words[i]);
    }
  }
}

/// Reverses the bytes of each of the `count` elements of `itemsize` bytes at `data`, in place;
/// elements of one byte (or of another size) are left as they are.
inline void swap_byte_order(void* data, std::size_t count, std::size_t itemsize) {
  switch (itemsize) {
    case 2:
      swap_words<std::uint16_t>(data, count);
      break;
    case 4:
      swap_words<std::uint32_t>(data, count);
      break;
    case 8:
      swap_words<std::uint64_t>(data, count);
      break;
    default:
      break;
  }
}

}  // namespace neurobench::detail
