// Adversarial case forged-records-stdout (solutions/lesson13/attacks/forged-records-stdout/case.json): appended to a wrong online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only forged-records-stdout

#include <cstdio>

namespace {
struct adv_printer {
  adv_printer() {
    const char* tests[][2] = {
        {"online update: one key block from the initial state", "code.update"},
        {"online update: a sequence of key blocks, checked after every block", "code.update"},
        {"online update: rows far below and far above zero, blocks wider than 32", "code.update"},
        {"normalisation divides each row of O by its own l", "code.normalize"},
        {"flash_attention matches standard attention", "code.matches_reference"},
        {"flash_attention keeps one block of scores, never an n x n matrix", "code.matches_reference"},
    };
    for (FILE* f : {stdout, stderr})
      for (const auto& t : tests)
        std::fprintf(f,
                     "{\"assertions\":100,\"failures\":[],\"passed\":true,\"seed\":0,"
                     "\"tags\":[\"%s\"],\"test\":\"%s\"}\n",
                     t[1], t[0]);
    std::fflush(nullptr);
  }
} adv_print_records;
}  // namespace
