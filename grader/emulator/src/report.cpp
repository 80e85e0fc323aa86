// Reports in compute-sanitizer's wording, counters under Nsight Compute's metric
// names, and source locations (through addr2line, only when a report needs one).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>

#include "internal.hpp"

namespace cuda_emu {
namespace detail {

std::string location(const void* pc) {
  static std::map<const void*, std::string> cache;
  if (auto it = cache.find(pc); it != cache.end()) return it->second;
  std::string out = "an unknown place";  // a raw address would change with ASLR
  Dl_info info{};
  if (dladdr(pc, &info) && info.dli_fbase) {
    char offset[64];  // the same in every run of the same binary
    std::snprintf(offset, sizeof offset, "offset 0x%lx of ",
                  static_cast<unsigned long>(reinterpret_cast<uintptr_t>(pc) -
                                             reinterpret_cast<uintptr_t>(info.dli_fbase)));
    const std::string name =
        std::filesystem::path(info.dli_fname ? info.dli_fname : "").filename().string();
    out = offset + (name.empty() ? std::string("the program") : name);
    // The executable's own path: inside popen, /proc/self would be the shell.
    static const std::string self = [] {
      char buf[4096];
      const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
      return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
    }();
    const std::string object =
        info.dli_fname && std::string(info.dli_fname).find(".so") != std::string::npos
            ? info.dli_fname
            : self;
    char cmd[512];
    std::snprintf(cmd, sizeof cmd, "addr2line -C -f -e '%s' 0x%lx 2>/dev/null", object.c_str(),
                  static_cast<unsigned long>(reinterpret_cast<uintptr_t>(pc) -
                                             reinterpret_cast<uintptr_t>(info.dli_fbase) - 1));
    if (FILE* p = popen(cmd, "r")) {
      char func[512] = {}, where[1024] = {};
      if (std::fgets(func, sizeof func, p) && std::fgets(where, sizeof where, p)) {
        std::string f(func), w(where);
        while (!f.empty() && (f.back() == '\n' || f.back() == '\r')) f.pop_back();
        while (!w.empty() && (w.back() == '\n' || w.back() == '\r')) w.pop_back();
        if (const auto d = w.find(" (discriminator"); d != std::string::npos) w.resize(d);
        if (const auto slash = w.rfind('/'); slash != std::string::npos) w = w.substr(slash + 1);
        if (f != "??") out = f + (w.starts_with("??") ? "" : " in " + w);
      }
      pclose(p);
    }
  }
  cache[pc] = out;
  return out;
}

void emit(report_kind kind, const std::string& text) {
  if (emu.record) emu.record->reports.push_back({kind, text});
  if (!g_options.print_reports) return;
  std::istringstream lines(text);
  std::string line;
  bool first = true;
  while (std::getline(lines, line)) {
    std::fprintf(stderr, "========= %s%s\n", first && kind != report_kind::config ? "" : "",
                 line.c_str());
    first = false;
  }
}

std::string race_text(const race& r) {
  std::string out = "========= Error: Race reported between " + r.first + "\n=========     and " +
                    r.second + " [" + std::to_string(r.hazards) + " hazards]\n";
  if (r.global)
    out += r.across_blocks
               ? "=========     in global memory, between threads of different blocks (blocks run "
                 "in no fixed order and no barrier orders them). If each element should have one "
                 "writer, two blocks computed the same index: does it include blockIdx? If "
                 "several blocks must add into one element, use atomics\n"
               : "=========     in global memory, between threads of one block with no "
                 "__syncthreads() between the two accesses\n";
  return out;
}

}  // namespace detail

std::string launch_record::ncu_metrics() const {
  const launch_counters& c = counters;
  std::ostringstream os;
  auto row = [&](const char* name, uint64_t v) { os << name << ' ' << v << '\n'; };
  row("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", c.global_load_requests);
  row("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", c.global_load_sectors);
  row("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", c.global_store_requests);
  row("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", c.global_store_sectors);
  row("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", c.shared_load_bank_conflicts);
  row("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", c.shared_store_bank_conflicts);
  row("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", c.shared_load_wavefronts);
  row("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", c.shared_store_wavefronts);
  row("smsp__sass_inst_executed_op_shared_ld.sum", c.shared_load_requests);
  row("smsp__sass_inst_executed_op_shared_st.sum", c.shared_store_requests);
  const uint64_t total = c.global_load_sectors + c.global_store_sectors,
                 excess = c.global_excessive_sectors();
  if (excess)
    os << "uncoalesced global accesses resulting in a total of " << excess << " excessive sectors ("
       << (total ? (excess * 100 + total / 2) / total : 0) << "% of the total " << total
       << " sectors)\n";
  return os.str();
}

std::string launch_record::sanitizer_text() const {
  std::ostringstream os;
  for (const auto& r : reports) {
    std::istringstream lines(r.text);
    std::string line;
    while (std::getline(lines, line)) os << "========= " << line << '\n';
  }
  // The first few races say what is wrong; thirty pairs of one mistake would bury it.
  constexpr size_t kShown = 4;
  for (size_t i = 0; i < races.size() && i < kShown; ++i) os << detail::race_text(races[i]);
  if (races.size() > kShown) {
    uint64_t hazards = 0;
    for (size_t i = kShown; i < races.size(); ++i) hazards += races[i].hazards;
    os << "========= ... and " << races.size() - kShown << " more race(s) (" << hazards
       << " hazards)\n";
  }
  return os.str();
}

}  // namespace cuda_emu
