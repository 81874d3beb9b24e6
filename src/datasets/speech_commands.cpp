// SPDX-License-Identifier: Apache-2.0
// Speech Commands v0.02 with the semantics of NeuroBench's SpeechCommands, which builds on
// torchaudio's SPEECHCOMMANDS: which files make each subset, in which order, with which label.
#include <neurobench/datasets/speech_commands.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/wav.hpp>

#include "datasets/folder_checks.hpp"
#include "io/input_file.hpp"
#include "util/progress.hpp"
#include "util/sha256.hpp"
#include "util/text.hpp"

namespace neurobench::datasets {
namespace {

namespace fs = std::filesystem;
using neurobench::detail::is_folder;
using neurobench::detail::present;

constexpr const char* kValidationList = "validation_list.txt";
constexpr const char* kTestingList = "testing_list.txt";
constexpr const char* kSpeechReleaseInRoot = "SpeechCommands/speech_commands_v0.02";
// torchaudio's markers: a clip's name holds the first; the second is the folder of noise.
constexpr const char* kHashDivider = "_nohash_";
constexpr const char* kNoiseFolder = "_background_noise_";
// The largest list file read: the release's are 400 KB.
constexpr std::uint64_t kMaxListBytes = std::uint64_t{64} << 20;

// Python's os.path.join(a, b) for POSIX paths: b when absolute, else a, a '/' if a does not
// end in one, and b.
std::string python_join(const std::string& a, const std::string& b) {
  if (!b.empty() && b.front() == '/') return b;
  if (a.empty() || a.back() == '/') return a + b;
  return a + "/" + b;
}

// Python's os.path.normpath for POSIX paths: '.' and empty parts dropped, 'x/..' folded,
// leading '..' kept for relative paths and dropped at the root, two leading slashes kept (POSIX
// leaves their meaning open), three or more made one.
std::string python_normpath(const std::string& path) {
  if (path.empty()) return ".";
  std::size_t slashes = 0;
  if (path[0] == '/')
    slashes = path.compare(0, 2, "//") == 0 && path.compare(0, 3, "///") != 0 ? 2 : 1;
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part != ".." || (slashes == 0 && parts.empty()) ||
        (!parts.empty() && parts.back() == "..")) {
      parts.push_back(std::move(part));
    } else if (!parts.empty()) {
      parts.pop_back();
    }
  }
  std::string out(slashes, '/');
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : "/") + parts[i];
  return out.empty() ? "." : out;
}

// The name of the folder holding `path` (a normalised path): torchaudio's label of a clip.
std::string parent_name(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  const std::string parent = path.substr(0, slash);
  const std::size_t before = parent.rfind('/');
  return before == std::string::npos ? parent : parent.substr(before + 1);
}

// The release folder: `path` itself when it holds a list file, else NeuroBench's root layout.
fs::path find_release(const fs::path& path) {
  if (is_folder(path) && (present(path / kValidationList) || present(path / kTestingList))) {
    return path;
  }
  if (is_folder(path / kSpeechReleaseInRoot)) return path / kSpeechReleaseInRoot;
  const std::string looked_for = fmt::format(
      "looked for {} or {} (the release folder) and for {} (NeuroBench's root); the release "
      "is {}",
      (path / kValidationList).string(), kTestingList, (path / kSpeechReleaseInRoot).string(),
      kSpeechCommandsUrl);
  if (!present(path)) {
    throw InputError(
        fmt::format("{}: no such Speech Commands folder: {}", path.string(), looked_for));
  }
  if (!is_folder(path)) {
    throw InputError(fmt::format("{}: not a folder; a Speech Commands data set is a folder: {}",
                                 path.string(), looked_for));
  }
  detail::check_listable(path, "Speech Commands folder");
  throw InputError(
      fmt::format("{}: not a Speech Commands v0.02 folder: {}", path.string(), looked_for));
}

