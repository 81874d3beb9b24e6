// SPDX-License-Identifier: Apache-2.0
// The processes of a sharded run: a c10d TCPStore held by rank 0 for the rendezvous and for
// saying which ranks reached each exchange, and a Gloo process group for the exchanges. The only
// file that includes c10d's headers (they need Gloo's, from Debian's libgloo-dev).
#include <neurobench/distributed.hpp>

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <neurobench/stop.hpp>

namespace neurobench {

namespace {

using Clock = std::chrono::steady_clock;

// The message without LibTorch's C++ backtrace (c10d's errors are c10::Error; Gloo's are not).
std::string what_of(const std::exception& e) {
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) return c10->what_without_backtrace();
  return e.what();
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return (ranks.size() == 1 ? "rank " : "ranks ") + out;
}

double seconds(std::chrono::milliseconds t) { return static_cast<double>(t.count()) / 1000.0; }

std::string joined_key(int rank) { return fmt::format("joined/{}", rank); }

}  // namespace

struct ProcessGroup::Impl {
  RankInfo info;
  DistributedOptions options;
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;

  std::string where() const {
    return fmt::format("the rendezvous store at {}:{} ({})", info.master_addr, info.master_port,
                       info.launcher_holds_store ? "held by the launcher" : "held by rank 0");
  }

  // The ranks without `key(r)` in the store; throws DistributedError when the store is gone.
  std::vector<int> missing(const std::function<std::string(int)>& key) {
    std::vector<int> out;
    for (int r = 0; r < info.world_size; ++r) {
      if (!store->check({key(r)})) out.push_back(r);
    }
    return out;
  }

