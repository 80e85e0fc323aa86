// Seeded schedules and global-memory races: kernels with order bugs run right in
// order and go wrong under some schedule, and are reported as races in any order;
// correct kernels give the same results under every schedule and no report.
//   build/bin/emulator_tests -# "[#test_schedules]"
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <random>
#include <vector>

#include "adversarial_support.hpp"
#include "course/device_buffer.hpp"
#include "cuda_emu/emulator.hpp"
#include "schedules.hpp"

using namespace adversarial;

namespace {

struct scheduled {  // one schedule for a scope
  explicit scheduled(uint64_t seed) { cuda_emu::settings().schedule = seed; }
  ~scheduled() { cuda_emu::settings().schedule = 0; }
};

std::vector<float> random_vector(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

std::vector<double> matmul(const std::vector<float>& A, const std::vector<float>& B, int m, int n,
                           int k) {
  std::vector<double> C(size_t(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p) C[i * n + j] += double(A[i * k + p]) * B[p * n + j];
  return C;
}

double max_error(const std::vector<float>& got, const std::vector<double>& want) {
  double e = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(got[i] - want[i]);
    if (!(d <= e)) e = std::isnan(d) ? INFINITY : d;  // a NaN (poison read) is the worst
  }
  return e;
}

// The line of kernels/schedules.cu holding `text`, so the test follows the file.
int line_of(const std::string& text) {
  const std::string path =
      std::filesystem::path(__FILE__).parent_path() / "kernels" / "schedules.cu";
  std::ifstream in(path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(text) != std::string::npos) return n;
  return -1;
}

bool has_global_race(const cuda_emu::launch_record& r, bool across_blocks) {
  for (const auto& race : r.races)
    if (race.global && race.across_blocks == across_blocks) return true;
  return false;
}

// Runs the tiled matmul (n = 64) under `seed`, returns its largest error.
double tiled_error(int barrier, uint64_t seed, cuda_emu::launch_record* record = nullptr) {
  const int n = 64;
  const auto A = random_vector(n * n, 1), B = random_vector(n * n, 2);
  device_buffer<float> dA(A), dB(B), dC(n * n);
  dC.poison();
  scheduled s(seed);
  sched_tiled_matmul(dA.ptr, dB.ptr, dC.ptr, n, barrier);
  if (record) *record = last();
  return max_error(dC.download(), matmul(A, B, n, n, n));
}

}  // namespace

TEST_CASE("a correct tiled matmul gives the same result under every schedule, with no race",
          "[schedules]") {
  quiet q;
  for (uint64_t seed = 0; seed <= 9; ++seed) {
    INFO(cuda_emu::describe_schedule(seed));
    cuda_emu::launch_record r;
    CHECK(tiled_error(0, seed, &r) < 1e-4);
    CHECK(r.ok());
    CHECK(r.schedule == seed);
  }
}

TEST_CASE("__syncwarp in place of __syncthreads: a shared-memory race, and wrong under a schedule",
          "[schedules]") {
  quiet q;
  cuda_emu::launch_record r;
  CHECK(tiled_error(1, 0, &r) >= 0);  // in order, warps happen to wait for each other
  REQUIRE_FALSE(r.races.empty());
  CHECK_FALSE(r.races[0].global);
  int wrong = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) wrong += tiled_error(1, seed) > 1e-3;
  CHECK(wrong >= 3);
}

TEST_CASE("thread 0 staging whole tiles with no barrier after: a race, and wrong under a schedule",
          "[schedules]") {
  quiet q;
  cuda_emu::launch_record r;
  CHECK(tiled_error(2, 0, &r) < 1e-4);  // in order, thread 0 runs first: right by luck
  REQUIRE_FALSE(r.races.empty());
  int wrong = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) wrong += tiled_error(2, seed) > 1e-3;
  CHECK(wrong >= 3);
}

TEST_CASE("count_requests off: the same results and races, no requests, and the record says so",
          "[schedules][count_requests]") {
  quiet q;
  for (int barrier : {0, 1}) {  // a correct kernel, then a shared-memory race
    INFO("barrier variant " << barrier);
    cuda_emu::launch_record counted, uncounted;
    const double counted_error = tiled_error(barrier, 0, &counted);
    cuda_emu::settings().count_requests = false;
    const double uncounted_error = tiled_error(barrier, 0, &uncounted);
    cuda_emu::settings().count_requests = true;
    CHECK(uncounted_error == counted_error);
    CHECK(uncounted.races.size() == counted.races.size());
    CHECK(uncounted.ok() == counted.ok());
    CHECK(counted.requests_counted);
    CHECK(counted.counters.global_load_requests > 0);
    CHECK(counted.counters.shared_load_requests > 0);
    CHECK_FALSE(uncounted.requests_counted);
    CHECK(uncounted.counters.global_load_requests == 0);
    CHECK(uncounted.counters.shared_load_wavefronts == 0);
    // Counted per thread, not per request: kept either way.
    CHECK(uncounted.counters.max_thread_shared_reads == counted.counters.max_thread_shared_reads);
  }
  cuda_emu::launch_record seeded;  // a seeded schedule gathers none either
  tiled_error(0, 5, &seeded);
  CHECK_FALSE(seeded.requests_counted);
}

