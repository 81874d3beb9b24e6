// SPDX-License-Identifier: Apache-2.0
#pragma once

// SynapticOperations' state and the helpers its sources share: Linear in
// builtin_synaptic_operations.cpp, convolutions in builtin_synaptic_operations_conv.cpp,
// recurrent cells and layers in builtin_synaptic_operations_recurrent.cpp. Private to
// src/metrics.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <torch/script.h>

#include <neurobench/errors.hpp>
#include <neurobench/metrics/builtin.hpp>
#include <neurobench/metrics/count_sum.hpp>

#include "metrics/counting.hpp"
#include "metrics/device_tally.hpp"

namespace neurobench::metrics {
namespace synaptic {

/// Argument `i` of a connection call, which must be a tensor; MetricError naming `what`.
const torch::Tensor& tensor_arg(const ConnectionCall& call, std::size_t i, const char* what);
/// Argument `i` of a connection call when it is a tensor, else an undefined tensor.
torch::Tensor optional_tensor_arg(const ConnectionCall& call, std::size_t i);

// The weight's "version" identifies its values: a cache entry is reused while the weight tensor
// and its version counter are unchanged.
struct WeightKey {
  const void* impl = nullptr;
  int64_t version = 0;
  bool operator==(const WeightKey& o) const { return impl == o.impl && version == o.version; }
};

/// The key of weight `w` now.
WeightKey key_of(const torch::Tensor& w);

// One call's counts, where its input is: numbers for an input on the CPU; for an input on a
// device, tensors there (read once per batch by update(), not at each call).
struct Counts {
  detail::Count effective;
  detail::Count dense;
  detail::Flag spiking;  // spec: the input is spikes (every value -1, 0 or 1)
};

/// Runs `conv` of `input` with `kernel` (one output channel), honouring the layer's stride,
/// padding (numbers or 'same'/'valid') and dilation; groups are folded into the kernel.
torch::Tensor counting_conv(std::string_view op, const detail::ConvolutionArgs& conv,
                            const torch::Tensor& input, const torch::Tensor& kernel,
                            int64_t spatial);

/// The effective count of `x` seen as (rows, features) on the CPU: the sum of `weights[f]`
/// (int64, features) over its non-zero elements, in one pass; `spiking`: every value is -1, 0
/// or 1.
int64_t weighted_nonzeros(const torch::Tensor& x, int64_t rows, const torch::Tensor& weights,
                          bool& spiking);

/// A count held in a 0-dim tensor (a sum of whole numbers): read at once on the CPU and
/// truncated as the reference's int() of it, left on its device as an int64 tensor elsewhere.
detail::Count count_of(const torch::Tensor& sum);

/// Where NeuroBench's own count raises (per_layer mode): its message, for the layer's entry.
struct ReferenceFailure : MetricError {
  using MetricError::MetricError;
};

/// One call of a recurrent cell as the counts read it.
struct CellCall {
  torch::Tensor x;     ///< The input.
  torch::Tensor h, c;  ///< The hidden state (and an LSTM's cell state), as the operator got it.
  torch::Tensor w_ih, w_hh, b_ih, b_hh;  ///< Biases undefined for a cell without.
  /// Whether the cell's forward was given a state; without one PyTorch starts from zeros.
  bool state_given = true;
};

/// The arguments of an `aten::*_cell` call; MetricError when one is missing.
CellCall cell_call(const ConnectionCall& call);

/// NeuroBench 2.3's count of one cell call (effective, or dense with `total`), as a 0-dim tensor
/// of the layer's dtype computed as the reference computes it (see the definition). `literal`:
/// throws c10::Error or ReferenceFailure where the reference's count raises; not literal, a
/// cell without biases is counted as one with zero biases.
torch::Tensor reference_cell_count(std::string_view op, const CellCall& call, bool total,
                                   bool literal);

}  // namespace synaptic

struct SynapticOperations::State {
  using Counts = synaptic::Counts;
  using WeightKey = synaptic::WeightKey;

