// SPDX-License-Identifier: Apache-2.0
// `neurobench convert`: a NIR graph built into the TorchScript module a run would use, written
// to a file, with what each node became.
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>
#include <neurobench/model/nir.hpp>

#include "cli/commands.hpp"
#include "run/config_numbers.hpp"

namespace neurobench::cli {

CLI::App* add_convert_command(CLI::App& app, ConvertArgs& a) {
  CLI::App* convert = app.add_subcommand(
      "convert",
      "Build a NIR graph (.nir) into the TorchScript module 'run --model' would use, write it "
      "to a file (.pt) and print what each node became (docs/nir.md)");
  convert->add_option("NIR", a.nir, "the NIR graph (.nir)")->required();
  convert->add_option("OUT", a.out, "the TorchScript file to write (.pt)")->required();
  convert->add_option("--nir-time", a.time,
                      "the time convention: snntorch (as snnTorch 0.9.4's import_from_nir; else "
                      "forward Euler), euler or exact")
      ->capture_default_str();
  convert->add_option("--nir-dt", a.dt, "the timestep in seconds")->capture_default_str();
  convert->add_option("--nir-reset", a.reset,
                      "a spiking neuron's membrane when it fires: v_reset or subtract")
      ->capture_default_str();
  return convert;
}

namespace {

NirOptions options_of(const ConvertArgs& a) {
  NirOptions o;
  const std::optional<NirTime> time = nir_time_from_name(a.time);
  if (!time) {
    throw UsageError(fmt::format("--nir-time: '{}' is not snntorch, euler or exact", a.time));
  }
  const std::optional<NirReset> reset = nir_reset_from_name(a.reset);
  if (!reset) {
    throw UsageError(fmt::format("--nir-reset: '{}' is not v_reset or subtract", a.reset));
  }
  const std::optional<double> dt = detail::decimal_number(a.dt);
  if (!dt || !std::isfinite(*dt) || *dt <= 0) {
    throw UsageError(fmt::format(
        "--nir-dt: '{}' is not a number of seconds above 0 (written 0.0001, not 1e-4)", a.dt));
  }
  o.time = *time;
  o.reset = *reset;
  o.dt = *dt;
  return o;
}

std::string batch_shape(const std::vector<std::int64_t>& shape) {
  return shape.empty() ? "(batch)" : fmt::format("(batch, {})", fmt::join(shape, ", "));
}

}  // namespace

int convert_command(const ConvertArgs& a, std::ostream& out) {
  const NirOptions options = options_of(a);
  const NirReport report = save_nir_as_torchscript(a.nir, a.out, options);
  out << fmt::format(
      "{} (NIR {}) -> {}: {} in, {} out per timestep; time {}, dt {} s, reset {}\n", a.nir,
      report.version.empty() ? "version not stated" : report.version, a.out,
      batch_shape(report.input_shape), batch_shape(report.output_shape),
      nir_time_name(options.time), options.dt, nir_reset_name(options.reset));
  std::size_t node = 4, type = 4, module = 6, cls = 5;
  for (const NirNodeReport& n : report.nodes) {
    node = std::max(node, n.node.size());
    type = std::max(type, n.type.size());
    module = std::max(module, n.module.size());
    cls = std::max(cls, n.cls.size());
  }
  out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", "node", node, "type", type,
                     "module", module, "class", cls, "rule");
  for (const NirNodeReport& n : report.nodes) {
    out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", n.node, node, n.type, type,
                       n.module.empty() ? "-" : n.module, module, n.cls.empty() ? "-" : n.cls,
                       cls, n.rule);
  }
  return kExitOk;
}

}  // namespace neurobench::cli
