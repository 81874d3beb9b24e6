// SPDX-License-Identifier: Apache-2.0
// The processes of a sharded run: a c10d TCPStore held by rank 0 for the rendezvous and for
// saying which ranks reached each exchange, and a Gloo process group for the exchanges. The only
// file that includes c10d's headers (they need Gloo's, from Debian's libgloo-dev).
//
// c10d's TCPStore client (LibTorch 1.13) trusts its peer: it waits for an answer with no timeout
// (add, check, get before its first wait), retries a receive that a signal interrupts, and reads
// a length from the peer and allocates it, on a thread of its own for the callback connection
// (std::bad_alloc there aborts the process). So every rank first checks, with a request of its
// own and its own timeout, that the address is a c10d store that answers; and every call that
// may wait on the store or the other ranks runs on a helper thread, watched by the calling thread
// for the deadline and for a stop request (bounded() below).
#include <neurobench/distributed.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <random>
#include <set>
#include <thread>

#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <neurobench/stop.hpp>

namespace neurobench {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How often a waiting rank looks for a stop request and its deadline.
constexpr milliseconds kPoll(20);
// How long a call given up on may take to end once its connection is shut down.
constexpr milliseconds kGrace(1000);
// An error names this many ranks at most, and counts the others.
constexpr std::size_t kNamedRanks = 8;
// How long a failing rank looks for the ranks to name (one request to the store per rank).
constexpr milliseconds kScanTime(1000);
// c10d's query types (torch/csrc/distributed/c10d/TCPStore.cpp, LibTorch 1.13).
constexpr std::uint8_t kQueryAdd = 3;

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

// `count` ranks of which `named` are known, in few words however many: "rank 1", "ranks 1, 2",
// "999999 ranks (1, 2, ..., 8 and 999991 more)".
std::string ranks_phrase(std::int64_t count, const std::vector<int>& named) {
  if (count == static_cast<std::int64_t>(named.size()) && count > 0) return rank_list(named);
  if (named.empty()) return count == 1 ? "1 rank" : fmt::format("{} ranks", count);
  std::string some;
  for (int r : named) some += std::to_string(r) + ", ";
  some.resize(some.size() - 2);
  return fmt::format("{} ranks ({} and {} more)", count, some,
                     count - static_cast<std::int64_t>(named.size()));
}

double seconds(milliseconds t) { return static_cast<double>(t.count()) / 1000.0; }

std::string joined_key(int rank) { return fmt::format("joined/{}", rank); }

// Up to kNamedRanks of the ranks without `key(r)` in the store, in rank order, looked for for
// kScanTime at most: a world of a million ranks is not listed one request at a time.
std::vector<int> scan_missing(c10d::Store& store, int world_size,
                              const std::function<std::string(int)>& key) {
  std::vector<int> out;
  const auto end = Clock::now() + kScanTime;
  for (int r = 0; r < world_size && out.size() < kNamedRanks && Clock::now() < end; ++r) {
    if (!store.check({key(r)})) out.push_back(r);
  }
  return out;
}

// The file descriptors open in this process (empty where /proc is not mounted).
std::set<int> open_descriptors() {
  std::set<int> out;
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return out;
  const int own = ::dirfd(dir);
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0' && fd != own) out.insert(static_cast<int>(fd));
  }
  ::closedir(dir);
  return out;
}

// The sockets opened since `before` that are connected to `port`: a TCPStore's connections to
// its server (c10d does not expose them). Shutting them down ends a receive blocked on them.
std::vector<int> sockets_to(const std::set<int>& before, int port) {
  std::vector<int> out;
  for (int fd : open_descriptors()) {
    struct stat s {};
    if (before.count(fd) != 0 || ::fstat(fd, &s) != 0 || !S_ISSOCK(s.st_mode)) continue;
    sockaddr_storage peer{};
    socklen_t length = sizeof peer;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &length) != 0) continue;
    int peer_port = -1;
    if (peer.ss_family == AF_INET) {
      peer_port = ntohs(reinterpret_cast<const sockaddr_in*>(&peer)->sin_port);
    } else if (peer.ss_family == AF_INET6) {
      peer_port = ntohs(reinterpret_cast<const sockaddr_in6*>(&peer)->sin6_port);
    }
    if (peer_port == port) out.push_back(fd);
  }
  return out;
}