TEST_CASE("split-K with a non-atomic C += from several blocks is a race between blocks",
          "[schedules][global_races]") {
  quiet q;
  const int m = 40, n = 24, k = 96;
  const auto A = random_vector(m * k, 3), B = random_vector(k * n, 4);
  const auto want = matmul(A, B, m, n, k);
  device_buffer<float> dA(A), dB(B), dC(m * n);
  for (bool atomic : {false, true}) {
    for (uint64_t seed : {0, 1, 2, 3}) {
      scheduled s(seed);
      cudaMemset(dC.ptr, 0, m * n * sizeof(float));
      sched_split_k(dA.ptr, dB.ptr, dC.ptr, m, n, k, 4, atomic);
      INFO((atomic ? "atomicAdd" : "plain +=") << ", " << cuda_emu::describe_schedule(seed));
      CHECK(max_error(dC.download(), want) < 1e-4);  // blocks never overlap here
      const auto& r = last();
      CHECK(r.error == cudaSuccess);
      CHECK(has_global_race(r, true) == !atomic);
      if (!atomic) {
        REQUIRE_FALSE(r.races.empty());
        const std::string text = r.sanitizer_text();
        INFO(text);
        CHECK_THAT(text, Catch::Contains("Race reported between Write access at "
                                         "sched_split_k_kernel"));
        CHECK_THAT(text, Catch::Contains("schedules.cu:" + std::to_string(line_of("+= partial"))));
        CHECK_THAT(text, Catch::Contains("between threads of different blocks"));
      }
    }
  }
}

TEST_CASE("blocks that read what an earlier block wrote: right in order, wrong in reverse",
          "[schedules][global_races]") {
  quiet q;
  const int n = 32 * 8;
  const auto in = random_vector(n, 5);
  std::vector<double> want(n);
  double sum = 0;
  for (int i = 0; i < n; ++i) want[i] = sum += in[i];
  device_buffer<float> din(in), dout(n);
  for (uint64_t seed : {0, 3}) {  // 3: blocks in reverse order
    INFO(cuda_emu::describe_schedule(seed));
    dout.poison();
    scheduled s(seed);
    sched_chained_blocks(din.ptr, dout.ptr, n);
    CHECK((max_error(dout.download(), want) < 1e-4) == (seed == 0));
    CHECK(has_global_race(last(), true));
  }
}

TEST_CASE("threads of one block reading each other's global writes need a barrier",
          "[schedules][global_races]") {
  quiet q;
  device_buffer<float> out(128), out2(128);
  sched_neighbour(out.ptr, out2.ptr, 128, true);
  CHECK(last().ok());
  CHECK(out2.download()[127] == 0.0f);
  sched_neighbour(out.ptr, out2.ptr, 128, false);
  REQUIRE(has_global_race(last(), false));
  CHECK_THAT(last().sanitizer_text(), Catch::Contains("no __syncthreads() between"));
}

TEST_CASE("a warp reduction ordered by __syncwarp is right under every schedule", "[schedules]") {
  quiet q;
  const auto in = random_vector(200, 6);
  double want = 0;
  for (float x : in) want += x;
  device_buffer<float> din(in), dout(1);
  for (uint64_t seed = 0; seed <= 9; ++seed) {
    INFO(cuda_emu::describe_schedule(seed));
    scheduled s(seed);
    sched_block_sum(din.ptr, dout.ptr, 200);
    CHECK(last().ok());
    CHECK(std::fabs(dout.download()[0] - want) < 1e-4);
  }
}

TEST_CASE("a __device__ counter: non-atomic updates from blocks race, atomicAdd does not",
          "[schedules][global_races]") {
  quiet q;
  CHECK(sched_device_counter(8, true) == 8);
  CHECK(last().ok());
  sched_device_counter(8, false);
  CHECK(has_global_race(last(), true));
}

TEST_CASE("a schedule is reproducible: the same seed gives the same bits", "[schedules]") {
  quiet q;
  const int n = 64;
  const auto A = random_vector(n * n, 1), B = random_vector(n * n, 2);
  device_buffer<float> dA(A), dB(B), dC(n * n);
  std::vector<std::vector<float>> runs;
  for (int i = 0; i < 2; ++i) {
    cuda_emu::reset();
    dC.poison();
    scheduled s(5);
    sched_tiled_matmul(dA.ptr, dB.ptr, dC.ptr, n, 1);
    runs.push_back(dC.download());
  }
  CHECK(std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * sizeof(float)) == 0);
  CHECK_THAT(cuda_emu::describe_schedule(5), Catch::Contains("interleaved from both ends"));
  CHECK_THAT(cuda_emu::describe_schedule(0), Catch::Contains("in order"));
}

TEST_CASE("global_written_bytes counts each address once since reset(), however often re-written",
          "[global_races]") {
  quiet q;
  device_buffer<float> out(128), out2(128);
  sched_neighbour(out.ptr, out2.ptr, 128, true);
  CHECK(last().counters.global_written_bytes == 2 * 128 * 4);
  sched_neighbour(out.ptr, out2.ptr, 128, true);  // the same addresses again
  CHECK(last().counters.global_written_bytes == 0);
  CHECK(cuda_emu::all_launches().counters.global_written_bytes == 2 * 128 * 4);
  CHECK(cuda_emu::all_launches().counters.global_store_bytes == 2 * 2 * 128 * 4);
  cuda_emu::reset();
  sched_neighbour(out.ptr, out2.ptr, 128, true);
  CHECK(last().counters.global_written_bytes == 2 * 128 * 4);
  CHECK(sched_device_counter(4, false) >= 1);  // a __device__ int: 4 bytes
  CHECK(last().counters.global_written_bytes == 4);
}
