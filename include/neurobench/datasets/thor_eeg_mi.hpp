// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <torch/script.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::datasets {

/// Where NeuroBench's THOR EEG motor imagery files can be downloaded: the Hugging Face data set
/// NeuroBench's `ThorEEGMI` fetches them from (`train_X.npy`, `train_y.npy`, `val_X.npy`,
/// `val_y.npy`).
inline constexpr const char* kThorEegMiUrl =
    "https://huggingface.co/datasets/NeuroBench/thor_eeg_mi";

/// Which trials a ThorEegMi data set holds (NeuroBench's `split`).
enum class ThorEegMiSubset {
  Train,  ///< `train`: `train_X.npy` and `train_y.npy`.
  Val,    ///< `val`: `val_X.npy` and `val_y.npy`.
};

/// The name of a subset: `train` or `val`.
[[nodiscard]] std::string_view to_string(ThorEegMiSubset subset);
/// The subset called `name` (exactly as to_string() writes it). Throws UsageError naming it and
/// listing the valid names.
[[nodiscard]] ThorEegMiSubset thor_eeg_mi_subset(std::string_view name);

/// The inputs file of `subset` in `folder`: `folder/train_X.npy` or `folder/val_X.npy`.
[[nodiscard]] std::filesystem::path thor_eeg_mi_inputs_file(const std::filesystem::path& folder,
                                                            ThorEegMiSubset subset);
/// The targets file of `subset` in `folder`: `folder/train_y.npy` or `folder/val_y.npy`.
[[nodiscard]] std::filesystem::path thor_eeg_mi_targets_file(const std::filesystem::path& folder,
                                                             ThorEegMiSubset subset);

/// NeuroBench's THOR EEG motor imagery data (the Lee2019 recordings of 54 subjects imagining
/// left- or right-hand movements, band-passed to 8-30 Hz, resampled to 100 Hz and cut into
/// trials, as NeuroBench prepared them for the THOR challenge) with the semantics of
/// NeuroBench's `ThorEEGMI`; see docs/datasets.md.
///
/// `folder` holds the subset's two NumPy files, as NeuroBench's `root`: `SUBSET_X.npy`, the
/// trials `(trials, timesteps, channels)`, and `SUBSET_y.npy`, their class labels `(trials)`
/// (0 right hand, 1 left hand). The other subset's files need not be there.
///
/// - Samples: data `(timesteps, channels)` float32, converted from the file's dtype as
///   `torch.tensor(X, dtype=torch.float32)` converts it (float64 rounded to nearest, integers
///   and booleans to the nearest float32); target int64, as `torch.tensor(y, dtype=torch.long)`
///   gives it. In a batch, `(batch, timesteps, channels)` and `(batch)`.
/// - Inputs: any dtype load_npy reads (float16/32/64, int8/16/32/64, uint8, bool), any byte
///   order. Targets: integers or booleans, or floating point holding whole numbers.
///
/// Both files are read whole when the data set is made; source_sha256() is the SHA-256 of the
/// text `thor-eeg-mi SUBSET\n` followed by one line `SHA256  NAME\n` per file (inputs, then
/// targets), as `sha256sum` lists them.
///
/// Throws InputError naming the file when one is missing (saying where to get it:
/// kThorEegMiUrl), not a regular file, not a `.npy` file or damaged, or holds an unsupported
/// dtype (complex, strings, uint16..uint64: load_npy names it); when the inputs are not 3-D or
/// the targets not 1-D (naming the file and shape); when the two hold different numbers of
/// trials (naming both files and shapes); and when a target is not a class index (negative, a
/// fraction, NaN, infinite or beyond int64: naming the file, the trial and the value).
///
/// ```cpp
/// auto val = std::make_shared<neurobench::datasets::ThorEegMi>(
///     "data/thor_eeg_mi", neurobench::datasets::ThorEegMiSubset::Val);
/// neurobench::Batch first = val->get({0});  // data (1, timesteps, 62), targets (1)
/// ```
class ThorEegMi final : public Dataset {
 public:
  /// Reads `subset` of the files in `folder`; see the class comment.
  ThorEegMi(const std::filesystem::path& folder, ThorEegMiSubset subset);

  [[nodiscard]] int64_t size() const override;
  /// Trials `indices`: data `(n, timesteps, channels)` float32, targets `(n)` int64. Throws
  /// UsageError for an index out of range.
  [[nodiscard]] Batch get(const std::vector<int64_t>& indices) const override;
  /// Trials `[begin, end)`, without copying. Throws UsageError for a range out of bounds.
  [[nodiscard]] Batch slice(int64_t begin, int64_t end) const override;
  /// `THOR EEG MI 'val' subset of FOLDER (N trials)`.
  [[nodiscard]] std::string describe() const override;
  /// `data` and `targets`, for the checks Benchmark::run makes before it starts.
  [[nodiscard]] std::vector<NamedArray> arrays() const override;
  /// The digest of both files, as the class comment says.
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  /// The files it reads (Dataset::input_files()).
  [[nodiscard]] std::vector<std::filesystem::path> input_files() const override;

  /// The folder read.
  [[nodiscard]] const std::filesystem::path& folder() const { return folder_; }
  /// The subset.
  [[nodiscard]] ThorEegMiSubset subset() const { return subset_; }
  /// All inputs, `(trials, timesteps, channels)` float32.
  [[nodiscard]] const torch::Tensor& data() const { return data_; }
  /// All targets, `(trials)` int64 class indices.
  [[nodiscard]] const torch::Tensor& targets() const { return targets_; }
  /// Timesteps per trial (NeuroBench's `n_timesteps`).
  [[nodiscard]] int64_t num_timesteps() const { return data_.size(1); }
  /// EEG channels (NeuroBench's `n_channels`; 62 in the release).
  [[nodiscard]] int64_t num_channels() const { return data_.size(2); }
  /// The largest target plus one (NeuroBench's `n_classes`; 2 in the release); 0 when the
  /// subset has no trials, where NeuroBench's property fails.
  [[nodiscard]] int64_t num_classes() const;

 private:
  std::filesystem::path folder_;
  ThorEegMiSubset subset_;
  torch::Tensor data_;
  torch::Tensor targets_;
  std::string sha256_;
};

}  // namespace neurobench::datasets
NEUROBENCH_API_END
