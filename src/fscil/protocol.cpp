// SPDX-License-Identifier: Apache-2.0
// The FSCIL protocol of NeuroBench's examples/mswc_fscil: prototypes written into the readout,
// then every session evaluated as a Benchmark run with the example's post-processing.
#include <neurobench/fscil.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/datasets/mswc.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/processors/processors.hpp>

#include "util/text.hpp"

namespace neurobench {

namespace {

using detail::shape_string;

// NeuroBench's ConcatDataset([base_test_set, query]): the base test samples, then the query's.
class FscilConcatDataset final : public Dataset {
 public:
  FscilConcatDataset(std::shared_ptr<Dataset> first, std::shared_ptr<Dataset> second)
      : first_(std::move(first)), second_(std::move(second)) {}
  int64_t size() const override { return first_->size() + second_->size(); }
  Batch get(const std::vector<int64_t>& indices) const override {
    std::vector<Batch> parts;
    std::vector<int64_t> run;
    bool run_first = true;
    const auto flush = [&] {
      if (!run.empty()) parts.push_back((run_first ? first_ : second_)->get(run));
      run.clear();
    };
    for (int64_t i : indices) {
      if (i < 0 || i >= size()) {
        throw UsageError(fmt::format("index {} out of range for {} samples", i, size()));
      }
      const bool in_first = i < first_->size();
      if (in_first != run_first) flush();
      run_first = in_first;
      run.push_back(in_first ? i : i - first_->size());
    }
    flush();
    if (parts.size() == 1) return parts.front();
    Batch out;
    std::vector<torch::Tensor> data, targets;
    for (const Batch& b : parts) {
      data.push_back(b.data);
      targets.push_back(b.targets);
    }
    out.data = torch::cat(data);
    out.targets = torch::cat(targets);
    return out;
  }
  std::string describe() const override {
    return first_->describe() + ", then " + second_->describe();
  }
  std::vector<std::filesystem::path> input_files() const override {
    std::vector<std::filesystem::path> files = first_->input_files();
    for (auto& f : second_->input_files()) files.push_back(std::move(f));
    return files;
  }

