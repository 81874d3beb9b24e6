// SPDX-License-Identifier: Apache-2.0
// The config of `neurobench fscil`: a BenchmarkConfig plus its `fscil` block, and the run it
// describes.
#include <neurobench/fscil.hpp>

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <neurobench/datasets/kinds.hpp>
#include <neurobench/datasets/mswc.hpp>
#include <neurobench/device.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/plugins.hpp>
#include <neurobench/prepared_run.hpp>

#include "io/input_file.hpp"
#include "util/json_input.hpp"
#include "util/text.hpp"

namespace neurobench {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFscilKeys =
    "features, readout, base_classes, prototypes, draws, seed, k_shot, query_shots, "
    "support_pool, query_pool, languages, write_draws";

// Reads the `fscil` block's values, each checked for its type, with messages naming the key.
struct FscilReader {
  const std::string& source;
  const fs::path& base;

  [[noreturn]] void wrong(const std::string& key, const char* expected, const Json& v) const {
    throw UsageError(fmt::format("{}: 'fscil.{}' must be {}, not {}", source, key, expected,
                                 detail::json_excerpt(v)));
  }
  std::string string(const std::string& key, const Json& v) const {
    if (!v.is_string()) wrong(key, "a string", v);
    return v.get<std::string>();
  }
  fs::path path(const std::string& key, const Json& v) const {
    const std::string s = string(key, v);
    if (s.empty()) wrong(key, "a path", v);
    const fs::path p(s);
    return p.is_relative() && !base.empty() ? base / p : p;
  }
  int64_t integer(const std::string& key, const Json& v, int64_t lowest) const {
    if (!v.is_number_integer() ||
        (v.is_number_unsigned() &&
         v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))) {
      wrong(key, "an integer", v);
    }
    const int64_t n = v.get<int64_t>();
    if (n < lowest) {
      throw UsageError(fmt::format("{}: 'fscil.{}': {} is out of range; expected {} or more",
                                   source, key, n, lowest));
    }
    return n;
  }
  uint64_t seed(const Json& v) const {
    if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0)) {
      wrong("seed", "an integer from 0 to 18446744073709551615", v);
    }
    return v.get<uint64_t>();
  }
  // `"KIND:PATH"` or `{"kind": ..., "path": ..., OPTION: VALUE, ...}`, as a config's `dataset`.
  DatasetSpec dataset(const std::string& key, const Json& v) const {
    DatasetSpec spec;
    if (v.is_string()) {
      try {
        spec = parse_dataset_spec(v.get<std::string>());
      } catch (const UsageError& e) {
        throw UsageError(fmt::format("{}: 'fscil.{}': {}", source, key, e.what()));
      }
    } else if (v.is_object()) {
      for (const auto& [name, value] : v.items()) {
        if (name == "kind") {
          spec.kind = string(key + ".kind", value);
        } else if (name == "path") {
          spec.path = string(key + ".path", value);
        } else {
          spec.options[name] = value;
        }
      }
    } else {
      wrong(key, "an object {\"kind\": ..., \"path\": ..., options...} or \"KIND:PATH\"", v);
    }
    if (spec.kind.empty() || spec.path.empty()) {
      wrong(key, "a data set with a \"kind\" and a \"path\"", v);
    }
    if (spec.path.is_relative() && !base.empty()) spec.path = base / spec.path;
    return spec;
  }
};

