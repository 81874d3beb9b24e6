// SPDX-License-Identifier: Apache-2.0
// Which optional components this build has: the build defines NEUROBENCH_HAS_<NAME> for this
// file alone (CMakeLists.txt), so that no other source depends on the choice.
#include <neurobench/components.hpp>

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include <neurobench/errors.hpp>

namespace neurobench {

namespace {

#ifdef NEUROBENCH_HAS_HDF5
constexpr bool kHdf5 = true;
#else
constexpr bool kHdf5 = false;
#endif
#ifdef NEUROBENCH_HAS_SNDFILE
constexpr bool kSndfile = true;
#else
constexpr bool kSndfile = false;
#endif
#ifdef NEUROBENCH_HAS_DISTRIBUTED
constexpr bool kDistributed = true;
#else
constexpr bool kDistributed = false;
#endif
#ifdef NEUROBENCH_HAS_FFMPEG
constexpr bool kFfmpeg = true;
#else
constexpr bool kFfmpeg = false;
#endif
#ifdef NEUROBENCH_HAS_CUDA
constexpr bool kCuda = true;
#else
constexpr bool kCuda = false;
#endif

const Component& find(std::string_view name) {
  const auto& all = components();
  const auto it =
      std::find_if(all.begin(), all.end(), [&](const Component& c) { return c.name == name; });
  if (it == all.end()) {
    throw UsageError(fmt::format(
        "unknown component '{}' (known: hdf5, sndfile, distributed, cuda, ffmpeg)", name));
  }
  return *it;
}

}  // namespace

const std::vector<Component>& components() {
  static const std::vector<Component> all = {
      {"hdf5", kHdf5, "HDF5's C library (Debian: libhdf5-dev)",
       "MATLAB v7.3 files: the primate-reaching data set"},
      {"sndfile", kSndfile, "libsndfile (Debian: libsndfile1-dev)",
       "WAV files: the speech-commands data set and <neurobench/io/wav.hpp>"},
      {"distributed", kDistributed, "LibTorch's c10d and Gloo's headers (Debian: libgloo-dev)",
       "sharded runs started by torchrun, srun or mpirun"},
      {"cuda", kCuda, "a LibTorch built with CUDA, and the CUDA toolkit's runtime",
       "the GPU's memory statistics and description with --device cuda"},
      {"ffmpeg", kFfmpeg,
       "FFmpeg's libavformat and libavcodec (Debian: libavformat-dev, "
       "libavcodec-dev)",
       "Ogg Opus files: the mswc data set and <neurobench/io/opus.hpp>"},
  };
  return all;
}

bool has_component(std::string_view name) { return find(name).built; }

std::vector<std::string> built_components() {
  std::vector<std::string> out;
  for (const auto& c : components()) {
    if (c.built) out.push_back(c.name);
  }
  return out;
}

void require_component(std::string_view name, std::string_view what) {
  const Component& c = find(name);
  if (c.built) return;
  std::string option = "NEUROBENCH_WITH_" + c.name;
  std::transform(option.begin(), option.end(), option.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  throw UsageError(fmt::format(
      "this neurobench was built without its '{}' component, which {} needs: install {} and "
      "build neurobench again ({}; docs/cmake.md, \"Components\")",
      c.name, what, c.needs, option));
}

}  // namespace neurobench
