// SPDX-License-Identifier: Apache-2.0
// EnergyEstimate: energy per sample from the operations a run counted (SynapticOperations,
// NeuronOperations, MembraneUpdates and the activation layers' outputs) times per-operation
// energies from a published table. See docs/deployment-metrics.md#energy-estimate.
#include <array>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/keys.hpp>
#include <neurobench/metrics/state.hpp>

namespace neurobench::metrics {

namespace {

// Horowitz, "Computing's energy problem (and what we can do about it)", ISSCC 2014, figure
// "rough energy costs for various operations in 45 nm, 0.9 V": integer add 8 bit 0.03 pJ,
// 32 bit 0.1 pJ; integer multiply 8 bit 0.2 pJ, 32 bit 3.1 pJ; float add 16 bit 0.4 pJ, 32 bit
// 0.9 pJ; float multiply 16 bit 1.1 pJ, 32 bit 3.7 pJ; a 64-bit access of an 8 KB cache 10 pJ;
// a 64-bit DRAM access 1.3 to 2.6 nJ. A MAC is a multiply plus an add; an accumulate (AC) and
// one neuron operation are an add; a memory access of one element of the table's width costs
// its share of the 64-bit access (the lower DRAM figure).
struct EnergyTable {
  const char* name;
  EnergyEstimate::Costs costs;
};
constexpr std::array<EnergyTable, 4> kEnergyTables = {{
    // mult 3.7 + add 0.9; add 0.9; add 0.9; 10 pJ / 2; 1300 pJ / 2
    {"horowitz45_fp32", {4.6, 0.9, 0.9, 5.0, 650.0}},
    // mult 1.1 + add 0.4; add 0.4; add 0.4; 10 pJ / 4; 1300 pJ / 4
    {"horowitz45_fp16", {1.5, 0.4, 0.4, 2.5, 325.0}},
    // mult 3.1 + add 0.1; add 0.1; add 0.1; 10 pJ / 2; 1300 pJ / 2
    {"horowitz45_int32", {3.2, 0.1, 0.1, 5.0, 650.0}},
    // 8-bit mult 0.2 + 32-bit accumulator add 0.1; 32-bit add 0.1 (an int8 weight into an
    // int32 accumulator, and the neurons' int32 state); 10 pJ / 8; 1300 pJ / 8
    {"horowitz45_int8", {0.3, 0.1, 0.1, 1.25, 162.5}},
}};

std::string energy_table_names() {
  std::vector<std::string> names;
  for (const auto& t : kEnergyTables) names.emplace_back(t.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

// Per-operation energies in picojoules: the table's, with the overrides of option `pj`.
EnergyEstimate::Costs energy_costs_from(const Json& options) {
  const std::string table = options.value("table", std::string(kEnergyTables[0].name));
  EnergyEstimate::Costs costs = EnergyEstimate::table(table);
  if (!options.contains("pj")) return costs;
  const Json& pj = options.at("pj");
  if (!pj.is_object()) {
    throw UsageError("EnergyEstimate: option 'pj' must be an object of energies in pJ");
  }
  for (const auto& [key, value] : pj.items()) {
    double* slot = key == "mac"         ? &costs.mac_pj
                   : key == "ac"        ? &costs.ac_pj
                   : key == "neuron_op" ? &costs.neuron_op_pj
                   : key == "sram"      ? &costs.sram_pj
                   : key == "dram"      ? &costs.dram_pj
                                        : nullptr;
    if (slot == nullptr) {
      throw UsageError(fmt::format(
          "EnergyEstimate: option 'pj' has no entry '{}' (entries: mac, ac, neuron_op, sram, "
          "dram)",
          key));
    }
    if (!value.is_number() || value.get<double>() < 0) {
      throw UsageError(fmt::format(
          "EnergyEstimate: option 'pj': '{}' must be a number of picojoules >= 0, got {}", key,
          value.dump()));
    }
    *slot = value.get<double>();
  }
  return costs;
}

EnergyEstimate::Memory energy_memory_from(const Json& options) {
  const std::string memory = options.value("memory", std::string("none"));
  if (memory == "none") return EnergyEstimate::Memory::None;
  if (memory == "sram") return EnergyEstimate::Memory::Sram;
  if (memory == "dram") return EnergyEstimate::Memory::Dram;
  throw UsageError(
      fmt::format("EnergyEstimate: option 'memory' must be none, sram or dram, got '{}'", memory));
}

constexpr double kJoulesPerPicojoule = 1e-12;
constexpr double kJoulesPerMilliwattHour = 3.6;  // 1 mWh = 1e-3 W * 3600 s

}  // namespace

EnergyEstimate::Costs EnergyEstimate::table(std::string_view name) {
  for (const auto& t : kEnergyTables) {
    if (name == t.name) return t.costs;
  }
  throw UsageError(
      fmt::format("EnergyEstimate: no energy table '{}' (tables: {})", name, energy_table_names()));
}

EnergyEstimate::EnergyEstimate() : EnergyEstimate(Json::object()) {}

EnergyEstimate::EnergyEstimate(const Json& options)
    : costs_(energy_costs_from(options)), memory_(energy_memory_from(options)) {}

EnergyEstimate::~EnergyEstimate() = default;

void EnergyEstimate::reset() {
  synaptic_.reset();  // a shared SynapticOperations is reset by its own run
  neurons_.reset();
  membrane_.reset();
  activation_elements_ = 0;
  activation_nonzeros_.reset();
  samples_ = 0;
}

void EnergyEstimate::begin_batch() {
  if (shared_synaptic_ == nullptr) synaptic_.begin_batch();
  neurons_.begin_batch();
  membrane_.begin_batch();
}

// The counting is SynapticOperations', NeuronOperations' and MembraneUpdates' own; the
// non-zero count of an output is the one every activation metric shares (ActivationCall). With
// a SynapticOperations of the run beside it, that one counts and this one reads its counts.
void EnergyEstimate::on_connection(const ConnectionCall& call) {
  if (shared_synaptic_ == nullptr) synaptic_.on_connection(call);
}

void EnergyEstimate::on_activation(const ActivationCall& call) {
  neurons_.on_activation(call);
  if (memory_ == Memory::None) return;
  membrane_.on_activation(call);
  activation_elements_ += call.output.numel();
  if (call.output.device().is_cpu()) {
    activation_nonzeros_.add(call.nonzeros());
  } else {
    activation_nonzeros_.add_nonzeros(call.output);
  }
}

void EnergyEstimate::share_synaptic_operations(const SynapticOperations* counted) {
  if (counted == nullptr && shared_synaptic_ != nullptr) {
    synaptic_.reset();
    synaptic_.merge_state(shared_synaptic_->export_state());  // the same integers
  }
  shared_synaptic_ = counted;
}

void EnergyEstimate::update(const WorkloadInput& input) {
  if (shared_synaptic_ == nullptr) synaptic_.update(input);
  neurons_.update(input);
  membrane_.update(input);
  samples_ += input.batch.size();
  (void)activation_nonzeros_.value();  // what a device counted in this batch, once per batch
}

EnergyEstimate::Counts EnergyEstimate::counts() const {
  Counts c;
  const Json syn = (shared_synaptic_ != nullptr ? *shared_synaptic_ : synaptic_).compute();
  c.macs = syn.at(keys::kEffectiveMACs).get<double>();
  c.acs = syn.at(keys::kEffectiveACs).get<double>();
  c.neuron_ops = neurons_.compute().at(keys::kEffectiveNeuronOps).get<double>();
  if (memory_ != Memory::None && samples_ > 0) {
    const auto n = static_cast<double>(samples_);
    c.weight_words = c.macs + c.acs;
    c.activation_words =
        static_cast<double>(activation_elements_ + activation_nonzeros_.value()) / n;
    c.state_words = 2.0 * membrane_.compute().get<double>();
  }
  return c;
}

// spec (ours): docs/deployment-metrics.md#energy-estimate
Json EnergyEstimate::compute() const {
  const Counts c = counts();
  const double pj = kJoulesPerPicojoule;
  Json out = Json::object();
  out[keys::kMacsJ] = c.macs * costs_.mac_pj * pj;
  out[keys::kAcsJ] = c.acs * costs_.ac_pj * pj;
  out[keys::kNeuronOpsJ] = c.neuron_ops * costs_.neuron_op_pj * pj;
  double total = out[keys::kMacsJ].get<double>() + out[keys::kAcsJ].get<double>() +
                 out[keys::kNeuronOpsJ].get<double>();
  if (memory_ != Memory::None) {
    const double word = (memory_ == Memory::Sram ? costs_.sram_pj : costs_.dram_pj) * pj;
    out[keys::kWeightMemoryJ] = c.weight_words * word;
    out[keys::kActivationMemoryJ] = c.activation_words * word;
    out[keys::kStateMemoryJ] = c.state_words * word;
    total += (c.weight_words + c.activation_words + c.state_words) * word;
  }
  out[keys::kTotalJ] = total;
  out[keys::kTotalMWh] = total / kJoulesPerMilliwattHour;
  return out;
}

// Sharded runs: the states of the counting metrics, and the activation counts; merging hands
// each its own.
Json EnergyEstimate::export_state() const {
  return Json{
      {"synaptic", (shared_synaptic_ != nullptr ? *shared_synaptic_ : synaptic_).export_state()},
      {"neurons", neurons_.export_state()},
      {"membrane", membrane_.export_state()},
      {"activation_elements", activation_elements_},
      {"activation_nonzeros", activation_nonzeros_.value()},
      {"samples", samples_}};
}

void EnergyEstimate::merge_state(const Json& state) {
  for (const char* part : {"synaptic", "neurons", "membrane"}) {
    if (!state.is_object() || !state.contains(part) || !state.at(part).is_object()) {
      throw MetricError(fmt::format("EnergyEstimate: a shard's state has no '{}' object", part));
    }
  }
  const int64_t elements = state_integer(state, "activation_elements", "EnergyEstimate");
  const int64_t nonzeros = state_integer(state, "activation_nonzeros", "EnergyEstimate");
  const int64_t samples = state_integer(state, "samples", "EnergyEstimate");
  if (shared_synaptic_ != nullptr) {
    throw MetricError(
        "EnergyEstimate: cannot merge a state while it reads the counts of a "
        "SynapticOperations");
  }
  synaptic_.merge_state(state.at("synaptic"));
  neurons_.merge_state(state.at("neurons"));
  membrane_.merge_state(state.at("membrane"));
  activation_elements_ += elements;
  activation_nonzeros_.add(nonzeros);
  samples_ += samples;
}

MetricDescription EnergyEstimate::describe() {
  const char* j = "J/sample";
  MetricDescription d(
      "estimated energy per sample: counted operations times a table's energy per operation "
      "(an estimate, not a measurement)");
  d.with_unit(j).lower_is_better();
  d.with_key(keys::kMacsJ, j, Better::Lower, "effective MACs times the energy of a MAC");
  d.with_key(keys::kAcsJ, j, Better::Lower, "effective ACs times the energy of an add");
  d.with_key(keys::kNeuronOpsJ, j, Better::Lower,
             "effective neuron operations times the energy of an add");
  d.with_key(keys::kWeightMemoryJ, j, Better::Lower,
             "one weight read per effective synaptic operation (option memory)");
  d.with_key(keys::kActivationMemoryJ, j, Better::Lower,
             "activation layers' outputs written, and their non-zeros read (option memory)");
  d.with_key(keys::kStateMemoryJ, j, Better::Lower,
             "membrane potential read and written per update (option memory)");
  d.with_key(keys::kTotalJ, j, Better::Lower, "the sum of the parts");
  d.with_key(keys::kTotalMWh, "mWh/sample", Better::Lower, "the total in milliwatt-hours");
  d.with_option("table", "string", kEnergyTables[0].name,
                "energy per operation: horowitz45_fp32, horowitz45_fp16, horowitz45_int32, "
                "horowitz45_int8 (Horowitz, ISSCC 2014, 45 nm)");
  d.with_option("memory", "string", "none",
                "memory accesses: none (operations only), sram (8 KB cache) or dram");
  d.with_option("pj", "object", Json::object(),
                "energies in pJ replacing the table's: mac, ac, neuron_op, sram, dram");
  return d;
}

}  // namespace neurobench::metrics
