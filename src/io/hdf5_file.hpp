// SPDX-License-Identifier: Apache-2.0
#pragma once

// A read-only HDF5 file through the HDF5 C library, as much of it as MATLAB v7.3 `.mat` files
// and Prophesee's pre-computed feature files need: numeric datasets read whole as doubles or by
// rows as float32, their attributes, datasets of object references (MATLAB cell arrays) and
// the datasets they point to. Private to the library (src/); <hdf5.h> stays in the .cpp.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace neurobench::detail {

/// A numeric dataset read whole: its dimensions as HDF5 stores them (MATLAB's transposed, as
/// h5py shows them) and its values in that row-major order, converted to double.
struct Hdf5Doubles {
  std::vector<std::uint64_t> dims;  ///< Empty for a scalar.
  std::vector<double> values;       ///< Product of dims values.
};

/// A dataset of object references (a MATLAB cell array): dimensions and the references, each
/// an opaque address in the file, in row-major order.
struct Hdf5References {
  std::vector<std::uint64_t> dims;
  std::vector<std::uint64_t> refs;
};

/// What a numeric dataset holds, read from its header only.
struct Hdf5DatasetInfo {
  std::vector<std::uint64_t> dims;  ///< As HDF5 stores them (row-major, as h5py shows them).
  bool is_float = false;            ///< Floating-point, else integer.
  bool is_signed = false;           ///< For integers.
  std::size_t bytes = 0;            ///< Bytes per value.
  /// NumPy's name of the type (`uint8`, `float32`), for messages and comparisons.
  [[nodiscard]] std::string type_name() const;
};

/// An attribute read as a number (integers, floats and h5py's booleans, which are enums) or as
/// text (fixed or variable-length strings).
struct Hdf5Attribute {
  bool is_text = false;
  double number = 0;
  std::string text;
};

/// A dataset of strings read whole (h5py's variable-length or fixed-length strings).
struct Hdf5Strings {
  std::vector<std::uint64_t> dims;  ///< Empty for a scalar.
  std::vector<std::string> values;  ///< Product of dims values, row-major.
};

/// What a path of the file names.
enum class Hdf5Kind { kNone, kGroup, kDataset, kOther };

/// An HDF5 file open for reading. Every failure is an InputError naming the file, and the
/// dataset when there is one, with the HDF5 library's own reason; HDF5 prints nothing on
/// stderr meanwhile.
class Hdf5File {
 public:
  /// Opens `path` read-only. Throws InputError when it is not a regular file, not an HDF5 file
  /// (`not an HDF5 file (a MATLAB .mat file of version 7.3 is one)`) or damaged.
  explicit Hdf5File(const std::filesystem::path& path);
  ~Hdf5File();
  Hdf5File(const Hdf5File&) = delete;
  Hdf5File& operator=(const Hdf5File&) = delete;

  /// The file's path, for messages.
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// True when the root group has a link called `name`.
  [[nodiscard]] bool has(const std::string& name) const;
  /// What `path` names (`node/nodes/fc1`): nothing (a missing link anywhere along it), a
  /// group, a dataset or something else (a named type, a dangling link).
  [[nodiscard]] Hdf5Kind kind_of(const std::string& path) const;
  /// The names of the links of the group `group`, sorted. Throws InputError when it is not a
  /// group, or holds more than `max_members` links.
  [[nodiscard]] std::vector<std::string> members(const std::string& group,
                                                 std::size_t max_members) const;
  /// True when the dataset `name` holds strings.
  [[nodiscard]] bool is_text(const std::string& name) const;
  /// The dataset `name` of strings, whole, each at most `max_length` bytes. Throws InputError
  /// when it is not a dataset of strings, holds more than `max_values`, or is unreadable.
  [[nodiscard]] Hdf5Strings read_strings(const std::string& name, std::uint64_t max_values,
                                         std::size_t max_length) const;
  /// The names of the root group's links, sorted, comma-separated (for messages).
  [[nodiscard]] std::string root_names() const;
  /// The numeric (integer or floating-point) dataset `name` of the root group, whole. Throws
  /// InputError when it is missing (listing what the file holds), not a dataset, not numeric,
  /// larger than `max_values` values, or unreadable (a truncated file).
  [[nodiscard]] Hdf5Doubles read_doubles(const std::string& name, std::uint64_t max_values) const;
  /// The numeric dataset `name`'s dimensions and type, without reading its values. Throws
  /// InputError when it is missing (listing what the file holds), not a dataset or not numeric.
  [[nodiscard]] Hdf5DatasetInfo dataset_info(const std::string& name) const;
  /// The attribute `attribute` of the dataset `name`, or nullopt when it has none of that name.
  /// A number must be a scalar (or hold one value). Throws InputError naming the file, dataset
  /// and attribute when it is of another kind (compound, an array of several values).
  [[nodiscard]] std::optional<Hdf5Attribute> attribute(const std::string& name,
                                                       const std::string& attribute) const;
  /// Rows `[first, first + count)` of the numeric dataset `name` (along its first dimension),
  /// converted to float32 by HDF5 (exact for 8- and 16-bit integers and float32), row-major:
  /// `count * product(dims[1:])` values. Throws InputError when the rows are beyond the
  /// dataset or cannot be read (a truncated file, a compression filter this HDF5 lacks).
  [[nodiscard]] std::vector<float> read_rows_float(const std::string& name, std::uint64_t first,
                                                   std::uint64_t count) const;
  /// The dataset `name` of object references, whole. Throws InputError as read_doubles() and
  /// when it holds something else than object references.
  [[nodiscard]] Hdf5References read_references(const std::string& name,
                                               std::uint64_t max_values) const;
  /// The numeric dataset that `ref` points to, whole; `what` names it in messages
  /// (`spikes{3,1}`). MATLAB writes an empty array as its dimensions with an attribute
  /// `MATLAB_empty`; such a dataset is read as no values (dims empty). Throws InputError as
  /// read_doubles(), and when the reference points at no dataset.
  [[nodiscard]] Hdf5Doubles read_referenced_doubles(std::uint64_t ref, const std::string& what,
                                                    std::uint64_t max_values) const;

 private:
  std::filesystem::path path_;
  std::int64_t file_ = -1;  // hid_t
};

}  // namespace neurobench::detail
