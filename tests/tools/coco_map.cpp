// SPDX-License-Identifier: Apache-2.0
// A test tool: the CocoMap metric, or the COCO evaluation under it, on arrays from an .npz, for
// tests/metrics/check_coco_map.py, which compares them with pycocotools' COCOeval (and NeuroBench's
// CocoMap glue) on detection sets it makes up at run time.
//
//   neurobench_coco_map metric IN.npz OUT.json [SHARDS]
//   neurobench_coco_map raw IN.npz OUT.json
//
// metric: IN.npz holds `batches` (a count) and for each batch b the arrays `b<b>_preds`,
// `b<b>_targets` and the extras `b<b>_recording`, `_padding`, `_tbin_start_us`, `_delta_t_us`,
// `_frame_is_labeled` (and optionally `skip_unlabeled_frames`, a bool). The batches go through
// one CocoMap, or with SHARDS > 1 through SHARDS instances on contiguous runs of batches whose
// states are exported, sent through CBOR as a sharded run sends them, and merged in order. OUT
// gets {"value": the metric's value} or {"error": message}.
//
// raw: IN.npz holds `images` (a count), `categories` (K) int64, `gt` (N, 8) float64 rows
// [image, category, x, y, w, h, area, iscrowd] and `dt` (M, 8) rows [image, category, x, y, w,
// h, area, score]. OUT gets {"stats", "precision", "recall"} (flattened as COCOeval's arrays).
// Exit 0, or 2 with the error on stderr.
#include <cstdint>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <torch/script.h>

#include <neurobench/data/dataset.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/io/npz.hpp>
#include <neurobench/json.hpp>
#include <neurobench/metrics/builtin.hpp>

#include "metrics/coco_eval.hpp"

namespace {

class CocoToolModel final : public neurobench::NeuroBenchModel {
 public:
  torch::Tensor forward(const torch::Tensor& b) override { return b; }
  std::vector<neurobench::ModuleInfo> modules() const override { return {}; }
  std::string describe() const override { return "coco tool"; }
};

neurobench::Json run_metric(neurobench::NpzArchive& in, int64_t shards) {
  const int64_t batches = in.read("batches").item<int64_t>();
  neurobench::Json options = {{"skip_unlabeled_frames", false}};
  if (in.contains("skip_unlabeled_frames")) {
    options["skip_unlabeled_frames"] = in.read("skip_unlabeled_frames").item<bool>();
  }
  CocoToolModel model;
  std::vector<std::unique_ptr<neurobench::metrics::CocoMap>> parts;
  for (int64_t s = 0; s < shards; ++s) {
    parts.push_back(std::make_unique<neurobench::metrics::CocoMap>(options));
    parts.back()->reset();
  }
  for (int64_t b = 0; b < batches; ++b) {
    const std::string p = "b" + std::to_string(b) + "_";
    neurobench::Batch batch;
    batch.targets = in.read(p + "targets");
    for (const char* name :
         {"recording", "padding", "tbin_start_us", "delta_t_us", "frame_is_labeled"}) {
      batch.extras[name] = in.read(p + name);
    }
    batch.data = torch::zeros({batch.extras["recording"].size(0)});
    const torch::Tensor preds = in.read(p + "preds");
    // Contiguous runs of batches per shard, as a sharded run cuts the data set.
    const int64_t shard = b * shards / batches;
    parts[static_cast<std::size_t>(shard)]->update(neurobench::WorkloadInput{model, preds, batch});
  }
  for (int64_t s = 1; s < shards; ++s) {
    const std::vector<std::uint8_t> sent = neurobench::Json::to_cbor(parts[s]->export_state());
    parts.front()->merge_state(neurobench::Json::from_cbor(sent));
  }
  return parts.front()->compute();
}

neurobench::Json run_raw(neurobench::NpzArchive& in) {
  namespace coco = neurobench::detail::coco;
  const int64_t images = in.read("images").item<int64_t>();
  const torch::Tensor cats = in.read("categories").to(torch::kLong).contiguous();
  std::vector<int64_t> categories(cats.data_ptr<int64_t>(),
                                  cats.data_ptr<int64_t>() + cats.numel());
  const torch::Tensor gt = in.read("gt").to(torch::kDouble).contiguous().reshape({-1, 8});
  const torch::Tensor dt = in.read("dt").to(torch::kDouble).contiguous().reshape({-1, 8});
  std::vector<coco::GroundTruth> gts;
  std::vector<coco::Detection> dts;
  for (int64_t i = 0; i < gt.size(0); ++i) {
    const double* r = gt.data_ptr<double>() + i * 8;
    gts.push_back(coco::GroundTruth{static_cast<int64_t>(r[0]), static_cast<int64_t>(r[1]),
                                    coco::Box{r[2], r[3], r[4], r[5], r[6]}, r[7] != 0});
  }
  for (int64_t i = 0; i < dt.size(0); ++i) {
    const double* r = dt.data_ptr<double>() + i * 8;
    dts.push_back(coco::Detection{static_cast<int64_t>(r[0]), static_cast<int64_t>(r[1]),
                                  coco::Box{r[2], r[3], r[4], r[5], r[6]}, r[7]});
  }
  const coco::Evaluation ev = coco::evaluate(images, categories, gts, dts);
  return neurobench::Json{{"stats", ev.stats},
                          {"precision", ev.precision},
                          {"recall", ev.recall},
                          {"iou_thresholds", ev.iou_thresholds},
                          {"recall_thresholds", ev.recall_thresholds}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || (std::string(argv[1]) != "metric" && std::string(argv[1]) != "raw")) {
    std::cerr << "usage: neurobench_coco_map metric|raw IN.npz OUT.json [SHARDS]\n";
    return 2;
  }
  try {
    neurobench::NpzArchive in(argv[2]);
    neurobench::Json out;
    if (std::string(argv[1]) == "raw") {
      out = run_raw(in);
    } else {
      try {
        out = {{"value", run_metric(in, argc > 4 ? std::stoll(argv[4]) : 1)}};
      } catch (const neurobench::Error& e) {
        out = {{"error", e.what()}};  // the checks compare errors with the reference's too
      }
    }
    std::ofstream(argv[3]) << out.dump() << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
