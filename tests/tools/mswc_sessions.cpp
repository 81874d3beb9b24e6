// SPDX-License-Identifier: Apache-2.0
// A test tool: the MSWC FSCIL sessions through the public API, for the Python test that gives
// NeuroBench's IncrementalFewShot the same draws (tests/datasets/check_mswc.py).
//
//   neurobench_mswc_sessions draw ROOT DRAWS.json SEED K_SHOT QUERY_SHOTS SUPPORT QUERY LANGS
//   neurobench_mswc_sessions dump ROOT DRAWS.json OUT_FOLDER
//
// `draw` draws the sessions of the release at ROOT with our generator and writes the draws file
// (LANGS: languages joined by ','; SUPPORT, QUERY: the pools). `dump` reads a draws file and
// writes each session i to OUT_FOLDER/session_i.npz: support_data, support_targets, query_data,
// query_targets, query_classes. Exit 0, or 2 with the error on stderr.
#include <algorithm>
#include <exception>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include <torch/script.h>

#include <neurobench/datasets/mswc_sessions.hpp>
#include <neurobench/io/npz.hpp>

namespace {

neurobench::Batch all(const neurobench::Dataset& d) {
  std::vector<int64_t> indices(static_cast<std::size_t>(d.size()));
  std::iota(indices.begin(), indices.end(), 0);
  return d.get(indices);
}

int draw(char** argv) {
  neurobench::datasets::MswcSessionOptions o;
  o.k_shot = std::stoll(argv[5]);
  o.query_shots = std::stoll(argv[6]);
  o.support_pool = std::stoll(argv[7]);
  o.query_pool = std::stoll(argv[8]);
  o.languages.clear();
  std::string langs = argv[9];
  for (std::size_t start = 0; start <= langs.size();) {
    const std::size_t comma = std::min(langs.find(',', start), langs.size());
    o.languages.push_back(langs.substr(start, comma - start));
    start = comma + 1;
  }
  const auto draws = neurobench::datasets::draw_mswc_sessions(argv[2], o, std::stoull(argv[4]));
  neurobench::datasets::write_mswc_draws(draws, argv[3]);
  return 0;
}

int dump(char** argv) {
  const neurobench::datasets::MswcSessions sessions(argv[2],
                                                    neurobench::datasets::read_mswc_draws(argv[3]));
  for (int64_t i = 0; i < sessions.size(); ++i) {
    const neurobench::Batch support = all(*sessions.support(i));
    const neurobench::Batch query = all(*sessions.query(i));
    const std::vector<int64_t> classes = sessions.query_classes(i);
    neurobench::save_npz(std::string(argv[4]) + "/session_" + std::to_string(i) + ".npz",
                         {{"support_data", support.data},
                          {"support_targets", support.targets},
                          {"query_data", query.data},
                          {"query_targets", query.targets},
                          {"query_classes", torch::tensor(classes, torch::kInt64)}});
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (!((mode == "draw" && argc == 10) || (mode == "dump" && argc == 5))) {
    std::cerr << "usage: neurobench_mswc_sessions draw ROOT DRAWS.json SEED K_SHOT QUERY_SHOTS "
                 "SUPPORT QUERY LANGS\n"
                 "       neurobench_mswc_sessions dump ROOT DRAWS.json OUT_FOLDER\n";
    return 2;
  }
  try {
    return mode == "draw" ? draw(argv) : dump(argv);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
