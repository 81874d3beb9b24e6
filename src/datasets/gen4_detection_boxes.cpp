// SPDX-License-Identifier: Apache-2.0
// Gen4 boxes: the `_bbox.npy` files read, and metavision_ml's load_boxes for one chunk
// (box_processing.py: load_box_events, clip_boxes, filter_empty_tensor, filter_boxes,
// split_boxes with its nms, rescale_boxes and the size filter of load_boxes). Written from
// reading that code, not copied; the arithmetic follows NumPy 1.24's types (float32 where NumPy
// computes in float32, float64 where its value-based casting promotes) so that every box kept
// is the one metavision keeps.
#include "datasets/gen4_detection_boxes.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <torch/script.h>

#include <neurobench/errors.hpp>
#include <neurobench/io/npy_fields.hpp>

namespace neurobench::detail {
namespace {

// load_boxes filters boxes over nearly empty histograms only in a recording's first 0.5 s
// (`filter_beginning`, `time_to_filter = int(5e5)`), looking back at most 0.1 s
// (`MAX_TIME_BEFORE`), and drops those with less than 10% of their area active
// (`area_box_filter = 0.1`); split_boxes suppresses boxes overlapping more than 0.5.
constexpr int64_t kGen4FilterUntilUs = 500000;
constexpr int64_t kGen4FilterLookBackUs = 100000;
constexpr double kGen4AreaBoxFilter = 0.1;
constexpr float kGen4NmsThreshold = 0.5F;
constexpr int kNumpySmallQuicksort = 15;  // npysort_common.h's SMALL_QUICKSORT

// NumPy's order of floats: NaN after everything.
bool gen4_less(float a, float b) { return a < b || (std::isnan(b) && !std::isnan(a)); }

std::vector<double> gen4_column(const std::vector<NamedArray>& fields,
                                std::initializer_list<const char*> names,
                                const std::filesystem::path& file, bool required) {
  for (const char* name : names) {
    for (const auto& [field, values] : fields) {
      if (field != name) continue;
      if (values.dim() != 1) {
        throw InputError(fmt::format("{}: a {}-dimensional array; expected one box per item (1-D)",
                                     file.string(), values.dim()));
      }
      const torch::Tensor d = values.to(torch::kFloat64).contiguous();
      return {d.data_ptr<double>(), d.data_ptr<double>() + d.numel()};
    }
  }
  if (!required) return {};
  std::string known;
  for (const auto& [field, values] : fields) known += (known.empty() ? "" : ", ") + field;
  throw InputError(
      fmt::format("{}: no field '{}' (the boxes have: {})", file.string(), *names.begin(), known));
}

// The int64 times as NumPy's astype casts them (integers kept exactly).
std::vector<int64_t> gen4_times(const std::vector<NamedArray>& fields,
                                const std::filesystem::path& file) {
  for (const char* name : {"t", "ts"}) {
    for (const auto& [field, values] : fields) {
      if (field != name) continue;
      const torch::Tensor d = values.to(torch::kInt64).contiguous();
      return {d.data_ptr<int64_t>(), d.data_ptr<int64_t>() + d.numel()};
    }
  }
  (void)gen4_column(fields, {"t", "ts"}, file, true);  // throws, listing the fields
  return {};
}

void check_gen4_box(const Gen4Boxes& b, std::size_t i, int64_t width, int64_t height,
                    int64_t classes, const std::filesystem::path& file) {
  const auto bad = [&](const std::string& why) {
    return InputError(fmt::format("{}: box {} (t {}, x {}, y {}, w {}, h {}, class_id {}): {}",
                                  file.string(), i, b.t[i], b.x[i], b.y[i], b.w[i], b.h[i],
                                  b.class_id[i], why));
  };
  if (b.t[i] < 0) throw bad("a negative time");
  if (!std::isfinite(b.x[i]) || !std::isfinite(b.y[i]) || !std::isfinite(b.w[i]) ||
      !std::isfinite(b.h[i])) {
    throw bad("a coordinate that is not finite");
  }
  if (b.w[i] < 0 || b.h[i] < 0) throw bad("a negative width or height");
  if (b.x[i] >= static_cast<float>(width) || b.y[i] >= static_cast<float>(height) ||
      b.x[i] + b.w[i] <= 0 || b.y[i] + b.h[i] <= 0) {
    throw bad(
        fmt::format("wholly outside the {} x {} frame of the sensor (are these boxes of "
                    "another camera?)",
                    width, height));
  }
  if (static_cast<int64_t>(b.class_id[i]) >= classes) {
    throw bad(fmt::format("class_id {} is not one of the {} classes (0 to {})", b.class_id[i],
                          classes, classes - 1));
  }
}

}  // namespace

Gen4Boxes read_gen4_boxes(const std::filesystem::path& file, int64_t sensor_width,
                          int64_t sensor_height, int64_t classes) {
  const std::vector<NamedArray> fields = load_npy_fields(file);
  const std::vector<int64_t> t = gen4_times(fields, file);
  const auto x = gen4_column(fields, {"x"}, file, true);
  const auto y = gen4_column(fields, {"y"}, file, true);
  const auto w = gen4_column(fields, {"w"}, file, true);
  const auto h = gen4_column(fields, {"h"}, file, true);
  const auto class_id = gen4_column(fields, {"class_id"}, file, true);
  const auto track_id = gen4_column(fields, {"track_id"}, file, false);
  const auto confidence = gen4_column(fields, {"class_confidence", "confidence"}, file, false);
  const std::size_t n = t.size();
  Gen4Boxes raw;
  for (std::size_t i = 0; i < n; ++i) {
    // EventBbox's types, as load_box_events' cast makes them.
    raw.t.push_back(t[i]);
    raw.x.push_back(static_cast<float>(x[i]));
    raw.y.push_back(static_cast<float>(y[i]));
    raw.w.push_back(static_cast<float>(w[i]));
    raw.h.push_back(static_cast<float>(h[i]));
    if (class_id[i] < 0) {
      throw InputError(
          fmt::format("{}: box {}: class_id {} is negative", file.string(), i, class_id[i]));
    }
    raw.class_id.push_back(static_cast<std::uint32_t>(class_id[i]));
    raw.track_id.push_back(
        track_id.empty() ? 0U : static_cast<std::uint32_t>(static_cast<int64_t>(track_id[i])));
    raw.confidence.push_back(confidence.empty() ? 0.0F : static_cast<float>(confidence[i]));
    check_gen4_box(raw, i, sensor_width, sensor_height, classes, file);
  }
  // np.sort(order=["t"]): by t, ties broken by the other fields in the dtype's order.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (raw.t[a] != raw.t[b]) return raw.t[a] < raw.t[b];
    for (const auto* column : {&raw.x, &raw.y, &raw.w, &raw.h}) {
      if ((*column)[a] != (*column)[b]) return gen4_less((*column)[a], (*column)[b]);
    }
    if (raw.class_id[a] != raw.class_id[b]) return raw.class_id[a] < raw.class_id[b];
    if (raw.track_id[a] != raw.track_id[b]) return raw.track_id[a] < raw.track_id[b];
    return gen4_less(raw.confidence[a], raw.confidence[b]);
  });
  Gen4Boxes out;
  for (const std::size_t i : order) {
    out.t.push_back(raw.t[i]);
    out.x.push_back(raw.x[i]);
    out.y.push_back(raw.y[i]);
    out.w.push_back(raw.w[i]);
    out.h.push_back(raw.h[i]);
    out.class_id.push_back(raw.class_id[i]);
    out.track_id.push_back(raw.track_id[i]);
    out.confidence.push_back(raw.confidence[i]);
  }
  return out;
}

