// Small file helpers shared by the grader's modules.
#pragma once

#include <filesystem>
#include <string>

namespace grader {

// The whole file; throws cannot_grade naming the file when it cannot be read.
std::string read_text(const std::filesystem::path& p);

// Writes only when the content differs, so an unchanged file keeps its timestamp
// and the build has nothing to redo.
void write_if_changed(const std::filesystem::path& p, const std::string& content);

}  // namespace grader
