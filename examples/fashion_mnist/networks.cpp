// SPDX-License-Identifier: Apache-2.0
#include "fashion_mnist/networks.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <neurobench/errors.hpp>

namespace neurobench::examples::fashion_mnist {

namespace {

namespace F = torch::nn::functional;

// snnTorch's fast sigmoid surrogate: a Heaviside step forward; backward, the derivative of
// x / (1 + slope |x|), i.e. 1 / (1 + slope |x|)^2 (snntorch.surrogate.fast_sigmoid).
struct FastSigmoidSpike : torch::autograd::Function<FastSigmoidSpike> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               double slope) {
    ctx->save_for_backward({x});
    ctx->saved_data["slope"] = slope;
    return (x > 0).to(x.scalar_type());
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad) {
    const torch::Tensor x = ctx->get_saved_variables()[0];
    const double slope = ctx->saved_data["slope"].toDouble();
    return {grad[0] / (slope * x.abs() + 1.0).pow(2), torch::Tensor()};
  }
};

// One Leaky update, snnTorch 0.9 (reset_delay=True): the reset comes from the membrane before
// this step and carries no gradient. The op sequence matches kLeakySource exactly, so the
// eager network and the TorchScript module agree to the bit.
std::pair<torch::Tensor, torch::Tensor> leaky_step(const torch::Tensor& input,
                                                   const torch::Tensor& mem,
                                                   const torch::Tensor& beta,
                                                   const torch::Tensor& threshold,
                                                   const std::string& reset_mechanism,
                                                   bool surrogate, double slope) {
  const torch::Tensor reset = torch::gt(mem - threshold, 0).to(input.scalar_type()).detach();
  const torch::Tensor decay = torch::clamp(beta, 0, 1);
  torch::Tensor next;
  if (reset_mechanism == "subtract") {
    next = decay * mem + input - reset * threshold;
  } else if (reset_mechanism == "zero") {
    next = decay * ((1.0 - reset) * mem) + input;
  } else {
    next = decay * mem + input;
  }
  torch::Tensor spikes = surrogate ? FastSigmoidSpike::apply(next - threshold, slope)
                                   : torch::gt(next - threshold, 0).to(input.scalar_type());
  return {spikes, next};
}

// TorchScript sources of the building blocks. Attribute and method names follow torch.nn and
// snnTorch, so that neurobench (and anyone reading `model.code`) sees familiar modules.
constexpr const char* kConv2dSource = R"JIT(
def forward(self, input: Tensor) -> Tensor:
    return torch.conv2d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)
)JIT";

constexpr const char* kLinearSource = R"JIT(
def forward(self, input: Tensor) -> Tensor:
    return torch.linear(input, self.weight, self.bias)
)JIT";

constexpr const char* kReluSource = R"JIT(
def forward(self, input: Tensor) -> Tensor:
    return torch.relu(input)
)JIT";

// snnTorch 0.9 Leaky.forward with init_hidden=False, as TorchScript: state in `mem`, created
// as zeros shaped like the input whenever the shapes differ (the first step of a batch).
constexpr const char* kLeakySource = R"JIT(
def forward(self, input_: Tensor) -> Tuple[Tensor, Tensor]:
    if self.mem.size() != input_.size():
        self.mem = torch.zeros_like(input_)
    mem = self.mem
    reset = torch.gt(mem - self.threshold, 0).to(input_.dtype)
    decay = torch.clamp(self.beta, 0, 1)
    if self._reset_mechanism == "subtract":
        new_mem = decay * mem + input_ - reset * self.threshold
    elif self._reset_mechanism == "zero":
        new_mem = decay * ((1.0 - reset) * mem) + input_
    else:
        new_mem = decay * mem + input_
    self.mem = new_mem
    spk = torch.gt(new_mem - self.threshold, 0).to(input_.dtype)
    return spk, new_mem

def reset_mem(self) -> None:
    self.mem = torch.zeros_like(self.mem)
)JIT";