namespace {

// NumPy 1.24's aheapsort (npysort/heapsort.cpp), the introsort's fallback: `a` is 1-based.
void numpy_aheapsort(const int64_t* v, int64_t* tosort, int64_t n) {
  int64_t* a = tosort - 1;
  int64_t i = 0;
  int64_t j = 0;
  int64_t tmp = 0;
  for (int64_t l = n >> 1; l > 0; --l) {
    tmp = a[l];
    for (i = l, j = l << 1; j <= n;) {
      if (j < n && v[a[j]] < v[a[j + 1]]) j += 1;
      if (!(v[tmp] < v[a[j]])) break;
      a[i] = a[j];
      i = j;
      j += j;
    }
    a[i] = tmp;
  }
  for (; n > 1;) {
    tmp = a[n];
    a[n] = a[1];
    n -= 1;
    for (i = 1, j = 2; j <= n;) {
      if (j < n && v[a[j]] < v[a[j + 1]]) j++;
      if (!(v[tmp] < v[a[j]])) break;
      a[i] = a[j];
      i = j;
      j += j;
    }
    a[i] = tmp;
  }
}

int numpy_msb(std::uint64_t n) {
  int depth = 0;
  while (n >>= 1U) depth++;
  return depth;
}

}  // namespace

// NumPy 1.24's aquicksort (npysort/quicksort.cpp) for int64: median-of-three partitions, the
// larger side pushed on a stack, insertion sort below 16 elements, heapsort past a depth of
// 2 log2(n). The order of ties depends on all of it, and nms keeps the first of tied boxes.
std::vector<int64_t> numpy_argsort(const std::vector<int64_t>& values) {
  const auto num = static_cast<int64_t>(values.size());
  std::vector<int64_t> index(values.size());
  std::iota(index.begin(), index.end(), 0);
  if (num < 2) return index;
  const int64_t* v = values.data();
  int64_t* pl = index.data();
  int64_t* pr = index.data() + num - 1;
  std::vector<int64_t*> stack;
  std::vector<int> depths;
  int cdepth = numpy_msb(static_cast<std::uint64_t>(num)) * 2;
  for (;;) {
    if (cdepth < 0) {
      numpy_aheapsort(v, pl, pr - pl + 1);
    } else {
      while ((pr - pl) > kNumpySmallQuicksort) {
        int64_t* pm = pl + ((pr - pl) >> 1);
        if (v[*pm] < v[*pl]) std::swap(*pm, *pl);
        if (v[*pr] < v[*pm]) std::swap(*pr, *pm);
        if (v[*pm] < v[*pl]) std::swap(*pm, *pl);
        const int64_t vp = v[*pm];
        int64_t* pi = pl;
        int64_t* pj = pr - 1;
        std::swap(*pm, *pj);
        for (;;) {
          do ++pi;
          while (v[*pi] < vp);
          do --pj;
          while (vp < v[*pj]);
          if (pi >= pj) break;
          std::swap(*pi, *pj);
        }
        int64_t* pk = pr - 1;
        std::swap(*pi, *pk);
        if (pi - pl < pr - pi) {
          stack.push_back(pi + 1);
          stack.push_back(pr);
          pr = pi - 1;
        } else {
          stack.push_back(pl);
          stack.push_back(pi - 1);
          pl = pi + 1;
        }
        depths.push_back(--cdepth);
      }
      for (int64_t* pi = pl + 1; pi <= pr; ++pi) {
        const int64_t vi = *pi;
        const int64_t vp = v[vi];
        int64_t* pj = pi;
        int64_t* pk = pi - 1;
        while (pj > pl && vp < v[*pk]) *pj-- = *pk--;
        *pj = vi;
      }
    }
    if (stack.empty()) break;
    pr = stack.back();
    stack.pop_back();
    pl = stack.back();
    stack.pop_back();
    cdepth = depths.back();
    depths.pop_back();
  }
  return index;
}

