// SPDX-License-Identifier: Apache-2.0
// Reading HDF5 files (MATLAB v7.3 .mat files are HDF5 with a 512-byte user block) through the
// HDF5 C library, with every identifier owned by an RAII handle and every failure an InputError.
#include "io/hdf5_file.hpp"

#include <algorithm>
#include <type_traits>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <hdf5.h>

#include <neurobench/errors.hpp>

#include "io/input_file.hpp"

namespace neurobench::detail {
namespace {

static_assert(std::is_same_v<hid_t, std::int64_t>, "Hdf5File keeps the file's hid_t as int64");
static_assert(sizeof(hobj_ref_t) == sizeof(std::uint64_t), "object references are 8 bytes");

// HDF5 prints its error stack on stderr by default; a reader that throws its own errors
// silences it while it works and restores what the program had set.
class QuietErrors {
 public:
  QuietErrors() {
    H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;

 private:
  H5E_auto2_t function_ = nullptr;
  void* data_ = nullptr;
};

// One HDF5 identifier, closed with the function for its kind.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, -1)), close_(other.close_) {}
  Handle& operator=(Handle&&) = delete;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  [[nodiscard]] hid_t get() const { return id_; }
  [[nodiscard]] bool valid() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// The innermost reason on HDF5's error stack ("addr overflow", "not a dataset"), or "".
std::string hdf5_reason() {
  std::string reason;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_DOWNWARD,
      [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        auto* text = static_cast<std::string*>(out);
        if (e != nullptr && e->desc != nullptr && e->desc[0] != '\0') *text = e->desc;
        (void)n;
        return 0;
      },
      &reason);
  return reason;
}

std::string with_reason(std::string message) {
  const std::string reason = hdf5_reason();
  H5Eclear2(H5E_DEFAULT);
  return reason.empty() ? message : message + " (HDF5: " + reason + ")";
}

std::vector<std::uint64_t> dims_of(hid_t dataset, const std::string& where) {
  const Handle space(H5Dget_space(dataset), H5Sclose);
  if (!space.valid()) throw InputError(with_reason(where + ": cannot read its dataspace"));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) throw InputError(with_reason(where + ": cannot read its dimensions"));
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0 && H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0) {
    throw InputError(with_reason(where + ": cannot read its dimensions"));
  }
  if (H5Sget_simple_extent_type(space.get()) == H5S_NULL) return {0};
  return {dims.begin(), dims.end()};
}

std::uint64_t count_of(const std::vector<std::uint64_t>& dims, std::uint64_t max_values,
                       const std::string& where) {
  std::uint64_t n = 1;
  for (const std::uint64_t d : dims) {
    if (d != 0 && n > max_values / d) {
      throw InputError(
          fmt::format("{}: more than {} values, the most this reader takes", where, max_values));
    }
    n *= d;
  }
  if (n > max_values) {
    throw InputError(
        fmt::format("{}: {} values, more than the {} this reader takes", where, n, max_values));
  }
  return n;
}

std::string dims_text(const std::vector<std::uint64_t>& dims) {
  return fmt::format("({})", fmt::join(dims, ", "));
}

Hdf5Doubles read_numeric(hid_t dataset, const std::string& where, std::uint64_t max_values) {
  const Handle type(H5Dget_type(dataset), H5Tclose);
  if (!type.valid()) throw InputError(with_reason(where + ": cannot read its type"));
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT) {
    throw InputError(where + ": not a numeric dataset (expected MATLAB double values)");
  }
  Hdf5Doubles out;
  out.dims = dims_of(dataset, where);
  out.values.resize(count_of(out.dims, max_values, where));
  if (!out.values.empty() &&
      H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.values.data()) < 0) {
    throw InputError(
        with_reason(fmt::format("{}: cannot read its {} values {}; is the file truncated?", where,
                                out.values.size(), dims_text(out.dims))));
  }
  return out;
}

}  // namespace

Hdf5File::Hdf5File(const std::filesystem::path& path) : path_(path) {
  (void)check_regular_input(path, "file");
  const QuietErrors quiet;
  const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
  if (is_hdf5 == 0) {
    H5Eclear2(H5E_DEFAULT);
    throw InputError(fmt::format(
        "{}: not an HDF5 file (a MATLAB .mat file of version 7.3 is one; save older ones with "
        "save -v7.3)",
        path.string()));
  }
  if (is_hdf5 < 0) throw InputError(with_reason(path.string() + ": cannot read the file"));
  file_ = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file_ < 0) {
    throw InputError(
        with_reason(path.string() + ": cannot open the HDF5 file; is it truncated or damaged?"));
  }
}