// forward gives classes, so that ClassificationAccuracy needs no post-processor (a network
// returning its logits would take the Argmax post-processor); logits gives the scores.
constexpr const char* kCnnSource = R"JIT(
def forward(self, x: Tensor) -> Tensor:
    x = torch.max_pool2d(self.relu1.forward(self.conv1.forward(x)), [2, 2])
    x = torch.max_pool2d(self.relu2.forward(self.conv2.forward(x)), [2, 2])
    x = torch.flatten(x, 1)
    x = self.relu3.forward(self.fc1.forward(x))
    return torch.argmax(self.fc2.forward(x), 1)

def logits(self, x: Tensor) -> Tensor:
    x = torch.max_pool2d(self.relu1.forward(self.conv1.forward(x)), [2, 2])
    x = torch.max_pool2d(self.relu2.forward(self.conv2.forward(x)), [2, 2])
    x = torch.flatten(x, 1)
    x = self.relu3.forward(self.fc1.forward(x))
    return self.fc2.forward(x)
)JIT";

// One timestep; input spikes may be stored as uint8 (4x smaller data files), hence the cast.
constexpr const char* kSnnSource = R"JIT(
def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]:
    x = x.float()
    spk1, mem1 = self.lif1.forward(self.fc1.forward(x))
    spk2, mem2 = self.lif2.forward(self.fc2.forward(spk1))
    return spk2, mem2

def reset(self) -> None:
    self.lif1.reset_mem()
    self.lif2.reset_mem()
)JIT";

// Builds modules whose classes are shared: every `Linear` is an instance of one `Linear` type,
// as in a scripted torch.nn model, all in one compilation unit.
class ScriptBuilder {
 public:
  using Members = std::function<void(torch::jit::Module&)>;

  torch::jit::Module make(const std::string& type_name, const Members& members,
                          const char* source) {
    const auto it = types_.find(type_name);
    if (it != types_.end()) {
      torch::jit::Module m(cu_, it->second);
      add_training(m);
      members(m);
      return m;
    }
    torch::jit::Module m(c10::QualifiedName("__torch__", type_name), cu_);
    add_training(m);
    members(m);
    m.define(source);
    types_.emplace(type_name, m.type());
    return m;
  }

 private:
  // Module::train()/eval() need a `training` attribute on every module.
  static void add_training(torch::jit::Module& m) {
    m.register_attribute("training", c10::BoolType::get(), false);
  }

  std::shared_ptr<torch::jit::CompilationUnit> cu_ =
      std::make_shared<torch::jit::CompilationUnit>();
  std::map<std::string, c10::ClassTypePtr> types_;
};

torch::Tensor copy_of(const torch::Tensor& t) { return t.detach().clone().contiguous(); }

torch::jit::Module script_linear(ScriptBuilder& b, const torch::nn::Linear& layer) {
  return b.make(
      "Linear",
      [&](torch::jit::Module& m) {
        m.register_parameter("weight", copy_of(layer->weight), false);
        m.register_parameter("bias", copy_of(layer->bias), false);
      },
      kLinearSource);
}

torch::jit::Module script_conv2d(ScriptBuilder& b, const torch::nn::Conv2d& layer) {
  const auto& o = layer->options;
  const auto pair = [](const torch::ExpandingArray<2>& a) {
    return c10::List<int64_t>({(*a)[0], (*a)[1]});
  };
  const auto* padding = c10::get_if<torch::ExpandingArray<2>>(&o.padding());
  if (padding == nullptr) throw UsageError("script_conv2d: only explicit padding is supported");
  return b.make(
      "Conv2d",
      [&](torch::jit::Module& m) {
        m.register_parameter("weight", copy_of(layer->weight), false);
        m.register_parameter("bias", copy_of(layer->bias), false);
        const auto ints = c10::ListType::ofInts();
        m.register_attribute("stride", ints, pair(o.stride()));
        m.register_attribute("padding", ints, pair(*padding));
        m.register_attribute("dilation", ints, pair(o.dilation()));
        m.register_attribute("groups", c10::IntType::get(), o.groups());
      },
      kConv2dSource);
}

