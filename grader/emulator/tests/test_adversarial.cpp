// Adversarial tests of the CPU emulator: launch syntax, scheduling, request counting, memcheck/racecheck edges, faults.
//   build/bin/emulator_tests "[adversarial]"     ([!mayfail] tests document emulator bugs)
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "course/blank.hpp"
#include "course/device_buffer.hpp"
#include "cuda_emu/emulator.hpp"
#include "cuda_emu/rewrite.hpp"
#include "adversarial.hpp"

namespace {

struct quiet {
  quiet() {
    cuda_emu::settings().print_reports = false;
    cuda_emu::reset();
  }
  ~quiet() {
    cuda_emu::settings().time_limit = std::chrono::seconds(10);
    cuda_emu::reset();
  }
};

const cuda_emu::launch_record& last() { return cuda_emu::last_launch(); }

bool has_error_report(const cuda_emu::launch_record& r) {
  for (const auto& rep : r.reports)
    if (rep.kind != cuda_emu::report_kind::warning) return true;
  return false;
}

// Runs fn in a child process (for faults that would take the test process down),
// with an alarm as a last resort; returns the child's wait status.
template <class Fn>
int in_child(Fn fn, unsigned seconds) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGALRM})
      std::signal(sig, SIG_DFL);  // not Catch2's handlers: the parent reports
    alarm(seconds);
    const int code = fn();
    std::fflush(stdout);
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

bool exited_with(int status, int code) { return WIFEXITED(status) && WEXITSTATUS(status) == code; }

std::string describe(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

template <class Fn>
std::string capture_stdout(Fn fn) {
  std::fflush(stdout);
  FILE* tmp = std::tmpfile();
  const int saved = dup(1);
  dup2(fileno(tmp), 1);
  fn();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  std::rewind(tmp);
  std::string text;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, tmp)) > 0) text.append(buf, n);
  std::fclose(tmp);
  return text;
}

long max_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

// ================================ rewrite ======================================

TEST_CASE("rewrite: four configuration arguments are passed through", "[adversarial][rewrite]") {
  CHECK(cuda_emu::rewrite_launches("k<<<g, b, 0, 0>>>(x);") ==
        "::cuda_emu::launch_kernel(::cuda_emu::launch_config{g, b, 0, 0}, \"k\", k, x);");
}

TEST_CASE("rewrite: nested template arguments in the kernel name", "[adversarial][rewrite]") {
  CHECK(cuda_emu::rewrite_launches("k<foo<int>, 2><<<1, 32>>>(p);") ==
        "::cuda_emu::launch_kernel(::cuda_emu::launch_config{1, 32}, \"k<foo<int>, 2>\", k<foo<int>, 2>, p);");
  CHECK(cuda_emu::rewrite_launches("k<foo<bar<int>>><<<1, 32>>>(p);") ==
        "::cuda_emu::launch_kernel(::cuda_emu::launch_config{1, 32}, \"k<foo<bar<int>>>\", k<foo<bar<int>>>, p);");
}

TEST_CASE("rewrite: shifts and '>>>' in strings inside a launch", "[adversarial][rewrite]") {
  CHECK(cuda_emu::rewrite_launches("k<<<n >> 1, 32>>>(a >> b, c > d);") ==
        "::cuda_emu::launch_kernel(::cuda_emu::launch_config{n >> 1, 32}, \"k\", k, a >> b, c > d);");
  CHECK(cuda_emu::rewrite_launches("k<<<1, 1>>>(\">>>)\", ')');") ==
        "::cuda_emu::launch_kernel(::cuda_emu::launch_config{1, 1}, \"k\", k, \">>>)\", ')');");
  CHECK(cuda_emu::rewrite_launches("[&] { k<<<1, 1>>>(x); }();") ==
        "[&] { ::cuda_emu::launch_kernel(::cuda_emu::launch_config{1, 1}, \"k\", k, x); }();");
}

TEST_CASE("rewrite: a comment between >>> and ( is whitespace", "[adversarial][rewrite]") {
  // BUG: src/rewrite.cpp skips only whitespace after >>> and throws "expected ( after >>>".
  std::string out;
  REQUIRE_NOTHROW(out = cuda_emu::rewrite_launches("k<<<1, 1>>> /* args: */ (x);"));
  CHECK_THAT(out, Catch::StartsWith("::cuda_emu::launch_kernel(::cuda_emu::launch_config{1, 1}, \"k\", k"));
  CHECK_THAT(out, Catch::Contains("x)"));
}

TEST_CASE("rewrite: a digit separator does not hide the launches after it", "[adversarial][rewrite]") {
  // BUG: code_mask() takes the ' of 1'000 for a character literal that runs on to the
  // next ', so the launch below is left as <<<>>> and g++ fails on it.
  const std::string out = cuda_emu::rewrite_launches("const int n = 1'000;\nk<<<1, n>>>(x);\n");
  CHECK(out == "const int n = 1'000;\n::cuda_emu::launch_kernel(::cuda_emu::launch_config{1, n}, \"k\", k, x);\n");
}

TEST_CASE("rewrite: a raw string with a quote does not hide the launches after it",
          "[adversarial][rewrite]") {
  // BUG: code_mask() does not know raw string literals.
  const std::string out = cuda_emu::rewrite_launches("const char* s = R\"(say \"hi)\";\nk<<<1, 1>>>(x);\n");
  CHECK_THAT(out, Catch::Contains("::cuda_emu::launch_kernel(::cuda_emu::launch_config{1, 1}, \"k\", k, x);"));
}

