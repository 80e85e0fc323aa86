// Lesson 13's figure inputs, figures/figures.json: the numbers that the notes' checks share with
// the figure scripts (figures/make_figures.py draws notes/figures/*.svg from the same file), so
// a figure and the text beside it come from one value. Read once, on first use, from LESSON_DIR.
#pragma once

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace lesson13_figures {

inline const nlohmann::json& inputs() {
  static const nlohmann::json parsed = [] {
    const auto path = std::filesystem::path(LESSON_DIR) / "figures" / "figures.json";
    std::ifstream in(path);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) std::cerr << "cannot read " << path.string() << " as JSON\n";
    return j;
  }();
  return parsed;
}

// The number at inputs()[section][key]; NaN, which fails every figure computed from it, when
// the file or the key is missing.
inline double input(const std::string& section, const std::string& key) {
  const nlohmann::json& j = inputs();
  if (!j.is_object() || !j.contains(section) || !j[section].contains(key) ||
      !j[section][key].is_number()) {
    std::cerr << "figures.json has no number " << section << "." << key << "\n";
    return std::nan("");
  }
  return j[section][key].get<double>();
}

// The list of numbers at inputs()[section][key]; empty when missing.
inline std::vector<double> input_list(const std::string& section, const std::string& key) {
  const nlohmann::json& j = inputs();
  std::vector<double> out;
  if (j.is_object() && j.contains(section) && j[section].contains(key) &&
      j[section][key].is_array())
    for (const auto& v : j[section][key]) out.push_back(v.is_number() ? v.get<double>() : NAN);
  if (out.empty()) std::cerr << "figures.json has no list " << section << "." << key << "\n";
  return out;
}

}  // namespace lesson13_figures