torch::jit::Module script_relu(ScriptBuilder& b) {
  return b.make(
      "ReLU", [](torch::jit::Module&) {}, kReluSource);
}

torch::jit::Module script_leaky(ScriptBuilder& b, const SnnImpl& snn) {
  return b.make(
      "Leaky",
      [&](torch::jit::Module& m) {
        m.register_buffer("beta", copy_of(snn.beta));
        m.register_buffer("threshold", copy_of(snn.threshold));
        m.register_buffer("mem", torch::zeros({0}));
        m.register_attribute("_reset_mechanism", c10::StringType::get(),
                             snn.options.reset_mechanism);
      },
      kLeakySource);
}

}  // namespace

torch::Tensor rate_encode(const torch::Tensor& images, int64_t timesteps) {
  if (timesteps < 1) {
    throw UsageError(fmt::format("rate_encode: timesteps must be at least 1, got {}", timesteps));
  }
  if (images.dim() < 1 || images.numel() != images.size(0) * kPixels) {
    throw UsageError(fmt::format("rate_encode: expected (N, ...) images of {} pixels, got shape {}",
                                 kPixels, fmt::join(images.sizes(), "x")));
  }
  const int64_t n = images.size(0);
  const torch::Tensor flat = images.reshape({n, kPixels}).to(torch::kFloat32).contiguous();
  const float* src = flat.data_ptr<float>();
  torch::Tensor out = torch::empty({n, timesteps, kPixels}, torch::kUInt8);
  std::uint8_t* dst = out.data_ptr<std::uint8_t>();
  // Plain loops: tensor arithmetic on the whole set allocates (and page-faults) gigabytes of
  // int64 temporaries.
  std::vector<int64_t> bytes(kPixels);
  std::vector<int64_t> before(kPixels);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = 0; p < kPixels; ++p) {
      // The byte back from byte / 255 (exact after rounding); NaN counts as black.
      const float v = std::min(255.0F, std::max(0.0F, std::round(src[i * kPixels + p] * 255.0F)));
      bytes[p] = static_cast<int64_t>(v);
      before[p] = 0;  // floor(127 / 255): no spike before the first step
    }
    for (int64_t t = 1; t <= timesteps; ++t) {
      std::uint8_t* row = dst + (i * timesteps + t - 1) * kPixels;
      for (int64_t p = 0; p < kPixels; ++p) {
        const int64_t upto = (t * bytes[p] + 127) / 255;
        row[p] = static_cast<std::uint8_t>(upto - before[p]);
        before[p] = upto;
      }
    }
  }
  return out;
}

CnnImpl::CnnImpl()
    : conv1(register_module("conv1",
                            torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 16, 5).padding(2)))),
      conv2(register_module("conv2",
                            torch::nn::Conv2d(torch::nn::Conv2dOptions(16, 32, 3).padding(1)))),
      fc1(register_module("fc1", torch::nn::Linear(32 * 7 * 7, 128))),
      fc2(register_module("fc2", torch::nn::Linear(128, kClasses))) {}

torch::Tensor CnnImpl::forward(const torch::Tensor& input) {
  torch::Tensor x = torch::max_pool2d(torch::relu(conv1(input)), {2, 2});
  x = torch::max_pool2d(torch::relu(conv2(x)), {2, 2});
  x = torch::flatten(x, 1);
  x = torch::relu(fc1(x));
  if (is_training()) x = torch::dropout(x, 0.25, true);
  return fc2(x);
}

SnnImpl::SnnImpl(SnnOptions o)
    : options(std::move(o)),
      fc1(register_module("fc1", torch::nn::Linear(kPixels, options.hidden))),
      fc2(register_module("fc2", torch::nn::Linear(options.hidden, kClasses))),
      beta(register_buffer("beta", torch::tensor(static_cast<float>(options.beta)))),
      threshold(
          register_buffer("threshold", torch::tensor(static_cast<float>(options.threshold)))) {
  if (options.reset_mechanism != "subtract" && options.reset_mechanism != "zero") {
    throw UsageError(
        fmt::format("SnnOptions.reset_mechanism must be 'subtract' or 'zero', got '{}'",
                    options.reset_mechanism));
  }
}

