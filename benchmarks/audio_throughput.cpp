// SPDX-License-Identifier: Apache-2.0
// Throughput of the audio pre-processors: clips per second on one thread.
//
// A batch of `--clips` clips of one second at 16 kHz, shaped (clips, 16000, 1) as the Speech
// Commands data set gives them, goes through S2SPreProcessor, MFCCPreProcessor (NeuroBench's
// settings) and Resample (16 kHz to 8 kHz) `--repeats` times; the median time per batch is
// printed as clips/s, one line per pre-processor ("name clips_per_s median_ms"), so that
// audio_throughput.py can put torchaudio's figures beside them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <neurobench/neurobench.hpp>

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Throughput of the audio pre-processors (clips/s, one thread)"};
  int64_t clips = 100;
  int repeats = 7;
  int threads = 1;
  app.add_option("--clips", clips, "clips of 16000 samples per batch")->check(CLI::PositiveNumber);
  app.add_option("--repeats", repeats, "timed batches per pre-processor (median reported)")
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "LibTorch intra-op threads")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  at::set_num_threads(threads);
  c10::InferenceMode guard;

  // Speech-like level noise: the content does not change the work.
  torch::manual_seed(0);
  neurobench::Batch batch;
  batch.data = (torch::randn({clips, 16000, 1}) * 0.1).clamp(-1, 1);
  batch.targets = torch::zeros({clips}, torch::kLong);

  for (const char* name : {"S2SPreProcessor", "MFCCPreProcessor", "Resample"}) {
    auto pre = neurobench::pre_processors().create(name);
    (void)(*pre)(batch);  // warm-up: allocator, FFT plans
    std::vector<double> times;
    for (int r = 0; r < repeats; ++r) {
      const auto start = Clock::now();
      const neurobench::Batch out = (*pre)(batch);
      times.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    }
    const double t = median(times);
    std::printf("%s %.1f %.3f\n", name, static_cast<double>(clips) / t, t * 1e3);
  }
  return 0;
}
