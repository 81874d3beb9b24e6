// SPDX-License-Identifier: Apache-2.0
#pragma once

// SHA-256 of bytes and files, through OpenSSL's libcrypto (EVP), for the results' record of which
// model and data files a run used. Private to the library (src/).

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>

namespace neurobench::detail {

/// A SHA-256 computed piece by piece: update() with the bytes in order, then hex().
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  /// Adds the next `size` bytes.
  void update(const void* data, std::size_t size);
  /// The digest of every byte added, as 64 lowercase hex digits. Call once, last.
  [[nodiscard]] std::string hex();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

/// The SHA-256 of the `size` bytes at `data`, as 64 lowercase hex digits.
[[nodiscard]] std::string sha256_hex(const void* data, std::size_t size);

/// The SHA-256 of a file's contents, read in pieces, as 64 lowercase hex digits. Throws
/// InputError naming the file when it cannot be opened or read.
[[nodiscard]] std::string file_sha256(const std::filesystem::path& path);

}  // namespace neurobench::detail