torch::Tensor SnnImpl::forward(const torch::Tensor& spikes) {
  const int64_t batch = spikes.size(0);
  const int64_t steps = spikes.size(1);
  const torch::Tensor x = spikes.to(torch::kFloat32).reshape({batch * steps, kPixels});
  // The input layer sees every timestep at once: one large product instead of T small ones.
  const torch::Tensor current = fc1(x).reshape({batch, steps, options.hidden});
  torch::Tensor mem1 = torch::zeros({batch, options.hidden});
  torch::Tensor mem2 = torch::zeros({batch, kClasses});
  torch::Tensor counts = torch::zeros({batch, kClasses});
  for (int64_t t = 0; t < steps; ++t) {
    torch::Tensor spk1;
    torch::Tensor spk2;
    std::tie(spk1, mem1) = leaky_step(current.select(1, t), mem1, beta, threshold,
                                      options.reset_mechanism, true, options.slope);
    std::tie(spk2, mem2) =
        leaky_step(fc2(spk1), mem2, beta, threshold, options.reset_mechanism, true, options.slope);
    counts = counts + spk2;
  }
  return counts;
}

torch::Tensor SnnImpl::run_stepwise(const torch::Tensor& spikes) {
  const int64_t batch = spikes.size(0);
  const int64_t steps = spikes.size(1);
  torch::Tensor mem1 = torch::zeros({batch, options.hidden});
  torch::Tensor mem2 = torch::zeros({batch, kClasses});
  std::vector<torch::Tensor> out;
  out.reserve(static_cast<std::size_t>(steps));
  for (int64_t t = 0; t < steps; ++t) {
    const torch::Tensor x = spikes.select(1, t).to(torch::kFloat32);
    torch::Tensor spk1;
    torch::Tensor spk2;
    std::tie(spk1, mem1) =
        leaky_step(fc1(x), mem1, beta, threshold, options.reset_mechanism, false, options.slope);
    std::tie(spk2, mem2) =
        leaky_step(fc2(spk1), mem2, beta, threshold, options.reset_mechanism, false, options.slope);
    out.push_back(spk2);
  }
  return torch::stack(out, 1);
}

torch::jit::Module to_torchscript(Cnn& cnn) {
  ScriptBuilder b;
  return b.make(
      "FashionCnn",
      [&](torch::jit::Module& m) {
        m.register_module("conv1", script_conv2d(b, cnn->conv1));
        m.register_module("relu1", script_relu(b));
        m.register_module("conv2", script_conv2d(b, cnn->conv2));
        m.register_module("relu2", script_relu(b));
        m.register_module("fc1", script_linear(b, cnn->fc1));
        m.register_module("relu3", script_relu(b));
        m.register_module("fc2", script_linear(b, cnn->fc2));
      },
      kCnnSource);
}

torch::jit::Module to_torchscript(Snn& snn) {
  ScriptBuilder b;
  return b.make(
      "FashionSnn",
      [&](torch::jit::Module& m) {
        m.register_module("fc1", script_linear(b, snn->fc1));
        m.register_module("lif1", script_leaky(b, *snn));
        m.register_module("fc2", script_linear(b, snn->fc2));
        m.register_module("lif2", script_leaky(b, *snn));
        m.register_attribute("timesteps", c10::IntType::get(), snn->options.timesteps);
      },
      kSnnSource);
}

void TrainOptions::validate() const {
  const auto bad = [](const char* field, auto value, const char* expected) {
    return UsageError(fmt::format("TrainOptions.{} must be {}, got {}", field, expected, value));
  };
  if (epochs < 1) throw bad("epochs", epochs, "at least 1");
  if (batch_size < 1) throw bad("batch_size", batch_size, "at least 1");
  if (!(learning_rate > 0.0) || !std::isfinite(learning_rate)) {
    throw bad("learning_rate", learning_rate, "a positive number");
  }
  if (max_batches < 0) throw bad("max_batches", max_batches, "0 (no limit) or more");
}

