// SPDX-License-Identifier: Apache-2.0
// Umbrella header: every public header of neurobench-cpp.
#pragma once

#include <neurobench/audio/delta.hpp>
#include <neurobench/audio/mel.hpp>
#include <neurobench/audio/mfcc.hpp>
#include <neurobench/audio/resample.hpp>
#include <neurobench/audio/spectrogram.hpp>
#include <neurobench/benchmark.hpp>
#include <neurobench/config.hpp>
#include <neurobench/data/dataloader.hpp>
#include <neurobench/data/dataset.hpp>
#include <neurobench/data/npz.hpp>
#include <neurobench/datasets/fashion_mnist.hpp>
#include <neurobench/datasets/idx.hpp>
#include <neurobench/datasets/mackey_glass.hpp>
#include <neurobench/environment.hpp>
#include <neurobench/errors.hpp>
#include <neurobench/fwd.hpp>
#include <neurobench/io/idx.hpp>
#include <neurobench/io/npy.hpp>
#include <neurobench/io/npz.hpp>
#include <neurobench/io/output_file.hpp>
#include <neurobench/json.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/description.hpp>
#include <neurobench/metrics/keys.hpp>
#include <neurobench/metrics/metric.hpp>
#include <neurobench/metrics/timing.hpp>
#include <neurobench/model/hooks.hpp>
#include <neurobench/model/model.hpp>
#include <neurobench/plugins.hpp>
#include <neurobench/processors/processors.hpp>
#include <neurobench/registry.hpp>
#include <neurobench/reporters/report.hpp>
#include <neurobench/reporters/results.hpp>
#include <neurobench/stop.hpp>
