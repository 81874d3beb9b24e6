// SPDX-License-Identifier: Apache-2.0
// NeuroBench's MSWC keyword FSCIL subset: which clips each list names, with which label, and
// each clip decoded and padded as its loader pads it.
#include <neurobench/datasets/mswc.hpp>

#include <cstring>
#include <utility>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/opus.hpp>

#include "datasets/mswc_csv.hpp"
#include "io/input_file.hpp"
#include "util/progress.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace neurobench::datasets {

namespace fs = std::filesystem;

std::string_view to_string(MswcSubset subset) {
  return subset == MswcSubset::Base ? "base" : "evaluation";
}

std::string_view to_string(MswcProcedure procedure) {
  switch (procedure) {
    case MswcProcedure::Training:
      return "training";
    case MswcProcedure::Validation:
      return "validation";
    case MswcProcedure::Testing:
      return "testing";
  }
  return "testing";
}

MswcSubset mswc_subset(std::string_view name) {
  if (name == "base") return MswcSubset::Base;
  if (name == "evaluation") return MswcSubset::Evaluation;
  throw UsageError(fmt::format("unknown MSWC subset '{}' (subsets: base, evaluation)",
                               detail::printable(name, 60)));
}

MswcProcedure mswc_procedure(std::string_view name) {
  for (const auto p :
       {MswcProcedure::Training, MswcProcedure::Validation, MswcProcedure::Testing}) {
    if (name == to_string(p)) return p;
  }
  throw UsageError(
      fmt::format("unknown MSWC procedure '{}' (procedures: training, validation, testing)",
                  detail::printable(name, 60)));
}

void MswcOptions::validate() const {
  if (subset == MswcSubset::Base) {
    if (!procedure) {
      throw UsageError(
          "MSWC: the 'base' subset needs a procedure: training, validation or testing");
    }
    if (!language.empty()) {
      throw UsageError(fmt::format(
          "MSWC: a language ('{}') is for the 'evaluation' subset; the 'base' subset holds "
          "the base classes of every language",
          detail::printable(language, 60)));
    }
    return;
  }
  if (procedure) {
    throw UsageError(fmt::format(
        "MSWC: a procedure ('{}') is for the 'base' subset; the 'evaluation' subset is one "
        "language's evaluation.csv",
        to_string(*procedure)));
  }
  if (language.empty()) {
    throw UsageError(
        "MSWC: the 'evaluation' subset needs a language (fa, eo, pt, eu, pl, cy, "
        "nl, ru, es, it: a folder of the release)");
  }
  if (language == "." || language == ".." || language.find('/') != std::string::npos ||
      language.find('\0') != std::string::npos) {
    throw UsageError(fmt::format("MSWC: language '{}' is not the name of one folder",
                                 detail::printable(language, 60)));
  }
}

torch::Tensor load_mswc_clip(const fs::path& file) {
  OpusReadOptions opus;
  opus.max_frames = Mswc::kClipSamples;
  opus.channels = 1;
  torch::Tensor samples;
  try {
    samples = load_opus(file, opus);
  } catch (const InputError& e) {
    throw InputError(fmt::format(
        "{} (an MSWC clip is mono 48 kHz Ogg Opus of at most one second; NeuroBench's loader "
        "fails on a longer one too)",
        e.what()));
  }
  torch::Tensor out = torch::zeros({Mswc::kClipSamples, 1}, torch::kFloat32);
  std::memcpy(out.data_ptr<float>(), samples.data_ptr<float>(),
              static_cast<std::size_t>(samples.size(0)) * sizeof(float));
  return out;
}