namespace {

// Adam on cross-entropy, shuffled batches, the learning rate decayed along a half cosine from
// one epoch to the next (the last epoch still learns: the rate never reaches zero).
template <class Net, class Logits>
TrainLog fit(Net& net, const TensorDataset& data, const TrainOptions& options, Logits logits) {
  options.validate();
  const auto start = std::chrono::steady_clock::now();
  net->train();
  torch::optim::Adam optimizer(net->parameters(), torch::optim::AdamOptions(options.learning_rate));
  const int64_t n = data.size();
  if (n == 0) throw InputError(fmt::format("{}: no training samples", data.describe()));
  TrainLog log;
  for (int64_t epoch = 0; epoch < options.epochs; ++epoch) {
    const auto epoch_start = std::chrono::steady_clock::now();
    const double lr =
        options.learning_rate * 0.5 *
        (1.0 + std::cos(M_PI * static_cast<double>(epoch) / static_cast<double>(options.epochs)));
    for (auto& group : optimizer.param_groups()) {
      static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
    }
    const torch::Tensor order = torch::randperm(n, torch::kInt64);
    double sum = 0;
    int64_t batches = 0;
    for (int64_t begin = 0; begin < n; begin += options.batch_size) {
      if (options.max_batches > 0 && batches >= options.max_batches) break;
      const torch::Tensor idx = order.slice(0, begin, std::min(n, begin + options.batch_size));
      const torch::Tensor x = data.data().index_select(0, idx);
      const torch::Tensor y = data.targets().index_select(0, idx);
      optimizer.zero_grad();
      const torch::Tensor loss = F::cross_entropy(logits(x), y);
      loss.backward();
      optimizer.step();
      const double value = loss.template item<double>();
      log.batch_losses.push_back(value);
      sum += value;
      ++batches;
    }
    const double mean = sum / static_cast<double>(std::max<int64_t>(batches, 1));
    log.epoch_losses.push_back(mean);
    if (options.on_epoch) {
      options.on_epoch(
          epoch + 1, mean,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_start).count());
    }
  }
  net->eval();
  log.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return log;
}

}  // namespace

TrainLog train(Cnn& cnn, const TensorDataset& data, const TrainOptions& options) {
  return fit(cnn, data, options, [&](const torch::Tensor& x) { return cnn->forward(x); });
}

TrainLog train(Snn& snn, const TensorDataset& data, const TrainOptions& options) {
  // Spike counts as logits: softmax cross-entropy on the counts (snnTorch's ce_count_loss).
  const int64_t steps = snn->options.timesteps;
  return fit(snn, data, options,
             [&](const torch::Tensor& x) { return snn->forward(rate_encode(x, steps)); });
}

torch::Tensor predict(Cnn& cnn, const torch::Tensor& images, int64_t batch_size) {
  torch::NoGradGuard no_grad;
  cnn->eval();
  std::vector<torch::Tensor> parts;
  for (int64_t begin = 0; begin < images.size(0); begin += batch_size) {
    parts.push_back(cnn->forward(images.slice(0, begin, begin + batch_size)).argmax(1));
  }
  return torch::cat(parts);
}

torch::Tensor output_spikes(Snn& snn, const torch::Tensor& spikes, int64_t batch_size) {
  torch::NoGradGuard no_grad;
  snn->eval();
  std::vector<torch::Tensor> parts;
  for (int64_t begin = 0; begin < spikes.size(0); begin += batch_size) {
    parts.push_back(snn->run_stepwise(spikes.slice(0, begin, begin + batch_size)));
  }
  return torch::cat(parts);
}

// LibTorch sets its own thread pool; OpenBLAS (Debian's usual BLAS) keeps another one, which
// the linear layers' products use: limit it too when it is the loaded BLAS.
void set_threads(int threads) {
  torch::set_num_threads(threads);
  using SetThreads = void (*)(int);
  if (void* symbol = dlsym(RTLD_DEFAULT, "openblas_set_num_threads")) {
    reinterpret_cast<SetThreads>(symbol)(threads);
  }
}

}  // namespace neurobench::examples::fashion_mnist
