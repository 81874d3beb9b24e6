// SPDX-License-Identifier: Apache-2.0
// pycocotools' COCOeval for boxes (cocodataset/cocoapi, PythonAPI/pycocotools/cocoeval.py, and
// maskApi.c's bbIou for the IoU), step by step in the same order and the same double arithmetic,
// so that every number is the one COCOeval prints. Comments name the Python they follow.
#include "metrics/coco_eval.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace neurobench::detail::coco {
namespace {

// Params.setDetParams(): areaRng [0, 1e5**2], [0, 32**2], [32**2, 96**2], [96**2, 1e5**2].
constexpr double kCocoAreaRanges[kAreaRangeCount][2] = {
    {0.0, 1e10}, {0.0, 1024.0}, {1024.0, 9216.0}, {9216.0, 1e10}};
constexpr int64_t kCocoMaxDets[kMaxDetsCount] = {1, 10, 100};

// np.linspace(start, stop, num, endpoint=True): arange(num) * step + start, the last element
// set to stop (numpy 1.24's function_base.py).
std::vector<double> coco_linspace(double start, double stop, int num) {
  const double step = (stop - start) / static_cast<double>(num - 1);
  std::vector<double> out(static_cast<std::size_t>(num));
  for (int i = 0; i < num; ++i) out[i] = static_cast<double>(i) * step + start;
  out.back() = stop;
  return out;
}

// maskApi.c bbIou(): one detection against one ground truth.
double coco_box_iou(const Box& d, const Box& g, bool crowd) {
  const double w = std::fmin(d.w + d.x, g.w + g.x) - std::fmax(d.x, g.x);
  if (w <= 0) return 0;
  const double h = std::fmin(d.h + d.y, g.h + g.y) - std::fmax(d.y, g.y);
  if (h <= 0) return 0;
  const double i = w * h;
  const double da = d.w * d.h;
  const double u = crowd ? da : da + g.w * g.h - i;
  return i / u;
}

// np.mean: numpy's pairwise summation (pairwise_sum_DOUBLE, blocks of 128, 8 accumulators),
// then the division; bit for bit what np.mean returns for a contiguous float64 array.
double coco_pairwise_sum(const double* a, std::size_t n) {
  if (n < 8) {
    double res = 0.;
    for (std::size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return coco_pairwise_sum(a, n2) + coco_pairwise_sum(a + n2, n - n2);
}

// The annotations of one (image, category): indices into the caller's vectors, in given order.
struct CocoCell {
  std::vector<std::size_t> gts;
  std::vector<std::size_t> dts;
};

// evaluateImg()'s result for one image, category and area range (maxDet 100).
struct CocoImageEval {
  std::vector<double> scores;    // dtScores, best first
  std::vector<uint8_t> matched;  // dtMatches != 0, (T, D)
  std::vector<uint8_t> ignored;  // dtIgnore, (T, D)
  int64_t gt_not_ignored = 0;    // count of gtIgnore == 0
};

// computeIoU() and evaluateImg() for one image and category over the four area ranges; an
// image with neither annotations nor detections gives no evaluation (None in Python).
void coco_evaluate_cell(const CocoCell& cell, const std::vector<GroundTruth>& gts,
                        const std::vector<Detection>& dts, const std::vector<double>& iou_thr,
                        std::vector<std::vector<CocoImageEval>>& per_area) {
  if (cell.gts.empty() && cell.dts.empty()) return;
  // np.argsort([-d['score'] for d in dt], kind='mergesort'), then dt[0:maxDets[-1]].
  std::vector<std::size_t> dt = cell.dts;
  std::stable_sort(dt.begin(), dt.end(),
                   [&](std::size_t a, std::size_t b) { return dts[a].score > dts[b].score; });
  const auto max_det = static_cast<std::size_t>(kCocoMaxDets[kMaxDetsCount - 1]);
  if (dt.size() > max_det) dt.resize(max_det);
  const std::size_t D = dt.size();
  const std::size_t G = cell.gts.size();
  std::vector<double> ious(D * G);  // (D, G) in the given order of the ground truth
  for (std::size_t d = 0; d < D; ++d) {
    for (std::size_t g = 0; g < G; ++g) {
      const GroundTruth& gt = gts[cell.gts[g]];
      ious[d * G + g] = coco_box_iou(dts[dt[d]].box, gt.box, gt.crowd);
    }
  }
  const std::size_t T = iou_thr.size();
  for (int a = 0; a < kAreaRangeCount; ++a) {
    const double lo = kCocoAreaRanges[a][0];
    const double hi = kCocoAreaRanges[a][1];
    // g['_ignore'] = ignore (= iscrowd) or area outside the range; gt sorted by it (mergesort).
    std::vector<uint8_t> ignore_of(G);
    for (std::size_t g = 0; g < G; ++g) {
      const GroundTruth& gt = gts[cell.gts[g]];
      ignore_of[g] = gt.crowd || gt.box.area < lo || gt.box.area > hi ? 1 : 0;
    }
    std::vector<std::size_t> order(G);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return ignore_of[x] < ignore_of[y]; });
    CocoImageEval ev;
    ev.scores.reserve(D);
    for (std::size_t d = 0; d < D; ++d) ev.scores.push_back(dts[dt[d]].score);
    ev.matched.assign(T * D, 0);
    ev.ignored.assign(T * D, 0);
    for (std::size_t g = 0; g < G; ++g) ev.gt_not_ignored += ignore_of[order[g]] == 0 ? 1 : 0;
    std::vector<uint8_t> gt_matched(T * G, 0);
    for (std::size_t t = 0; t < T; ++t) {
      for (std::size_t d = 0; d < D; ++d) {
        double iou = std::min(iou_thr[t], 1 - 1e-10);
        std::ptrdiff_t m = -1;
        for (std::size_t gi = 0; gi < G; ++gi) {
          const std::size_t g = order[gi];
          const bool crowd = gts[cell.gts[g]].crowd;
          if (gt_matched[t * G + gi] && !crowd) continue;
          if (m > -1 && ignore_of[order[m]] == 0 && ignore_of[g] == 1) break;
          if (ious[d * G + g] < iou) continue;
          iou = ious[d * G + g];
          m = static_cast<std::ptrdiff_t>(gi);
        }
        if (m == -1) continue;
        ev.ignored[t * D + d] = ignore_of[order[m]];
        ev.matched[t * D + d] = 1;
        gt_matched[t * G + m] = 1;
      }
    }
    // Unmatched detections outside the area range are ignored.
    for (std::size_t d = 0; d < D; ++d) {
      const double area = dts[dt[d]].box.area;
      if (!(area < lo || area > hi)) continue;
      for (std::size_t t = 0; t < T; ++t) {
        if (!ev.matched[t * D + d]) ev.ignored[t * D + d] = 1;
      }
    }
    per_area[a].push_back(std::move(ev));
  }
}

// accumulate() for one category and area range: precision (T, R) and recall (T) at each of
// the max detection counts, into the evaluation's arrays.
void coco_accumulate(const std::vector<CocoImageEval>& evals, std::size_t k, std::size_t a,
                     Evaluation& out) {
  const std::size_t T = out.iou_thresholds.size();
  const std::size_t R = out.recall_thresholds.size();
  const std::size_t K = out.categories.size();
  if (evals.empty()) return;
  int64_t npig = 0;
  for (const auto& e : evals) npig += e.gt_not_ignored;
  if (npig == 0) return;
  for (std::size_t m = 0; m < kMaxDetsCount; ++m) {
    const auto max_det = static_cast<std::size_t>(kCocoMaxDets[m]);
    // The first maxDet detections of each image, images in order, then a stable sort by
    // -score over all of them (np.argsort(-dtScores, kind='mergesort')).
    std::vector<std::pair<std::size_t, std::size_t>> dets;  // (image eval, detection)
    for (std::size_t e = 0; e < evals.size(); ++e) {
      const std::size_t n = std::min(evals[e].scores.size(), max_det);
      for (std::size_t j = 0; j < n; ++j) dets.emplace_back(e, j);
    }
    std::stable_sort(dets.begin(), dets.end(), [&](const auto& x, const auto& y) {
      return evals[x.first].scores[x.second] > evals[y.first].scores[y.second];
    });
    const std::size_t nd = dets.size();
    std::vector<double> rc(nd);
    std::vector<double> pr(nd);
    for (std::size_t t = 0; t < T; ++t) {
      double tp = 0;
      double fp = 0;
      for (std::size_t i = 0; i < nd; ++i) {
        const CocoImageEval& e = evals[dets[i].first];
        const std::size_t D = e.scores.size();
        const bool matched = e.matched[t * D + dets[i].second] != 0;
        const bool ignored = e.ignored[t * D + dets[i].second] != 0;
        if (matched && !ignored) tp += 1;
        if (!matched && !ignored) fp += 1;
        rc[i] = tp / static_cast<double>(npig);
        pr[i] = tp / (fp + tp + std::numeric_limits<double>::epsilon());  // np.spacing(1)
      }
      out.recall[((t * K + k) * kAreaRangeCount + a) * kMaxDetsCount + m] =
          nd > 0 ? rc[nd - 1] : 0.0;
      for (std::size_t i = nd > 0 ? nd - 1 : 0; i > 0; --i) {
        if (pr[i] > pr[i - 1]) pr[i - 1] = pr[i];
      }
      // np.searchsorted(rc, recThrs, side='left'); an index past the end stops the filling
      // (the IndexError COCOeval catches), leaving zeros.
      for (std::size_t r = 0; r < R; ++r) {
        const auto it = std::lower_bound(rc.begin(), rc.end(), out.recall_thresholds[r]);
        const std::size_t idx = ((((t * R + r) * K + k) * kAreaRangeCount + a) * kMaxDetsCount + m);
        if (it == rc.end()) {
          for (std::size_t r2 = r; r2 < R; ++r2) {
            out.precision[(((t * R + r2) * K + k) * kAreaRangeCount + a) * kMaxDetsCount + m] = 0;
          }
          break;
        }
        out.precision[idx] = pr[static_cast<std::size_t>(it - rc.begin())];
      }
    }
  }
}

// summarize()'s _summarize(): the mean of the defined entries (-1 when none) of precision
// (ap) or recall at one IoU threshold (iou_thr >= 0, looked up by equality as COCOeval does)
// or all, one area range and one max detection count.
double coco_summarize(const Evaluation& ev, bool ap, double iou_thr, int area, int max_det) {
  const std::size_t T = ev.iou_thresholds.size();
  const std::size_t R = ev.recall_thresholds.size();
  const std::size_t K = ev.categories.size();
  std::vector<std::size_t> ts;
  for (std::size_t t = 0; t < T; ++t) {
    if (iou_thr < 0 || ev.iou_thresholds[t] == iou_thr) ts.push_back(t);
  }
  std::vector<double> defined;
  for (const std::size_t t : ts) {
    for (std::size_t r = 0; r < (ap ? R : 1); ++r) {
      for (std::size_t k = 0; k < K; ++k) {
        const double v =
            ap ? ev.precision[(((t * R + r) * K + k) * kAreaRangeCount + area) * kMaxDetsCount +
                              max_det]
               : ev.recall[((t * K + k) * kAreaRangeCount + area) * kMaxDetsCount + max_det];
        if (v > -1) defined.push_back(v);
      }
    }
  }
  if (defined.empty()) return -1;
  return coco_pairwise_sum(defined.data(), defined.size()) / static_cast<double>(defined.size());
}

}  // namespace