// The names in `folder`, of folders (through symbolic links) or of anything, unsorted.
std::vector<std::string> entries(const fs::path& folder, bool folders_only) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(folder, ec);
  const fs::directory_iterator end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    std::error_code status_error;
    if (folders_only) {
      const std::string name = entry.path().filename().string();
      if (!name.empty() && name[0] != '.') {
        detail::check_entry_resolves(entry.path(), "entry of the release folder");
      }
      if (!entry.is_directory(status_error)) continue;
    }
    names.push_back(entry.path().filename().string());
  }
  if (ec) {
    throw InputError(fmt::format("{}: cannot list the folder: {}", folder.string(), ec.message()));
  }
  return names;
}

bool hidden(const std::string& name) { return !name.empty() && name[0] == '.'; }

// The label folders: every folder but hidden ones and _background_noise_, sorted as NeuroBench
// sorts glob("*/"): each name with a trailing '/' ("a-b/" before "a/").
std::vector<std::string> find_labels(const fs::path& folder) {
  std::vector<std::string> names;
  for (auto& name : entries(folder, /*folders_only=*/true)) {
    if (!hidden(name) && name != kNoiseFolder) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return a + "/" < b + "/"; });
  return names;
}

// One line of a list file, where it is.
struct ListedPath {
  std::string text;  // stripped
  std::size_t line = 0;
};

bool python_space(unsigned char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

// A list file's lines as Python's text mode reads them (universal newlines: "\n", "\r\n" and
// "\r" end a line; no empty line after a final newline), each stripped of whitespace.
std::vector<ListedPath> read_list(const fs::path& file) {
  const std::string text = detail::read_input_file(file, "list file", kMaxListBytes);
  std::vector<ListedPath> lines;
  std::size_t start = 0;
  std::size_t number = 0;
  while (start < text.size()) {
    std::size_t end = text.find_first_of("\r\n", start);
    if (end == std::string::npos) end = text.size();
    if (text.find('\0', start) < end) {
      throw InputError(fmt::format("{} line {}: a NUL byte in a clip's path", file.string(),
                                   number + 1));
    }
    std::size_t a = start;
    std::size_t b = end;
    while (a < b && python_space(static_cast<unsigned char>(text[a]))) ++a;
    while (b > a && python_space(static_cast<unsigned char>(text[b - 1]))) --b;
    lines.push_back({text.substr(a, b - a), ++number});
    start = end + 1;
    if (end + 1 < text.size() && text[end] == '\r' && text[end + 1] == '\n') ++start;
  }
  return lines;
}

std::string list_name(SpeechCommandsSubset subset) {
  return subset == SpeechCommandsSubset::Validation ? kValidationList : kTestingList;
}

}  // namespace

std::string_view to_string(SpeechCommandsSubset subset) {
  switch (subset) {
    case SpeechCommandsSubset::Training:
      return "training";
    case SpeechCommandsSubset::Validation:
      return "validation";
    case SpeechCommandsSubset::Testing:
      return "testing";
    case SpeechCommandsSubset::All:
      return "all";
  }
  return "all";
}

SpeechCommandsSubset speech_commands_subset(std::string_view name) {
  for (const auto s : {SpeechCommandsSubset::Training, SpeechCommandsSubset::Validation,
                       SpeechCommandsSubset::Testing, SpeechCommandsSubset::All}) {
    if (name == to_string(s)) return s;
  }
  throw UsageError(fmt::format(
      "unknown Speech Commands subset '{}' (subsets: training, validation, testing, all)",
      detail::printable(name, 60)));
}

std::string_view to_string(LongClips long_clips) {
  return long_clips == LongClips::Truncate ? "truncate" : "error";
}

LongClips long_clips_from_string(std::string_view name) {
  if (name == "error") return LongClips::Error;
  if (name == "truncate") return LongClips::Truncate;
  throw UsageError(
      fmt::format("unknown long_clips '{}' (error or truncate)", detail::printable(name, 60)));
}

