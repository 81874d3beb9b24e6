// SPDX-License-Identifier: Apache-2.0
// Prophesee's Gen4 automotive detection release (pre-computed histograms) in NeuroBench's
// sequential batches: the recordings indexed and checked, and each chunk read as metavision_ml's
// SequentialDataset reads an HDF5 file (`_load_hdf5`) with load_boxes' boxes.
#include <neurobench/datasets/gen4_detection.hpp>

#include <algorithm>
#include <cmath>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>

#include "datasets/gen4_detection_boxes.hpp"
#include "io/hdf5_file.hpp"
#include "io/input_file.hpp"
#include "util/progress.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace neurobench::datasets {
namespace {

constexpr std::size_t kGen4BoxesCached = 16;

std::string gen4_names(std::string_view prefix) {
  return fmt::format("{}train, val, test (or training, validation, testing)", prefix);
}

// What an .h5 recording holds, from its header and attributes.
struct Gen4Header {
  int64_t bins = 0;
  int64_t sensor_height = 0;
  int64_t sensor_width = 0;
  bool store_as_uint8 = false;
  std::string type;
};

int64_t gen4_integer_attribute(const detail::Hdf5File& file, const char* name,
                               const detail::Hdf5Attribute& a) {
  if (a.is_text || !std::isfinite(a.number) || a.number != std::floor(a.number) ||
      std::fabs(a.number) > 9.0e15) {
    throw InputError(fmt::format("{}: dataset 'data', attribute '{}': {}; expected an integer",
                                 file.path().string(), name,
                                 a.is_text ? "'" + a.text + "'" : fmt::format("{}", a.number)));
  }
  return static_cast<int64_t>(a.number);
}

Gen4Header read_gen4_header(const std::filesystem::path& path, const Gen4DetectionOptions& o) {
  const detail::Hdf5File file(path);
  const detail::Hdf5DatasetInfo info = file.dataset_info("data");
  const std::vector<std::uint64_t> expected = {static_cast<std::uint64_t>(o.channels),
                                               static_cast<std::uint64_t>(o.height),
                                               static_cast<std::uint64_t>(o.width)};
  if (info.dims.size() != 4 ||
      std::vector<std::uint64_t>(info.dims.begin() + 1, info.dims.end()) != expected) {
    throw InputError(fmt::format(
        "{}: dataset 'data' has shape ({}); expected (bins, {}, {}, {}): {} channels of {} x {} "
        "histograms",
        path.string(), fmt::join(info.dims, ", "), o.channels, o.height, o.width, o.channels,
        o.height, o.width));
  }
  Gen4Header h;
  h.bins = static_cast<int64_t>(info.dims[0]);
  h.type = info.type_name();
  const auto attribute = [&](const char* name) { return file.attribute("data", name); };
  if (const auto mode = attribute("mode"); mode && (!mode->is_text || mode->text != "delta_t")) {
    throw InputError(
        fmt::format("{}: dataset 'data' has mode '{}'; only 'delta_t' is read (bins "
                    "of equal duration)",
                    path.string(), mode->is_text ? mode->text : "a number"));
  }
  const auto delta_t = attribute("delta_t");
  if (!delta_t) {
    throw InputError(
        fmt::format("{}: dataset 'data' has no attribute 'delta_t' (microseconds "
                    "per bin)",
                    path.string()));
  }
  if (const int64_t dt = gen4_integer_attribute(file, "delta_t", *delta_t); dt != o.delta_t_us) {
    throw InputError(
        fmt::format("{}: bins of {} us (attribute 'delta_t'); expected {} (option "
                    "delta_t)",
                    path.string(), dt, o.delta_t_us));
  }
  if (const auto flag = attribute("store_as_uint8")) {
    h.store_as_uint8 = gen4_integer_attribute(file, "store_as_uint8", *flag) != 0;
  }
  // metavision's _get_original_size_file: the sensor's size, or the histograms' shifted back.
  const auto sensor_width = attribute("event_input_width");
  const auto sensor_height = attribute("event_input_height");
  if (sensor_width) {
    if (!sensor_height) {
      throw InputError(
          fmt::format("{}: attribute 'event_input_width' without "
                      "'event_input_height'",
                      path.string()));
    }
    h.sensor_width = gen4_integer_attribute(file, "event_input_width", *sensor_width);
    h.sensor_height = gen4_integer_attribute(file, "event_input_height", *sensor_height);
  } else {
    auto factor = attribute("downsampling_factor");
    const char* factor_name = "downsampling_factor";
    if (!factor) {
      factor = attribute("shift");
      factor_name = "shift";
    }
    const int64_t shift = factor ? gen4_integer_attribute(file, factor_name, *factor) : 0;
    if (shift < 0 || shift > 16) {
      throw InputError(fmt::format("{}: attribute '{}' is {}; expected 0 to 16", path.string(),
                                   factor_name, shift));
    }
    h.sensor_width = o.width << shift;
    h.sensor_height = o.height << shift;
  }
  const bool divides = h.sensor_width > 0 && h.sensor_height > 0 && h.sensor_width % o.width == 0 &&
                       h.sensor_height % o.height == 0 &&
                       h.sensor_width / o.width == h.sensor_height / o.height;
  const int64_t ratio = divides ? h.sensor_width / o.width : 0;
  if (!divides || (ratio & (ratio - 1)) != 0) {
    throw InputError(
        fmt::format("{}: a {} x {} sensor is not the {} x {} histograms times a power of two",
                    path.string(), h.sensor_width, h.sensor_height, o.width, o.height));
  }
  return h;
}

std::filesystem::path gen4_subset_folder(const std::filesystem::path& path, Gen4Subset subset) {
  const std::filesystem::path folder = path / std::string(to_string(subset));
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    throw InputError(fmt::format(
        "{}: not a Gen4 release: no folder '{}' (expected the release folder holding train/, "
        "val/ and test/, each with NAME.h5 histograms and NAME_bbox.npy boxes)",
        path.string(), to_string(subset)));
  }
  return folder;
}

}  // namespace

