// SPDX-License-Identifier: Apache-2.0
#include <neurobench/prepared_run.hpp>

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <ATen/Parallel.h>
#include <fmt/format.h>

#include <neurobench/benchmark.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/datasets/kinds.hpp>
#include <neurobench/device.hpp>
#include <neurobench/distributed.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/processors/processors.hpp>

#include "data/npz_shard.hpp"
#include "data/unread_npz.hpp"
#include "runtime/run_state.hpp"
#include "util/phase_clock.hpp"

namespace neurobench {

namespace {

// The metrics of the config, each in its family: `metrics` go where their names belong, after
// the `static` and `workload` ones.
void place_metrics(const BenchmarkConfig& c, std::vector<MetricSpec>& static_specs,
                   std::vector<MetricSpec>& workload_specs) {
  static_specs = c.static_metrics;
  workload_specs = c.workload_metrics;
  for (const auto& spec : c.metrics) {
    if (static_metrics().contains(spec.name)) {
      static_specs.push_back(spec);
    } else if (find_metric(spec.name) != nullptr) {
      workload_specs.push_back(spec);  // workload and timing metrics alike
    } else {
      std::string known;
      for (const auto* m : all_metrics()) known += (known.empty() ? "" : ", ") + m->name;
      throw UsageError(fmt::format("unknown metric '{}' (known: {})", spec.name, known));
    }
  }
}

// Every name and option, checked before anything is opened or loaded so that bad usage fails
// at once; the metrics made on the way are the run's.
MetricSet checked_metrics(const BenchmarkConfig& c, const RunParts& parts) {
  for (const auto& p : c.pre) {
    if (parts.pre_processors.count(p.name) == 0) (void)pre_processors().create(p.name, p.options);
  }
  for (const auto& p : c.post) {
    if (parts.post_processors.count(p.name) == 0) {
      (void)post_processors().create(p.name, p.options);
    }
  }
  if (!c.dataset.empty()) (void)dataset_kinds().check(c.dataset);
  if (c.static_metrics.empty() && c.workload_metrics.empty() && c.metrics.empty() &&
      parts.workload_metrics.empty() && !parts.metrics_optional) {
    throw UsageError(
        "no metrics asked for: give the config's 'static', 'workload' or 'metrics' (--static, "
        "--workload or --metrics; see 'neurobench list')");
  }
  std::vector<MetricSpec> static_specs, workload_specs;
  place_metrics(c, static_specs, workload_specs);
  MetricSet metrics = MetricSet::from_specs(static_specs, workload_specs);
  (parts.options ? parts.options->timing : c.run_options().timing).validate();
  // After the timing check, whose message names the timing settings as the timing pass does.
  c.validate();
  if (c.model.empty() && parts.model == nullptr) {
    throw UsageError("no model: the config's 'model' is empty and no model was given");
  }
  if (c.data.empty() && c.dataset.empty() && parts.data == nullptr) {
    throw UsageError(
        "no data: the config has neither 'data' (an .npz file) nor 'dataset' (a data set by "
        "kind), and no data set was given");
  }
  return metrics;
}

// The config's data. An `.npz` the run will not read (MetricSet::reads_data) is opened only if
// something asks for its samples. A rank of a sharded run with a workload pass
// keeps only its shard's rows of an `.npz` read in order (docs/distributed.md): the workload
// exchange brings the other ranks' findings of NaN and infinities.
std::shared_ptr<Dataset> open_data(const BenchmarkConfig& c, const MetricSet& metrics,
                                   const RunOptions& options) {
  const bool read = metrics.reads_data(options);
  if (c.dataset.empty()) {
    if (!read) return std::make_shared<detail::UnreadNpzDataset>(c.data, c.npz_options());
    const LoaderOptions loader = c.loader_options();
    if (options.group != nullptr && options.group->world_size() > 1 && !loader.shuffle_seed &&
        !metrics.workload_metrics.empty()) {
      const int rank = options.group->rank();
      const int ranks = options.group->world_size();
      // The rows of the batches the rank's workload pass runs: detail::shard_of()'s.
      const auto rows_of = [rank, ranks, loader](int64_t samples) {
        const auto batches =
            static_cast<std::size_t>((samples + loader.batch_size - 1) / loader.batch_size);
        const detail::BatchRange range = detail::shard_of(batches, rank, ranks);
        const auto first = static_cast<int64_t>(range.first) * loader.batch_size;
        const auto end = static_cast<int64_t>(range.end) * loader.batch_size;
        return std::make_pair(std::min(samples, first), std::min(samples, end));
      };
      return std::make_shared<detail::NpzShardDataset>(c.data, c.npz_options(), rows_of,
                                                       /*first_part=*/rank == 0);
    }
    return std::make_shared<TensorDataset>(TensorDataset::from_npz(c.data, c.npz_options()));
  }
  DatasetOpenOptions open;
  open.quiet = c.quiet;
  open.max_array_bytes = c.max_array_bytes;
  return dataset_kinds().open(c.dataset, open);
}

// The processors as results record them: each with its options complete (defaults filled in),
// as a config writes it; one the caller made (`given`) by its name alone.
template <class Registry>
Json processors_json(const std::vector<PluginSpec>& specs, const Registry& registry,
                     const std::vector<std::string>& given) {
  Json out = Json::array();
  for (const auto& spec : specs) {
    if (std::find(given.begin(), given.end(), spec.name) != given.end()) {
      out.push_back(Json{{"name", spec.name}});
      continue;
    }
    const auto* entry = registry.find(spec.name);
    PluginSpec recorded{entry != nullptr ? entry->name : spec.name, spec.options};
    if (entry != nullptr) {
      recorded.options = detail::complete_options(*entry, spec.options, registry.family());
    }
    out.push_back(Json(recorded));
  }
  return out;
}

// The processor of a config entry: the caller's own when `given` holds its name (its name then
// added to `names`), else the registry's.
template <class Processor>
std::unique_ptr<Processor> made(
    const std::map<std::string, std::function<std::unique_ptr<Processor>()>, std::less<>>& given,
    const PluginSpec& spec, std::vector<std::string>& names) {
  const auto found = given.find(spec.name);
  if (found == given.end()) {
    if constexpr (std::is_same_v<Processor, PreProcessor>) {
      return pre_processors().create(spec.name, spec.options);
    } else {
      return post_processors().create(spec.name, spec.options);
    }
  }
  names.push_back(spec.name);
  return found->second();
}

}  // namespace

struct PreparedRun::Impl {
  BenchmarkConfig config;
  std::filesystem::path config_file;
  RunOptions options;
  std::shared_ptr<Dataset> data;
  Benchmark bench;
  std::vector<std::string> given_pre, given_post;  // the caller's processors, by name
  bool stepwise = false;                           // as the model runs (a NIR graph is)
  std::optional<std::string> nir_record;           // a NIR graph's build (docs/nir.md)
  // `_run.phases` measured before the first run (the model's load, the data's opening): given to
  // that run's results only, since later runs of the same PreparedRun reuse both.
  mutable Json phases;

