// A lesson's manifest (lessons/<lesson>/manifest.json): its exercises, graded units,
// rubric items, vetoes and hints, with titles and feedback in zh and en. The grader
// reads everything about a lesson from here; no lesson is named in grader code.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "grader/base/i18n.hpp"

namespace grader {

// The manifest format this grader reads (the manifest's "schema" field); see
// docs/manifest.schema.json.
inline constexpr int manifest_schema_version = 1;

// Hints come in levels, so a student asks for as much help as they need: 1 the idea,
// 2 the formula in the lesson's notation, 3 the shape of the code. A student release
// keeps the levels up to a release level (the lesson's default, or the exercise's, or
// the blank's own), so level 3 ships only where the instructor allows it.
inline constexpr int max_hint_level = 3;
inline constexpr int default_hint_release_level = 2;

// One blank's hints, or an exercise's general ones: levels[0] is level 1.
struct hint_ladder {
  std::vector<text> levels;
  int release_level = 0;  // the highest level a student release keeps; 0: the exercise's
};

struct exercise_hints {
  int release_level = 0;                                    // 0: the lesson's hint_release_level
  std::vector<std::pair<std::string, hint_ladder>> blanks;  // blank name -> hints, manifest order
  hint_ladder general;  // about the exercise as a whole (e.g. the answers file's format)

  const hint_ladder* find(const std::string& blank) const;
  bool empty() const { return blanks.empty() && general.levels.empty(); }
};

struct exercise {
  std::string id;
  std::string file;  // name inside exercises/<lesson>/ and solutions/<lesson>/
  std::string kind;  // "cpp" or "cu" (compiled with the lesson's tests), or "answers" (markdown)
  bool is_code() const { return kind == "cpp" || kind == "cu"; }
  std::string key;  // answers only: the answer key's name inside solutions/<lesson>/
  text title;
  exercise_hints hints;
  // Edits outside the blanks ("outside_blanks": "flag", the default, or "fail"): always
  // listed in the report; with fail, the exercise's items score 0 when there are any.
  bool outside_blanks_fail = false;
};

struct item {
  std::string id;  // also the Catch2 tag of the tests that earn it, e.g. [code.update]
  std::string exercise;
  double points = 0;
  text title;
  text pass_feedback, fail_feedback;
};

struct veto {
  std::string id;  // code detectors are the tests tagged [veto:<unit>:<id>]
  text title;
  text explain;
};

struct unit {
  std::string id;
  text title;
  double max_score = 0;
  double pass_line = 0;
  std::vector<item> items;
  std::vector<veto> vetoes;
};

struct manifest {
  std::string lesson;
  text title;
  int hint_release_level = default_hint_release_level;
  std::vector<exercise> exercises;
  std::vector<unit> units;

  const exercise* find_exercise(const std::string& id) const;
  const exercise& exercise_of(const item& it) const;
  // The highest level of `h` (one of `e`'s hints) that a student release keeps.
  int release_level(const exercise& e, const hint_ladder& h) const;
};

// How `grader hint` names blank `blank` of `e`: the blank's name, or
// "<exercise id>:<name>" when another exercise has hints for a blank of that name
// too; "" when `e` has no hints for it.
std::string hint_name(const manifest& m, const exercise& e, const std::string& blank);

// The manifest JSON as a student release ships it: every hint level above its release
// level removed, the release_level fields kept; unchanged when nothing is above. Takes a
// manifest load_manifest accepts; throws input_error on a release level outside 1..3.
nlohmann::json manifest_for_release(const nlohmann::json& manifest_json);

// Where a course's files live: its sources under `root`, and what the grader
// writes (grading trees, mutants) under `build_dir`, never in the checkout.
struct course {
  std::filesystem::path root;
  std::filesystem::path build_dir;

  std::filesystem::path lesson_dir(const std::string& lesson) const {
    return root / "lessons" / lesson;
  }
  std::filesystem::path manifest_path(const std::string& lesson) const {
    return lesson_dir(lesson) / "manifest.json";
  }
  std::filesystem::path exercises_dir(const std::string& lesson) const {
    return root / "exercises" / lesson;
  }
  std::filesystem::path solutions_dir(const std::string& lesson) const {
    return root / "solutions" / lesson;
  }
  std::filesystem::path mutants_dir(const std::string& lesson) const {
    return solutions_dir(lesson) / "mutants";
  }
  std::filesystem::path grading_tree(const std::string& lesson) const {
    return build_dir / "grade" / lesson;
  }
  // Scratch space for one lesson's generated submissions (dev check's mutants).
  std::filesystem::path scratch_dir(const std::string& lesson) const {
    return build_dir / "grade" / (lesson + "-scratch");
  }

  // A student release (`grader dev release`) says so in this file: it has no solutions/
  // and no answer keys, and its questions are graded at submission.
  std::filesystem::path release_file() const { return root / "RELEASE.json"; }
  bool is_student_release() const { return std::filesystem::exists(release_file()); }

  std::vector<std::string> lessons() const;  // every lessons/*/manifest.json, sorted
};

// Finds the course root: `hint` if given, else the nearest directory above `start`
// holding lessons/ and grader/, else the source tree the grader was built from.
// build_dir: where grading trees go (default: the grader's own build directory).
course find_course(const std::filesystem::path& hint, const std::filesystem::path& start,
                   const std::filesystem::path& build_dir = {});

// The seed a lesson's tests draw their inputs with unless --seed says otherwise:
// fixed per lesson, so grading the same files twice gives the same report.
unsigned lesson_seed(const std::string& lesson);

// Parses and checks a manifest: its schema version, every key known, ids unique,
// points adding up. Throws input_error naming the file and the problem.
manifest load_manifest(const course& c, const std::string& lesson);

}  // namespace grader
