// The unit table: every spelling the reader knows, lower-case, with µ and μ as u; and the
// longest unit spelled at a point of the text (numbers.hpp).
#include <cmath>
#include <string>
#include <unordered_map>
#include <vector>

#include "numbers.hpp"

namespace grader::reader {
namespace {

using unit_table = std::unordered_map<std::string, unit_info>;

const std::vector<std::string> per_second = {"/s",   "/sec",        "/second",  "/秒",
                                             "每秒", " per second", " per sec", " per s"};

// Bytes and bits with SI and binary prefixes, their rates, and the bare prefixes.
void add_byte_units(unit_table& t) {
  struct prefix {
    const char* name;
    int power;
    bool binary;
  };
  const std::vector<prefix> byte_prefixes = {
      {"", 0, false},     {"k", 1, false},    {"m", 2, false},    {"g", 3, false},
      {"t", 4, false},    {"p", 5, false},    {"千", 1, false},   {"兆", 2, false},
      {"吉", 3, false},   {"太", 4, false},   {"拍", 5, false},   {"kilo", 1, false},
      {"mega", 2, false}, {"giga", 3, false}, {"tera", 4, false}, {"peta", 5, false},
      {"ki", 1, true},    {"mi", 2, true},    {"gi", 3, true},    {"ti", 4, true},
      {"pi", 5, true},    {"kibi", 1, true},  {"mebi", 2, true},  {"gibi", 3, true},
      {"tebi", 4, true},  {"pebi", 5, true}};
  auto scale = [](const prefix& p) {
    return std::pow(p.binary ? 1024.0 : 1000.0, static_cast<double>(p.power));
  };
  for (const prefix& p : byte_prefixes) {
    // kilo, mebi: only with byte(s)
    const bool word = std::string_view(p.name).size() > 2 && is_alpha(p.name[0]);
    for (const std::string base : {"b", "byte", "bytes", "字节", "bit", "bits"}) {
      if (word && (base == "b" || base == "字节")) continue;
      const bool bits = base.starts_with("bit");
      unit_info u{"bytes", scale(p) / (bits ? 8.0 : 1.0), p.binary, p.power};
      const std::string name = p.name + base;
      t.emplace(name, u);
      u.dimension = "bytes/s";
      for (const auto& s : per_second) t.emplace(name + s, u);
      if (base == "b") t.emplace(name + "ps", u);  // GBps; and Gbps, read as bytes
    }
    if (p.power == 0 || word) continue;
    // A bare prefix: its unit and family come from the key.
    unit_info bare{"", 0, p.binary, p.power};
    bare.bare = true;
    t.emplace(p.name, bare);
    bare.dimension = "/s";
    for (const auto& s : per_second) t.emplace(p.name + s, bare);
  }
}

// Times.
void add_time_units(unit_table& t) {
  const std::vector<std::pair<std::vector<std::string>, double>> times = {
      {{"s", "sec", "secs", "second", "seconds", "秒"}, 1},
      {{"ms", "msec", "millisecond", "milliseconds", "毫秒"}, 1e-3},
      {{"us", "usec", "microsecond", "microseconds", "微秒"}, 1e-6},
      {{"ns", "nsec", "nanosecond", "nanoseconds", "纳秒"}, 1e-9},
      {{"min", "mins", "minute", "minutes", "分钟"}, 60},
      {{"hour", "hours", "小时"}, 3600}};
  for (const auto& [names, f] : times)
    for (const auto& n : names) t.emplace(n, unit_info{"s", f});
}

// FLOP counts and rates.
void add_flop_units(unit_table& t) {
  const std::vector<std::pair<std::string, int>> flop_prefixes = {{"", 0},  {"k", 1}, {"m", 2},
                                                                  {"g", 3}, {"t", 4}, {"p", 5}};
  for (const auto& [p, power] : flop_prefixes) {
    const unit_info count{"flop", std::pow(1000.0, power), false, power};
    unit_info rate = count;
    rate.dimension = "flop/s";
    t.emplace(p + "flop", count);
    t.emplace(p + "flops", rate);  // FLOPs (that case) is a count: see match_unit
    for (const auto& s : per_second) {
      t.emplace(p + "flop" + s, rate);
      t.emplace(p + "flops" + s, rate);
    }
  }
}

// Count words and percent.
void add_count_units(unit_table& t) {
  unit_info count{"", 1};
  count.plain = true;
  for (const std::string w :
       {"times",        "time",    "x",        "×",       "次",       "个",
        "倍",           "遍",      "sector",   "sectors", "扇区",     "transaction",
        "transactions", "element", "elements", "thread",  "threads",  "warp",
        "warps",        "block",   "blocks",   "tile",    "tiles",    "read",
        "reads",        "load",    "loads",    "request", "requests", "instruction",
        "instructions", "head",    "heads",    "layer",   "layers",   "row",
        "rows",         "column",  "columns"})
    t.emplace(w, count);
  unit_info percent{"", 0.01};
  percent.percent = true;
  for (const std::string w : {"%", "percent", "per cent", "pct"}) t.emplace(w, percent);
  percent.factor = 0.001;
  t.emplace("‰", percent);
}

const unit_table& units() {
  static const unit_table table = [] {
    unit_table t;
    add_byte_units(t);
    add_time_units(t);
    add_flop_units(t);
    add_count_units(t);
    return t;
  }();
  return table;
}

std::string utf8(char32_t c) {
  std::string s;
  encode(c, s);
  return s;
}

}  // namespace

unit_match match_unit(const std::vector<cp>& cps, size_t i) {
  constexpr size_t longest = 24;
  std::string folded;
  std::vector<size_t> ends, next;  // per kept code point: bytes of folded, index after it
  std::vector<char32_t> kept;
  for (size_t j = i; j < cps.size() && kept.size() < longest; ++j) {
    char32_t c = cps[j].c;
    if (c == '\n' || c == '\r') break;
    if (is_inline_space(c)) {
      const bool after_slash = !kept.empty() && kept.back() == '/';
      const bool before_slash = j + 1 < cps.size() && cps[j + 1].c == '/';
      if (after_slash || before_slash || kept.empty()) continue;
      c = ' ';
    }
    if (c >= 'A' && c <= 'Z') c = c - 'A' + 'a';
    if (c == 0xB5 || c == 0x3BC) c = 'u';
    folded += utf8(c);
    kept.push_back(c);
    ends.push_back(folded.size());
    next.push_back(j + 1);
  }
  unit_match m;
  for (size_t n = kept.size(); n > 0; --n) {
    const auto found = units().find(folded.substr(0, ends[n - 1]));
    if (found == units().end()) continue;
    const char32_t last = kept[n - 1];
    const size_t after = next[n - 1];
    if ((is_alpha(last) || is_digit(last)) && after < cps.size() && is_word(cps[after].c)) continue;
    if (kept[n - 1] == ' ') continue;
    m.info = found->second;
    m.end = after;
    m.found = true;
    // FLOPs, written so, counts operations; FLOPS and flops are per second.
    if (m.info.dimension == "flop/s" && n >= 5 && cps[after - 1].c == 's' &&
        cps[after - 2].c == 'P' && cps[after - 5].c == 'F')
      m.info.dimension = "flop";
    break;
  }
  return m;
}

}  // namespace grader::reader

namespace grader {

std::optional<unit_info> parse_unit(std::string_view unit) {
  using namespace reader;
  const std::vector<cp> cps = code_points(unit);
  size_t b = 0, e = cps.size();
  while (b < e && (is_inline_space(cps[b].c) || cps[b].c == '\n')) ++b;
  while (e > b && (is_inline_space(cps[e - 1].c) || cps[e - 1].c == '\n')) --e;
  if (b == e) return unit_info{"", 1, false, 0, true};
  const std::vector<cp> trimmed(cps.begin() + static_cast<long>(b),
                                cps.begin() + static_cast<long>(e));
  const unit_match m = match_unit(trimmed, 0);
  if (!m.found || m.end != trimmed.size() || m.info.bare) return std::nullopt;
  return m.info;
}

}  // namespace grader