 private:
  std::shared_ptr<Dataset> first_;
  std::shared_ptr<Dataset> second_;
};

// NeuroBench's OutMask: `spikes - mask`, the mask 0 for the classes seen and +inf for the others.
torch::Tensor fscil_out_mask(const torch::Tensor& preds, const torch::Tensor& mask) {
  if (preds.dim() == 0 || preds.size(-1) != mask.size(0)) {
    throw InputError(fmt::format(
        "FSCIL output mask: the model's output of shape {} has no last dimension of {} classes "
        "(the readout's rows)",
        shape_string(preds), mask.size(0)));
  }
  return preds - mask.to(preds.device());
}

// `F.softmax(x)` without `dim`, as NeuroBench's example calls it: torch's implicit dimension,
// 0 for 0-, 1- and 3-d input, else 1 (torch.nn.functional._get_softmax_dim).
torch::Tensor fscil_softmax(const torch::Tensor& preds) {
  const int64_t d = preds.dim();
  return torch::softmax(preds, (d == 0 || d == 1 || d == 3) ? 0 : 1);
}

std::vector<std::unique_ptr<PreProcessor>> fscil_make_pre(const BenchmarkConfig& config) {
  std::vector<std::unique_ptr<PreProcessor>> pre;
  for (const auto& p : config.pre) pre.push_back(pre_processors().create(p.name, p.options));
  return pre;
}

MetricSet fscil_make_metrics(const BenchmarkConfig& c) {
  std::vector<MetricSpec> static_specs = c.static_metrics;
  std::vector<MetricSpec> workload_specs = c.workload_metrics;
  for (const auto& spec : c.metrics) {
    (static_metrics().contains(spec.name) ? static_specs : workload_specs).push_back(spec);
  }
  return MetricSet::from_specs(static_specs, workload_specs);
}

LayerSetup fscil_layers(const BenchmarkConfig& config) {
  LayerSetup layers = Benchmark::default_layers();
  if (!config.activation_modules.empty()) layers.activation_types = config.activation_modules;
  if (!config.connection_modules.empty()) layers.connection_types = config.connection_modules;
  return layers;
}

// The checks run_fscil() makes before it runs anything.
void fscil_check_config(const BenchmarkConfig& config) {
  if (!config.post.empty()) {
    throw UsageError(
        "fscil: the config's 'post' must be empty: the FSCIL protocol post-processes as "
        "NeuroBench's example (output mask, softmax, argmax)");
  }
  if (config.stepwise) {
    throw UsageError("fscil: 'stepwise' is not supported: the features method gets whole batches");
  }
  MetricSet metrics = fscil_make_metrics(config);
  const auto* accuracy = workload_metrics().find("ClassificationAccuracy");
  const bool has_accuracy = std::any_of(
      metrics.workload_metrics.begin(), metrics.workload_metrics.end(),
      [&](const auto& m) { return accuracy != nullptr && m->name() == accuracy->name; });
  if (!has_accuracy) {
    throw UsageError(
        "fscil: the workload metrics must include ClassificationAccuracy: sessions are scored "
        "by it");
  }
  for (const auto& p : config.pre) (void)pre_processors().create(p.name, p.options);
  config.loader_options().validate();
}

// One batch of `rows` of `data`, on the model's device and pre-processed as the runs are.
Batch fscil_prepared_batch(const Dataset& data, const std::vector<int64_t>& rows,
                           const BenchmarkConfig& config, const c10::Device& device) {
  Batch batch = data.get(rows);
  batch.data = batch.data.to(device);
  batch.targets = batch.targets.to(device);
  for (auto& p : fscil_make_pre(config)) batch = (*p)(batch);
  return batch;
}

std::vector<int64_t> fscil_all_rows(const Dataset& data) {
  std::vector<int64_t> rows(static_cast<std::size_t>(data.size()));
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int64_t>(i);
  return rows;
}

// Each class's rows of a data set, classes in the order of their first sample. MSWC data sets
// know their labels without decoding a clip; others are read batch by batch.
std::vector<std::pair<int64_t, std::vector<int64_t>>> fscil_rows_by_class(const Dataset& data) {
  std::vector<int64_t> labels(static_cast<std::size_t>(data.size()));
  if (const auto* mswc = dynamic_cast<const datasets::Mswc*>(&data)) {
    for (int64_t i = 0; i < data.size(); ++i) labels[i] = mswc->label(i);
  } else {
    constexpr int64_t kStep = 256;
    for (int64_t begin = 0; begin < data.size(); begin += kStep) {
      const torch::Tensor t = data.slice(begin, std::min(begin + kStep, data.size()))
                                  .targets.to(torch::kCPU, torch::kLong)
                                  .contiguous();
      std::copy(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel(), labels.begin() + begin);
    }
  }
  std::vector<std::pair<int64_t, std::vector<int64_t>>> out;
  std::map<int64_t, std::size_t> where;
  for (int64_t i = 0; i < data.size(); ++i) {
    auto [it, added] = where.emplace(labels[i], out.size());
    if (added) out.push_back({labels[i], {}});
    out[it->second].second.push_back(i);
  }
  return out;
}

struct FscilEvaluation {
  const std::shared_ptr<TorchScriptModel>& model;
  const BenchmarkConfig& config;
  int64_t num_classes;  // the readout's rows

