// SPDX-License-Identifier: Apache-2.0
// A sharded run's passes (docs/distributed.md): each rank runs its shard, then one exchange of
// what it found through the process group, merged in rank order on every rank.
#include <algorithm>
#include <chrono>
#include <exception>

#include <fmt/format.h>

#include <neurobench/distributed.hpp>
#include <neurobench/environment.hpp>

#include "data/npz_shard.hpp"
#include "runtime/run_state.hpp"

namespace neurobench::detail {

namespace {

using Clock = std::chrono::steady_clock;

// What a rank says of a pass that threw: the kind of error, and its message.
Json error_record(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const Interrupted& e) {
    return {{"kind", "interrupted"}, {"message", e.what()}};
  } catch (const InputError& e) {
    return {{"kind", "input"}, {"message", e.what()}};
  } catch (const UsageError& e) {
    return {{"kind", "usage"}, {"message", e.what()}};
  } catch (const DistributedError& e) {
    return {{"kind", "distributed"}, {"message", e.what()}};
  } catch (const c10::Error& e) {
    return {{"kind", "input"}, {"message", what_of(e)}};
  } catch (const std::exception& e) {
    return {{"kind", "other"}, {"message", e.what()}};
  } catch (...) {
    return {{"kind", "other"}, {"message", "an unknown exception"}};
  }
}

// Every rank's payload, in rank order, from this rank's payload encoded as CBOR (which carries
// binary values and NaN as they are).
std::vector<Json> exchange(ProcessGroup& group, const std::vector<std::uint8_t>& bytes,
                           const std::string& stage) {
  const std::vector<std::string> all =
      group.all_gather(std::string(bytes.begin(), bytes.end()), stage);
  std::vector<Json> out;
  for (std::size_t r = 0; r < all.size(); ++r) {
    try {
      out.push_back(Json::from_cbor(all[r]));
    } catch (const std::exception& e) {
      throw DistributedError(
          fmt::format("the exchange '{}': rank {} sent what is not CBOR: {}", stage, r, e.what()));
    }
  }
  return out;
}

// When a rank's pass threw, every rank stops: the rank that threw with its own error, the
// others with a DistributedError naming it. The first rank's error wins.
void stop_if_any_failed(const std::vector<Json>& payloads, int me, const std::exception_ptr& own,
                        const std::string& pass) {
  for (std::size_t r = 0; r < payloads.size(); ++r) {
    const Json& error = payloads[r]["error"];
    if (error.is_null()) continue;
    if (own) std::rethrow_exception(own);
    throw DistributedError(fmt::format(
        "rank {} (on {}) stopped during the {}: {}; rank {} stops too", r,
        payloads[r]["host"].get<std::string>(), pass, error["message"].get<std::string>(), me));
  }
}

// `_run.distributed`, made by the first sharded pass: the world and each rank's place.
Json& distributed_record(Results& results, ProcessGroup& group, const std::vector<Json>& payloads) {
  Json& d = results.run["distributed"];
  if (!d.is_object()) {
    d = {{"world_size", group.world_size()},
         {"backend", "gloo"},
         {"launcher", group.info().launcher},
         {"ranks", Json::array()}};
    for (std::size_t r = 0; r < payloads.size(); ++r) {
      d["ranks"].push_back(
          {{"rank", r}, {"host", payloads[r]["host"]}, {"local_rank", payloads[r]["local_rank"]}});
    }
  }
  return d;
}

// The data set of a rank that read only its rows' bytes of an .npz; nullptr otherwise.
const NpzShardDataset* read_alone(const PassInput& in) {
  const auto* shard = dynamic_cast<const NpzShardDataset*>(&in.loader.dataset());
  return shard != nullptr && shard->part() ? shard : nullptr;
}

// What ranks that read only their rows agree on, as `_run.data_shards` records it.
Json identity_json(const NpzFileIdentity& id) {
  return {{"file_bytes", id.file_bytes},
          {"entry", id.entry},
          {"entry_bytes", id.entry_bytes},
          {"entry_crc32", fmt::format("{:08x}", id.entry_crc32)},
          {"targets_sha256", id.targets_sha256}};
}

// What every rank must agree on for the merge to mean anything.
Json fingerprint(const PassInput& in, const std::vector<std::string>& metrics) {
  Json f = {{"samples", in.loader.dataset().size()},
            {"batches", in.loader.num_batches()},
            {"batch_size", in.loader.options().batch_size},
            {"metrics", metrics}};
  // The model's bytes when it came from a file (its path may differ between machines).
  if (const auto sha = in.model.source_sha256()) {
    f["model_sha256"] = *sha;
  } else {
    f["model"] = in.model.describe();
  }
  if (const auto sha = in.loader.dataset().source_sha256()) f["data_sha256"] = *sha;
  // A rank that read its rows alone has no digest of the whole file: the file's directory
  // and its targets stand for it, and the parts' CRC-32s are checked together after the pass.
  if (const NpzShardDataset* shard = read_alone(in)) {
    const Json identity = identity_json(shard->identity());
    for (auto it = identity.begin(); it != identity.end(); ++it) f["data_" + it.key()] = *it;
  }
  return f;
}

// The rows' bytes of the `data` entry each rank read alone (NpzShardDataset::part()), checked
// together, and recorded as `_run.data_shards` (docs/distributed.md): which bytes each rank read
// and their SHA-256, in place of the whole file's `data_sha256`.
void check_data_parts(const PassInput& in, const std::vector<Json>& all, Results& results) {
  const auto alone = [](const Json& p) { return p.contains("data_part"); };
  if (std::none_of(all.begin(), all.end(), alone)) return;
  const auto whole = std::find_if_not(all.begin(), all.end(), alone);
  if (whole != all.end()) {
    throw DistributedError(fmt::format(
        "rank {} read the whole data file where others read only their rows: the ranks' copies "
        "of the file differ (is 'data' compressed in one and not in another?)",
        whole - all.begin()));
  }
  const NpzShardDataset& shard = *read_alone(in);
  std::vector<NpzPartRecord> parts;
  Json records = Json::array();
  for (std::size_t r = 0; r < all.size(); ++r) {
    const Json& p = all[r]["data_part"];
    parts.push_back({p["rows"][0].get<int64_t>(), p["rows"][1].get<int64_t>(),
                     p["bytes"][0].get<std::uint64_t>(), p["bytes"][1].get<std::uint64_t>(),
                     p["crc32"].get<std::uint32_t>(), p["sha256"].get<std::string>()});
    records.push_back({{"rank", r}, {"rows", p["rows"]}, {"bytes", p["bytes"]},
                       {"sha256", p["sha256"]}});
  }
  check_npz_parts(shard.describe(), parts, shard.identity().entry_crc32,
                  shard.identity().entry_bytes);
  Json record = identity_json(shard.identity());
  record["parts"] = std::move(records);
  results.run["data_shards"] = std::move(record);
}

// Ranks that run another benchmark than rank 0 (another model, data set, batch size or metrics)
// would merge into nonsense: every rank stops, naming the first difference.
void check_same_benchmark(const std::vector<Json>& payloads) {
  const Json& first = payloads.front()["benchmark"];
  for (std::size_t r = 1; r < payloads.size(); ++r) {
    const Json& other = payloads[r]["benchmark"];
    for (const auto& [key, value] : first.items()) {
      if (other.contains(key) && other[key] == value) continue;
      throw DistributedError(fmt::format(
          "rank {} runs another benchmark than rank 0: its {} is {}, rank 0's {} (every rank "
          "must be started with the same command)",
          r, key, other.contains(key) ? other[key].dump() : "not known", value.dump()));
    }
  }
}

// What a rank sends of a pass: who it is (its host as the run recorded it), the benchmark it
// ran (its metrics' names) and its error, if the pass threw; each pass adds what it found.
template <class Metrics>
Json rank_payload(const PassInput& in, const Metrics& metrics, const RunState& state,
                  ProcessGroup& group, const std::exception_ptr& error) {
  std::vector<std::string> names;
  for (const auto& m : metrics) names.push_back(m->name());
  return {{"rank", group.rank()},
          {"host", state.results.environment.hostname},
          {"local_rank", group.info().local_rank},
          {"benchmark", fingerprint(in, names)},
          {"error", error ? error_record(error) : Json(nullptr)}};
}

Json timings_to_json(const Timings& t) {
  Json runs = Json::array();
  for (const auto& r : t.runs) runs.push_back({r.pre_s, r.forward_s, r.post_s, r.samples});
  Json startup = Json::array();
  for (const auto& s : t.startup) startup.push_back({s.load_s, s.first_inference_s});
  return {{"batch_size", t.batch_size},
          {"warmup_runs", t.warmup_runs},
          {"runs", std::move(runs)},
          {"max_time_reached", t.max_time_reached},
          {"wall_s", t.wall_s},
          {"clock_resolution_s", t.clock_resolution_s},
          {"startup", std::move(startup)},
          {"startup_error", t.startup_error},
          {"startup_max_time_reached", t.startup_max_time_reached},
          {"platform", t.platform}};
}

Timings timings_from_json(const Json& j) {
  Timings t;
  t.batch_size = j["batch_size"].get<int64_t>();
  t.warmup_runs = j["warmup_runs"].get<int64_t>();
  for (const Json& r : j["runs"]) {
    t.runs.push_back(
        {r[0].get<double>(), r[1].get<double>(), r[2].get<double>(), r[3].get<int64_t>()});
  }
  t.max_time_reached = j["max_time_reached"].get<bool>();
  t.wall_s = j["wall_s"].get<double>();
  t.clock_resolution_s = j["clock_resolution_s"].get<double>();
  for (const Json& s : j["startup"]) t.startup.push_back({s[0].get<double>(), s[1].get<double>()});
  t.startup_error = j["startup_error"].get<std::string>();
  t.startup_max_time_reached = j["startup_max_time_reached"].get<bool>();
  t.platform = j.value("platform", Json::object());
  return t;
}

// The ranks' timings as one: every timed run and start-up, in rank order; `wall_s` such that
// samples / wall_s is the sum of the ranks' rates (they run at the same time).
Timings merge_timings(const std::vector<Timings>& all) {
  Timings merged = all.front();
  merged.runs.clear();
  merged.startup.clear();
  merged.warmup_runs = 0;
  merged.startup_error.clear();
  merged.platform = Json::object();
  double rate = 0;
  int64_t samples = 0;
  for (const Timings& t : all) {
    merged.runs.insert(merged.runs.end(), t.runs.begin(), t.runs.end());
    merged.startup.insert(merged.startup.end(), t.startup.begin(), t.startup.end());
    merged.warmup_runs += t.warmup_runs;
    merged.max_time_reached = merged.max_time_reached || t.max_time_reached;
    merged.startup_max_time_reached = merged.startup_max_time_reached || t.startup_max_time_reached;
    merged.clock_resolution_s = std::max(merged.clock_resolution_s, t.clock_resolution_s);
    if (merged.startup_error.empty()) merged.startup_error = t.startup_error;
    // The platform sampler's records: every rank's, in rank order (the metrics merge them).
    for (const auto& [metric, records] : t.platform.items()) {
      for (const Json& r : records) merged.platform[metric].push_back(r);
    }
    int64_t rank_samples = 0;
    for (const auto& r : t.runs) rank_samples += r.samples;
    samples += rank_samples;
    if (t.wall_s > 0) rate += static_cast<double>(rank_samples) / t.wall_s;
  }
  // A rank with a startup error makes StartupTime fail, as it would on its own.
  bool all_loaded = true;
  for (const Timings& t : all) all_loaded = all_loaded && t.startup_error.empty();
  if (!all_loaded) merged.startup.clear();
  merged.wall_s = rate > 0 ? static_cast<double>(samples) / rate : 0.0;
  return merged;
}

}  // namespace

