// Hidden tests of the online_softmax exercise: compiled into marking mode's judge only
// (grader mark), never shipped to students (the release leaves solutions/ out). They draw
// shapes the public tests do not name, so a submission tuned to the public file's shapes
// still meets new ones. Run by hand: the lesson13_online_softmax_judge binary of a dev build.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "course/testing.hpp"
#include "online_softmax.hpp"

namespace {

// softmax(Q K^T / 1) V in double, row by row: the independent reference.
std::vector<double> attention_in_double(const std::vector<float>& Q, const std::vector<float>& K,
                                        const std::vector<float>& V, int n, int d) {
  std::vector<double> O(static_cast<size_t>(n) * d, 0.0), s(n);
  for (int r = 0; r < n; ++r) {
    double m = -INFINITY;
    for (int c = 0; c < n; ++c) {
      double dot = 0;
      for (int k = 0; k < d; ++k)
        dot += static_cast<double>(Q[static_cast<size_t>(r) * d + k]) * K[static_cast<size_t>(c) * d + k];
      s[c] = dot;
      m = std::max(m, dot);
    }
    double l = 0;
    for (int c = 0; c < n; ++c) l += (s[c] = std::exp(s[c] - m));
    for (int c = 0; c < n; ++c)
      for (int k = 0; k < d; ++k)
        O[static_cast<size_t>(r) * d + k] += s[c] / l * V[static_cast<size_t>(c) * d + k];
  }
  return O;
}

}  // namespace

TEST_CASE("hidden: flash_attention on shapes the public tests do not name",
          "[code.matches_reference]") {
  auto rng = course::test_rng("hidden-flash");
  INFO(course::seed_note());
  const int ns[] = {2, 13, 47, 90}, ds[] = {2, 5, 24}, blocks[] = {3, 7, 20, 128};
  std::uniform_real_distribution<double> scale(0.3, 3.0);
  for (int n : ns)
    for (int d : ds)
      for (int bs : blocks) {
        const double sc = scale(rng);
        const auto Q = course::random_matrix(rng, n, d, sc), K = course::random_matrix(rng, n, d, sc),
                   V = course::random_matrix(rng, n, d, 1.0);
        std::vector<float> O(static_cast<size_t>(n) * d);
        course::poison(O);
        lesson13::flash_attention(Q.data(), K.data(), V.data(), n, d, bs, O.data());
        INFO("n = " << n << ", d = " << d << ", block_size = " << bs << ", score scale "
                    << sc * sc * d);
        REQUIRE(course::relative_error(O, attention_in_double(Q, K, V, n, d)) <= 2e-4);
      }
}

TEST_CASE("hidden: normalize_rows divides every row by its own l", "[code.normalize]") {
  auto rng = course::test_rng("hidden-normalize");
  INFO(course::seed_note());
  for (const int n : {1, 6, 37})
    for (const int d : {1, 9}) {
      auto O = course::random_matrix(rng, n, d, 2.0);
      std::vector<float> l(n);
      std::uniform_real_distribution<float> pick(0.25f, 40.0f);
      for (float& x : l) x = pick(rng);
      std::vector<double> want(O.size());
      for (int r = 0; r < n; ++r)
        for (int k = 0; k < d; ++k)
          want[static_cast<size_t>(r) * d + k] = static_cast<double>(O[static_cast<size_t>(r) * d + k]) / l[r];
      lesson13::normalize_rows(O.data(), l.data(), n, d);
      INFO("n = " << n << ", d = " << d);
      REQUIRE(course::relative_error(O, want) <= 1e-6);
    }
}
