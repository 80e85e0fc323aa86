// The attention reference's loops take four keys at a time so that four sums are in flight
// at once (reference/attention_reference.hpp). That is only a speed-up if every number stays
// the same: this check holds it to the definition, one key at a time, bit for bit (NaN
// counts as equal to NaN, whatever its payload), on random shapes whose key counts leave
// every remainder mod 4, with zeros, infinities and NaNs among the inputs; and the O-only
// standard_attention to the same bits.
//   build/dev/bin/lesson13_checks "[reference]"
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "../reference/attention_reference.hpp"

namespace {

// The definition: every sum in the order of its index, one key at a time.
lesson13::reference::attention_result one_key_at_a_time(const std::vector<float>& Q,
                                                        const std::vector<float>& K,
                                                        const std::vector<float>& V, int n, int d,
                                                        int n_keys) {
  lesson13::reference::attention_result out{std::vector<double>(size_t(n) * d, 0.0),
                                            std::vector<double>(size_t(n) * d, 0.0),
                                            std::vector<double>(n, 0.0)};
  std::vector<double> S(n_keys);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n_keys; ++c) {
      double s = 0.0, magnitude = 0.0;
      for (int k = 0; k < d; ++k) {
        const double term = static_cast<double>(Q[size_t(r) * d + k]) * K[size_t(c) * d + k];
        s += term;
        magnitude += std::abs(term);
      }
      S[c] = s;
      out.A[r] = std::max(out.A[r], magnitude);
    }
    if (n_keys == 0) continue;
    double m = S[0];
    for (int c = 1; c < n_keys; ++c)
      if (m < S[c]) m = S[c];  // std::max_element's choice: the first of the largest
    double l = 0.0;
    for (int c = 0; c < n_keys; ++c) l += (S[c] = std::exp(S[c] - m));
    for (int c = 0; c < n_keys; ++c)
      for (int k = 0; k < d; ++k) {
        const double v = V[size_t(c) * d + k];
        out.O[size_t(r) * d + k] += S[c] / l * v;
        out.M[size_t(r) * d + k] += S[c] / l * std::abs(v);
      }
  }
  return out;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::isnan(a[i]) && std::isnan(b[i])) && std::memcmp(&a[i], &b[i], sizeof a[i]) != 0)
      return false;
  return true;
}

}  // namespace

TEST_CASE("the attention reference gives the same bits as one key at a time", "[reference]") {
  std::mt19937_64 rng(20261207);
  const float specials[] = {0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN()};
  for (int t = 0; t < 600; ++t) {
    const int n = 1 + int(rng() % 40), d = 1 + int(rng() % 33), n_keys = int(rng() % (n + 1));
    std::normal_distribution<float> value(0.0f, t % 4 == 0 ? 20.0f : 1.0f);
    std::vector<float> Q(size_t(n) * d), K(size_t(n) * d), V(size_t(n) * d);
    for (std::vector<float>* m : {&Q, &K, &V})
      for (float& x : *m) x = (t % 3 == 0 && rng() % 64 == 0) ? specials[rng() % 5] : value(rng);
    const auto got = lesson13::reference::attention_with_magnitudes(Q, K, V, n, d, n_keys);
    const auto want = one_key_at_a_time(Q, K, V, n, d, n_keys);
    INFO("n=" << n << " d=" << d << " n_keys=" << n_keys << " (draw " << t << ")");
    CHECK(same_bits(got.O, want.O));
    CHECK(same_bits(got.M, want.M));
    CHECK(same_bits(got.A, want.A));
    // The tests' standard attention: O alone over all n keys, without the magnitudes' work.
    const auto all_keys = n_keys == n ? want : one_key_at_a_time(Q, K, V, n, d, n);
    CHECK(same_bits(lesson13::reference::standard_attention(Q, K, V, n, d), all_keys.O));
  }
}