// Bytes as a message shows them: printable ASCII as it is, the rest as \xNN.
std::string shown(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    out += c >= 0x20 && c < 0x7f && c != '\'' && c != '\\' ? std::string(1, static_cast<char>(c))
                                                           : fmt::format("\\x{:02x}", c);
  }
  return out;
}

// A connected socket whose descriptor is closed at the end of its scope.
struct Connection {
  int fd = -1;
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  ~Connection() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

struct ProcessGroup::Impl {
  RankInfo info;
  DistributedOptions options;
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
  std::vector<int> store_sockets;  // the TCPStore's connections, shut down when given up on
  std::string broken;              // why the store's connections were shut down

  enum class Unblock { Store, Nothing };

  std::string address() const { return fmt::format("{}:{}", info.master_addr, info.master_port); }

  std::string where() const {
    return fmt::format("the rendezvous store at {} ({})", address(),
                       info.launcher_holds_store ? "held by the launcher" : "held by rank 0");
  }

  // A deadline at `deadline`, but not sooner than a store that answers needs.
  Clock::time_point at_least_soon(Clock::time_point deadline) const {
    return std::max(deadline, Clock::now() + std::min<milliseconds>(options.timeout, kGrace * 2));
  }

  std::string silent_store(const std::string& doing) const {
    return fmt::format(
        "rank {}: {} did not answer within {:g} s while {} (its process is stopped or hung, or "
        "the network to it is down)",
        info.rank, where(), seconds(options.timeout), doing);
  }

  // Runs `op` on a thread of its own and waits for it until `deadline`, looking for a stop
  // request every kPoll when `stoppable`: a signal does not end a receive c10d blocks in, and
  // c10d's own timeouts do not cover every receive. On a stop request (Interrupted, "while
  // DOING") or at the deadline (DistributedError `late`), it gives the call up: with
  // Unblock::Store it shuts the store's connections down, which ends a receive blocked on them,
  // and the process group is unusable after that. `op` must hold what it uses (no `this`): a
  // call given up on may end after the ProcessGroup.
  template <class Op>
  auto bounded(const std::string& doing, const std::string& late, Clock::time_point deadline,
               Unblock unblock, bool stoppable, Op op) -> decltype(op()) {
    using T = decltype(op());
    if (!broken.empty()) throw DistributedError(broken);
    std::packaged_task<T()> task(std::move(op));
    std::future<T> result = task.get_future();
    std::thread worker(std::move(task));
    for (;;) {
      if (result.wait_for(kPoll) == std::future_status::ready) {
        worker.join();
        return result.get();
      }
      const bool stop = stoppable && stop_requested();
      if (!stop && Clock::now() < deadline) continue;
      if (unblock == Unblock::Store) {
        for (int fd : store_sockets) ::shutdown(fd, SHUT_RDWR);
        broken = fmt::format("rank {}: the connection to {} was closed after an earlier error",
                             info.rank, where());
      }
      // A call on the store ends once its connections are shut down; Gloo's, at its timeout.
      if (unblock == Unblock::Store && result.wait_for(kGrace) == std::future_status::ready) {
        worker.join();
      } else {
        worker.detach();  // it holds what it uses, and ends with its call or the process
      }
      if (stop) throw_if_stop_requested("while " + doing);
      throw DistributedError(late);
    }
  }

