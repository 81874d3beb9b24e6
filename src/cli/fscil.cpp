// SPDX-License-Identifier: Apache-2.0
// `neurobench fscil CONFIG`: NeuroBench's keyword few-shot class-incremental protocol
// (docs/fscil.md), through the library's run_fscil().
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <neurobench/errors.hpp>
#include <neurobench/fscil.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/stop.hpp>

#include "cli/commands.hpp"

namespace neurobench::cli {

namespace {

std::string fscil_number(const Json& v) {
  return v.is_number() ? fmt::format("{:.6g}", v.get<double>()) : std::string("-");
}

// One line per session as it ends, on stderr beside the progress bars.
void fscil_print_session(const FscilSessionResult& s) {
  std::string line =
      fmt::format("session {} ({}): {} classes, accuracy {}", s.session, s.name, s.classes,
                  fscil_number(s.all.values.value("ClassificationAccuracy", Json())));
  if (s.new_classes_only) {
    line += ", new classes " +
            fscil_number(s.new_classes_only->values.value("ClassificationAccuracy", Json()));
  }
  std::cerr << line << "\n";
}

std::string fscil_table(const FscilResults& r) {
  std::string out =
      fmt::format("{:<8} {:<6} {:>8} {:>10} {:>12} {:>12} {:>14} {:>14}\n", "session", "name",
                  "classes", "accuracy", "new classes", "act. spars.", "MACs", "ACs");
  const auto row = [&](const std::string& session, const std::string& name,
                       const std::string& classes, const Json& v, const Json& new_accuracy) {
    const Json ops = v.value("SynapticOperations", Json::object());
    out +=
        fmt::format("{:<8} {:<6} {:>8} {:>10} {:>12} {:>12} {:>14} {:>14}\n", session, name,
                    classes, fscil_number(v.value("ClassificationAccuracy", Json())),
                    fscil_number(new_accuracy), fscil_number(v.value("ActivationSparsity", Json())),
                    fscil_number(ops.is_object() ? ops.value("Effective_MACs", Json()) : Json()),
                    fscil_number(ops.is_object() ? ops.value("Effective_ACs", Json()) : Json()));
  };
  for (const auto& s : r.sessions) {
    row(std::to_string(s.session), s.name, std::to_string(s.classes), s.all.values,
        s.new_classes_only ? s.new_classes_only->values.value("ClassificationAccuracy", Json())
                           : Json());
  }
  const auto mean_new = r.mean_new_classes_accuracy();
  row("mean", "", "", r.means(), mean_new ? Json(*mean_new) : Json());
  return out;
}

}  // namespace

CLI::App* add_fscil_command(CLI::App& app, FscilArgs& a) {
  CLI::App* fscil = app.add_subcommand(
      "fscil",
      "Run NeuroBench's few-shot class-incremental keyword protocol (MSWC) on a TorchScript "
      "model with a features method (docs/fscil.md)");
  fscil
      ->add_option("config", a.config,
                   "an FSCIL config (JSON): a benchmark config whose 'dataset' is the MSWC base "
                   "test set, plus an 'fscil' object")
      ->required();
  fscil
      ->add_option("--json", a.json,
                   "the results file (JSON): the means as metrics, every session in '_fscil'; "
                   "overrides the config's outputs.json")
      ->check(output_path_text());
  fscil->add_flag("--quiet", a.quiet, "no progress bars");
  return fscil;
}

int fscil_command(const FscilArgs& args) {
  FscilConfig config = FscilConfig::read(args.config);
  if (args.quiet) config.benchmark.quiet = true;
  for (const auto& [format, file] : config.benchmark.outputs) {
    if (format != "json") {
      throw UsageError(
          fmt::format("{}: outputs.{}: an FSCIL run writes JSON results only "
                      "(outputs.json)",
                      args.config, format));
    }
  }
  const std::filesystem::path json =
      !args.json.empty()
          ? std::filesystem::path(args.json)
          : (config.benchmark.outputs.count("json") != 0 ? config.benchmark.outputs.at("json")
                                                         : std::filesystem::path());
  // run_fscil() checks the results file against every file the run reads, once they are open.
  if (!args.json.empty()) config.benchmark.outputs["json"] = json;
  if (!json.empty()) {
    (void)check_output_file(json);
    std::vector<NamedFile> inputs = {{config.benchmark.model, "the model"},
                                     {args.config, "the config file"}};
    if (!config.sessions.draws.empty()) inputs.push_back({config.sessions.draws, "fscil.draws"});
    std::vector<NamedFile> outputs = {{json, "--json"}};
    if (!config.sessions.write_draws.empty()) {
      (void)check_output_file(config.sessions.write_draws);
      outputs.push_back({config.sessions.write_draws, "fscil.write_draws"});
    }
    check_distinct_files(outputs, inputs);
  }
  stop_on_signals();
  FscilResults results;
  try {
    results = run_fscil(config, args.config, fscil_print_session);
    throw_if_stop_requested("after the run, before the results were written");
  } catch (const Interrupted& e) {
    throw Interrupted(std::string(e.what()) + ": no results written", e.signal());
  }
  for (const auto& s : results.sessions) {
    for (const auto& f : s.all.failures) {
      std::cerr << "error: session " << s.session << ": metric " << f.message << "\n";
    }
  }
  std::cout << fscil_table(results);
  std::cout.flush();
  if (!json.empty()) save_fscil_results(results, json);
  return results.ok() ? kExitOk : kExitMetricFailed;
}

}  // namespace neurobench::cli