std::string_view to_string(Gen4Subset subset) {
  switch (subset) {
    case Gen4Subset::Train:
      return "train";
    case Gen4Subset::Val:
      return "val";
    case Gen4Subset::Test:
      return "test";
  }
  return "test";
}

Gen4Subset gen4_subset(std::string_view name) {
  if (name == "train" || name == "training") return Gen4Subset::Train;
  if (name == "val" || name == "validation") return Gen4Subset::Val;
  if (name == "test" || name == "testing") return Gen4Subset::Test;
  throw UsageError(
      fmt::format("subset: '{}' is not a Gen4 subset; expected {}", name, gen4_names("")));
}

std::vector<int64_t> gen4_class_lookup() {
  // create_class_lookup(wanted_keys): wanted classes get their 1-based rank, others -1.
  std::vector<int64_t> lookup;
  for (const char* name : kGen4ClassNames) {
    int64_t label = -1;
    for (std::size_t k = 0; k < kGen4Classes.size(); ++k) {
      if (std::string_view(kGen4Classes[k]) == name) label = static_cast<int64_t>(k) + 1;
    }
    lookup.push_back(label);
  }
  return lookup;
}

void Gen4DetectionOptions::validate() const {
  const std::pair<const char*, int64_t> positive[] = {
      {"batch_size", batch_size}, {"num_tbins", num_tbins}, {"delta_t", delta_t_us},
      {"channels", channels},     {"height", height},       {"width", width}};
  for (const auto& [name, value] : positive) {
    if (value <= 0 || value > (int64_t{1} << 40)) {
      throw UsageError(
          fmt::format("{}: {} is out of range; expected a positive integer", name, value));
    }
  }
  if (min_box_diag < 0 || min_box_diag > 4095) {
    throw UsageError(
        fmt::format("min_box_diag: {} is out of range; expected 0 to 4095", min_box_diag));
  }
}