void fscil_read_block(const Json& block, FscilConfig& c, const FscilReader& r) {
  if (!block.is_object()) {
    throw UsageError(fmt::format("{}: 'fscil' must be an object with the keys {}, not {}", r.source,
                                 kFscilKeys, detail::json_excerpt(block)));
  }
  datasets::MswcSessionOptions& s = c.sessions.options;
  for (const auto& [key, v] : block.items()) {
    if (key == "features") {
      c.options.features = r.string(key, v);
    } else if (key == "readout") {
      c.options.readout = r.string(key, v);
    } else if (key == "base_classes") {
      c.options.base_classes = r.integer(key, v, 1);
    } else if (key == "prototypes") {
      c.prototypes = r.dataset(key, v);
    } else if (key == "draws") {
      c.sessions.draws = r.path(key, v);
    } else if (key == "write_draws") {
      c.sessions.write_draws = r.path(key, v);
    } else if (key == "seed") {
      c.sessions.seed = r.seed(v);
    } else if (key == "k_shot") {
      s.k_shot = r.integer(key, v, 1);
    } else if (key == "query_shots") {
      s.query_shots = r.integer(key, v, -1);
    } else if (key == "support_pool") {
      s.support_pool = r.integer(key, v, 1);
    } else if (key == "query_pool") {
      s.query_pool = r.integer(key, v, 1);
    } else if (key == "languages") {
      if (!v.is_array()) r.wrong(key, "an array of language folders", v);
      s.languages.clear();
      for (const Json& l : v) s.languages.push_back(r.string(key, l));
    } else if (!key.empty() && key[0] == '_') {
      continue;  // a note
    } else {
      throw UsageError(fmt::format("{}: unknown key 'fscil.{}' (known: {})", r.source,
                                   detail::printable(key, 60), kFscilKeys));
    }
  }
  const bool draw_options = block.contains("k_shot") || block.contains("query_shots") ||
                            block.contains("support_pool") || block.contains("query_pool") ||
                            block.contains("languages");
  if (block.contains("draws") && draw_options) {
    throw UsageError(fmt::format(
        "{}: the draw's options (k_shot, query_shots, support_pool, query_pool, languages) come "
        "from the draws file 'fscil.draws': give them only with 'fscil.seed'",
        r.source));
  }
}

// What an MSWC data set spec names, for messages: `the base test set`, `evaluation language
// 'fa'`.
std::string mswc_set_name(const datasets::MswcOptions& o) {
  if (o.subset == datasets::MswcSubset::Evaluation) {
    return fmt::format("the evaluation set of language '{}'", detail::printable(o.language, 40));
  }
  if (!o.procedure) return "the base classes' clips";
  switch (*o.procedure) {
    case datasets::MswcProcedure::Training:
      return "the base training set";
    case datasets::MswcProcedure::Validation:
      return "the base validation set";
    case datasets::MswcProcedure::Testing:
      return "the base test set";
  }
  return "the base classes' clips";
}

// `key` must be the MSWC base set `procedure` names: the base test set is what every session
// evaluates on, the base training set what the base prototypes are made of. A prototype made
// of evaluation clips, or an evaluation on training clips, would give accuracies that mean
// nothing.
void check_fscil_dataset(const char* key, const DatasetSpec& spec,
                         datasets::MswcProcedure procedure) {
  const DatasetKind* kind = dataset_kinds().find(spec.kind);
  datasets::MswcOptions o;
  o.subset = datasets::MswcSubset::Base;
  o.procedure = procedure;
  const std::string wanted = mswc_set_name(o);
  if (kind == nullptr || kind->name != "mswc") {
    throw UsageError(fmt::format(
        "fscil: '{}' must be the MSWC release's {} ({{\"kind\": \"mswc\", \"path\": ..., "
        "\"subset\": \"base\", \"procedure\": \"{}\"}}); it is of kind '{}'",
        key, wanted.substr(4), to_string(procedure), detail::printable(spec.kind, 60)));
  }
  Json options;
  try {
    options = dataset_kinds().check(spec);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("fscil: '{}': {}", key, e.what()));
  }
  datasets::MswcOptions given;
  given.subset = datasets::mswc_subset(options.at("subset").get<std::string>());
  const auto given_procedure = options.at("procedure").get<std::string>();
  if (!given_procedure.empty()) given.procedure = datasets::mswc_procedure(given_procedure);
  given.language = options.at("language").get<std::string>();
  if (given.subset != datasets::MswcSubset::Base || given.procedure != procedure) {
    throw UsageError(fmt::format(
        "fscil: '{}' must be {} (\"subset\": \"base\", \"procedure\": \"{}\"); it names "
        "{}{}",
        key, wanted, to_string(procedure), mswc_set_name(given),
        procedure == datasets::MswcProcedure::Testing
            ? ": every session is evaluated on the base test set, and the sessions' clips come "
              "from the evaluation languages themselves"
            : ": the base prototypes are made of training clips, never of clips a session is "
              "evaluated on"));
  }
}

}  // namespace