  Results run(const std::shared_ptr<Dataset>& data, const std::vector<int64_t>& seen,
              MetricSet metrics) const {
    torch::Tensor mask =
        torch::full({num_classes}, std::numeric_limits<float>::infinity(), torch::kFloat);
    for (int64_t c : seen) mask[c] = 0.0F;
    std::vector<std::unique_ptr<PostProcessor>> post;
    post.push_back(
        make_post_processor([mask](const torch::Tensor& p) { return fscil_out_mask(p, mask); }));
    post.push_back(make_post_processor(fscil_softmax));
    post.push_back(std::make_unique<processors::Argmax>());
    Benchmark bench(model, DataLoader(data, config.loader_options()), fscil_make_pre(config),
                    std::move(post), std::move(metrics), fscil_layers(config));
    return bench.run(config.run_options());
  }
};

int64_t fscil_readout_rows(const TorchScriptModel& model, const FscilOptions& options) {
  for (const auto& item : model.module().named_modules()) {
    if (item.name == options.readout) return item.value.attr("weight").toTensor().size(0);
  }
  return 0;  // check_fscil_model() has refused such a model already
}

}  // namespace

std::vector<FscilSession> fscil_sessions(const datasets::MswcSessions& sessions) {
  std::vector<FscilSession> out;
  for (int64_t i = 0; i < sessions.size(); ++i) {
    out.push_back({sessions.draws().sessions[static_cast<std::size_t>(i)].language,
                   sessions.support(i), sessions.query(i), sessions.new_classes(i)});
  }
  return out;
}

FscilResults run_fscil(const std::shared_ptr<TorchScriptModel>& model, const FscilData& data,
                       const BenchmarkConfig& config, const FscilOptions& options,
                       const FscilProgress& progress) {
  if (model == nullptr) throw UsageError("run_fscil: no model");
  if (data.base_test == nullptr) throw UsageError("run_fscil: no base test set");
  for (const auto& s : data.sessions) {
    if (s.support == nullptr || s.query == nullptr) {
      throw UsageError(fmt::format("run_fscil: session '{}' has no support or query set", s.name));
    }
  }
  fscil_check_config(config);
  check_fscil_model(*model, options);
  const FscilEvaluation eval{model, config, fscil_readout_rows(*model, options)};
  const c10::Device device = model->device();

  FscilResults results;
  results.options = options;
  if (data.base_train != nullptr) {
    for (const auto& [label, rows] : fscil_rows_by_class(*data.base_train)) {
      const Batch batch = fscil_prepared_batch(*data.base_train, rows, config, device);
      for (int64_t c : write_prototypes(*model, batch, options))
        results.base_prototypes.push_back(c);
    }
  }

  std::vector<int64_t> seen;  // base_classes is at most the readout's rows (check_fscil_model)
  for (int64_t c = 0; c < options.base_classes; ++c) seen.push_back(c);
  FscilSessionResult base;
  base.session = 0;
  base.name = "base";
  base.new_classes = seen;
  base.classes = static_cast<int64_t>(seen.size());
  base.all = eval.run(data.base_test, seen, fscil_make_metrics(config));
  if (progress) progress(base);
  results.run = base.all.run;
  results.sessions.push_back(std::move(base));

  for (std::size_t i = 0; i < data.sessions.size(); ++i) {
    const FscilSession& s = data.sessions[i];
    const Batch support =
        fscil_prepared_batch(*s.support, fscil_all_rows(*s.support), config, device);
    (void)write_prototypes(*model, support, options);
    for (int64_t c : s.new_classes) {
      if (std::find(seen.begin(), seen.end(), c) == seen.end()) seen.push_back(c);
    }
    FscilSessionResult r;
    r.session = static_cast<int64_t>(i) + 1;
    r.name = s.name;
    r.new_classes = s.new_classes;
    r.classes = static_cast<int64_t>(seen.size());
    r.all = eval.run(std::make_shared<FscilConcatDataset>(data.base_test, s.query), seen,
                     fscil_make_metrics(config));
    r.new_classes_only =
        eval.run(s.query, seen, MetricSet::from_names({}, {"ClassificationAccuracy"}));
    if (progress) progress(r);
    results.sessions.push_back(std::move(r));
  }
  return results;
}

namespace {

// Adds `value` into `sum` key by key; a null anywhere makes the entry null (a failed metric).
void fscil_accumulate(Json& sum, const Json& value) {
  if (sum.is_null() && !value.is_null() && !value.is_object()) return;  // failed before
  if (value.is_object() && sum.is_object()) {
    for (const auto& [k, v] : value.items()) {
      if (!sum.contains(k)) sum[k] = v.is_object() ? Json::object() : Json(0.0);
      fscil_accumulate(sum[k], v);
    }
  } else if (value.is_number() && sum.is_number()) {
    sum = sum.get<double>() + value.get<double>();
  } else {
    sum = nullptr;
  }
}

void fscil_divide(Json& sum, double n) {
  if (sum.is_object()) {
    for (auto& [k, v] : sum.items()) fscil_divide(v, n);
  } else if (sum.is_number()) {
    sum = sum.get<double>() / n;
  }
}

}  // namespace

Json FscilResults::means() const {
  Json sum = Json::object();
  if (sessions.empty()) return sum;
  for (const auto& [k, v] : sessions.front().all.values.items()) {
    sum[k] = v.is_object() ? Json::object() : Json(0.0);
  }
  for (const auto& s : sessions) {
    for (auto& [k, v] : sum.items()) {
      fscil_accumulate(v, s.all.values.contains(k) ? s.all.values.at(k) : Json());
    }
  }
  fscil_divide(sum, static_cast<double>(sessions.size()));
  return sum;
}

std::optional<double> FscilResults::mean_new_classes_accuracy() const {
  double sum = 0.0;
  int64_t n = 0;
  for (const auto& s : sessions) {
    if (!s.new_classes_only) continue;
    const Json& v = s.new_classes_only->values.value("ClassificationAccuracy", Json());
    if (!v.is_number()) return std::nullopt;
    sum += v.get<double>();
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / static_cast<double>(n);
}

bool FscilResults::ok() const {
  return std::all_of(sessions.begin(), sessions.end(), [](const FscilSessionResult& s) {
    return s.all.ok() && (!s.new_classes_only || s.new_classes_only->ok());
  });
}

}  // namespace neurobench
