// SPDX-License-Identifier: Apache-2.0
// The WAV reader (libsndfile underneath): any bytes are a header and samples or an InputError;
// the samples read are touched whole, so the sanitizers see their memory.
#include <ATen/ATen.h>

#include <neurobench/io/wav.hpp>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = neurobench::fuzz::input_file("input.wav", data, size);
  neurobench::fuzz::expect_clean([&] {
    const neurobench::WavInfo info = neurobench::read_wav_info(path);
    if (info.frames < 0 || info.channels < 0) std::abort();
    // As the Speech Commands data set reads a clip: the first second, checked as 16 kHz mono.
    neurobench::WavReadOptions first;
    first.first_frames = 16000;
    const at::Tensor t = neurobench::load_wav(path, first);
    if (t.size(0) > 16000 || t.size(0) > info.frames || t.size(1) != info.channels) std::abort();
    if (t.numel() > 0) (void)t.to(at::kDouble).sum().item<double>();
    first.sample_rate = 16000;
    first.channels = 1;
    (void)neurobench::load_wav(path, first);
  });
  return 0;
}