namespace {

// One box of a chunk, as load_boxes carries it along.
struct Gen4Box {
  int64_t t = 0;
  float x = 0, y = 0, w = 0, h = 0;
  int64_t label = 0;
};

// nms(box_events, scores=box_events['t'], iou_thresh=0.5): the kept positions, sorted.
std::vector<std::size_t> gen4_nms(const std::vector<Gen4Box>& boxes) {
  const std::size_t n = boxes.size();
  std::vector<float> x1(n), y1(n), x2(n), y2(n), area(n);
  std::vector<int64_t> scores(n);
  for (std::size_t i = 0; i < n; ++i) {
    x1[i] = boxes[i].x;
    y1[i] = boxes[i].y;
    x2[i] = boxes[i].x + boxes[i].w;
    y2[i] = boxes[i].y + boxes[i].h;
    const float width = (x2[i] - x1[i]) + 1.0F;
    const float height = (y2[i] - y1[i]) + 1.0F;
    area[i] = width * height;
    scores[i] = boxes[i].t;
  }
  std::vector<int64_t> order = numpy_argsort(scores);
  std::reverse(order.begin(), order.end());
  std::vector<std::size_t> keep;
  while (!order.empty()) {
    const auto i = static_cast<std::size_t>(order.front());
    keep.push_back(i);
    std::vector<int64_t> rest;
    for (std::size_t k = 1; k < order.size(); ++k) {
      const auto j = static_cast<std::size_t>(order[k]);
      const float w = std::max(0.0F, (std::min(x2[i], x2[j]) - std::max(x1[i], x1[j])) + 1.0F);
      const float h = std::max(0.0F, (std::min(y2[i], y2[j]) - std::max(y1[i], y1[j])) + 1.0F);
      const float inter = w * h;
      const float sum = area[i] + area[j];
      const float overlap = inter / (sum - inter);
      if (overlap <= kGen4NmsThreshold) rest.push_back(order[k]);
    }
    order = std::move(rest);
  }
  std::sort(keep.begin(), keep.end());
  return keep;
}

// The boxes of `boxes` in bin k: start + k dt < t <= start + (k + 1) dt (split_boxes), after nms.
std::vector<std::vector<Gen4Box>> gen4_split(const std::vector<Gen4Box>& boxes, int64_t start,
                                             int64_t delta_t, int64_t num_tbins) {
  std::vector<std::vector<Gen4Box>> bins(static_cast<std::size_t>(num_tbins));
  for (int64_t k = 0; k < num_tbins; ++k) {
    const int64_t low = start + k * delta_t;
    std::vector<Gen4Box> in_bin;
    for (const Gen4Box& b : boxes) {
      if (b.t > low && b.t <= low + delta_t) in_bin.push_back(b);
    }
    for (const std::size_t i : gen4_nms(in_bin))
      bins[static_cast<std::size_t>(k)].push_back(in_bin[i]);
  }
  return bins;
}

// clip_boxes: clipped to the sensor, those 2 pixels wide or high or less dropped.
std::vector<Gen4Box> gen4_clip(std::vector<Gen4Box> boxes, int64_t width, int64_t height) {
  const auto fw = static_cast<float>(width);
  const auto fh = static_cast<float>(height);
  std::vector<Gen4Box> out;
  for (Gen4Box b : boxes) {
    const float xmax = b.x + b.w;
    const float ymax = b.y + b.h;
    b.x = std::min(std::max(b.x, 0.0F), fw);
    b.y = std::min(std::max(b.y, 0.0F), fh);
    b.w = std::min(std::max(xmax, 0.0F), fw) - b.x;
    b.h = std::min(std::max(ymax, 0.0F), fh) - b.y;
    if (b.w > 2 && b.h > 2) out.push_back(b);
  }
  return out;
}

// filter_empty_tensor: true for a box over nearly empty histograms early in the recording.
bool gen4_over_empty(const Gen4Box& b, int64_t start, const float* histograms,
                     const Gen4BoxRules& r, int shift) {
  // `t.astype(float32) - batch_start_time`: float32 while the start fits 16 bits (NumPy's
  // value-based casting), float64 beyond.
  const float t32 = static_cast<float>(b.t);
  const double ts = start <= 65535 ? static_cast<double>(t32 - static_cast<float>(start))
                                   : static_cast<double>(t32) - static_cast<double>(start);
  if (ts > static_cast<double>(kGen4FilterUntilUs - start)) return false;
  const int64_t time_per_bin = r.delta_t_us;
  const int64_t tmax =
      std::min(static_cast<int64_t>(ts / static_cast<double>(time_per_bin)) + 1, r.num_tbins);
  const int64_t min_t =
      std::max<int64_t>(0, tmax - static_cast<int64_t>(static_cast<double>(kGen4FilterLookBackUs) /
                                                       static_cast<double>(time_per_bin)));
  // `.astype(np.int16) >> shift`
  const auto pixel = [shift](float v) {
    return static_cast<int64_t>(static_cast<std::int16_t>(v)) >> shift;
  };
  const int64_t xmin = std::max<int64_t>(0, pixel(b.x));
  const int64_t xmax = pixel(b.x + b.w);
  const int64_t ymin = std::max<int64_t>(0, pixel(b.y));
  const int64_t ymax = pixel(b.y + b.h);
  if (ymax <= ymin || xmax <= xmin) return true;
  const int64_t x_end = std::min(xmax, r.width);
  const int64_t y_end = std::min(ymax, r.height);
  const int64_t ws = std::max<int64_t>(0, x_end - xmin);
  const int64_t hs = std::max<int64_t>(0, y_end - ymin);
  int64_t active = 0;
  for (int64_t y = ymin; y < y_end; ++y) {
    for (int64_t x = xmin; x < x_end; ++x) {
      bool any = false;
      for (int64_t t = min_t; t < tmax && !any; ++t) {
        for (int64_t c = 0; c < r.channels && !any; ++c) {
          any = std::fabs(histograms[((t * r.channels + c) * r.height + y) * r.width + x]) > 0;
        }
      }
      active += any ? 1 : 0;
    }
  }
  return static_cast<double>(active) <
         kGen4AreaBoxFilter * static_cast<double>(ws) * static_cast<double>(hs);
}

}  // namespace

