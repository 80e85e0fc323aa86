// A lesson's manifest (lessons/<lesson>/manifest.json): its exercises, graded units,
// rubric items, vetoes and hints, with titles and feedback in zh and en. The grader
// reads everything about a lesson from here; no lesson is named in grader code.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "grader/base/i18n.hpp"

namespace grader {

// The manifest format this grader reads (the manifest's "schema" field); see
// docs/manifest.schema.json.
inline constexpr int manifest_schema_version = 1;

struct exercise {
  std::string id;
  std::string file;  // name inside exercises/<lesson>/ and solutions/<lesson>/
  std::string kind;  // "cpp" or "cu" (compiled with the lesson's tests), or "answers" (markdown)
  bool is_code() const { return kind == "cpp" || kind == "cu"; }
  std::string key;  // answers only: the answer key's name inside solutions/<lesson>/
  text title;
  std::vector<std::string> hints_zh, hints_en;
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
  std::vector<exercise> exercises;
  std::vector<unit> units;

  const exercise* find_exercise(const std::string& id) const;
  const exercise& exercise_of(const item& it) const;
};

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