Evaluation evaluate(int64_t images, std::vector<int64_t> categories,
                    const std::vector<GroundTruth>& ground_truth,
                    const std::vector<Detection>& detections) {
  Evaluation ev;
  // Params: iouThrs = np.linspace(.5, 0.95, 10), recThrs = np.linspace(.0, 1.00, 101).
  ev.iou_thresholds = coco_linspace(.5, 0.95, kIouThresholdCount);
  ev.recall_thresholds = coco_linspace(.0, 1.00, kRecallThresholdCount);
  std::sort(categories.begin(), categories.end());
  categories.erase(std::unique(categories.begin(), categories.end()), categories.end());
  ev.categories = categories;
  const std::size_t T = ev.iou_thresholds.size();
  const std::size_t R = ev.recall_thresholds.size();
  const std::size_t K = categories.size();
  ev.precision.assign(T * R * K * kAreaRangeCount * kMaxDetsCount, -1.0);
  ev.recall.assign(T * K * kAreaRangeCount * kMaxDetsCount, -1.0);

  // Annotations grouped by (category, image), in given order (COCO's imgToAnns).
  const auto cells_per_category = static_cast<std::size_t>(std::max<int64_t>(images, 0));
  std::vector<CocoCell> cells(K * cells_per_category);
  const auto cell_of = [&](int64_t image, int64_t category) -> CocoCell* {
    if (image < 0 || image >= images) {
      throw std::invalid_argument("coco::evaluate: image index " + std::to_string(image) +
                                  " is not in 0.." + std::to_string(images - 1));
    }
    const auto it = std::lower_bound(categories.begin(), categories.end(), category);
    if (it == categories.end() || *it != category) return nullptr;  // not evaluated
    return &cells[static_cast<std::size_t>(it - categories.begin()) * cells_per_category +
                  static_cast<std::size_t>(image)];
  };
  for (std::size_t i = 0; i < ground_truth.size(); ++i) {
    if (CocoCell* c = cell_of(ground_truth[i].image, ground_truth[i].category)) c->gts.push_back(i);
  }
  for (std::size_t i = 0; i < detections.size(); ++i) {
    if (CocoCell* c = cell_of(detections[i].image, detections[i].category)) c->dts.push_back(i);
  }

  for (std::size_t k = 0; k < K; ++k) {
    std::vector<std::vector<CocoImageEval>> per_area(kAreaRangeCount);
    for (std::size_t i = 0; i < cells_per_category; ++i) {
      coco_evaluate_cell(cells[k * cells_per_category + i], ground_truth, detections,
                         ev.iou_thresholds, per_area);
    }
    for (std::size_t a = 0; a < kAreaRangeCount; ++a) coco_accumulate(per_area[a], k, a, ev);
  }

  // summarize() for iouType 'bbox' (_summarizeDets).
  const int all = 0;
  const int last = kMaxDetsCount - 1;
  ev.stats = {coco_summarize(ev, true, -1, all, last),  coco_summarize(ev, true, .5, all, last),
              coco_summarize(ev, true, .75, all, last), coco_summarize(ev, true, -1, 1, last),
              coco_summarize(ev, true, -1, 2, last),    coco_summarize(ev, true, -1, 3, last),
              coco_summarize(ev, false, -1, all, 0),    coco_summarize(ev, false, -1, all, 1),
              coco_summarize(ev, false, -1, all, last), coco_summarize(ev, false, -1, 1, last),
              coco_summarize(ev, false, -1, 2, last),   coco_summarize(ev, false, -1, 3, last)};
  return ev;
}

}  // namespace neurobench::detail::coco
