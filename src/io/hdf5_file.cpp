// SPDX-License-Identifier: Apache-2.0
// Reading HDF5 files (MATLAB v7.3 .mat files are HDF5 with a 512-byte user block) through the
// HDF5 C library, with every identifier owned by an RAII handle and every failure an InputError.
#include "io/hdf5_file.hpp"

#include <algorithm>
#include <cstring>
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

Hdf5Kind Hdf5File::kind_of(const std::string& path) const {
  const QuietErrors quiet;
  // H5Lexists fails on a missing link along the way: each prefix is checked in turn.
  std::size_t from = 0;
  while (true) {
    const std::size_t slash = path.find('/', from);
    const std::string prefix = path.substr(0, slash);
    if (prefix.empty() || H5Lexists(file_, prefix.c_str(), H5P_DEFAULT) <= 0) {
      H5Eclear2(H5E_DEFAULT);
      return Hdf5Kind::kNone;
    }
    if (slash == std::string::npos) break;
    from = slash + 1;
  }
#if H5_VERSION_GE(1, 12, 0)
  H5O_info2_t info;
  const herr_t got = H5Oget_info_by_name3(file_, path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT);
#else
  H5O_info_t info;
  const herr_t got = H5Oget_info_by_name2(file_, path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT);
#endif
  if (got < 0) {
    H5Eclear2(H5E_DEFAULT);
    return Hdf5Kind::kOther;  // a dangling soft or external link
  }
  if (info.type == H5O_TYPE_GROUP) return Hdf5Kind::kGroup;
  if (info.type == H5O_TYPE_DATASET) return Hdf5Kind::kDataset;
  return Hdf5Kind::kOther;
}

