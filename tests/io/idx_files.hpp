// SPDX-License-Identifier: Apache-2.0
#pragma once

// IDX files built byte by byte for the tests, plain or gzipped: shared by the IDX and the
// Fashion-MNIST tests.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <vector>

namespace neurobench::test {

using Bytes = std::vector<std::uint8_t>;

inline void put_u32_be(Bytes& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// An IDX file: magic 00 00 dtype ndims, big-endian dims, then `data` as given (already
// big-endian: the tests spell out the bytes, independently of the reader).
inline Bytes idx(std::uint8_t dtype, const std::vector<std::uint32_t>& dims, const Bytes& data) {
  Bytes out = {0, 0, dtype, static_cast<std::uint8_t>(dims.size())};
  for (std::uint32_t d : dims) put_u32_be(out, d);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

inline std::uint32_t crc32_of(const Bytes& data) {
  std::uint32_t crc = 0xFFFFFFFFU;
  for (std::uint8_t byte : data) {
    crc ^= byte;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320U & (0U - (crc & 1U)));
  }
  return ~crc;
}

inline void put_u32_le(Bytes& out, std::uint32_t v) {
  for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// A gzip member (RFC 1952) holding `data` in stored deflate blocks (RFC 1951): written here
// without zlib, so the reader is checked against an independent writer.
inline Bytes gzip(const Bytes& data) {
  Bytes out = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
  std::size_t at = 0;
  do {
    const std::size_t len = std::min<std::size_t>(65535, data.size() - at);
    const bool last = at + len == data.size();
    out.push_back(last ? 1 : 0);  // BFINAL, BTYPE = 00 (stored), padded to the byte
    out.push_back(static_cast<std::uint8_t>(len));
    out.push_back(static_cast<std::uint8_t>(len >> 8));
    out.push_back(static_cast<std::uint8_t>(~len));
    out.push_back(static_cast<std::uint8_t>(~len >> 8));
    out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(at),
               data.begin() + static_cast<std::ptrdiff_t>(at + len));
    at += len;
  } while (at < data.size());
  put_u32_le(out, crc32_of(data));
  put_u32_le(out, static_cast<std::uint32_t>(data.size()));
  return out;
}

inline std::filesystem::path write(const std::filesystem::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  return path;
}

}  // namespace neurobench::test
