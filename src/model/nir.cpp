// SPDX-License-Identifier: Apache-2.0
// A NIR graph built and saved as TorchScript (neurobench convert).
#include <neurobench/model/nir.hpp>

#include <fstream>
#include <sstream>

#include <neurobench/io/output_file.hpp>

#include "io/input_file.hpp"
#include "model/nir_build.hpp"
#include "model/nir_graph.hpp"

namespace neurobench {

bool is_nir_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;  // a FIFO would block
  std::ifstream in(path, std::ios::binary);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return detail::has_hdf5_signature(head);
}

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
