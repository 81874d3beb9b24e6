// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <neurobench/export.hpp>

NEUROBENCH_API_BEGIN

/// Forward declarations of the public types, for headers that only name them.
namespace neurobench {

class NeuroBenchModel;
class TorchScriptModel;
class Dataset;
class TensorDataset;
class DataLoader;
struct Batch;
class PreProcessor;
class PostProcessor;
class StaticMetric;
class WorkloadMetric;
class AccumulatedMetric;
class Benchmark;
struct ModuleInfo;
struct ModuleCall;
struct OperatorCall;

}  // namespace neurobench
NEUROBENCH_API_END
