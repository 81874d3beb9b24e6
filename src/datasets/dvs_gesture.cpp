// SPDX-License-Identifier: Apache-2.0
// IBM's DVS128 Gesture as NeuroBench's benchmark reads it through tonic: which events make a
// sample, with which label, and tonic's Denoise, Downsample and ToFrame on them.
#include <neurobench/datasets/dvs_gesture.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>
#include <neurobench/events/denoise.hpp>
#include <neurobench/events/downsample.hpp>
#include <neurobench/io/aedat.hpp>
#include <neurobench/io/npy.hpp>
#include <neurobench/io/npy_fields.hpp>

#include "datasets/folder_checks.hpp"
#include "io/input_file.hpp"
#include "io/npy.hpp"
#include "io/npy_header.hpp"
#include "util/progress.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace neurobench::datasets {
namespace {

namespace fs = std::filesystem;
using neurobench::detail::is_folder;
using neurobench::detail::present;

constexpr const char* kTrainList = "trials_to_train.txt";
constexpr const char* kTestList = "trials_to_test.txt";
constexpr const char* kDvsReleaseInRoot = "DvsGesture";
constexpr const char* kTonicTrain = "ibmGestureTrain";
constexpr const char* kTonicTest = "ibmGestureTest";
constexpr const char* kTonicInRoot = "DVSGesture";  // tonic's save_to/<class name>
constexpr std::uint64_t kMaxTextBytes = std::uint64_t{16} << 20;
constexpr std::int64_t kDefaultTimeBins = 150;

bool release_at(const fs::path& p) {
  return is_folder(p) && (present(p / kTrainList) || present(p / kTestList));
}

bool export_at(const fs::path& p) {
  return is_folder(p / kTonicTrain) || is_folder(p / kTonicTest);
}

// The names in `folder`, unsorted.
std::vector<std::string> entries(const fs::path& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(folder, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec) {
    throw InputError(fmt::format("{}: cannot list the folder: {}", folder.string(), ec.message()));
  }
  return names;
}

std::string strip(std::string_view s) {
  std::size_t a = 0;
  std::size_t b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a])) != 0) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])) != 0) --b;
  return std::string(s.substr(a, b - a));
}

// The lines of a text file ("\n" or "\r\n"), stripped, with their numbers; empty ones left out.
std::vector<std::pair<std::size_t, std::string>> read_lines(const fs::path& file,
                                                            std::string_view what) {
  const std::string text = detail::read_input_file(file, what, kMaxTextBytes);
  std::vector<std::pair<std::size_t, std::string>> lines;
  std::size_t start = 0;
  std::size_t number = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    ++number;
    if (text.find('\0', start) < end) {
      throw InputError(fmt::format("{} line {}: a NUL byte in the line", file.string(), number));
    }
    std::string line = strip(std::string_view(text).substr(start, end - start));
    if (!line.empty()) lines.emplace_back(number, std::move(line));
    start = end + 1;
  }
  return lines;
}

bool parse_int(std::string_view text, std::int64_t& value) {
  if (text.empty() || text.size() > 18) return false;
  value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  return true;
}

// `base.aedat` -> `base_labels.csv`, as the release names them.
fs::path labels_file(const fs::path& aedat) {
  std::string name = aedat.filename().string();
  if (name.size() > 6 && name.compare(name.size() - 6, 6, ".aedat") == 0) {
    name.resize(name.size() - 6);
  }
  return aedat.parent_path() / (name + "_labels.csv");
}

// Checks the first line of an AEDAT file without reading the rest.
void check_aedat_header(const fs::path& file) {
  (void)detail::check_regular_input(file, "AEDAT file");
  detail::check_openable(file, "AEDAT file");  // no permission is not "not an AEDAT file"
  std::ifstream in(file, std::ios::binary);
  std::string first(12, '\0');
  in.read(first.data(), static_cast<std::streamsize>(first.size()));
  first.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  if (first.compare(0, 10, "#!AER-DAT3") != 0) {
    throw InputError(
        fmt::format("{}: not an AEDAT 3.x file: expected a first line '#!AER-DAT3.1', found '{}'",
                    file.string(), detail::printable(first.substr(0, first.find('\n')), 40)));
  }
}

