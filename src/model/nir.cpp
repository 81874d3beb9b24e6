// SPDX-License-Identifier: Apache-2.0
// A NIR graph built and saved as TorchScript (neurobench convert).
#include <neurobench/model/nir.hpp>

#include <sstream>

#include <neurobench/io/output_file.hpp>

#include "io/input_file.hpp"
#include "model/nir_build.hpp"

namespace neurobench {

NirReport save_nir_as_torchscript(const std::filesystem::path& nir_file,
                                  const std::filesystem::path& out, const NirOptions& options) {
  (void)detail::check_regular_input(nir_file, "NIR graph");
  check_distinct_files({{out, "output"}}, {{nir_file, "NIR graph"}});
  detail::NirBuilt built = detail::build_nir_module(nir_file, options);
  std::ostringstream bytes;
  built.module.save(bytes);
  write_output_file(out, bytes.str());
  return std::move(built.report);
}

}  // namespace neurobench