TEST_CASE("rewrite: a launch split over a macro's continuation lines stays one macro",
          "[adversarial][rewrite]") {
  // BUG: only whitespace may follow >>>, so the backslash throws "expected ( after >>>";
  // and the line breaks between >>> and ( would be re-emitted without their backslash.
  const std::string out = cuda_emu::rewrite_launches("#define L(x) k<<<1, 1>>> \\\n  (x)\nint after;\n");
  const std::string macro = out.substr(0, out.find("int after;"));
  INFO(out);
  size_t bare = 0;  // newlines inside the macro that are not escaped
  for (size_t i = 0; i + 1 < macro.size(); ++i)
    if (macro[i] == '\n' && (i == 0 || macro[i - 1] != '\\')) ++bare;
  CHECK(bare == 0);
}

// Launch syntax, compiled and run end to end.
TEST_CASE("launch syntax: 4-argument config, nested templates, lambdas, macros, shifts", "[adversarial]") {
  quiet q;
  device_buffer<int> p(64);
  adv_launch_four_config_args(p.ptr, 32, 11);
  CHECK(last().ok());
  CHECK(p.download()[31] == 11);
  adv_launch_nested_template(p.ptr, 32, 12);
  CHECK(last().ok());
  CHECK(p.download()[0] == 12);
  CHECK(last().kernel == "adv_apply<adv_pair<int>, 2>");
  adv_launch_in_lambda(p.ptr, 32, 13);
  CHECK(last().ok());
  CHECK(p.download()[5] == 13);
  adv_launch_with_shifts(p.ptr, 64, 14);
  CHECK(last().ok());
  CHECK(last().grid.x == 2);
  CHECK(last().block.x == 32);
  const auto got = p.download();
  CHECK(got[0] == 14);
  CHECK(got[63] == 14);
  adv_launch_in_macro(p.ptr, 32, 15);
  CHECK(last().ok());
  CHECK(p.download()[7] == 15);
}

TEST_CASE("a launch inside a macro names the kernel, not the macro's parameter", "[adversarial][!mayfail]") {
  // BUG: the rewrite runs before the preprocessor, so the launch record (and every
  // report) names the macro parameter `kernel` instead of adv_fill.
  quiet q;
  device_buffer<int> p(32);
  adv_launch_in_macro(p.ptr, 32, 15);
  CHECK(last().kernel == "adv_fill");
}

// =============================== scheduling =====================================

TEST_CASE("3-D grids and blocks: every index and dimension", "[adversarial]") {
  quiet q;
  const int blocks = 2 * 3 * 2, threads = 4 * 2 * 3;
  device_buffer<int> out(blocks * threads * 4);
  out.poison();
  adv_index_3d(out.ptr);
  REQUIRE(last().ok());
  const auto got = out.download();
  for (int bz = 0; bz < 2; ++bz)
    for (int by = 0; by < 3; ++by)
      for (int bx = 0; bx < 2; ++bx)
        for (int tz = 0; tz < 3; ++tz)
          for (int ty = 0; ty < 2; ++ty)
            for (int tx = 0; tx < 4; ++tx) {
              const int b = (bz * 3 + by) * 2 + bx, t = (tz * 2 + ty) * 4 + tx, g = 4 * (b * threads + t);
              INFO("block " << bx << by << bz << " thread " << tx << ty << tz);
              CHECK(got[g + 0] == tx + 10 * ty + 100 * tz);
              CHECK(got[g + 1] == bx + 10 * by + 100 * bz);
              CHECK(got[g + 2] == 4 + 20 + 300);
              CHECK(got[g + 3] == 2 + 30 + 200);
            }
}

TEST_CASE("xor shuffles within 16-lane segments, with a half warp at the end of the block", "[adversarial]") {
  quiet q;
  std::vector<int> host(48);
  std::iota(host.begin(), host.end(), 1);
  device_buffer<int> in(host), out(48);
  adv_segment_sums(in.ptr, out.ptr, 48);
  REQUIRE(last().ok());
  const auto got = out.download();
  for (int t = 0; t < 48; ++t) {
    const int seg = t / 16 * 16;
    int want = 0;
    for (int i = seg; i < seg + 16; ++i) want += host[i];
    INFO("thread " << t);
    CHECK(got[t] == want);
  }
}

TEST_CASE("__shfl_xor_sync with width 16 reads from the earlier segment", "[adversarial]") {
  // CUDA: "each group of width consecutive threads are able to access elements from
  // earlier groups of threads; if they attempt to access elements from later groups
  // their own value is returned" (PTX shfl.bfly: valid when lane^mask <= maxLane).
  // BUG: resolve() in src/scheduler.cpp also returns the own value for an earlier group.
  quiet q;
  device_buffer<int> out(32);
  adv_xor_earlier_segment(out.ptr);
  REQUIRE(last().ok());
  const auto got = out.download();
  for (int l = 0; l < 16; ++l) CHECK(got[l] == l);            // later group: own value
  for (int l = 16; l < 32; ++l) CHECK(got[l] == l - 16);      // earlier group: lane ^ 16
}

