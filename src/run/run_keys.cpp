// SPDX-License-Identifier: Apache-2.0
// The keys of a run, in one table (a row per key: config key, flag, value, help, whether a suite
// may set it, the member it fills), and the table as the Markdown of docs/cli.md.
#include <neurobench/run_keys.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include <fmt/format.h>

#include <neurobench/config.hpp>

#include "run/run_key_fields.hpp"

namespace neurobench {
namespace {

namespace fs = std::filesystem;
using C = BenchmarkConfig;
using V = RunKeyValue;

// A member as JSON, by its type.
Json as_json(const fs::path& p) { return p.string(); }
Json as_json(bool v) { return v; }
Json as_json(const std::string& v) { return v; }
Json as_json(int v) { return v; }
Json as_json(int64_t v) { return v; }
Json as_json(std::uint64_t v) { return v; }
Json as_json(double v) { return v; }
Json as_json(const std::optional<std::uint64_t>& v) { return v ? Json(*v) : Json(nullptr); }
Json as_json(const std::vector<std::string>& v) { return v; }
Json as_json(const std::vector<PluginSpec>& specs) {
  Json out = Json::array();
  for (const auto& spec : specs) out.push_back(Json(spec));
  return out;
}
Json as_json(const DatasetSpec& spec) { return detail::dataset_json(spec); }
Json as_json(const OutputFiles& files) {
  Json out = Json::object();
  for (const auto& [format, file] : files) {
    if (!file.empty()) out[format] = file.string();
  }
  return out;
}

// JSON as a member, for values the key's reader has checked.
void from_json(const Json& j, fs::path& p) { p = j.get<std::string>(); }
void from_json(const Json& j, bool& v) { v = j.get<bool>(); }
void from_json(const Json& j, std::string& v) { v = j.get<std::string>(); }
void from_json(const Json& j, int& v) { v = j.get<int>(); }
void from_json(const Json& j, int64_t& v) { v = j.get<int64_t>(); }
void from_json(const Json& j, std::uint64_t& v) { v = j.get<std::uint64_t>(); }
void from_json(const Json& j, double& v) { v = j.get<double>(); }
void from_json(const Json& j, std::optional<std::uint64_t>& v) {
  v = j.is_null() ? std::nullopt : std::optional<std::uint64_t>(j.get<std::uint64_t>());
}
void from_json(const Json& j, std::vector<std::string>& v) {
  v = j.get<std::vector<std::string>>();
}
void from_json(const Json& j, std::vector<PluginSpec>& specs) {
  specs.clear();
  for (const auto& item : j) {
    if (item.is_string()) {
      specs.emplace_back(item.get<std::string>());
    } else {
      specs.emplace_back(item.at("name").get<std::string>(),
                         item.contains("options") ? item["options"] : Json::object());
    }
  }
}
void from_json(const Json& j, DatasetSpec& spec) {
  spec = DatasetSpec{};
  if (j.is_null()) return;
  for (const auto& [key, value] : j.items()) {
    if (key == "kind") {
      spec.kind = value.get<std::string>();
    } else if (key == "path") {
      spec.path = value.get<std::string>();
    } else {
      spec.options[key] = value;
    }
  }
}
void from_json(const Json& j, OutputFiles& files) {
  files.clear();
  for (const auto& [format, file] : j.items()) files[format] = file.get<std::string>();
}

template <class T>
detail::RunKeyField field(T C::*member) {
  return {[member](const C& c) { return as_json(c.*member); },
          [member](C& c, const Json& j) { from_json(j, c.*member); }};
}

struct Row {
  RunKey key;
  detail::RunKeyField field;  // empty for a flag of the command line alone
};

// The table, in two parts: what runs on what, then how it runs. Its order is the order a
// config is written in.
std::vector<Row> what_rows() {
  return {
      {{"model", "--model", "", V::Path, "", "the model: a TorchScript file (.pt) or a NIR graph (.nir, docs/nir.md)"}, field(&C::model)},
      {{"data", "--data", "", V::Path, "", ".npz file with arrays 'data' and 'targets'"},
       field(&C::data)},
      {{"dataset", "--dataset", "", V::Dataset, "KIND:PATH",
        "a data set by kind instead of --data: KIND:PATH, such as "
        "speech-commands:data/speech_commands_v0.02 ('neurobench list' shows the kinds)"},
       field(&C::dataset)},
      {{"", "--subset", "", V::Text, "",
        "the data set's subset (its option 'subset'): speech-commands takes training, "
        "validation, testing or all"},
       {}},
      {{"", "--dataset-options", "", V::Options, "KEY=VALUE,...",
        "the data set's other options, comma-separated: key=value,key=value"},
       {}},
      {{"batch_size", "--batch-size", "", V::Integer, "INT",
        "samples per batch; the last may be smaller"},
       field(&C::batch_size)},
      {{"stepwise", "--stepwise", "", V::Boolean, "",
        "feed data[:, t] one timestep at a time (spiking networks), stacking the spikes"},
       field(&C::stepwise)},
      {{"nir_time", "--nir-time", "", V::Choice, "CONVENTION",
        "a NIR graph's time convention: snntorch (as snnTorch 0.9.4's import_from_nir, which "
        "NeuroBench users run; else forward Euler), euler (forward Euler at nir_dt) or exact "
        "(exponential decay at nir_dt) (docs/nir.md)",
        /*suite_may_set=*/true, "snntorch,euler,exact"},
       field(&C::nir_time)},
      {{"nir_dt", "--nir-dt", "", V::Seconds, "SECONDS",
        "a NIR graph's timestep in seconds (snnTorch's import uses 0.0001)"},
       field(&C::nir_dt)},
      {{"nir_reset", "--nir-reset", "", V::Choice, "RESET",
        "what a NIR graph's spiking neuron's membrane becomes when it fires: v_reset (NIR's "
        "equations) or subtract (v - v_threshold, the NIR paper's reference implementation)",
        /*suite_may_set=*/true, "v_reset,subtract"},
       field(&C::nir_reset)},
      {{"static", "--static", "", V::Metrics, "",
        "static metrics, comma-separated: Name or Name:key=value,key=value"},
       field(&C::static_metrics)},
      {{"workload", "--workload", "", V::Metrics, "",
        "workload metrics, comma-separated: Name or Name:key=value,key=value"},
       field(&C::workload_metrics)},
      {{"metrics", "--metrics", "", V::Metrics, "",
        "any metrics, static or workload, comma-separated (Name or Name:key=value,key=value): "
        "each goes where it belongs (added to --static and --workload)"},
       field(&C::metrics)},
      {{"pre", "--pre", "", V::Processors, "",
        "pre-processors, comma-separated, applied in order: Name or Name:key=value,key=value"},
       field(&C::pre)},
      {{"post", "--post", "", V::Processors, "",
        "post-processors, comma-separated, applied in order: Name or Name:key=value,key=value"},
       field(&C::post)},
      {{"activation_modules", "--activation-modules", "", V::Names, "",
        "activation layer classes (default: ReLU, Sigmoid and snnTorch neurons)"},
       field(&C::activation_modules)},
      {{"connection_modules", "--connection-modules", "", V::Names, "",
        "connection layer classes (default: Linear, Conv1d/2d/3d, RNN/LSTM/GRU cells and "
        "layers)"},
       field(&C::connection_modules)},
      {{"metrics_scope", "--metrics-scope", "", V::Text, "PATH",
        "restrict the static metrics and the layer hooks to the submodule at this dotted path, "
        "as NeuroBench's metrics see a model's __net__() (the forward pass still runs the "
        "whole model; '' for the whole model; docs/metrics.md)"},
       field(&C::metrics_scope)},
  };
}

std::vector<Row> how_rows() {
  return {
      {{"shuffle_seed", "--shuffle-seed", "", V::Integer, "INT",
        "shuffle the samples with this seed"},
       field(&C::shuffle_seed)},
      {{"threads", "--threads", "", V::Integer, "INT", "intra-op threads for LibTorch"},
       field(&C::threads)},
      {{"warmup", "--warmup", "", V::Integer, "INT",
        "timing metrics: untimed runs before the timed ones"},
       field(&C::warmup)},
      {{"runs", "--runs", "", V::Integer, "INT", "timing metrics: timed runs, at least 10 when 0"},
       field(&C::runs)},
      {{"min_time", "--min-time", "", V::Seconds, "SECONDS",
        "timing metrics: with --runs 0, time at least this many seconds"},
       field(&C::min_time)},
      {{"max_time", "--max-time", "", V::Seconds, "SECONDS",
        "timing metrics: stop the warm-up and timed runs, and separately StartupTime's loads, "
        "after this many seconds (at least one run each), reporting the runs made"},
       field(&C::max_time)},
      {{"latency_batch_size", "--latency-batch-size", "", V::Integer, "INT",
        "timing metrics: samples per timed run"},
       field(&C::latency_batch_size)},
      {{"startup_runs", "--startup-runs", "", V::Integer, "INT",
        "StartupTime: fresh loads of the model file to time"},
       field(&C::startup_runs)},
      {{"quiet", "--quiet", "-q", V::Boolean, "", "no progress bar"}, field(&C::quiet)},
      {{"verbose", "--verbose", "-v", V::Boolean, "", "print each batch's results to stderr"},
       field(&C::verbose)},
      {{"progress", "--progress", "", V::Choice, "MODE",
        "how the passes show their progress: auto (a bar, on a terminal only), lines (a line at "
        "each tenth of the batches, on any stderr: logs, notebooks) or off",
        /*suite_may_set=*/true, "auto,lines,off"},
       field(&C::progress)},
      {{"strict", "--strict", "", V::Boolean, "",
        "warnings are errors: NaN or Inf in the data or the weights stop the run before it "
        "starts, and any other warning stops it before results are written (exit 2)"},
       field(&C::strict)},
      {{"max_array_bytes", "--max-array-bytes", "", V::Integer, "BYTES",
        "the largest array read from the --data .npz, in bytes (declared sizes are checked "
        "before anything is inflated)"},
       field(&C::max_array_bytes)},
      {{"device", "--device", "", V::Device, "DEVICE",
        "where the model runs: cpu, cuda (cuda:0; cuda:LOCAL_RANK in a sharded run), cuda:N, or "
        "lazy (LibTorch's lazy tensors on the CPU, for testing); the model and each batch go "
        "there before pre-processing (docs/devices.md)"},
       field(&C::device)},
      {{"tf32", "--tf32", "", V::Boolean, "",
        "CUDA: allow TF32 in float32 convolutions and matrix products (faster on Ampere and "
        "later, ~1e-3 relative precision; off: results equal the CPU's)"},
       field(&C::tf32)},
      {{"profile", "--profile", "", V::Boolean, "",
        "after the timing pass, profile each connection and activation layer: time per call, "
        "share, operations and sparsity per sample, output shape "
        "(docs/deployment-metrics.md#per-layer-profile)"},
       field(&C::profile)},
      {{"profile_warmup", "--profile-warmup", "", V::Integer, "INT",
        "profile: untimed runs before each kind of timed runs"},
       field(&C::profile_warmup)},
      {{"profile_runs", "--profile-runs", "", V::Integer, "INT",
        "profile: timed runs without hooks, then as many with the layer clocks"},
       field(&C::profile_runs)},
      {{"profile_csv", "--profile-csv", "", V::Path, "",
        "write the per-layer profile as CSV here, one row per layer (needs --profile)"},
       field(&C::profile_csv)},
      {{"outputs", "", "", V::Outputs, "FILE",
        "results files by format: {\"json\": FILE, \"csv\": FILE, \"text\": FILE}; flags "
        "--json, --csv, --text",
        /*suite_may_set=*/false},
       field(&C::outputs)},
      {{"", "--distributed", "", V::Choice, "MODE",
        "shard the run over the processes torchrun, mpirun or srun started: auto (when "
        "WORLD_SIZE, OMPI_COMM_WORLD_SIZE or SLURM_STEP_NUM_TASKS says more than one), on or "
        "off (docs/distributed.md)",
        /*suite_may_set=*/true, "auto,on,off"},
       {}},
      {{"", "--distributed-timeout", "", V::Seconds, "SECONDS",
        "sharded runs: seconds a rank waits for the others to join, and at the end of its "
        "shard for the slowest"},
       {}},
  };
}

const std::vector<Row>& rows() {
  static const std::vector<Row> table = [] {
    std::vector<Row> out = what_rows();
    for (Row& row : how_rows()) out.push_back(std::move(row));
    return out;
  }();
  return table;
}

const char* value_words(RunKeyValue value) {
  switch (value) {
    case V::Path:
      return "a path";
    case V::Boolean:
      return "true or false";
    case V::Integer:
      return "an integer";
    case V::Seconds:
      return "seconds";
    case V::Text:
      return "text";
    case V::Device:
      return "a device";
    case V::Names:
      return "a list of names";
    case V::Metrics:
      return "a list of metrics";
    case V::Processors:
      return "a list of processors";
    case V::Dataset:
      return "a data set by kind";
    case V::Outputs:
      return "results files by format";
    case V::Options:
      return "key=value options";
    case V::Choice:
      return "a word";
  }
  return "";
}

// A default as the reference table shows it.
std::string default_text(const RunKey& key) {
  if (key.key.empty()) return "";
  const Json value = detail::run_key_field(key.key)->get(BenchmarkConfig{});
  const bool none = value.is_null() || (value.is_string() && value.get<std::string>().empty()) ||
                    ((value.is_array() || value.is_object()) && value.empty());
  return none ? "none" : "`" + value.dump() + "`";
}

}  // namespace

const std::vector<RunKey>& run_keys() {
  static const std::vector<RunKey> keys = [] {
    std::vector<RunKey> out;
    for (const Row& row : rows()) out.push_back(row.key);
    return out;
  }();
  return keys;
}

std::vector<std::string> run_key_choices(const RunKey& key) {
  std::vector<std::string> out;
  std::string_view rest = key.choices;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    out.emplace_back(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return out;
}

const RunKey* find_run_key(std::string_view key) {
  if (key.empty()) return nullptr;
  for (const RunKey& k : run_keys()) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

std::string run_keys_markdown() {
  std::string out =
      "| config key | flag | value | default | suites | what it does |\n"
      "|---|---|---|---|---|---|\n";
  for (const RunKey& k : run_keys()) {
    std::string flag = k.flag.empty() ? (k.value == V::Outputs ? "`--json`, `--csv`, `--text`" : "")
                                      : fmt::format("`{}`", k.flag);
    if (!k.short_flag.empty()) flag += fmt::format(", `{}`", k.short_flag);
    std::string value = value_words(k.value);
    // Ranges in the table of numbers above it (some depend on the machine: `threads`).
    if ((k.value == V::Integer || k.value == V::Seconds) && !k.key.empty()) {
      value += " ([range](#numbers))";
    }
    if (k.value == V::Choice) value = fmt::format("one of {}", k.choices);
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n",
                       k.key.empty() ? "(command line only)" : fmt::format("`{}`", k.key), flag,
                       value, default_text(k),
                       k.key.empty()     ? ""
                       : k.suite_may_set ? "yes"
                                         : "no",
                       k.help);
  }
  return out;
}

namespace detail {

Json dataset_json(const DatasetSpec& spec) {
  if (spec.empty()) return nullptr;
  Json out = Json{{"kind", spec.kind}, {"path", spec.path.string()}};
  for (const auto& [key, value] : spec.options.items()) out[key] = value;
  return out;
}

const RunKeyField* run_key_field(std::string_view key) {
  static const std::map<std::string, const RunKeyField*, std::less<>> by_key = [] {
    std::map<std::string, const RunKeyField*, std::less<>> out;
    for (const Row& row : rows()) {
      if (!row.key.key.empty()) out[std::string(row.key.key)] = &row.field;
    }
    return out;
  }();
  const auto it = by_key.find(key);
  return it == by_key.end() ? nullptr : it->second;
}

}  // namespace detail
}  // namespace neurobench