// What the .npy header of an export file says; throws InputError for a shape or fields the
// data set cannot read.
bool check_export_npy(const fs::path& file) {
  const std::string where = file.string();
  detail::FileReader reader(file);
  std::uint8_t prefix[detail::kNpyPrefixSize] = {};
  const std::uint64_t prefix_size = std::min<std::uint64_t>(reader.size(), sizeof prefix);
  reader.read(prefix, prefix_size);
  const detail::NpyLayout layout = detail::read_npy_prefix(prefix, reader.size(), where);
  std::string preamble(static_cast<std::size_t>(layout.data_offset), '\0');
  std::memcpy(preamble.data(), prefix,
              static_cast<std::size_t>(std::min(prefix_size, layout.data_offset)));
  if (layout.data_offset > prefix_size) {
    reader.read(preamble.data() + prefix_size, layout.data_offset - prefix_size);
  }
  const std::string_view dict =
      std::string_view(preamble).substr(layout.header_offset, layout.header_size);
  if (detail::is_struct_npy_header(dict, where)) {
    const detail::NpyStructHeader header = detail::parse_npy_struct_header(dict, where);
    for (const char* name : {"x", "y", "p", "t"}) {
      const bool has = std::any_of(header.fields.begin(), header.fields.end(),
                                   [&](const detail::NpyField& f) { return f.name == name; });
      if (!has) {
        throw InputError(
            fmt::format("{}: the structured array has no field '{}' (expected fields x, y, p, t)",
                        where, name));
      }
    }
    if (header.shape.size() != 1) {
      throw InputError(fmt::format("{}: a structured array of shape {}; expected one dimension",
                                   where, detail::numpy_shape_string(header.shape)));
    }
    return true;
  }
  const detail::NpyHeader header = detail::parse_npy_header(dict, where);
  if (header.shape.size() != 2 || header.shape[1] != 4) {
    throw InputError(fmt::format(
        "{}: an array of shape {}; expected tonic's (events, 4) columns x, y, p, t, or a "
        "structured array with fields x, y, p, t",
        where, detail::numpy_shape_string(header.shape)));
  }
  return false;
}

// One column of a tensor as int64 values.
std::vector<std::int64_t> as_int64(const torch::Tensor& column) {
  const torch::Tensor c = column.to(torch::kLong).contiguous();
  const auto* v = c.data_ptr<std::int64_t>();
  return std::vector<std::int64_t>(v, v + c.numel());
}

// A floating-point column as NumPy's astype to the event's field would take it: every value a
// finite number in [lo, hi), else an InputError naming the file, the column and the event (a
// NaN time once became INT64_MIN and the sample empty frames, silently).
void check_float_column(const torch::Tensor& column, const char* name, double lo, double hi,
                        const char* field_type, const fs::path& file) {
  if (!column.is_floating_point()) return;
  const torch::Tensor v = column.to(torch::kDouble);
  const torch::Tensor bad = v.isnan().logical_or(v.lt(lo)).logical_or(v.ge(hi));
  if (!bad.any().item<bool>()) return;
  const int64_t i = bad.nonzero()[0][0].item<int64_t>();
  throw InputError(fmt::format("{}: column '{}' of event {} is {:g}: not a value {} can hold",
                               file.string(), name, i, v[i].item<double>(), field_type));
}

events::Events from_columns(const torch::Tensor& x, const torch::Tensor& y, const torch::Tensor& p,
                            const torch::Tensor& t, const fs::path& file) {
  constexpr double kInt64 = 9223372036854775808.0;  // 2^63
  check_float_column(x, "x", -32768, 32768, "an int16", file);
  check_float_column(y, "y", -32768, 32768, "an int16", file);
  check_float_column(p, "p", -std::numeric_limits<double>::max(),
                     std::numeric_limits<double>::infinity(), "a bool", file);
  check_float_column(t, "t", -kInt64, kInt64, "an int64 (microseconds)", file);
  events::Events out;
  const std::vector<std::int64_t> xs = as_int64(x);
  const std::vector<std::int64_t> ys = as_int64(y);
  const torch::Tensor ps = p.ne(0).to(torch::kByte).contiguous();
  const std::vector<std::int64_t> ts = as_int64(t);
  out.reserve(ts.size());
  const auto* pv = ps.data_ptr<std::uint8_t>();
  for (std::size_t i = 0; i < ts.size(); ++i) {
    out.push_back(static_cast<std::int32_t>(xs[i]), static_cast<std::int32_t>(ys[i]), pv[i], ts[i]);
  }
  return out;
}