TEST_CASE("shuffles with width 8: idx, up, down, negative source lane", "[adversarial]") {
  quiet q;
  device_buffer<int> out(128);
  adv_shfl_width8(out.ptr);
  REQUIRE(last().ok());
  const auto got = out.download();
  for (int t = 0; t < 32; ++t) {
    const int base = t / 8 * 8;
    INFO("lane " << t);
    CHECK(got[t] == base + 3);
    CHECK(got[32 + t] == (t - 2 >= base ? t - 2 : t));
    CHECK(got[64 + t] == (t + 5 < base + 8 ? t + 5 : t));
    CHECK(got[96 + t] == base + 7);
  }
}

TEST_CASE("even and odd lanes shuffle among themselves with disjoint masks", "[adversarial][!mayfail]") {
  // Legal since Volta: each group's mask names exactly the lanes that execute it.
  // BUG: warp_rendezvous() keeps one pending operation per warp and reports lane 1's
  // different mask as "Divergent thread(s) in warp".
  quiet q;
  device_buffer<int> out(32);
  adv_parity_masks(out.ptr);
  const auto& r = last();
  INFO(r.sanitizer_text());
  REQUIRE(r.ok());
  const auto got = out.download();
  for (int l = 0; l < 32; ++l) CHECK(got[l] == (l % 2 ? 10 : 0));
}

TEST_CASE("__syncthreads in a loop with a uniform trip count, 1024 threads", "[adversarial]") {
  quiet q;
  device_buffer<float> out(1024);
  adv_barrier_loop(out.ptr, 1024, 37);
  const auto& r = last();
  INFO(r.sanitizer_text());
  REQUIRE(r.ok());
  const auto got = out.download();
  for (int t = 0; t < 1024; ++t) CHECK(got[t] == float((t + 37) % 1024));
  // 2 shared accesses per step per thread, + the first store and the last load.
  CHECK(r.counters.shared_load_requests == 32u * (37 + 1));
  CHECK(r.counters.shared_store_requests == 32u * (37 + 1));
  CHECK(r.counters.max_thread_shared_reads == 38);
}

TEST_CASE("a warp that returns before a barrier the other warp waits at is a divergent barrier",
          "[adversarial][faults]") {
  quiet q;
  device_buffer<float> out(64);
  adv_warp_returns_before_barrier(out.ptr);
  const auto& r = last();
  CHECK(r.error == cudaErrorLaunchFailure);
  REQUIRE(r.reports.size() == 1);
  CHECK(r.reports[0].kind == cuda_emu::report_kind::synccheck);
  CHECK_THAT(r.reports[0].text, Catch::Contains("32 thread(s) exited while 32 wait at __syncthreads()"));
}

TEST_CASE("ballot, any and all in a block whose last warp has 8 lanes", "[adversarial]") {
  quiet q;
  device_buffer<unsigned> out(8);
  adv_vote_partial(out.ptr);
  REQUIRE(last().ok());
  const auto got = out.download();
  CHECK(got[0] == 0xAAAAAAAAu);
  CHECK(got[1] == 0u);
  CHECK(got[2] == 1u);
  CHECK(got[3] == 1u);
  CHECK(got[4] == 0xAAu);  // lanes 0..7 of warp 1 exist
  CHECK(got[5] == 1u);
  CHECK(got[6] == 1u);
  CHECK(got[7] == 0u);  // thread 35 votes no
}

TEST_CASE("nested device functions and recursion 400 deep on the fiber stack", "[adversarial]") {
  quiet q;
  device_buffer<int> in(std::vector<int>{5, 7, 0, 0}), out(32);
  adv_recursion(in.ptr, out.ptr, 400);
  REQUIRE(last().ok());
  const auto got = out.download();
  for (int t = 0; t < 32; ++t) CHECK(got[t] == 12 + 400 + t);
}

TEST_CASE("a shared-memory warp reduction synchronised with __syncwarp is race-free", "[adversarial]") {
  // BUG: __syncwarp() orders the warp's shared-memory accesses (CUDA guarantees it;
  // racecheck honours it), but race_check() only resets at __syncthreads epochs, so
  // the emulator reports races in this correct code.
  quiet q;
  std::vector<float> host(64);
  std::iota(host.begin(), host.end(), 1.0f);
  device_buffer<float> in(host), out(1);
  adv_warp_reduce_syncthreads(in.ptr, out.ptr);  // the control, with __syncthreads
  REQUIRE(last().ok());
  CHECK(out.download()[0] == 2080.0f);
  adv_warp_reduce_syncwarp(in.ptr, out.ptr);
  const auto& r = last();
  INFO(r.sanitizer_text());
  CHECK(out.download()[0] == 2080.0f);
  CHECK(r.races.empty());
  CHECK(r.ok());
}

TEST_CASE("65535 blocks of one thread run correctly and quickly", "[adversarial]") {
  quiet q;
  device_buffer<int> out(65535 * 2);
  const auto start = std::chrono::steady_clock::now();
  adv_one_thread_blocks(out.ptr, 65535, 2);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(last().ok());
  const auto got = out.download();
  CHECK(got[0] == 0);
  CHECK(got[65534] == 65534 * 2);
  CHECK(got[65535 + 7] == 7 * 2 + 1);
  CHECK(last().counters.global_store_requests == 65535u * 2);
  CHECK(seconds < 5.0);
}