void FscilConfig::validate() const {
  benchmark.validate();
  options.validate();
  if (!benchmark.data.empty()) {
    throw UsageError(
        "fscil: the config's 'data' must be empty: the base test set is a data set of kind "
        "'mswc' ('dataset'), whose release also holds the sessions");
  }
  if (benchmark.dataset.empty() || dataset_kinds().find(benchmark.dataset.kind) == nullptr ||
      dataset_kinds().find(benchmark.dataset.kind)->name != "mswc") {
    throw UsageError(fmt::format(
        "fscil: the config's 'dataset' must be the MSWC release's base test set, {{\"kind\": "
        "\"mswc\", \"path\": ..., \"subset\": \"base\", \"procedure\": \"testing\"}}; it is {}",
        benchmark.dataset.empty() ? std::string("not given")
                                  : "of kind '" + benchmark.dataset.kind + "'"));
  }
  check_fscil_dataset("dataset", benchmark.dataset, datasets::MswcProcedure::Testing);
  if (!prototypes.empty()) {
    check_fscil_dataset("fscil.prototypes", prototypes, datasets::MswcProcedure::Training);
  }
  if (!benchmark.post.empty()) {
    throw UsageError(
        "fscil: the config's 'post' must be empty: the FSCIL protocol post-processes as "
        "NeuroBench's example (output mask, softmax, argmax)");
  }
  if (benchmark.stepwise) {
    throw UsageError("fscil: 'stepwise' is not supported: the features method gets whole batches");
  }
  if (!sessions.draws.empty() && sessions.seed) {
    throw UsageError(
        "fscil: 'fscil.draws' and 'fscil.seed' are both given: give one, a draws "
        "file to read or a seed to draw the sessions with");
  }
  if (sessions.draws.empty() && !sessions.seed) {
    throw UsageError(
        "fscil: give 'fscil.draws' (a draws file) or 'fscil.seed' (to draw the "
        "sessions with our generator)");
  }
  sessions.options.validate();
}

FscilConfig FscilConfig::from_json(const Json& json, const fs::path& base,
                                   const std::string& source) {
  if (!json.is_object()) {
    throw UsageError(
        fmt::format("{}: a config is a JSON object, not {}", source, detail::json_excerpt(json)));
  }
  if (!json.contains("fscil")) {
    throw UsageError(
        fmt::format("{}: no 'fscil' object: an FSCIL config has one ({})", source, kFscilKeys));
  }
  Json rest = json;
  rest.erase("fscil");
  FscilConfig c;
  c.benchmark = BenchmarkConfig::from_json(rest, base, source);
  fscil_read_block(json.at("fscil"), c, FscilReader{source, base});
  return c;
}

FscilConfig FscilConfig::read(const fs::path& file) {
  const Json json = detail::parse_user_json(
      detail::read_input_file(file, "config file", BenchmarkConfig::kMaxFileBytes), file.string(),
      /*comments=*/true);
  return from_json(json, file.has_parent_path() ? file.parent_path() : fs::path("."),
                   file.string());
}