Hdf5File::~Hdf5File() {
  if (file_ >= 0) H5Fclose(file_);
}

bool Hdf5File::has(const std::string& name) const {
  const QuietErrors quiet;
  const htri_t exists = H5Lexists(file_, name.c_str(), H5P_DEFAULT);
  H5Eclear2(H5E_DEFAULT);
  return exists > 0;
}

std::string Hdf5File::root_names() const {
  const QuietErrors quiet;
  std::vector<std::string> names;
  hsize_t index = 0;
  H5Literate(
      file_, H5_INDEX_NAME, H5_ITER_INC, &index,
      [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
        static_cast<std::vector<std::string>*>(out)->emplace_back(name);
        return 0;
      },
      &names);
  H5Eclear2(H5E_DEFAULT);
  std::sort(names.begin(), names.end());
  return names.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(names, ", "));
}

namespace {

Handle open_dataset(hid_t file, const Hdf5File& owner, const std::string& name) {
  const std::string where = fmt::format("{}: dataset '{}'", owner.path().string(), name);
  if (!owner.has(name)) {
    throw InputError(fmt::format("{}: no dataset '{}' (the file holds: {})", owner.path().string(),
                                 name, owner.root_names()));
  }
  Handle dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!dataset.valid()) throw InputError(with_reason(where + ": not a dataset"));
  return dataset;
}

}  // namespace

Hdf5Doubles Hdf5File::read_doubles(const std::string& name, std::uint64_t max_values) const {
  const QuietErrors quiet;
  const Handle dataset = open_dataset(file_, *this, name);
  return read_numeric(dataset.get(), fmt::format("{}: dataset '{}'", path_.string(), name),
                      max_values);
}

Hdf5References Hdf5File::read_references(const std::string& name, std::uint64_t max_values) const {
  const QuietErrors quiet;
  const std::string where = fmt::format("{}: dataset '{}'", path_.string(), name);
  const Handle dataset = open_dataset(file_, *this, name);
  const Handle type(H5Dget_type(dataset.get()), H5Tclose);
  if (!type.valid()) throw InputError(with_reason(where + ": cannot read its type"));
  if (H5Tget_class(type.get()) != H5T_REFERENCE || H5Tequal(type.get(), H5T_STD_REF_OBJ) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw InputError(where + ": not a MATLAB cell array (expected object references)");
  }
  Hdf5References out;
  out.dims = dims_of(dataset.get(), where);
  out.refs.resize(count_of(out.dims, max_values, where));
  if (!out.refs.empty() &&
      H5Dread(dataset.get(), H5T_STD_REF_OBJ, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.refs.data()) < 0) {
    throw InputError(with_reason(where + ": cannot read its references; is the file truncated?"));
  }
  return out;
}

Hdf5Doubles Hdf5File::read_referenced_doubles(std::uint64_t ref, const std::string& what,
                                              std::uint64_t max_values) const {
  const QuietErrors quiet;
  const std::string where = fmt::format("{}: {}", path_.string(), what);
  hobj_ref_t address = ref;
  const Handle object(H5Rdereference2(file_, H5P_DEFAULT, H5R_OBJECT, &address), H5Oclose);
  if (!object.valid()) {
    throw InputError(with_reason(where + ": the reference points at nothing readable"));
  }
  if (H5Iget_type(object.get()) != H5I_DATASET) {
    throw InputError(where + ": the reference points at something else than a dataset");
  }
  const htri_t empty = H5Aexists(object.get(), "MATLAB_empty");
  if (empty < 0) throw InputError(with_reason(where + ": cannot read its attributes"));
  if (empty > 0) {
    const Handle attribute(H5Aopen(object.get(), "MATLAB_empty", H5P_DEFAULT), H5Aclose);
    int flag = 0;
    if (!attribute.valid() || H5Aread(attribute.get(), H5T_NATIVE_INT, &flag) < 0) {
      throw InputError(with_reason(where + ": cannot read its attribute MATLAB_empty"));
    }
    if (flag != 0) return {};
  }
  return read_numeric(object.get(), where, max_values);
}

}  // namespace neurobench::detail