Mswc::Mswc(const fs::path& path, MswcOptions options) : options_(std::move(options)) {
  options_.validate();
  std::string list;
  if (options_.subset == MswcSubset::Base) {
    const MswcProcedure p = *options_.procedure;
    list = p == MswcProcedure::Training     ? "base_train.csv"
           : p == MswcProcedure::Validation ? "base_val.csv"
                                            : "base_test.csv";
  } else {
    list = options_.language + "/evaluation.csv";
  }
  folder_ = mswc_detail::find_release(path, list);
  list_ = folder_ / list;
  const std::string bytes =
      detail::read_input_file(list_, "MSWC list file", mswc_detail::kMaxListBytes);
  std::vector<mswc_detail::ListedClip> listed = mswc_detail::parse_list(bytes, list_);

  // Every clip is looked for now: a missing one is found before a run, not hours into it.
  detail::Sha256 digest;
  digest.update(bytes.data(), bytes.size());
  clips_.reserve(listed.size());
  detail::Progress progress(!options_.quiet, listed.size(), "files found", /*stops=*/true);
  for (std::size_t i = 0; i < listed.size(); ++i) {
    mswc_detail::ListedClip& c = listed[i];
    std::string file = mswc_detail::clip_file(folder_, c);
    std::uint64_t size = 0;
    try {
      size = detail::check_regular_input(file, "MSWC clip");
    } catch (const InputError& e) {
      throw InputError(fmt::format("{} line {} names a clip that is not there: {}",
                                   detail::path_text(list_), c.line, e.what()));
    }
    const std::string line = fmt::format("{}/clips/{} {}\n", c.lang, c.path, size);
    digest.update(line.data(), line.size());
    clips_.push_back({std::move(c.path), std::move(file), c.label, c.line});
    progress.update(i + 1);
  }
  sha256_ = digest.hex();
}

int64_t Mswc::size() const { return static_cast<int64_t>(clips_.size()); }

const Mswc::Clip& Mswc::clip(int64_t index) const {
  if (index < 0 || index >= size()) {
    throw UsageError(
        fmt::format("{}: sample index {} is out of range (size {})", describe(), index, size()));
  }
  return clips_[static_cast<std::size_t>(index)];
}

Batch Mswc::get(const std::vector<int64_t>& indices) const {
  for (const int64_t index : indices) (void)clip(index);
  const auto n = static_cast<int64_t>(indices.size());
  torch::Tensor data = torch::empty({n, kClipSamples, 1}, torch::kFloat32);
  torch::Tensor targets = torch::empty({n}, torch::kInt64);
  float* out = data.data_ptr<float>();
  int64_t* target = targets.data_ptr<int64_t>();
  // Each clip decodes on its own (an FFmpeg context per file); at::parallel_for rethrows the
  // first error.
  at::parallel_for(0, n, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const Clip& c = clips_[static_cast<std::size_t>(indices[static_cast<std::size_t>(i)])];
      const torch::Tensor samples = load_mswc_clip(c.file);
      std::memcpy(out + i * kClipSamples, samples.data_ptr<float>(),
                  static_cast<std::size_t>(kClipSamples) * sizeof(float));
      target[i] = c.label;
    }
  });
  return Batch{std::move(data), std::move(targets), {}};
}

std::string Mswc::describe() const {
  if (options_.subset == MswcSubset::Base) {
    return fmt::format("MSWC 'base' subset, '{}' procedure, of {} ({} clips)",
                       to_string(*options_.procedure), folder_.string(), clips_.size());
  }
  return fmt::format("MSWC 'evaluation' subset of language '{}' of {} ({} clips)",
                     options_.language, folder_.string(), clips_.size());
}

std::optional<std::string> Mswc::source_sha256() const { return sha256_; }

std::vector<fs::path> Mswc::input_files() const {
  std::vector<fs::path> files = {list_};
  for (const Clip& c : clips_) files.emplace_back(c.file);
  return files;
}

fs::path Mswc::file(int64_t index) const { return clip(index).file; }

const std::string& Mswc::listed_path(int64_t index) const { return clip(index).listed; }

int64_t Mswc::label(int64_t index) const { return clip(index).label; }

int64_t Mswc::line(int64_t index) const { return clip(index).line; }

}  // namespace neurobench::datasets
