// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <neurobench/data/dataset.hpp>  // with kDefaultMaxArrayBytes (io/npz.hpp)
#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

namespace neurobench::datasets {

/// Where the Primate Reaching recordings (O'Doherty et al., Sabes lab) can be downloaded, as
/// NeuroBench names it: one `.mat` file per session, e.g. `indy_20160622_01.mat`.
inline constexpr const char* kPrimateReachingUrl = "https://zenodo.org/record/583331";

/// The six sessions NeuroBench's Primate Reaching benchmark uses (`NAME.mat`).
inline constexpr const char* kPrimateReachingFiles[] = {"indy_20160622_01", "indy_20160630_01",
                                                        "indy_20170131_02", "loco_20170210_03",
                                                        "loco_20170215_02", "loco_20170301_05"};

/// Which time steps of the recording a PrimateReaching data set holds: NeuroBench's
/// `ind_train`, `ind_val` and `ind_test`.
enum class PrimateReachingSubset {
  Train,       ///< `train`: NeuroBench's `ind_train`.
  Validation,  ///< `val`: NeuroBench's `ind_val`.
  Test,        ///< `test`: NeuroBench's `ind_test`.
};

/// The name of a subset: `train`, `val` or `test`.
[[nodiscard]] std::string_view to_string(PrimateReachingSubset subset);
/// The subset called `name`: `train`, `val` (also `valid`, `validation`) or `test`. Throws
/// UsageError naming it and listing the valid names.
[[nodiscard]] PrimateReachingSubset primate_reaching_subset(std::string_view name);

/// How a PrimateReaching data set is built: NeuroBench's `PrimateReaching` arguments, with its
/// defaults (NeuroBench has no default for `num_steps`; 1 is what its benchmarks use).
struct PrimateReachingOptions {
  int64_t num_steps = 1;                  ///< Binning windows per sample, one window apart.
  double train_ratio = 0.8;               ///< Share of each chunk's segments in `train`, in [0, 1].
  bool label_series = false;              ///< Targets `(num_steps, 2)` instead of `(2)`.
  int64_t biological_delay = 0;           ///< Time steps (4 ms) the targets are shifted by, >= 0.
  double stride = 0.004;                  ///< Seconds between samples of a segment, >= 0.004.
  double bin_width = 0.028;               ///< Seconds of spikes a window counts, >= 0.004.
  int64_t max_segment_length = 2000;      ///< Time steps; longer segments are dropped when asked.
  int64_t split_num = 1;                  ///< Chunks the segments are split into, each split alike.
  bool remove_segments_inactive = false;  ///< Drop segments of max_segment_length or more.
  bool quiet = false;                     ///< No progress bar on stderr while the file is read.
  /// The most bytes the spike trains (a byte per 4 ms step and channel) may take
  /// (`--max-array-bytes`); they are checked against it and the memory available before any
  /// is allocated.
  std::uint64_t max_array_bytes = kDefaultMaxArrayBytes;

  /// The longest `stride` or `bin_width`, in seconds (about 31 years): longer ones are refused.
  static constexpr double kMaxSeconds = 1e9;