namespace {

// A clip found while indexing: its path, its label, and where it came from for messages.
struct PendingClip {
  std::string path;
  std::string relative;  // for the digest
  int32_t label;
  std::string where;  // "LIST line N: " for a listed clip, "" for a walked one
};

// The validation or testing subset: the clips its list names, in the list's order.
std::vector<PendingClip> listed_clips(const fs::path& folder, SpeechCommandsSubset subset,
                                      const std::map<std::string, int32_t>& label_number) {
  const std::string root = folder.string();
  std::vector<PendingClip> clips;
  const fs::path list = folder / list_name(subset);
  std::vector<ListedPath> lines;
  try {
    lines = read_list(list);
  } catch (const InputError& e) {
    throw InputError(
        fmt::format("{} (the '{}' subset is the clips it lists)", e.what(), to_string(subset)));
  }
  for (const ListedPath& line : lines) {
    const std::string where = fmt::format("{} line {}: ", list.string(), line.line);
    if (line.text.empty()) {
      throw InputError(where +
                       "an empty line; expected the path of a clip, such as "
                       "yes/0a7c2a8d_nohash_0.wav");
    }
    std::string full = python_normpath(python_join(root, line.text));
    const std::string label = parent_name(full);
    const auto it = label_number.find(label);
    if (it == label_number.end()) {
      throw InputError(fmt::format(
          "{}'{}' is in folder '{}', which is not a label (the labels are the release's "
          "folders but {} and hidden ones)",
          where, detail::printable(line.text, 100), detail::printable(label, 60), kNoiseFolder));
    }
    clips.push_back({std::move(full), line.text, it->second, where});
  }
  return clips;
}

// The training subset or all clips: the release's clips walked as torchaudio walks them.
std::vector<PendingClip> walked_clips(const fs::path& folder, SpeechCommandsSubset subset,
                                      const std::map<std::string, int32_t>& label_number) {
  const std::string root = folder.string();
  std::vector<PendingClip> clips;
  // torchaudio: sorted(str(p) for p in Path(root).glob("*/*.wav")), its filter on the path,
  // and for training the lists' paths left out, compared normalised. Hidden folders are not
  // walked: NeuroBench's labels leave them out, so their clips would have no label.
  std::set<std::string> excluded;
  if (subset == SpeechCommandsSubset::Training) {
    for (const char* name : {kValidationList, kTestingList}) {
      std::vector<ListedPath> lines;
      try {
        lines = read_list(folder / name);
      } catch (const InputError& e) {
        throw InputError(
            fmt::format("{} (the 'training' subset is every clip that neither {} "
                        "nor {} lists)",
                        e.what(), kValidationList, kTestingList));
      }
      for (const ListedPath& line : lines) {
        excluded.insert(python_normpath(python_join(root, line.text)));
      }
    }
  }
  std::vector<std::string> walked;
  for (const std::string& dir : entries(folder, /*folders_only=*/true)) {
    if (hidden(dir)) continue;
    for (const std::string& name : entries(folder / dir, /*folders_only=*/false)) {
      const std::string relative = dir + "/" + name;
      if (!detail::ends_with(name, ".wav") || relative.find(kHashDivider) == std::string::npos ||
          relative.find(kNoiseFolder) != std::string::npos) {
        continue;
      }
      walked.push_back(relative);
    }
  }
  std::sort(walked.begin(), walked.end());  // bytewise: Python's order for UTF-8 names
  for (std::string& relative : walked) {
    std::string full = python_join(root, relative);
    if (excluded.count(python_normpath(full)) != 0) continue;
    const auto label = label_number.find(relative.substr(0, relative.find('/')));
    if (label == label_number.end()) {  // a folder made while the release was walked
      throw InputError(fmt::format("{}: a folder that appeared while {} was indexed", full, root));
    }
    clips.push_back({std::move(full), std::move(relative), label->second, ""});
  }
  return clips;
}

}  // namespace

