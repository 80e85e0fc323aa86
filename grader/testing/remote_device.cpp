// Both sides of a remote call to a CUDA exercise's host function (course/remote_device.hpp):
// device arrays copied across, the emulator's settings sent with the request, and its
// launch records sent back. The judge reads the records as untrusted bytes: every
// length and count is bounded, and anything malformed fails the call.
#include "course/remote_device.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace course::remote {
namespace {

constexpr std::uint32_t kMaxLaunches = 4096, kMaxEntries = 1024;  // per reply, per launch
constexpr std::size_t kMaxString = 64 * 1024;

static_assert(std::is_trivially_copyable_v<cuda_emu::launch_counters>);

class writer {
 public:
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void put_string(std::string_view s) {
    s = s.substr(0, kMaxString);
    put(static_cast<std::uint32_t>(s.size()));
    bytes_.append(s);
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class reader {
 public:
  explicit reader(std::string_view bytes) : rest_(bytes) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    need(sizeof v);
    std::memcpy(&v, rest_.data(), sizeof v);
    rest_.remove_prefix(sizeof v);
    return v;
  }
  std::string get_string() {
    const auto n = get<std::uint32_t>();
    if (n > kMaxString) bad("a string too long");
    need(n);
    std::string s(rest_.substr(0, n));
    rest_.remove_prefix(n);
    return s;
  }
  std::uint32_t get_count(std::uint32_t most) {
    const auto n = get<std::uint32_t>();
    if (n > most) bad("too many entries");
    return n;
  }
  void finish() const {
    if (!rest_.empty()) bad("bytes after the last record");
  }

 private:
  void need(std::size_t n) const {
    if (rest_.size() < n) bad("a record cut short");
  }
  [[noreturn]] static void bad(const char* what) {
    throw compute_failed(std::string(protocol::compute_failure_prefix) +
                         "sent malformed launch records (" + what + ")");
  }
  std::string_view rest_;
};

void put_launch(writer& w, const cuda_emu::launch_record& l) {
  w.put_string(l.kernel);
  for (unsigned v : {l.grid.x, l.grid.y, l.grid.z, l.block.x, l.block.y, l.block.z}) w.put(v);
  w.put(l.counters);
  const auto reports = std::min<std::size_t>(l.reports.size(), kMaxEntries);
  w.put(static_cast<std::uint32_t>(reports));
  for (std::size_t i = 0; i < reports; ++i) {
    w.put(static_cast<std::uint8_t>(l.reports[i].kind));
    w.put_string(l.reports[i].text);
  }
  const auto races = std::min<std::size_t>(l.races.size(), kMaxEntries);
  w.put(static_cast<std::uint32_t>(races));
  for (std::size_t i = 0; i < races; ++i) {
    const cuda_emu::race& r = l.races[i];
    w.put_string(r.first);
    w.put_string(r.second);
    w.put(r.hazards);
    w.put(static_cast<std::uint8_t>(r.global));
    w.put(static_cast<std::uint8_t>(r.across_blocks));
  }
  w.put(l.device_bytes_at_launch);
  w.put(l.schedule);
  w.put(static_cast<std::uint8_t>(l.requests_counted));
  w.put(static_cast<std::int32_t>(l.error));
  w.put(l.seconds);
}

cuda_emu::launch_record get_launch(reader& r) {
  cuda_emu::launch_record l;
  l.kernel = r.get_string();
  l.grid.x = r.get<unsigned>();
  l.grid.y = r.get<unsigned>();
  l.grid.z = r.get<unsigned>();
  l.block.x = r.get<unsigned>();
  l.block.y = r.get<unsigned>();
  l.block.z = r.get<unsigned>();
  l.counters = r.get<cuda_emu::launch_counters>();
  for (std::uint32_t i = 0, n = r.get_count(kMaxEntries); i < n; ++i) {
    const auto kind = r.get<std::uint8_t>();
    if (kind > static_cast<std::uint8_t>(cuda_emu::report_kind::unseen_write))
      throw compute_failed(std::string(protocol::compute_failure_prefix) +
                           "sent malformed launch records (a report kind)");
    l.reports.push_back({static_cast<cuda_emu::report_kind>(kind), r.get_string()});
  }
  for (std::uint32_t i = 0, n = r.get_count(kMaxEntries); i < n; ++i) {
    cuda_emu::race race;
    race.first = r.get_string();
    race.second = r.get_string();
    race.hazards = r.get<std::uint64_t>();
    race.global = r.get<std::uint8_t>() != 0;
    race.across_blocks = r.get<std::uint8_t>() != 0;
    l.races.push_back(std::move(race));
  }
  l.device_bytes_at_launch = r.get<std::uint64_t>();
  l.schedule = r.get<std::uint64_t>();
  l.requests_counted = r.get<std::uint8_t>() != 0;
  l.error = static_cast<cudaError_t>(r.get<std::int32_t>());
  l.seconds = r.get<double>();
  return l;
}

// The compute process's device copies of the arguments, freed however the call ends.
struct device_copies {
  std::vector<float*> d;
  ~device_copies() {
    for (float* p : d) cudaFree(p);
  }
};

}  // namespace

namespace detail {

std::string encode_reply(const device_reply& r) {
  writer w;
  w.put(r.result);
  w.put(r.peak_above);
  const auto n = std::min<std::size_t>(r.launches.size(), kMaxLaunches);
  w.put(static_cast<std::uint32_t>(n));
  for (std::size_t i = 0; i < n; ++i) put_launch(w, r.launches[i]);
  return w.take();
}

device_reply decode_reply(std::string_view bytes) {
  reader in(bytes);
  device_reply r;
  r.result = in.get<std::int64_t>();
  r.peak_above = in.get<std::uint64_t>();
  for (std::uint32_t i = 0, n = in.get_count(kMaxLaunches); i < n; ++i)
    r.launches.push_back(get_launch(in));
  in.finish();
  return r;
}

}  // namespace detail

std::int64_t device_call(const char* function, std::initializer_list<std::int64_t> ints,
                         std::initializer_list<device_array> arrays) {
  std::vector<std::vector<float>> host;
  for (const device_array& a : arrays) {
    std::vector<float>& h = host.emplace_back(a.count);
    if (a.count > 0 && cudaMemcpy(h.data(), a.data, a.count * sizeof(float),
                                  cudaMemcpyDeviceToHost) != cudaSuccess)
      throw std::invalid_argument(std::string(function) + ": argument " +
                                  std::to_string(host.size()) + " is not " +
                                  std::to_string(a.count) + " floats of device memory");
  }
  std::vector<array_ref> refs;
  for (const auto& h : host) refs.push_back({h.data(), h.size()});

  const cuda_emu::options& s = cuda_emu::settings();
  writer request;
  request.put(static_cast<std::int64_t>(s.time_limit.count()));
  request.put(static_cast<std::uint8_t>(s.print_reports));
  request.put(static_cast<std::uint8_t>(s.check_races));
  request.put(static_cast<std::uint8_t>(s.count_requests));
  request.put(s.schedule);
  exchange x{request.take(), {}};
  call(function, std::vector<std::int64_t>(ints), refs, x);

  detail::device_reply reply = detail::decode_reply(x.reply);

  // The outputs (and any write into an input) over the judge's own device arrays.
  std::size_t i = 0;
  for (const device_array& a : arrays) {
    if (a.count > 0)
      cudaMemcpy(const_cast<float*>(a.data), host[i].data(), a.count * sizeof(float),
                 cudaMemcpyHostToDevice);
    ++i;
  }
  for (auto& l : reply.launches) cuda_emu::adopt_launch(std::move(l));
  cuda_emu::adopt_device_peak(reply.peak_above);
  return reply.result;
}

handler on_device(device_function f) {
  return [f = std::move(f)](const std::vector<std::int64_t>& ints,
                            std::vector<std::vector<float>>& arrays, exchange& x) {
    reader request(x.request);
    cuda_emu::options& s = cuda_emu::settings();
    s.time_limit = std::chrono::milliseconds(request.get<std::int64_t>());
    s.print_reports = request.get<std::uint8_t>() != 0;
    s.check_races = request.get<std::uint8_t>() != 0;
    s.count_requests = request.get<std::uint8_t>() != 0;
    const auto schedule = request.get<std::uint64_t>();

    cuda_emu::reset();  // no error or record left from an earlier call
    device_copies copies;
    for (const auto& a : arrays) {
      float*& p = copies.d.emplace_back(nullptr);
      if (a.empty()) continue;
      if (cudaMalloc(&p, a.size() * sizeof(float)) != cudaSuccess) {
        p = nullptr;
        throw std::runtime_error("the compute process has no room for the inputs");
      }
      cudaMemcpy(p, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice);
    }
    // As the tests do in one process: records and written words counted from here.
    cuda_emu::reset();
    cuda_emu::reset_peak_device_bytes();
    const std::uint64_t before = cuda_emu::device_bytes_in_use();
    s.schedule = schedule;
    detail::device_reply reply;
    reply.result = f(ints, copies.d);
    s.schedule = 0;
    reply.peak_above = cuda_emu::peak_device_bytes() - before;
    reply.launches = cuda_emu::launches();

    for (std::size_t i = 0; i < arrays.size(); ++i)
      if (copies.d[i])
        cudaMemcpy(arrays[i].data(), copies.d[i], arrays[i].size() * sizeof(float),
                   cudaMemcpyDeviceToHost);
    x.reply = detail::encode_reply(reply);
  };
}

}  // namespace course::remote