namespace {

Json fscil_dataset_record(const DatasetSpec& spec, const Dataset& data) {
  const DatasetKind* kind = dataset_kinds().find(spec.kind);
  return Json{{"kind", kind != nullptr ? kind->name : spec.kind},
              {"path", spec.path.string()},
              {"options", dataset_kinds().check(spec)},
              {"samples", data.size()},
              {"description", data.describe()}};
}

// The outputs the config names (outputs.json, fscil.write_draws) against every file the run
// reads, once the data are open: the model, the config, the draws file, the base sets, each
// session's list and clips. Before the first batch, so that nothing runs that cannot be kept.
void check_fscil_outputs(const FscilConfig& config, const fs::path& config_file,
                         const FscilData& data, const datasets::MswcSessions& sessions) {
  std::vector<NamedFile> outputs;
  const auto json = config.benchmark.outputs.find("json");
  if (json != config.benchmark.outputs.end() && !json->second.empty()) {
    outputs.push_back({json->second, "the results file"});
  }
  if (!config.sessions.write_draws.empty()) {
    (void)check_output_file(config.sessions.write_draws);
    outputs.push_back({config.sessions.write_draws, "fscil.write_draws"});
  }
  if (outputs.empty()) return;
  std::vector<NamedFile> inputs = {{config.benchmark.model, "the model"}};
  if (!config_file.empty()) inputs.push_back({config_file, "the config file"});
  if (!config.sessions.draws.empty()) inputs.push_back({config.sessions.draws, "fscil.draws"});
  for (const auto& plugin : loaded_plugins()) inputs.push_back({plugin, "a plugin library"});
  const auto add = [&inputs](const Dataset& d, const std::string& role) {
    for (auto& f : named_files(d.input_files(), role)) inputs.push_back(std::move(f));
  };
  add(*data.base_test, "read by 'dataset' (the base test set)");
  if (data.base_train != nullptr) add(*data.base_train, "read by 'fscil.prototypes'");
  for (auto& f : named_files(sessions.input_files(), "read by the sessions")) {
    inputs.push_back(std::move(f));
  }
  check_distinct_files(outputs, inputs);
}

}  // namespace

FscilResults run_fscil(const FscilConfig& config, const fs::path& config_file,
                       const FscilProgress& progress) {
  config.validate();
  PreparedRun::check(config.benchmark);  // processors, metrics, the data set's options
  const BenchmarkConfig& c = config.benchmark;
  at::set_num_threads(c.threads);
  const RunOptions run_options = c.run_options();
  check_device(run_options.device);

  TorchScriptOptions model_options;
  model_options.device = run_options.device;
  auto model = std::make_shared<TorchScriptModel>(c.model, model_options);
  check_fscil_model(*model, config.options);

  DatasetOpenOptions open;
  open.quiet = c.quiet;
  open.max_array_bytes = c.max_array_bytes;
  FscilData data;
  data.base_test = dataset_kinds().open(c.dataset, open);
  if (!config.prototypes.empty()) data.base_train = dataset_kinds().open(config.prototypes, open);
  const datasets::MswcDraws draws =
      config.sessions.draws.empty()
          ? datasets::draw_mswc_sessions(c.dataset.path, config.sessions.options,
                                         *config.sessions.seed)
          : datasets::read_mswc_draws(config.sessions.draws);
  const datasets::MswcSessions sessions(c.dataset.path, draws);
  data.sessions = fscil_sessions(sessions);
  check_fscil_outputs(config, config_file, data, sessions);

  FscilResults results = run_fscil(model, data, c, config.options, progress);
  Json& run = results.run;
  run["data"] = dataset_kinds().find(c.dataset.kind)->name + ":" + c.dataset.path.string();
  run["dataset"] = fscil_dataset_record(c.dataset, *data.base_test);
  if (!c.pre.empty()) run["pre"] = Json(c.pre);
  Json fscil = {{"features", config.options.features},
                {"readout", config.options.readout},
                {"base_classes", config.options.base_classes}};
  if (data.base_train != nullptr) {
    fscil["prototypes"] = fscil_dataset_record(config.prototypes, *data.base_train);
  }
  Json source = datasets::to_json(draws);
  source.erase("sessions");
  if (!config.sessions.draws.empty()) source["file"] = config.sessions.draws.string();
  fscil["draws"] = source;
  run["fscil"] = fscil;
  if (!config_file.empty()) run["config"] = config_file.string();
  // Last, once the run has succeeded: nothing is written when it fails.
  if (!config.sessions.write_draws.empty()) {
    datasets::write_mswc_draws(draws, config.sessions.write_draws);
  }
  return results;
}

}  // namespace neurobench