  // The run's history that Benchmark::run cannot know: where the data came from, the
  // processors, step-wise, the config file. Keys in the order the results files keep.
  void record(Results& results) const {
    const BenchmarkConfig& c = config;
    if (!c.dataset.empty()) {
      const DatasetKind* kind = dataset_kinds().find(c.dataset.kind);
      const std::string kind_name = kind != nullptr ? kind->name : c.dataset.kind;
      results.run["data"] = kind_name + ":" + c.dataset.path.string();
      results.run["dataset"] = {{"kind", kind_name},
                                {"path", c.dataset.path.string()},
                                {"options", dataset_kinds().check(c.dataset)},
                                {"samples", data->size()},
                                {"description", data->describe()}};
    } else if (!c.data.empty()) {
      results.run["data"] = c.data.string();
    } else {
      results.run["data"] = data->describe();
    }
    if (!c.pre.empty()) results.run["pre"] = processors_json(c.pre, pre_processors(), given_pre);
    if (!c.post.empty()) {
      results.run["post"] = processors_json(c.post, post_processors(), given_post);
    }
    results.run["stepwise"] = stepwise;
    if (nir_record) results.run["nir"] = Json::parse(*nir_record);
    // The phases measured here come first, before those of the run itself.
    Json all = std::exchange(phases, Json::object());
    if (results.run.contains("phases")) all.update(results.run["phases"]);
    if (!all.empty()) results.run["phases"] = std::move(all);
    if (!config_file.empty()) results.run["config"] = config_file.string();
  }
};

void PreparedRun::check(const BenchmarkConfig& config, const RunParts& parts) {
  (void)checked_metrics(config, parts);
}

PreparedRun PreparedRun::from_config(const BenchmarkConfig& config, RunParts parts) {
  MetricSet metrics = checked_metrics(config, parts);
  const bool data_given = parts.data != nullptr;
  RunOptions options = parts.options ? std::move(*parts.options) : config.run_options();
  at::set_num_threads(config.threads);
  // Before the model is loaded: a GPU that is not there is bad usage, said at once.
  check_device(options.device);

  std::shared_ptr<NeuroBenchModel> model = std::move(parts.model);
  bool stepwise = config.stepwise;
  std::optional<std::string> nir_record;
  detail::PhaseClock phases;  // the model's load and the data's opening, when made here
  if (model == nullptr) {
    TorchScriptOptions model_options;
    model_options.stepwise = config.stepwise;
    model_options.device = options.device;
    model_options.nir = config.nir_options();
    model = std::make_shared<TorchScriptModel>(config.model, model_options);
    phases.lap("model_load_s");
  }
  if (const auto* script = dynamic_cast<const TorchScriptModel*>(model.get())) {
    stepwise = script->stepwise();  // a NIR graph runs step-wise whatever the config says
    nir_record = script->nir_record();
  }
  for (const auto& make : parts.workload_metrics) {  // the caller's own, after the config's
    std::unique_ptr<WorkloadMetric> m = make();
    metrics.order.push_back(m->name());
    metrics.workload_metrics.push_back(std::move(m));
  }
  phases.restart();
  std::shared_ptr<Dataset> data = std::move(parts.data);
  if (!data_given) {
    // An `.npz` read whole records its read and the wait for its digest in place of the opening.
    const detail::PhaseScope opening(phases);
    data = open_data(config, metrics, options);
    if (!phases.has("data_read_s")) phases.lap("data_open_s");
  }

  std::vector<std::string> given_pre, given_post;
  std::vector<std::unique_ptr<PreProcessor>> pre;
  for (const auto& p : config.pre) pre.push_back(made(parts.pre_processors, p, given_pre));
  std::vector<std::unique_ptr<PostProcessor>> post;
  for (const auto& p : config.post) post.push_back(made(parts.post_processors, p, given_post));

  LayerSetup layers = Benchmark::default_layers();
  if (!config.activation_modules.empty()) layers.activation_types = config.activation_modules;
  if (!config.connection_modules.empty()) layers.connection_types = config.connection_modules;

  Benchmark bench(std::move(model), DataLoader(data, config.loader_options()), std::move(pre),
                  std::move(post), std::move(metrics), std::move(layers));
  return PreparedRun(std::unique_ptr<Impl>(
      new Impl{config, std::move(parts.config_file), std::move(options), std::move(data),
               std::move(bench), std::move(given_pre), std::move(given_post), stepwise,
               std::move(nir_record), phases.take()}));
}

PreparedRun::PreparedRun(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PreparedRun::~PreparedRun() = default;
PreparedRun::PreparedRun(PreparedRun&&) noexcept = default;
PreparedRun& PreparedRun::operator=(PreparedRun&&) noexcept = default;

Results PreparedRun::run() {
  Results results = impl_->bench.run(impl_->options);
  impl_->record(results);
  return results;
}

const std::shared_ptr<Dataset>& PreparedRun::data() const { return impl_->data; }

const RunOptions& PreparedRun::options() const { return impl_->options; }

}  // namespace neurobench
