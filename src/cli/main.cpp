// SPDX-License-Identifier: Apache-2.0
// The `neurobench` command: `run` a benchmark, `list` the plugins, `report` and `compare`
// results files, run a `suite` of benchmarks, run NeuroBench's `fscil` protocol.
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/plugins.hpp>

#include "cli/commands.hpp"

namespace {
// CLI11 gives an option the value it requires even when that looks like an option (so that
// `--shuffle-seed -1` reaches the range check): `--metrics --json r.json` would make
// `--json` a metric and `r.json` the config. A value that is one of the command's own options
// is refused instead.
void check_option_values(const CLI::App& command) {
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& value : option->results()) {
      if (value.size() < 2 || value[0] != '-') continue;
      if (command.get_option_no_throw(value.substr(0, value.find('='))) != nullptr) {
        throw neurobench::UsageError(option->get_name() + ": no value given (the argument '" +
                                     value + "' after it is an option)");
      }
    }
  }
}

// Ends the process once the command is done: its files are written whole by then, and the
// streams are flushed here. What exit() would do beyond that is LibTorch's static destructors
// unregistering thousands of operators, about 0.1 s of every command here. Under a sanitizer,
// whose leak check runs at exit, the process exits as usual.
int end_process(int status) {
#if defined(__SANITIZE_ADDRESS__)
  return status;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
  return status;
#endif
#endif
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(status);
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"neurobench: benchmark neural networks (spiking and conventional) the way "
               "NeuroBench does, from TorchScript models",
               "neurobench"};
  app.set_version_flag("--version", std::string(neurobench::version()));
  app.require_subcommand(1);
  // CLI11's own errors start as the library's do.
  app.failure_message([](const CLI::App* a, const CLI::Error& e) {
    return "error: " + CLI::FailureMessage::simple(a, e);
  });
  neurobench::cli::RunArgs run_args;
  CLI::App* run = neurobench::cli::add_run_command(app, run_args);
  CLI::App* list = app.add_subcommand("list", "List every registered metric and processor");
  bool list_keys = false;
  list->add_flag("--keys", list_keys,
                 "list every key of a run instead: config key, flag of 'run', value, default "
                 "(a Markdown table, as in docs/cli.md)");
  neurobench::cli::ReportArgs report_args;
  CLI::App* report = neurobench::cli::add_report_command(app, report_args);
  neurobench::cli::CompareArgs compare_args;
  CLI::App* compare = neurobench::cli::add_compare_command(app, compare_args);
  neurobench::cli::SuiteArgs suite_args;
  CLI::App* suite = neurobench::cli::add_suite_command(app, suite_args);
  neurobench::cli::FscilArgs fscil_args;
  CLI::App* fscil = neurobench::cli::add_fscil_command(app, fscil_args);
  neurobench::cli::ConvertArgs convert_args;
  CLI::App* convert = neurobench::cli::add_convert_command(app, convert_args);
  // Plugin libraries of metrics, processors and data set kinds, for `run`, `list` and `fscil`
  // (and NEUROBENCH_PLUGIN_PATH), loaded before the command runs.
  std::vector<std::string> plugins;
  for (CLI::App* command : {run, list, fscil}) {
    command->add_option("--plugin", plugins,
                        "Load metrics and processors from a shared library built against "
                        "neurobench (repeatable; see docs/writing-a-metric.md)");
  }
  app.footer(
      "Commands: run, list, report, compare, suite, fscil, convert. 'neurobench COMMAND --help' "
      "shows a command's options.");

  if (argc > 1 && argv[1][0] != '-' && std::string(argv[1]) != "run" &&
      std::string(argv[1]) != "list" && std::string(argv[1]) != "report" &&
      std::string(argv[1]) != "compare" && std::string(argv[1]) != "suite" &&
      std::string(argv[1]) != "fscil" && std::string(argv[1]) != "convert") {
    std::cerr << "error: unknown command '" << argv[1]
              << "' (commands: run, list, report, compare, suite, fscil, convert; see --help)\n";
    return neurobench::kExitError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return neurobench::kExitError;
  }

  // Every error from here on is reported as the library reports them (errors.hpp).
  return end_process(neurobench::report_errors(
      [&] {
        for (const CLI::App* command : app.get_subcommands()) check_option_values(*command);
        if (run->parsed() || list->parsed() || suite->parsed() || fscil->parsed()) {
          neurobench::load_plugins_from_environment();
          for (const auto& plugin : plugins) neurobench::load_plugin(plugin);
        }
        if (run->parsed()) {
          return neurobench::cli::run_command(neurobench::cli::resolve_run_args(*run, run_args),
                                              run_args.config, run_args.distributed);
        }
        if (list->parsed()) return neurobench::cli::list_command(std::cout, list_keys);
        if (report->parsed()) return neurobench::cli::report_command(report_args, std::cout);
        if (suite->parsed()) {
          return neurobench::cli::suite_command(suite_args, *suite, std::cout);
        }
        if (compare->parsed()) return neurobench::cli::compare_command(compare_args, std::cout);
        if (fscil->parsed()) return neurobench::cli::fscil_command(fscil_args);
        if (convert->parsed()) return neurobench::cli::convert_command(convert_args, std::cout);
        return neurobench::kExitError;
      },
      std::cerr));
}
