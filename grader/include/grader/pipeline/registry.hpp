// Plug-ins by name: every report format and every runner registers itself from its own
// file with a static `registration`, so adding one is adding one file (CMake globs
// src/pipeline/reporters/ and src/pipeline/runners/, and links them as object files, so
// the linker keeps each registration although no code names it).
//   const grader::reporter_registration csv_format{"csv", reporter_of<csv_reporter>};
// Names list by rank, then by name: the order never depends on the link order.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace grader {

// One registry per kind of plug-in, told apart by `Factory`, a function pointer type.
template <class Factory>
class registry {
 public:
  // After the built-ins (their ranks are 10, 20, ...) unless a plug-in asks for a place.
  static constexpr int default_rank = 1000;

  // The registry of this kind; built on first use, so registrations in the static
  // initialisers of any file find it ready.
  static registry& instance() {
    static registry r;
    return r;
  }

  // Two plug-ins of one name are a programming error: the program stops at start.
  void add(std::string_view name, Factory make, int rank) {
    if (find(name) != nullptr) {
      std::fprintf(stderr, "grader: two plug-ins are named '%.*s'\n", static_cast<int>(name.size()),
                   name.data());
      std::abort();
    }
    entries_.push_back({std::string(name), make, rank});
    std::sort(entries_.begin(), entries_.end(), [](const entry& a, const entry& b) {
      return std::tie(a.rank, a.name) < std::tie(b.rank, b.name);
    });
  }

  // The factory registered as `name`, or nullptr.
  Factory find(std::string_view name) const {
    for (const entry& e : entries_)
      if (e.name == name) return e.make;
    return nullptr;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const entry& e : entries_) out.push_back(e.name);
    return out;
  }

  // A namespace-scope object of this type registers a plug-in before main() runs.
  struct registration {
    registration(std::string_view name, Factory make, int rank = default_rank) {
      instance().add(name, make, rank);
    }
  };

 private:
  struct entry {
    std::string name;
    Factory make;
    int rank;
  };
  std::vector<entry> entries_;
};

}  // namespace grader