TEST_CASE("a 160 KB local array does not crash the process", "[adversarial][faults][!mayfail]") {
  // A GPU gives a thread up to 512 KB of local memory. BUG (robustness): the fiber has
  // 124 KiB of usable stack (src/scheduler.cpp, kStackSlot) and a guard page under it,
  // so the kernel dies with SIGSEGV and takes the whole test program with it, with no
  // report. Run in a child process.
  quiet q;
  const int status = in_child(
      [] {
        device_buffer<float> out(1);
        adv_big_local_array(out.ptr);
        return cuda_emu::last_launch().error == cudaSuccess && out.download()[0] == 39999.0f ? 0 : 1;
      },
      20);
  INFO(describe(status));
  CHECK(exited_with(status, 0));
}

// ================================ counters ======================================

TEST_CASE("8-byte and 16-byte accesses: one request, 8 and 16 sectors per warp", "[adversarial][counters]") {
  quiet q;
  device_buffer<double> din(32), dout(32);
  adv_copy_double(din.ptr, dout.ptr);
  REQUIRE(last().ok());
  CHECK(last().counters.global_load_requests == 1);
  CHECK(last().counters.global_load_sectors == 8);
  CHECK(last().counters.global_store_sectors == 8);
  CHECK(last().counters.global_excessive_sectors() == 0);
  CHECK(last().counters.global_load_bytes == 256);

  std::vector<float4> host(32);
  for (int i = 0; i < 32; ++i) host[i] = make_float4(i, i + 0.5f, -i, 2.0f * i);
  device_buffer<float4> fin(host), fout(32);
  adv_copy_float4(fin.ptr, fout.ptr);
  REQUIRE(last().ok());
  CHECK(last().counters.global_load_requests == 1);
  CHECK(last().counters.global_load_sectors == 16);
  CHECK(last().counters.global_store_requests == 1);
  CHECK(last().counters.global_store_sectors == 16);
  CHECK(last().counters.global_load_bytes == 512);
  const auto got = fout.download();
  CHECK(got[31].x == 31.0f);
  CHECK(got[31].w == 62.0f);
}

TEST_CASE("a warp read offset by one float touches 5 sectors, 1 of them excessive", "[adversarial][counters]") {
  quiet q;
  device_buffer<float> in(64), out(32);
  adv_misaligned(in.ptr, out.ptr);
  REQUIRE(last().ok());
  CHECK(last().counters.global_load_requests == 1);
  CHECK(last().counters.global_load_sectors == 5);
  CHECK(last().counters.global_load_ideal_sectors == 4);
  CHECK(last().counters.global_excessive_sectors() == 1);
}

TEST_CASE("a predicated load: only odd lanes, one request", "[adversarial][counters]") {
  quiet q;
  device_buffer<float> in(32), out(32);
  adv_odd_lanes(in.ptr, out.ptr);
  REQUIRE(last().ok());
  CHECK(last().counters.global_load_requests == 1);
  CHECK(last().counters.global_load_sectors == 4);
  CHECK(last().counters.global_store_requests == 1);
  CHECK(last().counters.global_load_bytes == 64);
}

TEST_CASE("a grid-stride loop where lane 0 runs the most iterations", "[adversarial][counters]") {
  quiet q;
  device_buffer<float> in(std::vector<float>(40, 1.0f)), out(32);
  adv_grid_stride(in.ptr, out.ptr, 40);
  REQUIRE(last().ok());
  CHECK(last().counters.global_load_requests == 2);
  CHECK(last().counters.global_store_requests == 1);
  CHECK(out.download()[7] == 2.0f);
}

TEST_CASE("a load that lane 0 skips does not split the next load into two requests",
          "[adversarial][counters]") {
  // The stencil's `if (t > 0) left = in[t - 1]; out[t] = left + in[t];`: ncu counts 2
  // load requests (in[t-1] by 31 lanes, in[t] by 32) and 8 sectors.
  // BUG: add_to_group() (src/access.cpp) searches only from the lane's cursor; lane 0
  // put in[t] first, so lanes 1..31 (which did in[t-1] after it) open a second
  // in[t] group: 3 load requests, 9 sectors; the store is split the same way (2 requests).
  quiet q;
  std::vector<float> host(32);
  std::iota(host.begin(), host.end(), 0.0f);
  device_buffer<float> in(host), out(32);
  adv_stencil(in.ptr, out.ptr);
  REQUIRE(last().ok());
  CHECK(out.download()[5] == 9.0f);
  CHECK(last().counters.global_load_requests == 2);
  CHECK(last().counters.global_load_sectors == 8);
  CHECK(last().counters.global_store_requests == 1);
}

TEST_CASE("a loop where lane t runs t iterations: 31 load requests, 1 store request",
          "[adversarial][counters]") {
  // BUG: same cause as above; the single store after the loop is split into one
  // request per lane group (the emulator counts many store requests).
  quiet q;
  device_buffer<float> in(std::vector<float>(32, 1.0f)), out(32);
  adv_triangular(in.ptr, out.ptr);
  REQUIRE(last().ok());
  CHECK(out.download()[31] == 31.0f);
  const auto& c = last().counters;
  CHECK(c.global_load_requests == 31);
  CHECK(c.global_load_sectors == 31);
  CHECK(c.global_store_requests == 1);
  CHECK(c.global_store_sectors == 4);
}