Gen4ChunkBoxes gen4_chunk_boxes(const Gen4Boxes& boxes, int64_t start_us, const float* histograms,
                                const Gen4BoxRules& r) {
  const int64_t end_us = start_us + r.num_tbins * r.delta_t_us;
  const auto first = std::lower_bound(boxes.t.begin(), boxes.t.end(), start_us) - boxes.t.begin();
  const auto last = std::lower_bound(boxes.t.begin(), boxes.t.end(), end_us) - boxes.t.begin();
  std::vector<Gen4Box> chunk;
  for (auto i = static_cast<std::size_t>(first); i < static_cast<std::size_t>(last); ++i) {
    chunk.push_back({boxes.t[i], boxes.x[i], boxes.y[i], boxes.w[i], boxes.h[i],
                     static_cast<int64_t>(boxes.class_id[i])});
  }
  Gen4ChunkBoxes out;
  for (const auto& bin : gen4_split(chunk, start_us, r.delta_t_us, r.num_tbins)) {
    out.frame_is_labeled.push_back(!bin.empty());
  }
  std::vector<Gen4Box> kept;
  const int shift = static_cast<int>(
      std::log2(static_cast<double>(r.sensor_width) / static_cast<double>(r.width)));
  for (Gen4Box b : gen4_clip(std::move(chunk), r.sensor_width, r.sensor_height)) {
    const bool empty = gen4_over_empty(b, start_us, histograms, r, shift);
    b.label = r.class_lookup.at(static_cast<std::size_t>(b.label));
    if (b.label > 0 && !empty) kept.push_back(b);
  }
  // rescale_boxes multiplies by the ratio cast to float32; then load_boxes' size filter.
  const auto w_ratio =
      static_cast<float>(static_cast<double>(r.width) / static_cast<double>(r.sensor_width));
  const auto h_ratio =
      static_cast<float>(static_cast<double>(r.height) / static_cast<double>(r.sensor_height));
  const auto side = static_cast<float>(static_cast<double>(r.min_box_diag) / 3.0);
  const auto widest = static_cast<float>(0.8 * static_cast<double>(r.width));
  const auto diag2 = static_cast<double>(r.min_box_diag * r.min_box_diag);
  const auto bins = gen4_split(kept, start_us, r.delta_t_us, r.num_tbins);
  for (std::size_t k = 0; k < bins.size(); ++k) {
    for (Gen4Box b : bins[k]) {
      b.w *= w_ratio;
      b.h *= h_ratio;
      b.x *= w_ratio;
      b.y *= h_ratio;
      const float w2 = b.w * b.w;
      const float h2 = b.h * b.h;
      const float sum = w2 + h2;
      if (!(static_cast<double>(sum) >= diag2 && b.w >= side && b.h >= side && b.w <= widest)) {
        continue;
      }
      out.rows.insert(out.rows.end(), {static_cast<float>(k), b.x, b.y, b.x + b.w, b.y + b.h,
                                       static_cast<float>(b.label)});
    }
  }
  return out;
}

}  // namespace neurobench::detail