// tonic's DVSGesture.__getitem__: the (events, 4) array's column 3 times 1000 in the array's
// own dtype, then unstructured_to_structured to (x int16, y int16, p bool, t int64).
events::Events read_export_npy(const fs::path& file) {
  if (is_structured_npy(file)) {
    torch::Tensor x, y, p, t;
    for (auto& [name, column] : load_npy_fields(file)) {
      if (name == "x") x = column;
      if (name == "y") y = column;
      if (name == "p") p = column;
      if (name == "t") t = column;
    }
    if (!x.defined() || !y.defined() || !p.defined() || !t.defined()) {
      throw InputError(fmt::format("{}: expected fields x, y, p, t", file.string()));
    }
    return from_columns(x, y, p, t, file);
  }
  const torch::Tensor array = load_npy(file);
  if (array.dim() != 2 || array.size(1) != 4) {
    throw InputError(fmt::format("{}: an array of shape {}; expected (events, 4)", file.string(),
                                 detail::numpy_shape_string(array.sizes())));
  }
  const torch::Tensor t_ms = array.select(1, 3);
  const torch::Tensor t_us = t_ms.mul(1000).to(t_ms.scalar_type());
  check_float_column(array.select(1, 0), "x", -32768, 32768, "an int16", file);
  check_float_column(array.select(1, 1), "y", -32768, 32768, "an int16", file);
  return from_columns(array.select(1, 0).to(torch::kShort), array.select(1, 1).to(torch::kShort),
                      array.select(1, 2), t_us, file);
}

}  // namespace

std::string_view to_string(DvsGestureSubset subset) {
  return subset == DvsGestureSubset::Train ? "train" : "test";
}

DvsGestureSubset dvs_gesture_subset(std::string_view name) {
  if (name == "train") return DvsGestureSubset::Train;
  if (name == "test") return DvsGestureSubset::Test;
  throw UsageError(fmt::format("unknown DVS Gesture subset '{}' (subsets: train, test)",
                               detail::printable(name, 60)));
}

void DvsGestureOptions::validate() const {
  if (!std::isfinite(filter_time) || filter_time < 0) {
    throw UsageError(fmt::format(
        "DVS Gesture: filter_time must be finite and not negative (0 turns the filter off), "
        "got {}",
        filter_time));
  }
  if (!std::isfinite(spatial_factor) || spatial_factor <= 0) {
    throw UsageError(fmt::format("DVS Gesture: spatial_factor must be positive and finite, got {}",
                                 spatial_factor));
  }
  frame_options().validate();
}

events::FrameOptions DvsGestureOptions::frame_options() const {
  events::FrameOptions o = frames;
  if (!o.time_window && !o.event_count && !o.n_time_bins && !o.n_event_bins) {
    o.n_time_bins = kDefaultTimeBins;
  }
  return o;
}

DvsGesture::DvsGesture(const fs::path& path, DvsGestureSubset subset, DvsGestureOptions options)
    : subset_(subset), options_(std::move(options)) {
  options_.validate();
  frame_size_ = events::downsampled_size(kSensorSize, options_.spatial_factor);
  const events::FrameOptions frames = options_.frame_options();
  if (frames.n_time_bins || frames.n_event_bins) {
    events::check_frame_memory(
        static_cast<double>(frames.n_time_bins ? *frames.n_time_bins : *frames.n_event_bins),
        {frame_size_, frame_size_, 2}, frames);
  }
  if (release_at(path)) {
    index_release(path);
  } else if (release_at(path / kDvsReleaseInRoot)) {
    index_release(path / kDvsReleaseInRoot);
  } else if (export_at(path)) {
    index_export(path);
  } else if (export_at(path / kTonicInRoot)) {
    index_export(path / kTonicInRoot);
  } else {
    const std::string looked_for = fmt::format(
        "looked for {} or {} (IBM's release, {}) and for folders {} or {} (tonic's export), "
        "also under {} and {}",
        (path / kTrainList).string(), kTestList, kDvsGestureUrl, kTonicTrain, kTonicTest,
        kDvsReleaseInRoot, kTonicInRoot);
    if (!present(path)) {
      throw InputError(
          fmt::format("{}: no such DVS Gesture folder: {}", path.string(), looked_for));
    }
    detail::check_listable(path, "DVS Gesture folder");
    throw InputError(fmt::format("{}: not a DVS Gesture folder: {}", path.string(), looked_for));
  }
}