BatchRange shard_of(std::size_t count, int rank, int shards) {
  const auto r = static_cast<std::size_t>(rank);
  const auto n = static_cast<std::size_t>(shards);
  return {count * r / n, count * (r + 1) / n};
}

void sharded_workload_pass(const PassInput& in,
                           const std::vector<std::unique_ptr<WorkloadMetric>>& metrics,
                           const RunOptions& options, RunState& state, ProcessGroup& group,
                           std::exception_ptr refused) {
  for (const auto& m : metrics) {
    if (!m->mergeable()) {
      state.fail(m->name(),
                 "keeps state across batches that it cannot export, so it cannot run sharded "
                 "(override mergeable(), export_state() and merge_state(); "
                 "docs/writing-a-metric.md)");
    }
  }
  const BatchRange range = shard_of(in.loader.num_batches(), in.shard, in.shards);
  const auto start = Clock::now();
  std::exception_ptr error;
  Json states = Json::object();
  Json failures = Json::object();
  try {
    if (refused) std::rethrow_exception(refused);
    workload_pass(in, metrics, options, state);
    for (const auto& m : metrics) {
      const std::string name = m->name();
      if (!state.failed(name)) state.guard(name, [&] { states[name] = m->export_state(); });
      if (const std::string* f = state.failure(name)) failures[name] = *f;
    }
  } catch (...) {
    error = std::current_exception();
  }
  Json mine = rank_payload(in, metrics, state, group, error);
  mine["batches"] = {range.first, range.end};
  mine["samples"] = state.results.samples;
  mine["workload_s"] = seconds_between(start, Clock::now());
  mine["peak_rss_bytes"] = peak_resident_memory_bytes();
  mine["warnings"] = state.results.warnings;
  mine["non_finite_inputs"] = state.results.run.value("non_finite_inputs", Json::array());
  if (const NpzShardDataset* shard = read_alone(in)) {
    const NpzPartRecord& p = *shard->part();
    mine["data_part"] = {{"rows", {p.first_row, p.end_row}},
                         {"bytes", {p.begin, p.end}},
                         {"crc32", p.crc32},
                         {"sha256", p.sha256}};
  }
  mine["states"] = std::move(states);
  mine["failures"] = std::move(failures);
  const std::vector<std::uint8_t> bytes = Json::to_cbor(mine);
  const auto exchange_start = Clock::now();
  const std::vector<Json> all = exchange(group, bytes, "workload states");
  const double exchange_s = seconds_between(exchange_start, Clock::now());
  stop_if_any_failed(all, group.rank(), error, "workload pass");
  check_same_benchmark(all);
  check_data_parts(in, all, state.results);
  const auto merge_start = Clock::now();

  // Every rank merges every rank's state, in rank order, into fresh metrics: the same sums,
  // in the same order, as one process makes.
  // The ranks' warnings, each once, in rank order (this rank's own are among them).
  // So are the non-finite inputs each rank found, each once: a rank that read its shard of the
  // data alone found its rows' (NpzShardDataset), the model's are every rank's alike.
  state.results.samples = 0;
  state.results.batches = 0;
  state.results.warnings.clear();
  Json non_finite = Json::array();
  for (const Json& p : all) {
    state.results.samples += p["samples"].get<int64_t>();
    state.results.batches +=
        p["batches"][1].get<std::size_t>() - p["batches"][0].get<std::size_t>();
    for (const Json& w : p["warnings"]) state.warn_once(w.get<std::string>());
    for (const Json& record : p.value("non_finite_inputs", Json::array())) {
      if (std::find(non_finite.begin(), non_finite.end(), record) == non_finite.end()) {
        non_finite.push_back(record);
      }
    }
  }
  if (!non_finite.empty()) state.results.run["non_finite_inputs"] = std::move(non_finite);
  for (const auto& m : metrics) {
    const std::string name = m->name();
    for (std::size_t r = 0; r < all.size(); ++r) {
      const Json& f = all[r]["failures"];
      if (f.contains(name)) {
        state.fail(name, r == static_cast<std::size_t>(group.rank())
                             ? f[name].get<std::string>()
                             : fmt::format("{} (on rank {})", f[name].get<std::string>(), r));
      }
    }
    if (state.failed(name)) continue;
    state.guard(name, [&] {
      m->begin_run();
      for (const Json& p : all) m->merge_state(p["states"][name]);
      state.results.values[name] = m->run_value();
    });
  }
  Json& d = distributed_record(state.results, group, all);
  for (std::size_t r = 0; r < all.size(); ++r) {
    Json& rank = d["ranks"][r];
    rank["batches"] = all[r]["batches"];
    rank["samples"] = all[r]["samples"];
    rank["workload_s"] = all[r]["workload_s"];
    rank["peak_rss_bytes"] = all[r]["peak_rss_bytes"];
  }
  // This rank's cost of the merge: the exchange (waiting for the slowest rank included) and
  // merging the states it brought.
  d["state_bytes"] = bytes.size();
  d["exchange_s"] = exchange_s;
  d["merge_s"] = seconds_between(merge_start, Clock::now());
}