TEST_CASE("a 1-thread kernel looping over 1M floats runs in bounded memory", "[adversarial][counters][!mayfail]") {
  // BUG (scalability): every access of a lone lane opens a 272-byte request_group that
  // is kept until the end of the scheduler pass (the kernel's end here): 1M loads hold
  // ~272 MB (and more while the vector grows). A 16M-element serial loop needs 4+ GB.
  quiet q;
  const int n = 1 << 20;
  device_buffer<float> in(std::vector<float>(n, 1.0f)), out(1);
  const long before = max_rss_kib();
  const auto start = std::chrono::steady_clock::now();
  adv_serial_sum(in.ptr, out.ptr, n);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const long grew_mib = (max_rss_kib() - before) / 1024;
  REQUIRE(last().ok());
  CHECK(out.download()[0] == float(n));
  CHECK(last().counters.global_load_requests == uint64_t(n));
  INFO("peak RSS grew by " << grew_mib << " MiB; " << seconds << " s");
  CHECK(grew_mib < 64);
}

TEST_CASE("8-byte shared accesses: two wavefronts per warp request", "[adversarial][counters]") {
  quiet q;
  std::vector<double> host(32);
  std::iota(host.begin(), host.end(), 0.0);
  device_buffer<double> in(host), out(32);
  adv_shared_double(in.ptr, out.ptr);
  REQUIRE(last().ok());
  CHECK(out.download()[0] == 31.0);
  CHECK(last().counters.shared_load_requests == 1);
  CHECK(last().counters.shared_store_requests == 1);
  CHECK(last().counters.shared_load_wavefronts == 2);
  CHECK(last().counters.shared_store_wavefronts == 2);
}

// ============================== memory checks ===================================

TEST_CASE("__device__ variables: reads and atomics are not errors", "[adversarial][memcheck]") {
  quiet q;
  device_buffer<float> out(32);
  device_buffer<int> counter(1);
  adv_device_vars(out.ptr, counter.ptr);
  const auto& all = cuda_emu::launches();
  REQUIRE(all.size() == 2);
  CHECK(all[0].ok());
  CHECK_FALSE(has_error_report(all[0]));
  CHECK(all[1].ok());
  const auto got = out.download();
  for (int t = 0; t < 32; ++t) CHECK(got[t] == float(t % 4 + 1));
  CHECK(counter.download()[0] == 32);
}

TEST_CASE("writing 1 byte past the end and reading 1 element before the start", "[adversarial][memcheck]") {
  quiet q;
  char* bytes = nullptr;
  REQUIRE(cudaMalloc(&bytes, 33) == cudaSuccess);
  adv_write_bytes(bytes, 33);
  CHECK(last().ok());
  adv_write_bytes(bytes, 34);
  {
    const auto& r = last();
    CHECK(r.error == cudaErrorIllegalAddress);
    REQUIRE(r.reports.size() == 1);
    CHECK_THAT(r.reports[0].text, Catch::StartsWith("Invalid __global__ write of size 1 bytes"));
    CHECK_THAT(r.reports[0].text, Catch::Contains("by thread (33,0,0) in block (0,0,0)"));
    CHECK_THAT(r.reports[0].text, Catch::Contains("is 1 bytes after the nearest allocation"));
    CHECK_THAT(r.reports[0].text, Catch::Contains("of size 33 bytes"));
  }
  cudaFree(bytes);
  cuda_emu::reset();
  device_buffer<float> in(32), out(32);
  adv_read_before(in.ptr, out.ptr);
  const auto& r = last();
  CHECK(r.error == cudaErrorIllegalAddress);
  REQUIRE(r.reports.size() == 1);
  CHECK_THAT(r.reports[0].text, Catch::StartsWith("Invalid __global__ read of size 4 bytes"));
  CHECK_THAT(r.reports[0].text, Catch::Contains("by thread (0,0,0)"));
  CHECK_THAT(r.reports[0].text, Catch::Contains("is 4 bytes before the nearest allocation"));
  CHECK(cudaMemcpy(out.ptr, in.ptr, 4, cudaMemcpyDeviceToDevice) == cudaErrorIllegalAddress);  // sticky
}

TEST_CASE("a host array in static storage passed to a kernel is a memcheck error", "[adversarial][memcheck][!mayfail]") {
  // The classic mistake (a global host array passed without cudaMemcpy).
  // BUG (false negative): on_access() takes every address between __executable_start
  // and _end for a __device__ variable, so host globals are accepted silently.
  quiet q;
  static float host_array[32] = {1.0f};
  device_buffer<float> out(32);
  adv_copy(host_array, out.ptr, 32);
  CHECK(last().error == cudaErrorIllegalAddress);
}

TEST_CASE("a 32-byte struct read that runs 4 bytes past the allocation is caught", "[adversarial][memcheck]") {
  // BUG: __tsan_read_range/__tsan_write_range clamp the size to 16 (src/access.cpp),
  // so only the first half of a 32-byte struct is checked (and counted).
  quiet q;
  adv_big* in = nullptr;
  device_buffer<adv_big> out(1);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&in), sizeof(adv_big) - 4) == cudaSuccess);
  adv_copy_big(in, out.ptr, 1);
  CHECK(last().error == cudaErrorIllegalAddress);
  cuda_emu::reset();
  cudaFree(in);
}