void DvsGesture::index_release(const fs::path& folder) {
  folder_ = folder;
  release_ = true;
  const fs::path list = folder / (subset_ == DvsGestureSubset::Train ? kTrainList : kTestList);
  const auto trials = read_lines(list, "trial list");
  detail::Sha256 digest;
  const auto add = [&digest](const std::string& text) { digest.update(text.data(), text.size()); };
  add(fmt::format("dvs-gesture release {}\n", to_string(subset_)));
  detail::Progress progress(!options_.quiet, trials.size(), "recordings indexed", /*stops=*/true);
  std::size_t done = 0;
  for (const auto& [line, name] : trials) {
    const std::string where = fmt::format("{} line {}: ", list.string(), line);
    const fs::path aedat = folder / name;
    const fs::path csv = labels_file(aedat);
    std::uint64_t bytes = 0;
    try {
      check_aedat_header(aedat);
      bytes = detail::check_regular_input(aedat, "AEDAT file");
    } catch (const InputError& e) {
      throw InputError(where + e.what());
    }
    std::vector<std::pair<std::size_t, std::string>> rows;
    try {
      rows = read_lines(csv, "labels file");
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}{} (the labels of {})", where, e.what(), aedat.string()));
    }
    add(fmt::format("{} {}\n", name, bytes));
    bool header = true;
    for (const auto& [row_line, row] : rows) {
      std::vector<std::string> cells;
      std::size_t start = 0;
      for (;;) {
        const std::size_t comma = row.find(',', start);
        cells.push_back(strip(std::string_view(row).substr(
            start, comma == std::string::npos ? std::string::npos : comma - start)));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      std::int64_t label = 0;
      std::int64_t begin = 0;
      std::int64_t end = 0;
      const bool numbers = cells.size() == 3 && parse_int(cells[0], label) &&
                           parse_int(cells[1], begin) && parse_int(cells[2], end);
      if (!numbers && header) {  // the release's first line: class,startTime_usec,endTime_usec
        header = false;
        continue;
      }
      header = false;
      if (!numbers || label < 1 || label > kClasses || end < begin) {
        throw InputError(
            fmt::format("{} line {}: '{}': expected class (1-{}), start and end in microseconds "
                        "(start <= end)",
                        csv.string(), row_line, detail::printable(row, 80), kClasses));
      }
      samples_.push_back({aedat.string(), static_cast<std::int32_t>(label - 1), begin, end});
      add(fmt::format("{} {} {}\n", label - 1, begin, end));
    }
    progress.update(++done);
  }
  sha256_ = digest.hex();
}

void DvsGesture::index_export(const fs::path& root) {
  release_ = false;
  folder_ = root / (subset_ == DvsGestureSubset::Train ? kTonicTrain : kTonicTest);
  if (!is_folder(folder_)) {
    throw InputError(fmt::format(
        "{}: no such folder: tonic's export of the '{}' subset ({})", folder_.string(),
        to_string(subset_),
        subset_ == DvsGestureSubset::Train ? kDvsGestureTonicTrainUrl : kDvsGestureTonicTestUrl));
  }
  std::vector<std::string> trials;
  for (auto& name : entries(folder_)) {
    if (!name.empty() && name[0] != '.') detail::check_entry_resolves(folder_ / name, "trial");
    if (is_folder(folder_ / name) && !name.empty() && name[0] != '.') {
      trials.push_back(std::move(name));
    }
  }
  std::sort(trials.begin(), trials.end());
  struct Pending {
    fs::path file;
    std::string relative;
    std::int32_t label;
  };
  std::vector<Pending> pending;
  for (const std::string& trial : trials) {
    std::vector<std::pair<std::int64_t, std::string>> files;
    for (const std::string& name : entries(folder_ / trial)) {
      if (name.size() <= 4 || name.compare(name.size() - 4, 4, ".npy") != 0) continue;
      std::int64_t label = 0;
      if (!parse_int(std::string_view(name).substr(0, name.size() - 4), label) ||
          label >= kClasses) {
        throw InputError(
            fmt::format("{}: expected a file named by its label, 0.npy to {}.npy (tonic's export)",
                        (folder_ / trial / name).string(), kClasses - 1));
      }
      files.emplace_back(label, name);
    }
    std::sort(files.begin(), files.end());
    for (const auto& [label, name] : files) {
      pending.push_back(
          {folder_ / trial / name, trial + "/" + name, static_cast<std::int32_t>(label)});
    }
  }
  detail::Sha256 digest;
  const auto add = [&digest](const std::string& text) { digest.update(text.data(), text.size()); };
  add(fmt::format("dvs-gesture tonic {}\n", to_string(subset_)));
  detail::Progress progress(!options_.quiet, pending.size(), "files indexed", /*stops=*/true);
  for (std::size_t i = 0; i < pending.size(); ++i) {
    (void)check_export_npy(pending[i].file);
    add(fmt::format("{} {}\n", pending[i].relative,
                    detail::check_regular_input(pending[i].file, "file")));
    samples_.push_back({pending[i].file.string(), pending[i].label, 0, 0});
    progress.update(i + 1);
  }
  sha256_ = digest.hex();
}