  /// Checks the values as NeuroBench's assertions do (and split_num >= 1; stride and bin_width
  /// at most kMaxSeconds). Throws UsageError naming the field and its value.
  void validate() const;
};

/// One session of the Primate Reaching data set (monkey motor cortex spikes and the cursor
/// they move), with the semantics of NeuroBench's `PrimateReaching`; see docs/datasets.md.
///
/// `path` is a MATLAB v7.3 `.mat` file (HDF5) of the published layout: `spikes`, a cell array
/// (units, channels) of spike-time vectors in seconds; `t`, the time of each 4 ms step;
/// `cursor_pos` and `target_pos`, (2, steps) as HDF5 stores them. Any file of that layout is
/// read, whatever its name.
///
/// - Spikes: each unit's times histogrammed over the edges `t[0] - bin_width, ...` 4 ms apart
///   (NumPy's `arange`), each non-empty bin marking a spike at the step after it, units of a
///   channel merged; a window counts the spikes of `round(bin_width / 0.004)` steps.
/// - Targets: the cursor's velocity, `torch.gradient` of `cursor_pos` (float32) along time,
///   in position units per step.
/// - Segments: the recording cut where `target_pos` changes; split into `split_num` chunks,
///   each chunk's first `train_ratio` segments in `train`, half the rest in `val`, the others
///   in `test` (NeuroBench's quirks kept: the remainder of the chunks is dropped, and
///   remove_segments_inactive tests a segment's index within its chunk). A subset's samples
///   are the steps of its segments, `stride` apart.
/// - Samples: data `(num_steps, channels)` float32, row k the window ending `k * bin_width`
///   before the sample's step (NeuroBench's negative indices, which wrap to the end of the
///   recording, kept); targets `(2)` float32, or `(num_steps, 2)` with label_series, matching
///   the rows. The few steps NeuroBench cannot serve (its IndexError: with biological_delay
///   the last steps of the recording) are left out of the subset.
///
/// The constructor reads the whole file (a progress bar over the cells unless quiet) and
/// computes its SHA-256. Throws UsageError for bad options and InputError naming the file and
/// dataset when the file is not HDF5, truncated, lacks `spikes`, `t`, `cursor_pos` or
/// `target_pos`, or a dataset has the wrong type or shape.
///
/// ```cpp
/// neurobench::datasets::PrimateReaching test("indy_20160622_01.mat",
///                                            neurobench::datasets::PrimateReachingSubset::Test);
/// neurobench::Batch first = test.get({0});  // data (1, 1, 96), targets (1, 2)
/// ```
class PrimateReaching final : public Dataset {
 public:
  static constexpr double kSamplingRate = 0.004;  ///< Seconds per step of the recordings.

  /// Reads `path` and builds `subset`; see the class comment.
  PrimateReaching(const std::filesystem::path& path, PrimateReachingSubset subset,
                  PrimateReachingOptions options = {});

  [[nodiscard]] int64_t size() const override;
  /// Samples `indices`: data `(n, num_steps, channels)` float32, targets `(n, 2)` or
  /// `(n, num_steps, 2)` float32. Throws UsageError for an index out of range.
  [[nodiscard]] Batch get(const std::vector<int64_t>& indices) const override;
  /// `Primate Reaching 'test' subset of FILE (N samples, C channels)`.
  [[nodiscard]] std::string describe() const override;
  /// The SHA-256 of the `.mat` file.
  [[nodiscard]] std::optional<std::string> source_sha256() const override;
  /// The files it reads (Dataset::input_files()).
  [[nodiscard]] std::vector<std::filesystem::path> input_files() const override;
  /// For the scan for NaN and Inf before a run: the session's velocities, `(2, steps)` float32,
  /// from which every subset's targets are taken (`velocity (targets, from cursor_pos)`). The
  /// data, spike counts, are always finite.
  [[nodiscard]] std::vector<NamedArray> arrays() const override;

  /// The subset.
  [[nodiscard]] PrimateReachingSubset subset() const { return subset_; }
  /// The options it was built with.
  [[nodiscard]] const PrimateReachingOptions& options() const { return options_; }
  /// Channels per sample (`spikes` columns: 96 for indy, 192 for loco).
  [[nodiscard]] int64_t channels() const { return channels_; }
  /// The time step of each sample (NeuroBench's `ind_test` and so on, less the steps it
  /// cannot serve).
  [[nodiscard]] const std::vector<int64_t>& steps() const { return steps_; }
  /// How many steps of NeuroBench's index list were left out because NeuroBench raises an
  /// IndexError for them.
  [[nodiscard]] int64_t dropped_steps() const { return dropped_; }
  /// The segments `[start, end)` in steps, as cut at the changes of `target_pos`.
  [[nodiscard]] const std::vector<std::pair<int64_t, int64_t>>& segments() const {
    return segments_;
  }

 private:
  std::filesystem::path path_;
  PrimateReachingSubset subset_;
  PrimateReachingOptions options_;
  int64_t channels_ = 0;
  int64_t ratio_ = 1;                 // steps per binning window
  int64_t window_columns_ = 0;        // NeuroBench's samples.shape[1] (after the delay)
  std::vector<std::uint8_t> spikes_;  // (steps, channels) 0/1, before the windowing
  at::Tensor velocity_;               // (2, columns) float32, the delay applied
  std::vector<std::pair<int64_t, int64_t>> segments_;
  std::vector<int64_t> steps_;
  int64_t dropped_ = 0;
  std::string sha256_;
};

}  // namespace neurobench::datasets
NEUROBENCH_API_END