Gen4Detection::Index Gen4Detection::index_folder(const std::filesystem::path& folder,
                                                 Gen4Subset subset, const Gen4DetectionOptions& o) {
  o.validate();
  const std::filesystem::path dir = gen4_subset_folder(folder, subset);
  std::vector<std::filesystem::path> files;
  detail::check_listable(dir, "folder");
  std::error_code ec;
  // Every NAME.h5, whatever it is, as NeuroBench's glob finds it: one that is not a regular
  // file (a folder, a FIFO, a link to nothing) is refused below, by name, not left out.
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".h5") files.push_back(it->path());
  }
  if (ec)
    throw InputError(fmt::format("{}: cannot list the folder: {}", dir.string(), ec.message()));
  std::sort(files.begin(), files.end());
  Index index;
  std::vector<std::filesystem::path> kept;
  for (const auto& file : files) {
    const std::string name = file.filename().string();
    const bool skip = subset == Gen4Subset::Test &&
                      std::find(kGen4SkippedRecordings.begin(), kGen4SkippedRecordings.end(),
                                name) != kGen4SkippedRecordings.end();
    if (skip) {
      index.skipped.push_back(name);
    } else {
      kept.push_back(file);
    }
  }
  if (kept.empty()) {
    throw InputError(fmt::format("{}: no recordings (NAME.h5 files) in the '{}' subset",
                                 dir.string(), to_string(subset)));
  }
  detail::Sha256 digest;
  const std::string head = fmt::format("gen4 {} {} {} {} {} {}\n", to_string(subset), o.num_tbins,
                                       o.delta_t_us, o.channels, o.height, o.width);
  digest.update(head.data(), head.size());
  detail::Progress progress(!o.quiet, kept.size(), "recordings indexed", /*stops=*/true);
  std::string first_type;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    Recording r;
    r.h5 = kept[i];
    // metavision's load_box_events: '_bbox.npy'.join(path.rsplit('.h5', 1))
    const std::string path = r.h5.string();
    r.boxes = path.substr(0, path.size() - 3) + "_bbox.npy";
    (void)detail::check_regular_input(r.h5, "recording");
    if (std::filesystem::symlink_status(r.boxes, ec).type() ==
        std::filesystem::file_type::not_found) {
      throw InputError(
          fmt::format("{}: the recording has no boxes file {} (NeuroBench skips only the four test "
                      "recordings without labels)",
                      detail::path_text(r.h5), detail::path_text(r.boxes.filename())));
    }
    (void)detail::check_regular_input(r.boxes, "boxes file");
    const Gen4Header h = read_gen4_header(r.h5, o);
    if (i == 0)
      first_type = fmt::format("{}{}", h.type, h.store_as_uint8 ? " (store_as_uint8)" : "");
    const std::string type =
        fmt::format("{}{}", h.type, h.store_as_uint8 ? " (store_as_uint8)" : "");
    if (type != first_type) {
      throw InputError(
          fmt::format("{}: histograms of type {}, but {} holds {}; a release has "
                      "one type",
                      r.h5.string(), type, kept[0].string(), first_type));
    }
    r.bins = h.bins;
    r.sensor_height = h.sensor_height;
    r.sensor_width = h.sensor_width;
    r.store_as_uint8 = h.store_as_uint8;
    const auto boxes = detail::read_gen4_boxes(r.boxes, r.sensor_width, r.sensor_height,
                                               static_cast<int64_t>(kGen4ClassNames.size()));
    const std::string line = fmt::format("{} {} {} {} {}\n", r.h5.filename().string(), r.bins, type,
                                         std::filesystem::file_size(r.h5, ec), boxes.size());
    digest.update(line.data(), line.size());
    index.recordings.push_back(std::move(r));
    progress.update(i + 1);
  }
  index.sha256 = digest.hex();
  return index;
}

namespace {

SequentialSchedule gen4_schedule(const std::vector<int64_t>& bins, const Gen4DetectionOptions& o) {
  std::vector<int64_t> durations;
  for (const int64_t b : bins) durations.push_back(b * o.delta_t_us);
  return SequentialSchedule(durations, o.delta_t_us, o.num_tbins, o.batch_size);
}

}  // namespace

Gen4Detection::Gen4Detection(const std::filesystem::path& path, Gen4Subset subset,
                             Gen4DetectionOptions options)
    : Gen4Detection(path, subset, options, index_folder(path, subset, options)) {}

Gen4Detection::Gen4Detection(const std::filesystem::path& folder, Gen4Subset subset,
                             const Gen4DetectionOptions& options, Index index)
    : SequentialDataset(gen4_schedule(
                            [&] {
                              std::vector<int64_t> bins;
                              for (const auto& r : index.recordings) bins.push_back(r.bins);
                              return bins;
                            }(),
                            options),
                        {options.num_tbins, options.channels, options.height, options.width}, 6),
      folder_(folder),
      subset_(subset),
      options_(options),
      recordings_(std::move(index.recordings)),
      skipped_(std::move(index.skipped)),
      sha256_(std::move(index.sha256)) {}