std::vector<std::string> Hdf5File::members(const std::string& group,
                                           std::size_t max_members) const {
  const QuietErrors quiet;
  const std::string where = fmt::format("{}: group '{}'", path_.string(), group);
  if (kind_of(group) != Hdf5Kind::kGroup) throw InputError(where + ": not a group");
  const Handle g(H5Gopen2(file_, group.c_str(), H5P_DEFAULT), H5Gclose);
  if (!g.valid()) throw InputError(with_reason(where + ": cannot open it"));
  H5G_info_t info;
  if (H5Gget_info(g.get(), &info) < 0) throw InputError(with_reason(where + ": cannot list it"));
  if (info.nlinks > max_members) {
    throw InputError(fmt::format("{}: {} members, more than the {} this reader takes", where,
                                 info.nlinks, max_members));
  }
  std::vector<std::string> names;
  hsize_t index = 0;
  if (H5Literate(
          g.get(), H5_INDEX_NAME, H5_ITER_INC, &index,
          [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
            static_cast<std::vector<std::string>*>(out)->emplace_back(name);
            return 0;
          },
          &names) < 0) {
    throw InputError(with_reason(where + ": cannot list it"));
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool Hdf5File::is_text(const std::string& name) const {
  const QuietErrors quiet;
  const Handle dataset = open_dataset(file_, *this, name);
  const Handle type(H5Dget_type(dataset.get()), H5Tclose);
  return type.valid() && H5Tget_class(type.get()) == H5T_STRING;
}

Hdf5Strings Hdf5File::read_strings(const std::string& name, std::uint64_t max_values,
                                   std::size_t max_length) const {
  const QuietErrors quiet;
  const std::string where = fmt::format("{}: dataset '{}'", path_.string(), name);
  const Handle dataset = open_dataset(file_, *this, name);
  const Handle type(H5Dget_type(dataset.get()), H5Tclose);
  if (!type.valid()) throw InputError(with_reason(where + ": cannot read its type"));
  if (H5Tget_class(type.get()) != H5T_STRING) throw InputError(where + ": does not hold text");
  Hdf5Strings out;
  out.dims = dims_of(dataset.get(), where);
  const std::uint64_t n = count_of(out.dims, max_values, where);
  if (n == 0) return out;
  const auto too_long = [&](std::size_t length) {
    return InputError(fmt::format("{}: a string of {} bytes, more than the {} this reader takes",
                                  where, length, max_length));
  };
  if (H5Tis_variable_str(type.get()) > 0) {
    const Handle memory(H5Tcopy(H5T_C_S1), H5Tclose);
    std::vector<char*> texts(n, nullptr);
    if (!memory.valid() || H5Tset_size(memory.get(), H5T_VARIABLE) < 0 ||
        H5Tset_cset(memory.get(), H5Tget_cset(type.get())) < 0 ||
        H5Dread(dataset.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, texts.data()) < 0) {
      throw InputError(with_reason(where + ": cannot read its strings; is the file truncated?"));
    }
    for (char* text : texts) {
      out.values.emplace_back(text == nullptr ? "" : text);
      H5free_memory(text);
    }
    for (const std::string& v : out.values) {
      if (v.size() > max_length) throw too_long(v.size());
    }
    return out;
  }
  const std::size_t size = H5Tget_size(type.get());
  if (size > max_length) throw too_long(size);
  std::string buffer(size * n, '\0');
  const Handle memory(H5Tget_native_type(type.get(), H5T_DIR_ASCEND), H5Tclose);
  if (!memory.valid() ||
      H5Dread(dataset.get(), memory.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0) {
    throw InputError(with_reason(where + ": cannot read its strings; is the file truncated?"));
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    std::string v = buffer.substr(i * size, size);
    v.resize(std::strlen(v.c_str()));  // fixed-length strings are padded with NULs
    out.values.push_back(std::move(v));
  }
  return out;
}

Hdf5Doubles Hdf5File::read_doubles(const std::string& name, std::uint64_t max_values) const {
  const QuietErrors quiet;
  const Handle dataset = open_dataset(file_, *this, name);
  return read_numeric(dataset.get(), fmt::format("{}: dataset '{}'", path_.string(), name),
                      max_values);
}

std::string Hdf5DatasetInfo::type_name() const {
  if (is_float) return fmt::format("float{}", bytes * 8);
  return fmt::format("{}int{}", is_signed ? "" : "u", bytes * 8);
}

namespace {

Hdf5DatasetInfo info_of(hid_t dataset, const std::string& where) {
  const Handle type(H5Dget_type(dataset), H5Tclose);
  if (!type.valid()) throw InputError(with_reason(where + ": cannot read its type"));
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT) {
    throw InputError(where + ": not a numeric dataset (expected integers or floats)");
  }
  Hdf5DatasetInfo info;
  info.dims = dims_of(dataset, where);
  info.is_float = type_class == H5T_FLOAT;
  info.is_signed = type_class == H5T_INTEGER && H5Tget_sign(type.get()) == H5T_SGN_2;
  info.bytes = H5Tget_size(type.get());
  return info;
}

// A numeric attribute's one value as a double: integers and floats converted by HDF5, enums
// (h5py's booleans) read as their base integer.
double attribute_number(hid_t attribute, hid_t type, const std::string& where) {
  if (H5Tget_class(type) != H5T_ENUM) {
    double value = 0;
    if (H5Aread(attribute, H5T_NATIVE_DOUBLE, &value) < 0) {
      throw InputError(with_reason(where + ": cannot read it"));
    }
    return value;
  }
  const Handle native(H5Tget_native_type(type, H5T_DIR_ASCEND), H5Tclose);
  const Handle base(H5Tget_super(type), H5Tclose);
  const std::size_t size = native.valid() ? H5Tget_size(native.get()) : 0;
  unsigned char bytes[8] = {};
  if (!native.valid() || !base.valid() || size == 0 || size > sizeof(bytes) ||
      H5Aread(attribute, native.get(), bytes) < 0) {
    throw InputError(with_reason(where + ": cannot read it as an enum"));
  }
  const bool is_signed = H5Tget_sign(base.get()) == H5T_SGN_2;
  std::uint64_t raw = 0;
  std::memcpy(&raw, bytes, size);  // the native (little-endian) order of this machine
  if (is_signed && size < 8 && (raw >> (size * 8 - 1)) != 0) raw |= ~std::uint64_t{0} << (size * 8);
  return is_signed ? static_cast<double>(static_cast<std::int64_t>(raw)) : static_cast<double>(raw);
}

std::string attribute_text(hid_t attribute, hid_t type, const std::string& where) {
  if (H5Tis_variable_str(type) > 0) {
    const Handle memory(H5Tcopy(H5T_C_S1), H5Tclose);
    char* text = nullptr;
    if (!memory.valid() || H5Tset_size(memory.get(), H5T_VARIABLE) < 0 ||
        H5Tset_cset(memory.get(), H5Tget_cset(type)) < 0 ||
        H5Aread(attribute, memory.get(), &text) < 0) {
      throw InputError(with_reason(where + ": cannot read it as text"));
    }
    std::string out = text == nullptr ? std::string() : std::string(text);
    H5free_memory(text);
    return out;
  }
  const std::size_t size = H5Tget_size(type);
  std::string out(size, '\0');
  const Handle memory(H5Tget_native_type(type, H5T_DIR_ASCEND), H5Tclose);
  if (!memory.valid() || (size > 0 && H5Aread(attribute, memory.get(), out.data()) < 0)) {
    throw InputError(with_reason(where + ": cannot read it as text"));
  }
  out.resize(std::strlen(out.c_str()));  // fixed-length strings are padded with NULs
  return out;
}

}  // namespace

Hdf5DatasetInfo Hdf5File::dataset_info(const std::string& name) const {
  const QuietErrors quiet;
  const Handle dataset = open_dataset(file_, *this, name);
  return info_of(dataset.get(), fmt::format("{}: dataset '{}'", path_.string(), name));
}

std::optional<Hdf5Attribute> Hdf5File::attribute(const std::string& name,
                                                 const std::string& attribute_name) const {
  const QuietErrors quiet;
  const std::string where =
      fmt::format("{}: dataset '{}', attribute '{}'", path_.string(), name, attribute_name);
  const Handle dataset = open_dataset(file_, *this, name);
  const htri_t exists = H5Aexists(dataset.get(), attribute_name.c_str());
  if (exists < 0) throw InputError(with_reason(where + ": cannot read the attributes"));
  if (exists == 0) return std::nullopt;
  const Handle attribute(H5Aopen(dataset.get(), attribute_name.c_str(), H5P_DEFAULT), H5Aclose);
  const Handle type(attribute.valid() ? H5Aget_type(attribute.get()) : -1, H5Tclose);
  const Handle space(attribute.valid() ? H5Aget_space(attribute.get()) : -1, H5Sclose);
  if (!attribute.valid() || !type.valid() || !space.valid()) {
    throw InputError(with_reason(where + ": cannot open it"));
  }
  Hdf5Attribute out;
  const H5T_class_t type_class = H5Tget_class(type.get());
  if (type_class == H5T_STRING) {
    out.is_text = true;
    if (H5Sget_simple_extent_npoints(space.get()) != 1) {
      throw InputError(where + ": holds several strings; expected one");
    }
    out.text = attribute_text(attribute.get(), type.get(), where);
    return out;
  }
  if (type_class != H5T_INTEGER && type_class != H5T_FLOAT && type_class != H5T_ENUM) {
    throw InputError(where + ": neither a number nor text");
  }
  if (H5Sget_simple_extent_npoints(space.get()) != 1) {
    throw InputError(fmt::format("{}: holds {} values; expected one", where,
                                 H5Sget_simple_extent_npoints(space.get())));
  }
  out.number = attribute_number(attribute.get(), type.get(), where);
  return out;
}

std::vector<float> Hdf5File::read_rows_float(const std::string& name, std::uint64_t first,
                                             std::uint64_t count) const {
  const QuietErrors quiet;
  const std::string where = fmt::format("{}: dataset '{}'", path_.string(), name);
  const Handle dataset = open_dataset(file_, *this, name);
  const Hdf5DatasetInfo info = info_of(dataset.get(), where);
  if (info.dims.empty() || first > info.dims[0] || count > info.dims[0] - first) {
    throw InputError(fmt::format("{}: rows {} to {} asked for, but its shape is {}", where, first,
                                 first + count, dims_text(info.dims)));
  }
  std::vector<hsize_t> start(info.dims.size(), 0);
  std::vector<hsize_t> counts(info.dims.begin(), info.dims.end());
  start[0] = first;
  counts[0] = count;
  std::uint64_t values = 1;
  for (const hsize_t c : counts) values *= c;
  std::vector<float> out(values);
  if (values == 0) return out;
  const Handle file_space(H5Dget_space(dataset.get()), H5Sclose);
  const Handle memory_space(
      H5Screate_simple(static_cast<int>(counts.size()), counts.data(), nullptr), H5Sclose);
  if (!file_space.valid() || !memory_space.valid() ||
      H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, counts.data(),
                          nullptr) < 0 ||
      H5Dread(dataset.get(), H5T_NATIVE_FLOAT, memory_space.get(), file_space.get(), H5P_DEFAULT,
              out.data()) < 0) {
    throw InputError(
        with_reason(fmt::format("{}: cannot read rows {} to {} of {}; is the file truncated?",
                                where, first, first + count, dims_text(info.dims))));
  }
  return out;
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