  // Until the store's port accepts connections (or the timeout): c10d's client waits a second
  // between its own attempts, which a rank started before rank 0 would pay at every run.
  void await_store_port() const {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const std::string port = std::to_string(info.master_port);
    if (::getaddrinfo(info.master_addr.c_str(), port.c_str(), &hints, &found) != 0) return;
    const auto start = Clock::now();
    for (bool open = false; !open && Clock::now() - start < options.timeout;) {
      for (addrinfo* a = found; a != nullptr && !open; a = a->ai_next) {
        const int s = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (s < 0) continue;
        open = ::connect(s, a->ai_addr, a->ai_addrlen) == 0;
        ::close(s);
      }
      if (!open) {
        throw_if_stop_requested("while waiting for the rendezvous store");
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    ::freeaddrinfo(found);
  }

  void connect_store() {
    c10d::TCPStoreOptions o;
    o.port = static_cast<std::uint16_t>(info.master_port);
    o.isServer = info.rank == 0 && !info.launcher_holds_store;
    o.numWorkers = info.world_size;
    o.waitWorkers = false;  // the ranks are awaited below, to say which did not come
    o.timeout = options.timeout;
    try {
      if (!o.isServer) await_store_port();
      auto tcp = c10::make_intrusive<c10d::TCPStore>(info.master_addr, o);
      store = c10::make_intrusive<c10d::PrefixStore>(
          fmt::format("neurobench/attempt_{}", info.attempt), tcp);
    } catch (const std::exception& e) {
      throw DistributedError(fmt::format("rank {}: cannot {} {} within {:g} s: {}", info.rank,
                                         info.rank == 0 ? "open" : "reach", where(),
                                         seconds(options.timeout), what_of(e)));
    }
  }

  // Every rank says it is here and where it runs, then waits for the others.
  void await_ranks() {
    store->set(joined_key(info.rank), std::vector<uint8_t>(1, 1));
    store->add("joined", 1);
    const auto start = Clock::now();
    while (store->add("joined", 0) < info.world_size) {
      throw_if_stop_requested("while waiting for the other ranks to join");
      if (Clock::now() - start > options.timeout) {
        const std::vector<int> absent = missing(joined_key);
        throw DistributedError(fmt::format(
            "rank {}: {} of {} processes joined {} within {:g} s; {} did not (not started, or "
            "started with other MASTER_ADDR, MASTER_PORT or WORLD_SIZE)",
            info.rank, info.world_size - static_cast<int>(absent.size()), info.world_size, where(),
            seconds(options.timeout), rank_list(absent)));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  void create_group() {
    auto o = c10d::ProcessGroupGloo::Options::create(options.timeout);
    // GLOO_SOCKET_IFNAME picks the network interface, as it does for PyTorch.
    const char* interface = std::getenv("GLOO_SOCKET_IFNAME");
    if (interface != nullptr && *interface != '\0') {
      o->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
    } else {
      o->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    }
    o->threads = 1;
    auto prefixed = c10::make_intrusive<c10d::PrefixStore>("gloo", store);
    group = c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, info.rank, info.world_size, o);
  }

  void all_gather(std::vector<at::Tensor>& out, at::Tensor in) {
    std::vector<std::vector<at::Tensor>> outputs{out};
    std::vector<at::Tensor> inputs{std::move(in)};
    auto work = group->allgather(outputs, inputs);
    work->wait(options.timeout);
    out = outputs[0];
  }
};

ProcessGroup::ProcessGroup(const RankInfo& info, const DistributedOptions& options)
    : impl_(new Impl{info, options, {}, {}}) {
  if (info.world_size < 1 || info.rank < 0 || info.rank >= info.world_size) {
    throw UsageError(
        fmt::format("ProcessGroup: rank {} of {} processes", info.rank, info.world_size));
  }
  impl_->connect_store();
  try {
    impl_->await_ranks();
    impl_->create_group();
  } catch (const DistributedError&) {
    throw;
  } catch (const std::exception& e) {
    throw DistributedError(fmt::format("rank {}: connecting the {} processes through {} failed: {}",
                                       info.rank, info.world_size, impl_->where(), what_of(e)));
  }
}

ProcessGroup::~ProcessGroup() = default;

const RankInfo& ProcessGroup::info() const { return impl_->info; }

std::vector<std::string> ProcessGroup::all_gather(const std::string& bytes,
                                                  const std::string& stage) {
  Impl& s = *impl_;
  const int n = s.info.world_size;
  const auto reached = [&](int r) { return fmt::format("reached/{}/{}", stage, r); };
  // Gloo writes the gathered tensors from its own threads, outside any inference mode of the
  // caller's (a run on the lazy device is in one): they must be normal tensors.
  const c10::InferenceMode normal_tensors(/*enabled=*/false);
  try {
    s.store->set(reached(s.info.rank), std::vector<uint8_t>(1, 1));
    std::vector<at::Tensor> sizes;
    for (int r = 0; r < n; ++r) sizes.push_back(at::empty({1}, at::kLong));
    s.all_gather(sizes, at::full({1}, static_cast<int64_t>(bytes.size()), at::kLong));
    int64_t longest = 0;
    for (const auto& t : sizes) longest = std::max(longest, t.item<int64_t>());
    at::Tensor mine = at::zeros({std::max<int64_t>(longest, 1)}, at::kByte);
    std::memcpy(mine.data_ptr<uint8_t>(), bytes.data(), bytes.size());
    std::vector<at::Tensor> all;
    for (int r = 0; r < n; ++r) all.push_back(at::empty_like(mine));
    s.all_gather(all, mine);
    std::vector<std::string> out;
    for (int r = 0; r < n; ++r) {
      const auto size = static_cast<std::size_t>(sizes[r].item<int64_t>());
      out.emplace_back(reinterpret_cast<const char*>(all[r].data_ptr<uint8_t>()), size);
    }
    return out;
  } catch (const std::exception& e) {
    std::string who;
    try {
      const std::vector<int> absent = s.missing(reached);
      const std::string said = what_of(e);
      const bool closed = said.find("Connection closed") != std::string::npos ||
                          said.find("Connection reset") != std::string::npos;
      who = absent.empty() ? "every rank reached it"
                           : fmt::format("{} did not reach it ({})", rank_list(absent),
                                         closed ? "it died: its connection closed"
                                                : fmt::format("hung, or still busy after {:g} s",
                                                              seconds(s.options.timeout)));
    } catch (const std::exception&) {
      who = fmt::format("{} is gone", s.where());
    }
    throw DistributedError(fmt::format("rank {}: the exchange '{}' of {} processes failed: {}; {}",
                                       s.info.rank, stage, n, who, what_of(e)));
  }
}

}  // namespace neurobench
