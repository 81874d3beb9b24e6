// SPDX-License-Identifier: Apache-2.0
// Run keys: what makes a suite's run the same run as one done before.
#include "suite/run_key.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <neurobench/errors.hpp>

#include "util/sha256.hpp"

namespace neurobench::suite {
namespace {

namespace fs = std::filesystem;

std::string text_sha256(const std::string& text) {
  return detail::sha256_hex(text.data(), text.size());
}

// A folder by its listing: names, sizes and modification times, not contents (a data set
// folder may hold gigabytes).
std::string folder_fingerprint(const fs::path& folder) {
  std::vector<std::string> lines;
  std::error_code ec;
  fs::recursive_directory_iterator it(folder, fs::directory_options::skip_permission_denied, ec);
  if (ec) return text_sha256("unreadable folder: " + ec.message());
  for (const fs::recursive_directory_iterator end; it != end; it.increment(ec)) {
    if (ec) return text_sha256("unreadable folder: " + ec.message());
    struct stat st {};
    if (::stat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const auto mtime_ns = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL +
                          static_cast<long long>(st.st_mtim.tv_nsec);
    lines.push_back(fmt::format("{}\t{}\t{}\n", it->path().lexically_relative(folder).string(),
                                static_cast<long long>(st.st_size), mtime_ns));
  }
  std::sort(lines.begin(), lines.end());
  detail::Sha256 sha;
  const std::string head = "folder\n";
  sha.update(head.data(), head.size());
  for (const auto& line : lines) sha.update(line.data(), line.size());
  return sha.hex();
}

}  // namespace

std::string canonical_config(const BenchmarkConfig& config) {
  Json ordered = config.to_json();
  ordered.erase("_comment");
  // nlohmann::json (not ordered_json) keeps object keys sorted.
  const nlohmann::json sorted = nlohmann::json::parse(ordered.dump());
  return sorted.dump();
}

std::string InputHasher::fingerprint(const fs::path& path) {
  const auto cached = cache_.find(path);
  if (cached != cache_.end()) return cached->second;
  std::string result;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    result = text_sha256("missing: " + path.string());
  } else if (S_ISREG(st.st_mode)) {
    try {
      result = detail::file_sha256(path);
    } catch (const Error& e) {
      result = text_sha256(std::string("unreadable: ") + e.what());
    }
  } else if (S_ISDIR(st.st_mode)) {
    result = folder_fingerprint(path);
  } else {
    result = text_sha256(fmt::format("special file (mode {:o}): {}", st.st_mode, path.string()));
  }
  cache_.emplace(path, result);
  return result;
}

Json RunKey::to_json() const {
  return Json{{"key", key},
              {"config_sha256", config_sha256},
              {"model_sha256", model_sha256},
              {"data_sha256", data_sha256},
              {"repeat", repeat}};
}

RunKey run_key(const BenchmarkConfig& config, int repeat, InputHasher& hasher) {
  RunKey k;
  k.config_sha256 = text_sha256(canonical_config(config));
  k.model_sha256 = hasher.fingerprint(config.model);
  k.data_sha256 = hasher.fingerprint(config.data.empty() ? config.dataset.path : config.data);
  k.repeat = repeat;
  k.key = text_sha256(fmt::format("neurobench suite run key 1\nconfig {}\nmodel {}\ndata {}\n"
                                  "repeat {}\n",
                                  k.config_sha256, k.model_sha256, k.data_sha256, repeat));
  return k;
}

}  // namespace neurobench::suite
