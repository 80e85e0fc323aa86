// Reading an instructor's review file (see review.hpp).
#include "grader/lesson/review.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "grader/base/error.hpp"

namespace grader {
namespace {

double points_in_range(const std::filesystem::path& file, const std::string& id,
                       const nlohmann::json& value, double max_points) {
  if (!value.is_number())
    bad_input(file, fmt::format("the points for \"{}\" must be a number", id));
  const double points = value.get<double>();
  // An out-of-range value is a typo to fix, never something to clamp.
  if (!(points >= 0 && points <= max_points + 1e-9))
    bad_input(file,
              fmt::format("\"{}\" is worth 0 to {:g} points, not {:g}", id, max_points, points));
  return points;
}

}  // namespace

review load_review(const std::filesystem::path& file, const manifest& m,
                   const std::map<std::string, double>& part_points) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw input_error("cannot read the override file " + file.string());
  const auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    bad_input(
        file,
        "an override file is a JSON object {\"schema\": 1, \"items\": {...}, \"parts\": {...}, "
        "\"vetoes\": {...}} (docs/grader.md)");
  for (const auto& [key, value] : j.items())
    if (key != "schema" && key != "reviewer" && key != "comment" && key != "items" &&
        key != "parts" && key != "vetoes")
      bad_input(file, fmt::format("unknown key \"{}\" (expected schema, reviewer, comment, items, "
                                  "parts, vetoes)",
                                  key));
  if (!j.contains("schema") || j["schema"] != 1)
    bad_input(file, "\"schema\": 1 is missing (the override file's format version)");
  review r;
  r.file = file.string();
  auto text = [&](const char* key) {
    if (!j.contains(key)) return std::string();
    if (!j[key].is_string()) bad_input(file, fmt::format("\"{}\" must be a string", key));
    return j[key].get<std::string>();
  };
  r.reviewer = text("reviewer");
  r.comment = text("comment");
  auto object = [&](const char* key) {
    if (!j.contains(key)) return nlohmann::json::object();
    if (!j[key].is_object()) bad_input(file, fmt::format("\"{}\" must be an object", key));
    return j[key];
  };
  const nlohmann::json items = object("items"), parts = object("parts"), vetoes = object("vetoes");
  for (const auto& [id, value] : items.items()) {
    const item* found = nullptr;
    for (const unit& u : m.units)
      for (const item& it : u.items)
        if (it.id == id) found = &it;
    if (!found) bad_input(file, fmt::format("\"{}\" is not an item of {}", id, m.lesson));
    r.items[id] = points_in_range(file, id, value, found->points);
  }
  for (const auto& [id, value] : parts.items()) {
    const auto p = part_points.find(id);
    if (p == part_points.end())
      bad_input(file, fmt::format("\"{}\" is not a part of {}'s questions", id, m.lesson));
    r.parts[id] = points_in_range(file, id, value, p->second);
  }
  for (const auto& [unit_id, decisions] : vetoes.items()) {
    const unit* u = nullptr;
    for (const unit& x : m.units)
      if (x.id == unit_id) u = &x;
    if (!u) bad_input(file, fmt::format("\"{}\" is not a unit of {}", unit_id, m.lesson));
    if (!decisions.is_object())
      bad_input(
          file,
          fmt::format("vetoes of \"{}\": an object {{\"veto id\": \"set\" | \"clear\"}}", unit_id));
    for (const auto& [veto_id, decision] : decisions.items()) {
      bool known = false;
      for (const veto& v : u->vetoes) known |= v.id == veto_id;
      if (!known) bad_input(file, fmt::format("\"{}\" is not a veto of unit {}", veto_id, unit_id));
      if (decision == "set")
        r.vetoes[unit_id][veto_id] = veto_decision::set;
      else if (decision == "clear")
        r.vetoes[unit_id][veto_id] = veto_decision::clear;
      else
        bad_input(file, fmt::format("veto \"{}\": \"set\" or \"clear\", not {}", veto_id,
                                    decision.dump()));
    }
  }
  return r;
}

}  // namespace grader
