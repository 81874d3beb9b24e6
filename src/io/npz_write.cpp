// SPDX-License-Identifier: Apache-2.0
// Writing an .npz archive (save_npz), through libzip; its reading is io/npz.cpp.
#include <neurobench/io/npz.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <torch/script.h>
#include <zip.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>

#include "io/npy.hpp"
#include "io/zip_handles.hpp"
#include "util/text.hpp"

namespace neurobench {
namespace {

using detail::Archive;
using detail::libzip_text;
using detail::NpyBlob;
using detail::printable;
using detail::ZipError;

constexpr std::uint16_t kDosDate1980 = (0 << 9) | (1 << 5) | 1;  // fixed: reproducible files
constexpr std::uint32_t kUnixFileMode = 0100644u << 16;

/// Adds one stored entry whose bytes are the blob's header and data, read by libzip at close.
void add_entry(zip_t* archive, const std::string& name, const NpyBlob& blob,
               const std::string& where) {
  zip_buffer_fragment_t fragments[2] = {
      {reinterpret_cast<zip_uint8_t*>(const_cast<char*>(blob.header.data())), blob.header.size()},
      {blob.nbytes > 0 ? static_cast<zip_uint8_t*>(blob.data.data_ptr()) : nullptr, blob.nbytes}};
  zip_source_t* source = zip_source_buffer_fragment(archive, fragments, blob.nbytes > 0 ? 2 : 1, 0);
  if (source == nullptr) {
    throw InputError(fmt::format("{}: cannot add the array: {}", where, zip_strerror(archive)));
  }
  const zip_int64_t index = zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8);
  if (index < 0) {
    zip_source_free(source);
    if (zip_error_code_zip(zip_get_error(archive)) == ZIP_ER_INVAL) {
      throw InputError(fmt::format("{}: the name is not valid UTF-8", where));
    }
    throw InputError(fmt::format("{}: cannot add the array: {}", where, zip_strerror(archive)));
  }
  const auto entry = static_cast<zip_uint64_t>(index);
  if (zip_set_file_compression(archive, entry, ZIP_CM_STORE, 0) != 0 ||
      zip_file_set_dostime(archive, entry, 0, kDosDate1980, 0) != 0 ||
      zip_file_set_external_attributes(archive, entry, 0, ZIP_OPSYS_UNIX, kUnixFileMode) != 0) {
    throw InputError(fmt::format("{}: cannot add the array: {}", where, zip_strerror(archive)));
  }
}

/// Frees a libzip source kept alive past its archive (zip_source_keep).
struct SourceFree {
  void operator()(zip_source_t* source) const { zip_source_free(source); }
};

/// The bytes of an archive of the arrays, built by libzip in memory: the file itself is written
/// by write_output_file(), which replaces only regular files and writes devices and FIFOs in
/// place (libzip's own file writing renames a temporary file over whatever the path names).
std::string build_archive(const std::vector<NamedArray>& arrays, const std::vector<NpyBlob>& blobs,
                          const std::string& where) {
  ZipError error;
  zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, error.get());
  if (buffer == nullptr) {
    throw InputError(
        fmt::format("{}: cannot build the archive: {}", where, libzip_text(error.get())));
  }
  zip_t* opened = zip_open_from_source(buffer, ZIP_CREATE | ZIP_TRUNCATE, error.get());
  if (opened == nullptr) {
    zip_source_free(buffer);
    throw InputError(
        fmt::format("{}: cannot build the archive: {}", where, libzip_text(error.get())));
  }
  zip_source_keep(buffer);  // zip_close writes into it; its bytes are read after
  const std::unique_ptr<zip_source_t, SourceFree> kept(buffer);
  Archive archive(opened);
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    add_entry(archive.get(), arrays[i].first + ".npy", blobs[i],
              fmt::format("{}: array '{}'", where, printable(arrays[i].first, 200)));
  }
  if (zip_close(archive.get()) != 0) {
    throw InputError(fmt::format("{}: cannot build the archive: {}", where,
                                 libzip_text(zip_get_error(archive.get()))));
  }
  (void)archive.release();  // zip_close freed it
  zip_stat_t stat;
  zip_stat_init(&stat);
  if (zip_source_stat(buffer, &stat) != 0 || (stat.valid & ZIP_STAT_SIZE) == 0 ||
      zip_source_open(buffer) != 0) {
    throw InputError(fmt::format("{}: cannot build the archive: {}", where,
                                 libzip_text(zip_source_error(buffer))));
  }
  std::string bytes(static_cast<std::size_t>(stat.size), '\0');
  const zip_int64_t got = zip_source_read(buffer, bytes.data(), stat.size);
  zip_source_close(buffer);
  if (got < 0 || static_cast<zip_uint64_t>(got) != stat.size) {
    throw InputError(fmt::format("{}: cannot build the archive: {}", where,
                                 libzip_text(zip_source_error(buffer))));
  }
  return bytes;
}

}  // namespace

void save_npz(const std::filesystem::path& path, const std::vector<NamedArray>& arrays) {
  const std::string where = path.string();
  (void)check_output_file(path);  // a bad path fails before the archive is built
  // Check every array before creating the file, so a rejected array leaves nothing behind.
  std::vector<NpyBlob> blobs;
  blobs.reserve(arrays.size());
  std::unordered_set<std::string> names;
  for (const auto& [name, array] : arrays) {
    const std::string array_where = fmt::format("{}: array '{}'", where, printable(name, 200));
    if (!names.insert(name).second) {
      throw InputError(fmt::format("{}: the name is used more than once", array_where));
    }
    if (name.size() + 4 > 0xffff) {
      throw InputError(fmt::format("{}: the name is longer than 65531 bytes", array_where));
    }
    if (name.find('\0') != std::string::npos) {
      throw InputError(fmt::format("{}: the name holds a NUL byte", array_where));
    }
    blobs.push_back(detail::prepare_npy(array, array_where));
  }
  if (arrays.empty()) {
    // libzip deletes an archive left without entries; NumPy's empty archive is its end record.
    write_output_file(path, std::string_view("PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 22));
    return;
  }
  write_output_file(path, build_archive(arrays, blobs, where));
}

}  // namespace neurobench
