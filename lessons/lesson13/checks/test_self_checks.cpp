// Every self-check question in the student notes has its answer in the instructor edition
// (issue 25): the numbered questions under each chapter's "## Self-check" / "## 自测" are
// counted, in both languages, against the numbered answers under that chapter's heading in
// solutions/<lesson>/notes/instructor.{en,zh}.md. A question added without an answer, or an
// answer left behind by a removed question, fails here with the chapter and both counts.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

namespace fs = std::filesystem;

namespace {

// Lines "N. ..." at the start of a line (not indented: sub-lists do not count), from the
// first line equal to `start` up to the next "## " heading or "---".
int numbered_after(const fs::path& file, const std::regex& start, const std::regex& stop) {
  std::ifstream in(file);
  const std::regex item(R"(^[0-9]+\. )");
  bool inside = false;
  int count = 0;
  for (std::string line; std::getline(in, line);) {
    if (!inside) {
      inside = std::regex_search(line, start);
      continue;
    }
    if (std::regex_search(line, stop)) break;
    if (std::regex_search(line, item)) ++count;
  }
  return count;
}

}  // namespace

TEST_CASE("every self-check question has an answer in the instructor edition", "[notes]") {
  const fs::path lesson = LESSON_DIR;
  const fs::path instructor = lesson / ".." / ".." / "solutions" / lesson.filename() / "notes";
  if (!fs::exists(instructor)) {
    WARN("no instructor notes here (a student release): not checked");
    return;
  }
  for (const std::string lang : {"en", "zh"}) {
    const std::regex self_check(lang == "en" ? "^## Self-check" : "^## 自测");
    int chapters = 0;
    for (const auto& entry : fs::directory_iterator(lesson / "notes")) {
      const std::string name = entry.path().filename().string();
      std::smatch m;
      if (!std::regex_match(name, m, std::regex(R"(0([1-9])-.*\.)" + lang + R"(\.md)"))) continue;
      const std::string chapter = m[1];
      const int questions = numbered_after(entry.path(), self_check, std::regex("^(## |---)"));
      const std::regex heading(lang == "en" ? "^### Chapter " + chapter + " "
                                            : "^### 第 " + chapter + " 章");
      const int answers = numbered_after(instructor / ("instructor." + lang + ".md"), heading,
                                         std::regex("^(## |### )"));
      INFO(name << ": " << questions << " questions, " << answers << " answers in instructor."
                << lang << ".md");
      CHECK(questions > 0);
      CHECK(answers == questions);
      ++chapters;
    }
    CHECK(chapters == 6);
  }
}