  // Option per_layer: each batch's counts per connection layer, as NeuroBench counts and fails.
  struct LayerCounts {
    int64_t macs = 0, acs = 0, dense = 0;
    std::string error;           // where NeuroBench's count of the layer raises: its message
    std::size_t first_call = 0;  // the call order in the batch, for layers outside modules()
  };
  bool per_layer = false;
  std::map<std::string, LayerCounts, std::less<>> batch_layers;  // this batch's, by path
  std::size_t calls_in_batch = 0;
  Json batches = Json::array();
  std::map<std::string, std::size_t, std::less<>> module_order;  // path -> place in modules()
  void count_layer_call(const ConnectionCall& call);
  void close_batch(const WorkloadInput& input);

  CountSum effective;  // every call's; MACs are those of calls whose input is not spikes
  CountSum acs;
  CountSum dense;
  int64_t samples = 0;

  // A call's effective count goes to ACs when its input is spikes, to MACs otherwise: kept as
  // the total and the ACs (on a device, one masked count per call rather than two).
  void add(const Counts& c) {
    detail::add_count(effective, c.effective);
    detail::add_count_if(acs, c.effective, c.spiking);
    detail::add_count(dense, c.dense);
  }
  [[nodiscard]] int64_t macs() const { return effective.value() - acs.value(); }

  // On a device, a Linear or convolution call's effective count is made at the end of the
  // batch (count_kept()), with the layer's other calls: one set of operators per layer and input
  // shape rather than per call, for a network run step by step. Each call's input is kept until
  // then, as NeuroBench's hooks keep them; its dense count is made at once (from shapes).
  struct Kept {
    std::string op;        // the operator (a convolution's overload)
    torch::Tensor counts;  // Linear: per input feature (in); conv: the counting kernel
    detail::ConvolutionArgs conv;
    int64_t spatial = 0;                // conv: spatial dimensions; 0 for Linear
    std::vector<torch::Tensor> inputs;  // each call's: Linear (rows, in); conv as given
  };
  std::map<std::string, Kept, std::less<>> kept;  // by layer
  int64_t kept_bytes = 0;
  void keep(std::string_view layer, Kept what, const torch::Tensor& input);
  void count_kept();
  // Inside a run's layer hooks on a device, a Linear or convolution call's input goes to the
  // run's tally instead (one count for every hook metric's tensors of the batch), weighted per
  // input element by the non-zero weights that read it; counted into the sums by update().
  std::vector<detail::TallyHandle> tallied;
  void count_tallied();

  // Linear: per input feature, the number of non-zero weights that read it: on the CPU for the
  // one-pass count and the tally, on the weight's device for a device input counted without one.
  struct LinearCache {
    WeightKey key;
    torch::Tensor nonzero_per_input;              // int64, on the CPU
    torch::Tensor nonzero_per_input_device;       // int64, on the weight's device
    std::map<int64_t, torch::Tensor> per_sample;  // tiled over a sample's rows, by their number
  };
  std::map<std::string, LinearCache, std::less<>> linear;

  // Conv: a one-output-channel kernel counting, per input channel and kernel position, the
  // non-zero weights that read it; and the dense count per input shape.
  struct ConvCache {
    WeightKey key;
    torch::Tensor count_kernel;  // (1, in_channels, k...)
    std::map<std::vector<int64_t>, int64_t> dense_by_shape;
    // For the one-pass count (on the CPU, and on a device with the run's tally): the counting
    // kernel on the CPU in float64, and per sample shape the weight of each input element (the
    // non-zero weights of every output that reads it, int64 on the CPU) and the dense count of
    // one sample (conv_sample()).
    torch::Tensor count_kernel_cpu;
    std::map<std::vector<int64_t>, std::pair<torch::Tensor, int64_t>> per_sample;
  };
  std::map<std::string, ConvCache, std::less<>> conv;
  const std::pair<torch::Tensor, int64_t>& conv_sample(ConvCache& cache, std::string_view op,
                                                       const detail::ConvolutionArgs& conv,
                                                       const torch::Tensor& w,
                                                       c10::IntArrayRef sample);

  Counts linear_counts(const ConnectionCall& call);
  Counts conv_counts(const ConnectionCall& call);
  Counts cell_counts(const ConnectionCall& call);
  void add_layer_counts(const ConnectionCall& call);
};

}  // namespace neurobench::metrics