Gen4Detection::~Gen4Detection() = default;

std::string Gen4Detection::describe() const {
  return fmt::format("Gen4 detection '{}' subset of {} ({} recordings, {} batches of {})",
                     to_string(subset_), folder_.string(), recordings_.size(), num_batches(),
                     batch_size());
}

std::optional<std::string> Gen4Detection::source_sha256() const { return sha256_; }

std::vector<std::filesystem::path> Gen4Detection::input_files() const {
  std::vector<std::filesystem::path> files;
  for (const Recording& r : recordings_) {
    files.push_back(r.h5);
    files.push_back(r.boxes);
  }
  return files;
}

const Gen4Detection::Recording& Gen4Detection::recording(int64_t index) const {
  if (index < 0 || index >= static_cast<int64_t>(recordings_.size())) {
    throw UsageError(fmt::format("{}: recording {} out of range (there are {})", describe(), index,
                                 recordings_.size()));
  }
  return recordings_[static_cast<std::size_t>(index)];
}

std::string Gen4Detection::recording_name(int64_t index) const {
  return recording(index).h5.string();
}

int64_t Gen4Detection::num_recordings() const { return static_cast<int64_t>(recordings_.size()); }

std::filesystem::path Gen4Detection::boxes_file(int64_t index) const {
  return recording(index).boxes;
}

std::shared_ptr<const detail::Gen4Boxes> Gen4Detection::boxes(int64_t index) const {
  {
    const std::lock_guard<std::mutex> lock(boxes_mutex_);
    const auto found = boxes_cache_.find(index);
    if (found != boxes_cache_.end()) return found->second;
  }
  const Recording& r = recording(index);
  auto read = std::make_shared<const detail::Gen4Boxes>(detail::read_gen4_boxes(
      r.boxes, r.sensor_width, r.sensor_height, static_cast<int64_t>(kGen4ClassNames.size())));
  const std::lock_guard<std::mutex> lock(boxes_mutex_);
  if (boxes_cache_.size() >= kGen4BoxesCached) boxes_cache_.clear();
  boxes_cache_[index] = read;
  return read;
}

SequenceChunk Gen4Detection::read_chunk(int64_t index, int64_t start_us) const {
  const Recording& r = recording(index);
  const int64_t first = start_us / options_.delta_t_us;
  std::vector<float> values;
  {
    const detail::Hdf5File file(r.h5);
    values = file.read_rows_float("data", static_cast<std::uint64_t>(first),
                                  static_cast<std::uint64_t>(options_.num_tbins));
  }
  // _load_hdf5: `array.astype(np.float32) / 255` for files stored as bytes.
  if (r.store_as_uint8) {
    for (float& v : values) v = v / 255.0F;
  }
  detail::Gen4BoxRules rules;
  rules.sensor_width = r.sensor_width;
  rules.sensor_height = r.sensor_height;
  rules.width = options_.width;
  rules.height = options_.height;
  rules.channels = options_.channels;
  rules.num_tbins = options_.num_tbins;
  rules.delta_t_us = options_.delta_t_us;
  rules.min_box_diag = options_.min_box_diag;
  rules.class_lookup = gen4_class_lookup();
  const detail::Gen4ChunkBoxes found =
      detail::gen4_chunk_boxes(*boxes(index), start_us, values.data(), rules);
  SequenceChunk chunk;
  chunk.data =
      torch::from_blob(values.data(),
                       {options_.num_tbins, options_.channels, options_.height, options_.width},
                       torch::kFloat32)
          .clone();
  const auto rows = static_cast<int64_t>(found.rows.size() / 6);
  chunk.targets =
      torch::from_blob(const_cast<float*>(found.rows.data()), {rows, 6}, torch::kFloat32).clone();
  chunk.frame_is_labeled = torch::zeros({options_.num_tbins}, torch::kBool);
  for (int64_t k = 0; k < options_.num_tbins; ++k) {
    if (found.frame_is_labeled[static_cast<std::size_t>(k)]) chunk.frame_is_labeled[k] = true;
  }
  return chunk;
}

}  // namespace neurobench::datasets