void sharded_timing_pass(const PassInput& in,
                         const std::vector<std::unique_ptr<TimingMetric>>& metrics,
                         const TimingOptions& options, RunState& state, ProcessGroup& group) {
  const bool startup = needs_startup_runs(metrics);
  std::exception_ptr error;
  Json mine_timings;
  Json values = Json::object();
  try {
    Results local;
    const Timings t = measure_timings(in, options, startup, local, platform_requests(metrics));
    for (const auto& w : local.warnings) state.warn_once(fmt::format("rank {}: {}", in.shard, w));
    mine_timings = timings_to_json(t);
    for (const auto& m : metrics) {
      try {
        values[m->name()] = m->compute(t);
      } catch (const std::exception&) {
        values[m->name()] = nullptr;  // the merged value says why, if it fails too
      }
    }
  } catch (...) {
    error = std::current_exception();
  }
  Json mine = rank_payload(in, metrics, state, group, error);
  mine["timings"] = std::move(mine_timings);
  mine["values"] = std::move(values);
  mine["warnings"] = state.results.warnings;
  const std::vector<Json> all = exchange(group, Json::to_cbor(mine), "timings");
  stop_if_any_failed(all, group.rank(), error, "timing pass");
  check_same_benchmark(all);

  std::vector<Timings> timings;
  for (const Json& p : all) timings.push_back(timings_from_json(p["timings"]));
  for (const Json& p : all) {
    for (const Json& w : p["warnings"]) state.warn_once(w.get<std::string>());
  }
  const Timings merged = merge_timings(timings);
  record_timing(options, startup, merged, state.results);
  state.results.run["timing"]["aggregate"] =
      "timed runs of every rank together; Throughput adds the ranks' rates";
  for (const auto& m : metrics) {
    const std::string name = m->name();
    state.guard(name, [&] { state.results.values[name] = m->compute(merged); });
  }
  record_platform(merged, state);
  Json& d = distributed_record(state.results, group, all);
  for (std::size_t r = 0; r < all.size(); ++r) d["ranks"][r]["timing"] = all[r]["values"];
}

}  // namespace neurobench::detail
