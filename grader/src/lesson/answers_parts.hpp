// What grading against the key (answers.cpp) and checking a release's form without it
// (answers_form.cpp) both say of an answers file and of its parts, so the two read a file
// the same way and word the same problem the same way. Internal to grader/src/lesson.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "grader/base/i18n.hpp"
#include "grader/lesson/answers.hpp"

namespace grader {

// "<id>: missing from the answers file (...)": a part whose heading is gone.
std::string missing_part_feedback(const std::string& id, lang l);

// A part's problems, "line <n>: <message>; ...".
std::string problems_list(const std::vector<answers_problem>& problems, lang l);

// No box ticked (choice, multi), or no answer written (the other types).
bool is_unanswered(const std::string& type, const answer_part& a);

// Parses `file`: what stops the whole file goes to `error`, a legacy encoding to `note`,
// and, when it decodes, `grade` fills the result's parts. Never throws: whatever the file
// does to the parser (or to `grade`) becomes `error`.
answers_result read_answers_file(
    const std::filesystem::path& file, lang l,
    const std::function<void(const answers_doc&, answers_result&)>& grade);

}  // namespace grader
