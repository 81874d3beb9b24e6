// SPDX-License-Identifier: Apache-2.0
// Ogg Opus reading in a build without the ffmpeg component (NEUROBENCH_WITH_FFMPEG): the call
// says that the component is missing and what it needs (exit 2 from the command line).
#include <neurobench/io/opus.hpp>

#include <neurobench/components.hpp>
#include <neurobench/errors.hpp>

namespace neurobench {

at::Tensor load_opus(const std::filesystem::path& path, const OpusReadOptions& options) {
  options.validate();
  require_component("ffmpeg", "reading the Ogg Opus file " + path.string());
  throw UsageError("unreachable: the ffmpeg component is missing");  // require_component threw
}

}  // namespace neurobench