  // Checks that MASTER_ADDR:MASTER_PORT is a c10d store that answers, before c10d's client talks
  // to it: connects (waiting for the port to open, as a rank started before rank 0 must), asks
  // the store to add a random number to a key of its own, and expects that number back. Throws
  // DistributedError naming the address when nothing listens there by `deadline`, when what
  // listens does not answer by then, or answers what a store would not.
  void probe_store(Clock::time_point deadline) {
    const std::string host = info.master_addr;
    const std::string port = std::to_string(info.master_port);
    const std::string verb = info.rank == 0 && !info.launcher_holds_store ? "open" : "reach";
    const std::string why = fmt::format("rank {}: cannot {} {} within {:g} s", info.rank, verb,
                                        where(), seconds(options.timeout));
    // The system's resolver may wait for its own timeouts: on the helper thread.
    using Addresses = std::shared_ptr<addrinfo>;
    const auto [addresses, error] =
        bounded("looking up MASTER_ADDR",
                fmt::format("{}: looking up MASTER_ADDR '{}' took longer", why, host), deadline,
                Unblock::Nothing, true, [host, port, deadline] {
                  addrinfo hints{};
                  hints.ai_family = AF_UNSPEC;
                  hints.ai_socktype = SOCK_STREAM;
                  for (;;) {
                    addrinfo* found = nullptr;
                    const int error = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
                    if (error == 0) return std::make_pair(Addresses(found, ::freeaddrinfo), 0);
                    if (error != EAI_AGAIN || Clock::now() >= deadline) {
                      return std::make_pair(Addresses(), error);
                    }
                    std::this_thread::sleep_for(kPoll);
                  }
                });
    if (addresses == nullptr) {
      throw DistributedError(
          fmt::format("{}: MASTER_ADDR '{}': {}", why, host, ::gai_strerror(error)));
    }
    Connection c;
    std::string refused = "nothing listens there";
    while (c.fd < 0) {
      for (const addrinfo* a = addresses.get(); a != nullptr && c.fd < 0; a = a->ai_next) {
        Connection s;
        s.fd =
            ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
        if (s.fd < 0) continue;
        int error = ::connect(s.fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
        // A connection under way (a distant host, or one that drops the packets) is awaited
        // here, a slice at a time, rather than for the system's minutes.
        while (error == EINPROGRESS || error == EINTR) {
          pollfd p{s.fd, POLLOUT, 0};
          if (::poll(&p, 1, static_cast<int>(kPoll.count())) > 0) {
            socklen_t length = sizeof error;
            if (::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
            break;
          }
          throw_if_stop_requested("while connecting to the rendezvous store");
          if (Clock::now() >= deadline) error = ETIMEDOUT;
        }
        if (error == 0) {
          std::swap(c.fd, s.fd);
        } else {
          refused = std::strerror(error);
        }
      }
      if (c.fd >= 0) break;
      if (Clock::now() >= deadline) {
        throw DistributedError(
            fmt::format("{}: {} (is rank 0 started, and are MASTER_ADDR and MASTER_PORT right?)",
                        why, refused));
      }
      throw_if_stop_requested("while waiting for the rendezvous store");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }

    // ADD: type, key (8-byte length, bytes), delta (8 bytes); the answer: the new value.
    std::random_device random;
    const std::int64_t delta =
        (static_cast<std::int64_t>(random() & 0x7fffffffU) << 31) ^ random() ^ 0x5eed;
    const std::string key =
        fmt::format("/neurobench/probe/{}/{:x}", info.rank, static_cast<std::uint32_t>(random()));
    std::string query(1, static_cast<char>(kQueryAdd));
    const std::uint64_t length = key.size();
    query.append(reinterpret_cast<const char*>(&length), sizeof length);
    query += key;
    query.append(reinterpret_cast<const char*>(&delta), sizeof delta);
    if (::send(c.fd, query.data(), query.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(query.size())) {
      throw DistributedError(
          fmt::format("{}: sending to it failed: {}", why, std::strerror(errno)));
    }
    std::string answer;
    const auto not_a_store = [&](const std::string& what) {
      return DistributedError(fmt::format(
          "rank {}: {} (MASTER_ADDR:MASTER_PORT) is not a c10d rendezvous store: {} (is "
          "MASTER_PORT the store's port?)",
          info.rank, address(), what));
    };
    while (answer.size() < sizeof delta) {
      pollfd p{c.fd, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(kPoll.count())) > 0) {
        char buffer[64];
        const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
        if (n > 0) {
          answer.append(buffer, static_cast<std::size_t>(n));
          continue;
        }
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        throw not_a_store(answer.empty() ? "it closed the connection without answering"
                                         : fmt::format("it answered '{}' and closed the connection",
                                                       shown(answer)));
      }
      throw_if_stop_requested("while waiting for the rendezvous store's answer");
      if (Clock::now() >= deadline) {
        throw DistributedError(fmt::format(
            "rank {}: {} accepted the connection but did not answer within {:g} s (its process "
            "is stopped or hung, or MASTER_PORT is the port of a server of another kind)",
            info.rank, where(), seconds(options.timeout)));
      }
    }
    std::int64_t back = 0;
    std::memcpy(&back, answer.data(), sizeof back);
    if (answer.size() != sizeof delta || back != delta) {
      throw not_a_store(
          fmt::format("it answered a store's request with '{}'", shown(answer.substr(0, 16))));
    }
  }

  void connect_store(Clock::time_point deadline) {
    c10d::TCPStoreOptions o;
    o.port = static_cast<std::uint16_t>(info.master_port);
    o.isServer = info.rank == 0 && !info.launcher_holds_store;
    o.numWorkers = info.world_size;
    o.waitWorkers = false;  // the ranks are awaited below, to say which did not come
    o.timeout = options.timeout;
    const std::string verb = o.isServer ? "open" : "reach";
    try {
      // Rank 0 checks its own store after opening it: MASTER_ADDR may lead elsewhere.
      if (!o.isServer) probe_store(deadline);
      const std::string host = info.master_addr;
      const auto [tcp, sockets] =
          bounded("connecting to the rendezvous store", silent_store("connecting to it"),
                  at_least_soon(deadline), Unblock::Nothing, true, [host, o] {
                    const std::set<int> before = open_descriptors();
                    auto made = c10::make_intrusive<c10d::TCPStore>(host, o);
                    return std::make_pair(made, sockets_to(before, o.port));
                  });
      store_sockets = sockets;
      store = c10::make_intrusive<c10d::PrefixStore>(
          fmt::format("neurobench/attempt_{}", info.attempt), tcp);
      if (o.isServer) probe_store(at_least_soon(deadline));
    } catch (const DistributedError&) {
      throw;
    } catch (const Interrupted&) {
      throw;
    } catch (const std::exception& e) {
      throw DistributedError(fmt::format("rank {}: cannot {} {} within {:g} s: {}", info.rank, verb,
                                         where(), seconds(options.timeout), what_of(e)));
    }
  }

  // Every rank says it is here, then waits for the others.
  void await_ranks(Clock::time_point deadline) {
    auto s = store;
    const int me = info.rank;
    bounded("joining the other ranks", silent_store("this rank joined"), at_least_soon(deadline),
            Unblock::Store, true, [s, me] {
              s->set(joined_key(me), std::vector<uint8_t>(1, 1));
              s->add("joined", 1);
            });
    for (;;) {
      const std::int64_t joined = bounded(
          "waiting for the other ranks to join", silent_store("counting the ranks that joined"),
          at_least_soon(deadline), Unblock::Store, true, [s] { return s->add("joined", 0); });
      if (joined >= info.world_size) return;
      throw_if_stop_requested("while waiting for the other ranks to join");
      if (Clock::now() > deadline) {
        const int n = info.world_size;
        const std::vector<int> absent =
            bounded("naming the ranks that did not join",
                    silent_store("naming the ranks that did not join"),
                    Clock::now() + kScanTime + kGrace * 2, Unblock::Store, true,
                    [s, n] { return scan_missing(*s, n, joined_key); });
        throw DistributedError(fmt::format(
            "rank {}: {} of {} processes joined {} within {:g} s; {} did not (not started, or "
            "started with other MASTER_ADDR, MASTER_PORT or WORLD_SIZE)",
            info.rank, joined, info.world_size, where(), seconds(options.timeout),
            ranks_phrase(info.world_size - joined, absent)));
      }
      std::this_thread::sleep_for(kPoll);
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
    const int rank = info.rank;
    const int n = info.world_size;
    // Gloo's own timeout ends its rendezvous first; this deadline is for a store that went quiet.
    group = bounded(
        "connecting the ranks through Gloo", silent_store("the ranks connected through Gloo"),
        Clock::now() + options.timeout + kGrace * 2, Unblock::Store, true, [prefixed, rank, n, o] {
          return c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, rank, n, o);
        });
  }
};

namespace {

// One Gloo all-gather of `in` into `out` (as many tensors as ranks).
void gloo_all_gather(c10d::ProcessGroupGloo& group, std::vector<at::Tensor>& out, at::Tensor in,
                     milliseconds timeout) {
  std::vector<std::vector<at::Tensor>> outputs{out};
  std::vector<at::Tensor> inputs{std::move(in)};
  auto work = group.allgather(outputs, inputs);
  work->wait(timeout);
  out = outputs[0];
}

// Every rank's bytes, in rank order: their sizes, then the bytes padded to the longest.
std::vector<std::string> gather_bytes(c10d::ProcessGroupGloo& group, const std::string& bytes,
                                      int n, milliseconds timeout) {
  // Gloo writes the gathered tensors from its own threads, outside any inference mode of the
  // caller's (a run on the lazy device is in one): they must be normal tensors.
  const c10::InferenceMode normal_tensors(/*enabled=*/false);
  std::vector<at::Tensor> sizes;
  for (int r = 0; r < n; ++r) sizes.push_back(at::empty({1}, at::kLong));
  gloo_all_gather(group, sizes, at::full({1}, static_cast<int64_t>(bytes.size()), at::kLong),
                  timeout);
  int64_t longest = 0;
  for (const auto& t : sizes) longest = std::max(longest, t.item<int64_t>());
  at::Tensor mine = at::zeros({std::max<int64_t>(longest, 1)}, at::kByte);
  std::memcpy(mine.data_ptr<uint8_t>(), bytes.data(), bytes.size());
  std::vector<at::Tensor> all;
  for (int r = 0; r < n; ++r) all.push_back(at::empty_like(mine));
  gloo_all_gather(group, all, mine, timeout);
  std::vector<std::string> out;
  for (int r = 0; r < n; ++r) {
    const auto size = static_cast<std::size_t>(sizes[r].item<int64_t>());
    out.emplace_back(reinterpret_cast<const char*>(all[r].data_ptr<uint8_t>()), size);
  }
  return out;
}

}  // namespace

ProcessGroup::ProcessGroup(const RankInfo& info, const DistributedOptions& options)
    : impl_(new Impl{info, options, {}, {}, {}, {}}) {
  if (info.world_size < 1 || info.rank < 0 || info.rank >= info.world_size) {
    throw UsageError(
        fmt::format("ProcessGroup: rank {} of {} processes", info.rank, info.world_size));
  }
  const auto deadline = Clock::now() + options.timeout;
  impl_->connect_store(deadline);
  try {
    impl_->await_ranks(deadline);
    impl_->create_group();
  } catch (const DistributedError&) {
    throw;
  } catch (const Interrupted&) {
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
  const int me = s.info.rank;
  const milliseconds timeout = s.options.timeout;
  const auto reached = [stage](int r) { return fmt::format("reached/{}/{}", stage, r); };
  const std::string counter = fmt::format("reached/{}", stage);
  // A rank stopped before the exchange (Ctrl-C to every rank) still takes part in it, to say so
  // to the others: only a stop requested during the wait ends it (a second signal ends the
  // process).
  const bool stoppable = !stop_requested();
  auto store = s.store;
  auto group = s.group;
  try {
    s.bounded(fmt::format("at the exchange '{}'", stage),
              s.silent_store(fmt::format("this rank reached the exchange '{}'", stage)),
              Clock::now() + timeout, Impl::Unblock::Store, stoppable,
              [store, reached, counter, me] {
                store->set(reached(me), std::vector<uint8_t>(1, 1));
                store->add(counter, 1);
              });
    // Gloo's timeout ends each all-gather first; this deadline is a backstop.
    return s.bounded(
        fmt::format("waiting for the other ranks at the exchange '{}'", stage),
        fmt::format("rank {}: the exchange '{}' of {} processes did not end within "
                    "{:g} s",
                    me, stage, n, seconds(timeout * 2 + kGrace * 2)),
        Clock::now() + timeout * 2 + kGrace * 2, Impl::Unblock::Nothing, stoppable,
        [group, bytes, n, timeout] { return gather_bytes(*group, bytes, n, timeout); });
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    std::string who;
    try {
      const std::int64_t arrived = s.bounded(
          "counting the ranks at the exchange",
          s.silent_store("counting the ranks at the exchange"), Clock::now() + kGrace * 2,
          Impl::Unblock::Store, stoppable, [store, counter] { return store->add(counter, 0); });
      const std::vector<int> absent =
          s.bounded("naming the ranks missing at the exchange",
                    s.silent_store("naming the ranks missing at the exchange"),
                    Clock::now() + kScanTime + kGrace * 2, Impl::Unblock::Store, stoppable,
                    [store, reached, n] { return scan_missing(*store, n, reached); });
      const std::string said = what_of(e);
      const bool closed = said.find("Connection closed") != std::string::npos ||
                          said.find("Connection reset") != std::string::npos;
      who = arrived >= n
                ? "every rank reached it"
                : fmt::format(
                      "{} did not reach it ({})", ranks_phrase(n - arrived, absent),
                      closed ? "it died: its connection closed"
                             : fmt::format("hung, or still busy after {:g} s", seconds(timeout)));
    } catch (const Interrupted&) {
      throw;
    } catch (const std::exception&) {
      who = fmt::format("{} is gone", s.where());
    }
    throw DistributedError(fmt::format("rank {}: the exchange '{}' of {} processes failed: {}; {}",
                                       me, stage, n, who, what_of(e)));
  }
}

}  // namespace neurobench
