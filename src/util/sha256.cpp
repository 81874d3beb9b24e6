// SPDX-License-Identifier: Apache-2.0
#include "util/sha256.hpp"

#include <cerrno>
#include <cstdint>
#include <fstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <openssl/evp.h>

#include <neurobench/errors.hpp>

namespace neurobench::detail {

struct Sha256::Context {
  EVP_MD_CTX* md = nullptr;
};

Sha256::Sha256() : context_(std::make_unique<Context>()) {
  context_->md = EVP_MD_CTX_new();
  // Only allocation can fail here; there is nothing to name but the digest.
  if (context_->md == nullptr || EVP_DigestInit_ex(context_->md, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(context_->md);
    throw Error("SHA-256: OpenSSL could not start a digest");
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(context_->md); }

void Sha256::update(const void* data, std::size_t size) {
  if (size == 0) return;
  if (EVP_DigestUpdate(context_->md, data, size) != 1) {
    throw Error("SHA-256: OpenSSL could not update a digest");
  }
}

std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context_->md, digest, &length) != 1) {
    throw Error("SHA-256: OpenSSL could not finish a digest");
  }
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

std::string sha256_hex(const void* data, std::size_t size) {
  Sha256 sha;
  sha.update(data, size);
  return sha.hex();
}

std::string file_sha256(const std::filesystem::path& path) {
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError(fmt::format("{}: cannot open to compute its SHA-256: {}", path.string(),
                                 std::generic_category().message(errno)));
  }
  Sha256 sha;
  std::vector<char> piece(std::size_t{1} << 20);
  while (in) {
    in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
    sha.update(piece.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) {
    throw InputError(fmt::format("{}: read error while computing its SHA-256", path.string()));
  }
  return sha.hex();
}

}  // namespace neurobench::detail
