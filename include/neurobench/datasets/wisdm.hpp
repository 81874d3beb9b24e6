// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ATen/core/Tensor.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/export.hpp>
#include <neurobench/io/npz.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::datasets {

/// Where NeuroBench's WISDM file can be downloaded: the Google Drive folder NeuroBench's
/// `WISDM` data set fetches it from (it holds `watch_subset2_40.npz`).
inline constexpr const char* kWisdmUrl =
    "https://drive.google.com/drive/folders/1WCN-XwLM_D2nOTZLY00iGwEJLwDQaUCv";
/// The name of NeuroBench's WISDM file, looked for in a folder given as the path.
inline constexpr const char* kWisdmFileName = "watch_subset2_40.npz";

/// Which windows of the file a Wisdm data set holds (NeuroBench's `train_dataset`,
/// `val_dataset` and `test_dataset`).
enum class WisdmSubset {
  Train,  ///< `train`: inputs `arr_0`, one-hot targets `arr_3`.
  Val,    ///< `val`: inputs `arr_1`, one-hot targets `arr_4`.
  Test,   ///< `test`: inputs `arr_2`, one-hot targets `arr_5`.
};

/// The name of a subset: `train`, `val` or `test`.
[[nodiscard]] std::string_view to_string(WisdmSubset subset);
/// The subset called `name` (exactly as to_string() writes it). Throws UsageError naming it and
/// listing the valid names.
[[nodiscard]] WisdmSubset wisdm_subset(std::string_view name);

/// The class index of each row of a 2-D array `(samples, classes)`, as NumPy's
/// `np.argmax(y, axis=-1)` gives it: the first column holding the row's largest value (ties go
/// to the lowest index, an all-zero row gives 0), a NaN counting as larger than any number (the
/// first NaN wins). Returns `(samples)` int64. Any dtype load_npy reads; values are compared
/// exactly (integers as integers, floating point as double).
///
/// Throws InputError when `one_hot` is undefined, not 2-D, or has no columns (NumPy: "attempt
/// to get argmax of an empty sequence").
[[nodiscard]] at::Tensor argmax_rows(const at::Tensor& one_hot);

/// The `.npz` file `path` names, as NeuroBench's WISDM resolves it: `path` itself when it ends
/// in `.npz`, else `path/watch_subset2_40.npz`. Does not look at the file system.
[[nodiscard]] std::filesystem::path wisdm_file(const std::filesystem::path& path);

/// NeuroBench's WISDM human activity recognition data (the smartwatch subset of Fra et al.,
/// 2022: seven hand-oriented activities, 2 s windows of 40 samples at 20 Hz, 6 channels of
/// accelerometer and gyroscope) with the semantics of NeuroBench's `WISDM`; see
/// docs/datasets.md.
///
/// `path` is the `.npz` file (a path ending in `.npz`) or the folder holding
/// `watch_subset2_40.npz` (wisdm_file()). The file holds six arrays: `arr_0`, `arr_1`, `arr_2`
/// the train, validation and test inputs `(windows, timesteps, channels)`, and `arr_3`,
/// `arr_4`, `arr_5` their one-hot targets `(windows, classes)`. The release has 40 timesteps,
/// 6 channels and 7 classes; other sizes are read as they are.
///
/// - Samples: data `(timesteps, channels)` float32, converted from the array's dtype as
///   `torch.tensor(x, dtype=torch.float)` converts it (float64 rounded to nearest); target the
///   class index argmax_rows() gives, int64. In a batch, `(batch, 40, 6)` and `(batch)`.
/// - Only the two arrays of the subset are read (the file's other arrays cost nothing), but
///   all six must be there, as NeuroBench reads all six.
///
/// The subset is read whole when the data set is made (240 values a window) and its file's
/// SHA-256 recorded (source_sha256()).
///
/// Throws InputError naming the file when it is missing (saying where to get it: kWisdmUrl),
/// is not an `.npz` archive or is damaged, lacks one of `arr_0`..`arr_5` (listing the arrays
/// it has), holds a non-numeric dtype (naming the array and dtype), or when the subset's inputs
/// are not 3-D, its targets not 2-D or without columns, or the two differ in their number of
/// windows (naming the arrays and their shapes). Throws UsageError for invalid `options`.
///
/// ```cpp
/// auto test = std::make_shared<neurobench::datasets::Wisdm>(
///     "data/nehar/watch_subset2_40.npz", neurobench::datasets::WisdmSubset::Test);
/// neurobench::Batch first = test->get({0});  // data (1, 40, 6), targets (1)
/// ```
class Wisdm final : public Dataset {
 public:
  /// Reads `subset` of the file at `path`; see the class comment.
  Wisdm(const std::filesystem::path& path, WisdmSubset subset, NpzReadOptions options = {});

  [[nodiscard]] int64_t size() const override;
  /// Windows `indices`: data `(n, timesteps, channels)` float32, targets `(n)` int64. Throws
  /// UsageError for an index out of range.
  [[nodiscard]] Batch get(const std::vector<int64_t>& indices) const override;
  /// Windows `[begin, end)`, without copying. Throws UsageError for a range out of bounds.
  [[nodiscard]] Batch slice(int64_t begin, int64_t end) const override;
  /// `WISDM 'test' subset of FILE (N windows)`.
  [[nodiscard]] std::string describe() const override;
  /// `data` and `targets`, for the checks Benchmark::run makes before it starts.
  [[nodiscard]] std::vector<NamedArray> arrays() const override;
  /// The SHA-256 of the `.npz` file.
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  /// The files it reads (Dataset::input_files()).
  [[nodiscard]] std::vector<std::filesystem::path> input_files() const override;

  /// The `.npz` file read.
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }
  /// The subset.
  [[nodiscard]] WisdmSubset subset() const { return subset_; }
  /// All inputs, `(windows, timesteps, channels)` float32.
  [[nodiscard]] const at::Tensor& data() const { return data_; }
  /// All targets, `(windows)` int64 class indices.
  [[nodiscard]] const at::Tensor& targets() const { return targets_; }
  /// Timesteps per window (NeuroBench's `num_steps`; 40 in the release).
  [[nodiscard]] int64_t num_steps() const { return data_.size(1); }
  /// Channels per timestep (NeuroBench's `num_inputs`; 6 in the release).
  [[nodiscard]] int64_t num_inputs() const { return data_.size(2); }
  /// The width of the one-hot targets: the number of classes the file encodes (7 in the
  /// release). NeuroBench's `num_outputs` counts the distinct classes of the train targets
  /// instead; the two agree on the release, where every class occurs.
  [[nodiscard]] int64_t num_classes() const { return num_classes_; }

 private:
  std::filesystem::path file_;
  WisdmSubset subset_;
  at::Tensor data_;
  at::Tensor targets_;
  int64_t num_classes_ = 0;
  std::string sha256_;
};

}  // namespace neurobench::datasets
NEUROBENCH_API_END