std::int64_t DvsGesture::size() const { return static_cast<std::int64_t>(samples_.size()); }

const DvsGesture::Sample& DvsGesture::sample(std::int64_t index) const {
  if (index < 0 || index >= size()) {
    throw UsageError(
        fmt::format("{}: sample index {} is out of range (size {})", describe(), index, size()));
  }
  return samples_[static_cast<std::size_t>(index)];
}

events::Events DvsGesture::events(std::int64_t index) const {
  const Sample& s = sample(index);
  if (!release_) return read_export_npy(s.file);
  std::shared_ptr<const events::Events> all;
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (cache_.file == s.file) all = cache_.events;
  }
  if (!all) {
    all = std::make_shared<const events::Events>(read_aedat3_polarity(s.file));
    std::lock_guard<std::mutex> lock(cache_mutex_);
    cache_ = {s.file, all};
  }
  // A mask, not a search: the cut does not rely on the recording's timestamps being sorted.
  events::Events out;
  for (std::size_t i = 0; i < all->size(); ++i) {
    const std::int64_t t = all->t[i];
    if (t >= s.start && t < s.end) out.push_back(all->x[i], all->y[i], all->p[i], t);
  }
  return out;
}

torch::Tensor DvsGesture::frames(std::int64_t index) const {
  events::Events e = events(index);
  // The DVS128's pixels: anything else is a damaged file (and would make Denoise's memory as
  // large as the largest coordinate).
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (e.x[i] < 0 || e.x[i] >= kSensorSize || e.y[i] < 0 || e.y[i] >= kSensorSize) {
      throw InputError(fmt::format(
          "{}: sample {}: event {} at x {}, y {} lies outside the DVS128's {} x {} pixels",
          sample(index).file, index, i, e.x[i], e.y[i], kSensorSize, kSensorSize));
    }
  }
  try {
    if (options_.filter_time > 0) e = events::denoise(e, options_.filter_time);
    e = events::downsample(e, options_.spatial_factor);
    return events::to_frame(e, {frame_size_, frame_size_, 2}, options_.frame_options());
  } catch (const InputError& error) {
    throw InputError(fmt::format("{}: sample {}: {}", sample(index).file, index, error.what()));
  }
}

Batch DvsGesture::get(const std::vector<std::int64_t>& indices) const {
  for (const std::int64_t index : indices) (void)sample(index);
  std::vector<torch::Tensor> frames_of;
  frames_of.reserve(indices.size());
  std::int64_t longest = 0;
  for (const std::int64_t index : indices) {
    frames_of.push_back(frames(index));
    longest = std::max(longest, frames_of.back().size(0));
  }
  const auto n = static_cast<std::int64_t>(indices.size());
  torch::Tensor data = torch::zeros({n, longest, 2, frame_size_, frame_size_}, torch::kFloat32);
  torch::Tensor targets = torch::empty({n}, torch::kInt64);
  for (std::int64_t i = 0; i < n; ++i) {
    const torch::Tensor& f = frames_of[static_cast<std::size_t>(i)];
    if (f.size(0) > 0) data[i].narrow(0, 0, f.size(0)).copy_(f);
    targets[i] = static_cast<std::int64_t>(
        samples_[static_cast<std::size_t>(indices[static_cast<std::size_t>(i)])].label);
  }
  return Batch{std::move(data), std::move(targets), {}};
}

std::string DvsGesture::describe() const {
  return fmt::format("DVS Gesture '{}' subset of {} ({}, {} samples)", to_string(subset_),
                     folder_.string(), release_ ? "release" : "tonic export", samples_.size());
}

std::optional<std::string> DvsGesture::source_sha256() const { return sha256_; }

std::vector<fs::path> DvsGesture::input_files() const {
  std::vector<fs::path> files;
  if (release_) {
    files.push_back(folder_ / (subset_ == DvsGestureSubset::Train ? kTrainList : kTestList));
  }
  for (const Sample& s : samples_) {
    // A release's recordings hold several samples each: one entry per file.
    if (!files.empty() && files.back() == s.file) continue;
    files.emplace_back(s.file);
    if (release_) files.push_back(labels_file(s.file));
  }
  return files;
}

std::int64_t DvsGesture::label(std::int64_t index) const { return sample(index).label; }

fs::path DvsGesture::file(std::int64_t index) const { return sample(index).file; }

}  // namespace neurobench::datasets
