// SPDX-License-Identifier: Apache-2.0
#pragma once
// libzip's archive and error handles, released when they go out of scope, for the .npz reader
// (io/npz.cpp) and writer (io/npz_write.cpp). Private to src/.

#include <memory>
#include <string>

#include <zip.h>

namespace neurobench::detail {

/// Closes a libzip archive opened for reading, or discards one being written.
struct ArchiveDiscarder {
  void operator()(zip_t* archive) const { zip_discard(archive); }
};
using Archive = std::unique_ptr<zip_t, ArchiveDiscarder>;

/// A libzip error record, released when it goes out of scope.
class ZipError {
 public:
  ZipError() { zip_error_init(&error_); }
  ~ZipError() { zip_error_fini(&error_); }
  ZipError(const ZipError&) = delete;
  ZipError& operator=(const ZipError&) = delete;
  [[nodiscard]] zip_error_t* get() { return &error_; }

 private:
  zip_error_t error_;
};

/// libzip's own words for an error, e.g. "Read error: No such file or directory".
inline std::string libzip_text(zip_error_t* error) { return zip_error_strerror(error); }

}  // namespace neurobench::detail
