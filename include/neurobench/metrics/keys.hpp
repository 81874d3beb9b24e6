// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

/// The names of the built-in metrics and the keys of their object values, as they appear in
/// results: use these instead of spelling the strings again.
///
///     double macs = results.values[metrics::names::kSynapticOperations]
///                                 [metrics::keys::kEffectiveMACs].get<double>();
namespace neurobench::metrics {

namespace names {
inline constexpr const char* kFootprint = "Footprint";
inline constexpr const char* kParameterCount = "ParameterCount";
inline constexpr const char* kConnectionSparsity = "ConnectionSparsity";
inline constexpr const char* kModelFileSize = "ModelFileSize";
inline constexpr const char* kClassificationAccuracy = "ClassificationAccuracy";
inline constexpr const char* kMSE = "MSE";
inline constexpr const char* kSMAPE = "SMAPE";
inline constexpr const char* kR2 = "R2";
inline constexpr const char* kActivationSparsity = "ActivationSparsity";
inline constexpr const char* kActivationSparsityByLayer = "ActivationSparsityByLayer";
inline constexpr const char* kSynapticOperations = "SynapticOperations";
inline constexpr const char* kDenseMACs = "DenseMACs";
inline constexpr const char* kMembraneUpdates = "MembraneUpdates";
inline constexpr const char* kNeuronOperations = "NeuronOperations";
inline constexpr const char* kLatency = "Latency";
inline constexpr const char* kInferenceTime = "InferenceTime";
inline constexpr const char* kThroughput = "Throughput";
inline constexpr const char* kStartupTime = "StartupTime";
inline constexpr const char* kPeakMemory = "PeakMemory";
inline constexpr const char* kCocoMap = "CocoMap";
inline constexpr const char* kEnergyEstimate = "EnergyEstimate";
inline constexpr const char* kMemoryEstimate = "MemoryEstimate";
}  // namespace names

namespace keys {
// SynapticOperations
inline constexpr const char* kEffectiveMACs = "Effective_MACs";
inline constexpr const char* kEffectiveACs = "Effective_ACs";
inline constexpr const char* kDense = "Dense";
// DenseMACs
inline constexpr const char* kMACs = "MACs";
inline constexpr const char* kFLOPs = "FLOPs";
// NeuronOperations
inline constexpr const char* kEffectiveNeuronOps = "Effective Neuron Ops";
inline constexpr const char* kNeuronDenseOps = "Neuron Dense Ops";
// EnergyEstimate: joules per sample by kind of operation, and the total
inline constexpr const char* kMacsJ = "MACs_J";
inline constexpr const char* kAcsJ = "ACs_J";
inline constexpr const char* kNeuronOpsJ = "Neuron_Ops_J";
inline constexpr const char* kWeightMemoryJ = "Weight_Memory_J";
inline constexpr const char* kActivationMemoryJ = "Activation_Memory_J";
inline constexpr const char* kStateMemoryJ = "State_Memory_J";
inline constexpr const char* kTotalJ = "Total_J";
inline constexpr const char* kTotalMWh = "Total_mWh";
// MemoryEstimate: KB (1024 bytes)
inline constexpr const char* kFlashKB = "Flash_KB";
inline constexpr const char* kRamKB = "RAM_KB";
inline constexpr const char* kRamActivationsKB = "RAM_Activations_KB";
inline constexpr const char* kRamStateKB = "RAM_State_KB";
// Latency and InferenceTime: `batch_` or `sample_` + statistic + `_ms`
inline constexpr const char* kBatchSize = "batch_size";
inline constexpr const char* kRuns = "runs";
inline constexpr const char* kWarmupRuns = "warmup_runs";
inline constexpr const char* kBelowResolutionRuns = "below_resolution_runs";
inline constexpr const char* kBatchPrefix = "batch";
inline constexpr const char* kSamplePrefix = "sample";
/// The statistics of Latency and InferenceTime, in the order they are written.
inline constexpr const char* kStatistics[] = {"mean", "median", "p90", "p99", "min", "max", "std"};
// Throughput
inline constexpr const char* kSamplesPerSecond = "samples_per_s";
inline constexpr const char* kSamples = "samples";
inline constexpr const char* kSeconds = "seconds";
// StartupTime
inline constexpr const char* kLoadMs = "load_ms";
inline constexpr const char* kFirstInferenceMs = "first_inference_ms";
inline constexpr const char* kTotalMs = "total_ms";
inline constexpr const char* kTotalMinMs = "total_min_ms";
inline constexpr const char* kTotalMaxMs = "total_max_ms";
// PeakMemory
inline constexpr const char* kPeakRssBytes = "peak_rss_bytes";
inline constexpr const char* kStartRssBytes = "start_rss_bytes";
inline constexpr const char* kGrowthBytes = "growth_bytes";
inline constexpr const char* kFootprintBytes = "footprint_bytes";
inline constexpr const char* kPeakSinceProcessStart = "peak_since_process_start";
inline constexpr const char* kDevicePeakAllocatedBytes = "device_peak_allocated_bytes";
inline constexpr const char* kDevicePeakReservedBytes = "device_peak_reserved_bytes";
// CocoMap: COCOeval's twelve figures in its order (stats[0..11]); mean_ap is NeuroBench's value.
inline constexpr const char* kMeanAp = "mean_ap";
inline constexpr const char* kMeanAp50 = "mean_ap50";
inline constexpr const char* kMeanAp75 = "mean_ap75";
inline constexpr const char* kMeanApSmall = "mean_ap_small";
inline constexpr const char* kMeanApMedium = "mean_ap_medium";
inline constexpr const char* kMeanApBig = "mean_ap_big";
inline constexpr const char* kMeanAr1 = "mean_ar1";
inline constexpr const char* kMeanAr10 = "mean_ar10";
inline constexpr const char* kMeanAr = "mean_ar";
inline constexpr const char* kMeanArSmall = "mean_ar_small";
inline constexpr const char* kMeanArMedium = "mean_ar_medium";
inline constexpr const char* kMeanArBig = "mean_ar_big";
/// CocoMap's keys in the order it writes them (COCOeval's stats order).
inline constexpr const char* kCocoMapKeys[] = {
    kMeanAp,  kMeanAp50, kMeanAp75, kMeanApSmall, kMeanApMedium, kMeanApBig,
    kMeanAr1, kMeanAr10, kMeanAr,   kMeanArSmall, kMeanArMedium, kMeanArBig};
}  // namespace keys

}  // namespace neurobench::metrics
NEUROBENCH_API_END
