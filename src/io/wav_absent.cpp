// SPDX-License-Identifier: Apache-2.0
// WAV reading in a build without the sndfile component (NEUROBENCH_WITH_SNDFILE): each call
// says that the component is missing and what it needs (exit 2 from the command line).
#include <neurobench/io/wav.hpp>

#include <torch/script.h>

#include <neurobench/components.hpp>
#include <neurobench/errors.hpp>

namespace neurobench {

namespace {
[[noreturn]] void missing(const std::filesystem::path& path) {
  require_component("sndfile", "reading the WAV file " + path.string());
  throw UsageError("unreachable: the sndfile component is missing");  // require_component threw
}
}  // namespace

WavInfo read_wav_info(const std::filesystem::path& path) { missing(path); }

torch::Tensor load_wav(const std::filesystem::path& path, const WavReadOptions& /*options*/) {
  missing(path);
}

}  // namespace neurobench