SpeechCommands::SpeechCommands(const fs::path& path, SpeechCommandsSubset subset,
                               SpeechCommandsOptions options)
    : folder_(find_release(path)), subset_(subset), options_(options) {
  labels_ = find_labels(folder_);
  std::map<std::string, int32_t> label_number;
  for (std::size_t i = 0; i < labels_.size(); ++i) {
    label_number[labels_[i]] = static_cast<int32_t>(i);
  }

  std::vector<PendingClip> pending =
      subset == SpeechCommandsSubset::Validation || subset == SpeechCommandsSubset::Testing
          ? listed_clips(folder_, subset, label_number)
          : walked_clips(folder_, subset, label_number);

  // Every clip's header, once: a bad file is found now rather than hours into a run.
  detail::Sha256 digest;
  const auto add = [&digest](const std::string& text) { digest.update(text.data(), text.size()); };
  add(fmt::format("speech-commands {}\nlabels", to_string(subset)));
  for (const auto& label : labels_) add(" " + label);
  add("\n");
  WavReadOptions wav;
  wav.sample_rate = kSampleRate;
  wav.channels = 1;
  clips_.reserve(pending.size());
  detail::Progress progress(!options_.quiet, pending.size(), "files indexed", /*stops=*/true);
  for (std::size_t i = 0; i < pending.size(); ++i) {
    PendingClip& p = pending[i];
    WavInfo info;
    try {
      info = read_wav_info(p.path);
      check_wav_info(p.path, info, wav);
    } catch (const InputError& e) {
      throw InputError(p.where + e.what());
    }
    if (info.frames > kClipSamples && options_.long_clips == LongClips::Error) {
      throw InputError(fmt::format(
          "{}{}: {} samples ({:g} s), longer than the {} of one second; NeuroBench's loader "
          "fails on it too; long_clips 'truncate' reads its first {} samples",
          p.where, p.path, info.frames, static_cast<double>(info.frames) / kSampleRate,
          kClipSamples, kClipSamples));
    }
    add(fmt::format("{} {}\n", p.relative, info.file_bytes));
    clips_.push_back({std::move(p.path), p.label, info.frames});
    progress.update(i + 1);
  }
  sha256_ = digest.hex();
}

int64_t SpeechCommands::size() const { return static_cast<int64_t>(clips_.size()); }

const SpeechCommands::Clip& SpeechCommands::clip(int64_t index) const {
  if (index < 0 || index >= size()) {
    throw UsageError(
        fmt::format("{}: sample index {} is out of range (size {})", describe(), index, size()));
  }
  return clips_[static_cast<std::size_t>(index)];
}

Batch SpeechCommands::get(const std::vector<int64_t>& indices) const {
  for (const int64_t index : indices) (void)clip(index);
  const auto n = static_cast<int64_t>(indices.size());
  torch::Tensor data = torch::zeros({n, kClipSamples, 1}, torch::kFloat32);
  torch::Tensor targets = torch::empty({n}, torch::kInt64);
  WavReadOptions wav;
  wav.sample_rate = kSampleRate;
  wav.channels = 1;
  // One sample more than a clip: a file that grew since it was indexed is found, not read whole.
  wav.first_frames = kClipSamples + (options_.long_clips == LongClips::Error ? 1 : 0);
  float* out = data.data_ptr<float>();
  int64_t* target = targets.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    const Clip& c = clips_[static_cast<std::size_t>(indices[static_cast<std::size_t>(i)])];
    const torch::Tensor samples = load_wav(c.path, wav);
    const int64_t frames = samples.size(0);
    if (frames > kClipSamples) {
      throw InputError(fmt::format(
          "{}: more than the {} samples of one second (it changed since it was indexed with "
          "{}); long_clips 'truncate' reads its first {} samples",
          c.path, kClipSamples, c.frames, kClipSamples));
    }
    std::memcpy(out + i * kClipSamples, samples.data_ptr<float>(),
                static_cast<std::size_t>(frames) * sizeof(float));
    target[i] = c.label;
  }
  return Batch{std::move(data), std::move(targets), {}};
}

std::string SpeechCommands::describe() const {
  return fmt::format("Speech Commands '{}' subset of {} ({} clips)", to_string(subset_),
                     folder_.string(), clips_.size());
}

std::optional<std::string> SpeechCommands::source_sha256() const { return sha256_; }

std::vector<fs::path> SpeechCommands::input_files() const {
  // Both lists: the training subset reads them to leave their clips out.
  std::vector<fs::path> files = {folder_ / kValidationList, folder_ / kTestingList};
  for (const Clip& c : clips_) files.emplace_back(c.path);
  return files;
}

fs::path SpeechCommands::file(int64_t index) const { return clip(index).path; }

int64_t SpeechCommands::label(int64_t index) const { return clip(index).label; }

int64_t SpeechCommands::frames(int64_t index) const { return clip(index).frames; }

}  // namespace neurobench::datasets
