// SPDX-License-Identifier: Apache-2.0
// Hdf5File in a build without the hdf5 component (NEUROBENCH_WITH_HDF5): opening a file says
// that the component is missing and what it needs, so that a data set needing it fails with a
// clear error (exit 2 from the command line), not a link error or a silent gap.
#include "io/hdf5_file.hpp"

#include <neurobench/components.hpp>
#include <neurobench/errors.hpp>

namespace neurobench::detail {

namespace {
[[noreturn]] void missing(const std::filesystem::path& path) {
  require_component("hdf5", "reading " + path.string() + " (MATLAB v7.3 files are HDF5)");
  throw UsageError("unreachable: the hdf5 component is missing");  // require_component threw
}
}  // namespace

Hdf5File::Hdf5File(const std::filesystem::path& path) : path_(path) { missing(path); }

Hdf5File::~Hdf5File() = default;

bool Hdf5File::has(const std::string& /*name*/) const { missing(path_); }

std::string Hdf5File::root_names() const { missing(path_); }

Hdf5Doubles Hdf5File::read_doubles(const std::string& /*name*/,
                                   std::uint64_t /*max_values*/) const {
  missing(path_);
}

std::string Hdf5DatasetInfo::type_name() const { return is_float ? "float" : "int"; }

Hdf5DatasetInfo Hdf5File::dataset_info(const std::string& /*name*/) const { missing(path_); }

std::optional<Hdf5Attribute> Hdf5File::attribute(const std::string& /*name*/,
                                                 const std::string& /*attribute*/) const {
  missing(path_);
}

std::vector<float> Hdf5File::read_rows_float(const std::string& /*name*/, std::uint64_t /*first*/,
                                             std::uint64_t /*count*/) const {
  missing(path_);
}

Hdf5References Hdf5File::read_references(const std::string& /*name*/,
                                         std::uint64_t /*max_values*/) const {
  missing(path_);
}

Hdf5Doubles Hdf5File::read_referenced_doubles(std::uint64_t /*ref*/, const std::string& /*what*/,
                                              std::uint64_t /*max_values*/) const {
  missing(path_);
}

Hdf5Kind Hdf5File::kind_of(const std::string& /*path*/) const { missing(path_); }

std::vector<std::string> Hdf5File::members(const std::string& /*group*/,
                                           std::size_t /*max_members*/) const {
  missing(path_);
}

bool Hdf5File::is_text(const std::string& /*name*/) const { missing(path_); }

Hdf5Strings Hdf5File::read_strings(const std::string& /*name*/, std::uint64_t /*max_values*/,
                                   std::size_t /*max_length*/) const {
  missing(path_);
}

}  // namespace neurobench::detail
