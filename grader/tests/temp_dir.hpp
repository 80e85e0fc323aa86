// A unique directory under the system temp dir for one grader unit test, removed
// with everything in it when the test ends.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fmt/format.h>
#include <random>
#include <string>

struct temp_dir {
  std::filesystem::path path;
  explicit temp_dir(const std::string& tag = "grader-test") {
    static unsigned counter = 0;
    std::random_device rd;
    path = std::filesystem::temp_directory_path() /
           fmt::format("{}-{}-{}-{:08x}", tag, ::getpid(), counter++, rd());
    std::filesystem::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};