TEST_CASE("32-byte struct copies are counted in full", "[adversarial][counters]") {
  // Was a bug (a clamp to 16 bytes counted 512 bytes, not 1024). A 32-byte copy is two
  // 16-byte loads per lane (two LDG.128 on a GPU), each touching the same 32 sectors.
  quiet q;
  device_buffer<adv_big> in(32), out(32);
  adv_copy_big(in.ptr, out.ptr, 32);
  REQUIRE(last().ok());
  CHECK(last().counters.global_load_bytes == 1024);
  CHECK(last().counters.global_store_bytes == 1024);
  CHECK(last().counters.global_load_sectors == 64);
  CHECK(last().counters.global_load_requests == 2);
}

TEST_CASE("cudaMemcpy with wrong kinds or sizes, cudaFree twice, cudaMemset past the end", "[adversarial][memcheck]") {
  quiet q;
  device_buffer<float> d(8);
  std::vector<float> h(16, 3.0f);
  CHECK(cudaMemcpy(h.data(), d.ptr, 8 * sizeof(float), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaSuccess);
  CHECK(cudaMemcpy(d.ptr, h.data(), 9 * sizeof(float), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(cudaMemcpy(d.ptr, h.data(), 8 * sizeof(float), cudaMemcpyDefault) == cudaSuccess);
  std::vector<float> back(8);
  CHECK(cudaMemcpy(back.data(), d.ptr, 8 * sizeof(float), cudaMemcpyDefault) == cudaSuccess);
  CHECK(back[7] == 3.0f);
  CHECK(cudaMemcpy(d.ptr + 1, d.ptr, 7 * sizeof(float), cudaMemcpyDeviceToDevice) == cudaSuccess);
  CHECK(cudaMemcpy(d.ptr + 1, d.ptr, 8 * sizeof(float), cudaMemcpyDeviceToDevice) == cudaErrorInvalidValue);
  CHECK(cudaMemset(d.ptr, 0, 9 * sizeof(float)) == cudaErrorInvalidValue);
  CHECK(cudaMemset(h.data(), 0, 4) == cudaErrorInvalidValue);
  float* twice = nullptr;
  REQUIRE(cudaMalloc(&twice, 16) == cudaSuccess);
  CHECK(cudaFree(twice) == cudaSuccess);
  CHECK(cudaFree(twice) == cudaErrorInvalidValue);
  CHECK(cudaMemcpy(h.data(), twice, 16, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
  CHECK(cudaFree(h.data()) == cudaErrorInvalidValue);
  CHECK(cudaFree(d.ptr + 1) == cudaErrorInvalidValue);
  CHECK(cudaFree(nullptr) == cudaSuccess);
  cudaGetLastError();
  // The device buffer still works after all that.
  adv_copy(d.ptr, d.ptr, 1);
  CHECK(last().ok());
}

TEST_CASE("atomics on a __shared__ int and on global memory", "[adversarial]") {
  quiet q;
  std::vector<int> host(4 * 96);
  for (size_t i = 0; i < host.size(); ++i) host[i] = int((i * 37) % 1000) - 500;
  device_buffer<int> in(host), out(8);
  adv_shared_atomics(in.ptr, out.ptr, 4, 96);
  const auto& r = last();
  INFO(r.sanitizer_text());
  REQUIRE(r.ok());
  const auto got = out.download();
  for (int b = 0; b < 4; ++b) {
    CHECK(got[2 * b] == 96);
    CHECK(got[2 * b + 1] == *std::max_element(host.begin() + b * 96, host.begin() + b * 96 + 96));
  }
  device_buffer<int> ints(std::vector<int>{0, -1, 1000, -1, 0});
  device_buffer<float> f(std::vector<float>{0.0f});
  adv_global_atomics(ints.ptr, f.ptr, 64);
  REQUIRE(last().ok());
  const auto gi = ints.download();
  CHECK(gi[0] == 63 * 64 / 2);
  CHECK(gi[1] == 63 * 3);
  CHECK(gi[2] == 100 - 63);
  CHECK(gi[3] == 0);
  CHECK(gi[4] == -128);
  CHECK(f.download()[0] == 32.0f);
}

TEST_CASE("printf in a kernel prints every thread's line", "[adversarial]") {
  quiet q;
  const std::string text = capture_stdout([] { adv_printf(100, 4); });
  CHECK(last().ok());
  CHECK_THAT(text, Catch::Contains("adv thread 0 of 4 says 100\n"));
  CHECK_THAT(text, Catch::Contains("adv thread 3 of 4 says 103\n"));
  CHECK(std::count(text.begin(), text.end(), '\n') == 4);
}

// ================================= races ========================================

TEST_CASE("read-after-write across warps: none with a barrier, a race without", "[adversarial][races]") {
  quiet q;
  device_buffer<float> out(64);
  adv_raw_across_warps(out.ptr, true);
  CHECK(last().ok());
  CHECK(out.download()[0] == 63.0f);
  adv_raw_across_warps(out.ptr, false);
  const auto& r = last();
  REQUIRE_FALSE(r.races.empty());
  uint64_t hazards = 0;
  for (const auto& race : r.races) hazards += race.hazards;
  // Warp 1 reads, as it runs second, what warp 0 wrote: 32 threads x 4 bytes; warp 0's
  // reads of words warp 1 then writes: another 32 x 4.
  CHECK(hazards == 256);
}

TEST_CASE("two threads writing one word is a write-after-write race", "[adversarial][races]") {
  quiet q;
  device_buffer<float> out(32);
  adv_waw(out.ptr);
  const auto& r = last();
  REQUIRE(r.races.size() == 1);
  CHECK_THAT(r.races[0].first, Catch::StartsWith("Write access at"));
  CHECK_THAT(r.races[0].second, Catch::StartsWith("Write access at"));
  CHECK(r.races[0].hazards == 4);
}

TEST_CASE("a thread rewriting and reading back its own word, and readers after a barrier, are no race",
          "[adversarial][races]") {
  quiet q;
  device_buffer<float> out(256);
  adv_own_word(out.ptr);
  CHECK(last().ok());
  CHECK(out.download()[100] == 101.0f);
  adv_broadcast_after_barrier(out.ptr);
  CHECK(last().ok());
  CHECK(last().counters.shared_load_wavefronts == 8);  // one broadcast wavefront per warp
  CHECK(out.download()[255] == 42.0f);
}

// =========================== faults and recovery ================================

TEST_CASE("an exception in device code reaches the launch site and the next launch works",
          "[adversarial][faults]") {
  quiet q;
  device_buffer<float> out(4 * 64);
  CHECK_THROWS_AS(adv_blank(out.ptr, 4), course::unfilled_blank);
  CHECK(last().error == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
  CHECK(cudaGetLastError() == cudaSuccess);
  adv_blank(out.ptr, 1);  // block 0 only: no blank reached
  const auto& r = last();
  INFO(r.sanitizer_text());
  CHECK(r.ok());
  CHECK(out.download()[0] == 63.0f);
}

TEST_CASE("after a timeout launches fail with the sticky error until reset", "[adversarial][faults]") {
  quiet q;
  device_buffer<float> a(std::vector<float>(4, 5.0f)), b(4);
  cuda_emu::settings().time_limit = std::chrono::milliseconds(100);
  device_buffer<int> flag(std::vector<int>{0}), out(1);
  adv_spin(flag.ptr, out.ptr);
  CHECK(last().error == cudaErrorLaunchTimeout);
  std::vector<float> host(4);
  CHECK(cudaMemcpy(host.data(), a.ptr, 16, cudaMemcpyDeviceToHost) == cudaErrorLaunchTimeout);
  adv_copy(a.ptr, b.ptr, 4);
  CHECK(last().error == cudaErrorLaunchTimeout);
  CHECK(cudaDeviceSynchronize() == cudaErrorLaunchTimeout);
  cuda_emu::reset();
  cuda_emu::settings().time_limit = std::chrono::seconds(10);
  adv_copy(a.ptr, b.ptr, 4);
  CHECK(last().ok());
  CHECK(b.download()[3] == 5.0f);
}

TEST_CASE("a spin on an atomic is stopped at the time limit", "[adversarial][faults]") {
  // The loop makes a memory access every iteration, so the deadline should stop it.
  // BUG: note_atomic() never calls tick()/check_deadline(): the scheduler cannot stop
  // the loop and the watchdog exits the whole process (code 124). Run in a child
  // (where the watchdog thread does not exist, so an alarm ends it).
  quiet q;
  const int status = in_child(
      [] {
        cuda_emu::settings().time_limit = std::chrono::milliseconds(100);
        device_buffer<int> flag(std::vector<int>{0});
        adv_atomic_spin(flag.ptr);
        return cuda_emu::last_launch().error == cudaErrorLaunchTimeout ? 0 : 1;
      },
      2);
  INFO(describe(status));
  CHECK(exited_with(status, 0));
}

TEST_CASE("a spin on a volatile __device__ flag is stopped at the time limit", "[adversarial][faults]") {
  // BUG: accesses to static data return from on_access() before tick(), so the
  // deadline is never checked.
  quiet q;
  const int status = in_child(
      [] {
        cuda_emu::settings().time_limit = std::chrono::milliseconds(100);
        adv_static_spin();
        return cuda_emu::last_launch().error == cudaErrorLaunchTimeout ? 0 : 1;
      },
      2);
  INFO(describe(status));
  CHECK(exited_with(status, 0));
}

TEST_CASE("launch configurations: 1024 threads, 0 threads, 1025 threads, z of 65, grid y of 65536",
          "[adversarial][faults]") {
  quiet q;
  device_buffer<int> p(2048);
  adv_launch_config(p.ptr, 2, 1, 1024, 1, 1);
  CHECK(last().ok());
  CHECK(p.download()[2047] == 1);
  adv_launch_config(p.ptr, 1, 1, 8, 8, 16);
  CHECK(last().ok());
  for (auto [gx, gy, bx, by, bz] : {std::array<unsigned, 5>{1, 1, 0, 1, 1}, {1, 1, 1025, 1, 1},
                                    {1, 1, 1, 1, 65}, {0, 1, 32, 1, 1}, {1, 65536, 1, 1, 1}, {1, 1, 32, 33, 1}}) {
    INFO(gx << " " << gy << " " << bx << " " << by << " " << bz);
    adv_launch_config(p.ptr, gx, gy, bx, by, bz);
    CHECK(last().error == cudaErrorInvalidConfiguration);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  }
  adv_launch_config(p.ptr, 1, 1, 32, 1, 1);
  CHECK(last().ok());  // configuration errors are not sticky
}

TEST_CASE("a failing device assert fails the launch instead of aborting the process", "[adversarial][faults][!mayfail]") {
  // On a GPU a failed assert() ends the launch with cudaErrorAssert and the process
  // goes on. The emulator runs glibc's assert: abort() kills the process. Child process.
  quiet q;
  const int status = in_child(
      [] {
        std::freopen("/dev/null", "w", stderr);
        device_buffer<int> p(std::vector<int>{0, 0, 0, 1});
        adv_device_assert(p.ptr);
        return cuda_emu::last_launch().error != cudaSuccess ? 0 : 1;
      },
      10);
  INFO(describe(status));
  CHECK(exited_with(status, 0));
}

TEST_CASE("an exception in device code is recorded as a report of kind exception", "[adversarial][faults]") {
  // docs/emulator.md: reports hold "memcheck, synccheck, timeout, exception, bad
  // configuration". BUG: fiber_main() (src/scheduler.cpp) stores the exception but never
  // emit()s a report, so reports and sanitizer_text() are empty for such a launch.
  quiet q;
  device_buffer<float> out(4 * 64);
  CHECK_THROWS_AS(adv_blank(out.ptr, 4), course::unfilled_blank);
  const auto& r = last();
  CHECK(r.error == cudaErrorLaunchFailure);
  REQUIRE(r.reports.size() == 1);
  CHECK(r.reports[0].kind == cuda_emu::report_kind::exception);
  CHECK_THAT(r.sanitizer_text(), Catch::Contains("adv_blank"));
}

TEST_CASE("a shuffle by half the warp does not split the warp's next store", "[adversarial][counters][!mayfail]") {
  // ncu: one store instruction for the 32 lanes after the branch reconverges.
  // BUG: lanes 16..31 store in the scheduler pass in which lanes 0..15 wait at the
  // shuffle; groups are flushed per pass, so lanes 0..15 make a second request.
  quiet q;
  device_buffer<int> out(32);
  adv_partial_mask_shuffle(out.ptr);
  REQUIRE(last().ok());
  const auto got = out.download();
  for (int t = 0; t < 15; ++t) CHECK(got[t] == t + 1);
  CHECK(got[15] == 15);
  CHECK(got[20] == 20);
  CHECK(last().counters.global_store_requests == 1);
  CHECK(last().counters.global_store_sectors == 4);
}

TEST_CASE("a misaligned float4 load fails the launch instead of crashing the process",
          "[adversarial][memcheck]") {
  // A GPU stops the launch with "misaligned address" (cudaErrorMisalignedAddress) and
  // the process goes on. BUG: g++ compiles the 16-byte-aligned float4 load to movdqa,
  // which faults (SIGSEGV) on x86: no report, and the whole test program dies.
  quiet q;
  const int status = in_child(
      [] {
        device_buffer<float> in(32 * 4 + 4);
        device_buffer<float4> out(32);
        adv_misaligned_float4(in.ptr, out.ptr);
        return cuda_emu::last_launch().error != cudaSuccess ? 0 : 1;
      },
      10);
  INFO(describe(status));
  CHECK(exited_with(status, 0));
}

TEST_CASE("a float load 2 bytes off its alignment is a memcheck error", "[adversarial][memcheck]") {
  // compute-sanitizer: "Invalid __global__ read of size 4 bytes ... misaligned";
  // BUG (false negative): the emulator has unaligned hooks and accepts the access.
  quiet q;
  device_buffer<float> in(40), out(32);
  adv_misaligned_float(in.ptr, out.ptr);
  CHECK(last().error != cudaSuccess);
}

TEST_CASE("min and max accept float and double in a .cu file, as CUDA's math headers do",
          "[adversarial]") {
  // BUG: cuda.hpp declares min/max for int, unsigned and long long only, so
  // max(x, 0.0f) in a kernel is an ambiguous call and the file does not compile.
  CHECK(adv_float_min_max_compiles());
}

TEST_CASE("conflict-free 8- and 16-byte shared accesses have no bank conflicts", "[adversarial][counters]") {
  // ncu: a warp's 64-bit access needs 2 wavefronts and a 128-bit one 4 (128 bytes per
  // wavefront); l1tex__data_bank_conflicts counts only wavefronts beyond that, so a
  // contiguous double or float4 access has 0 conflicts. BUG: account() in
  // src/access.cpp reports wavefronts - 1 (1 and 3 conflicts per request).
  quiet q;
  std::vector<double> dh(32, 1.0);
  device_buffer<double> din(dh), dout(32);
  adv_shared_double(din.ptr, dout.ptr);
  REQUIRE(last().ok());
  CHECK(last().counters.shared_load_wavefronts == 2);
  CHECK(last().counters.shared_load_bank_conflicts == 0);
  CHECK(last().counters.shared_store_bank_conflicts == 0);
  std::vector<float4> fh(32);
  for (int i = 0; i < 32; ++i) fh[i] = make_float4(i, 0, 0, 0);
  device_buffer<float4> fin(fh), fout(32);
  adv_shared_float4(fin.ptr, fout.ptr);
  REQUIRE(last().ok());
  CHECK(fout.download()[0].x == 31.0f);
  CHECK(last().counters.shared_load_requests == 1);
  CHECK(last().counters.shared_load_wavefronts == 4);
  CHECK(last().counters.shared_load_bank_conflicts == 0);
  CHECK(last().counters.shared_store_bank_conflicts == 0);
}
