// Online softmax where every exp, sum and product is done in double and rounded to float only
// when the state is written back. Written around a small accumulator class.
#include "online_softmax.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace lesson13 {
namespace {

class softmax_row {
 public:
  softmax_row(float* m, float* l, float* o, int d) : m_(m), l_(l), o_(o), d_(d) {}

  void add_block(const float* s, const float* V_j, int Bc) const {
    double m_new = static_cast<double>(*m_);
    for (int c = 0; c < Bc; ++c) m_new = std::max(m_new, static_cast<double>(s[c]));
    const double rescale = std::exp(static_cast<double>(*m_) - m_new);  // 0 on the first block
    double l = static_cast<double>(*l_) * rescale;
    std::vector<double> o(d_);
    for (int k = 0; k < d_; ++k) o[k] = static_cast<double>(o_[k]) * rescale;
    for (int c = 0; c < Bc; ++c) {
      const double w = std::exp(static_cast<double>(s[c]) - m_new);
      l += w;
      for (int k = 0; k < d_; ++k) o[k] += w * static_cast<double>(V_j[static_cast<long>(c) * d_ + k]);
    }
    *m_ = static_cast<float>(m_new);
    *l_ = static_cast<float>(l);
    for (int k = 0; k < d_; ++k) o_[k] = static_cast<float>(o[k]);
  }

 private:
  float* m_;
  float* l_;
  float* o_;
  int d_;
};

}  // namespace

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  for (int r = 0; r < Br; ++r)
    softmax_row(m_i + r, l_i + r, O_i + static_cast<long>(r) * d, d)
        .add_block(S_ij + static_cast<long>(r) * Bc, V_j, Bc);
}

void normalize_rows(float* O, const float* l, int n, int d) {
  for (int r = 0; r < n; ++r)
    for (int k = 0; k < d; ++k)
      O[static_cast<long>(r) * d + k] =
          static_cast<float>(static_cast<double>(O[static_cast<long>(r) * d + k]) / l[r]);
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  std::vector<float> m(n, -std::numeric_limits<float>::infinity()), l(n, 0.0f);
  std::fill(O, O + static_cast<long>(n) * d, 0.0f);
  std::vector<float> S(static_cast<size_t>(block_size) * block_size);
  for (int i = 0; i < n; i += block_size) {
    const int Br = std::min(block_size, n - i);
    for (int j = 0; j < n; j += block_size) {
      const int Bc = std::min(block_size, n - j);
      for (int r = 0; r < Br; ++r)
        for (int c = 0; c < Bc; ++c) {
          double dot = 0.0;
          for (int k = 0; k < d; ++k)
            dot += static_cast<double>(Q[static_cast<long>(i + r) * d + k]) *
                   K[static_cast<long>(j + c) * d + k];
          S[static_cast<size_t>(r) * Bc + c] = static_cast<float>(dot);
        }
      online_softmax_update(S.data(), V + static_cast<long>(j) * d, Br, Bc, d, &m[i], &l[i],
                            O + static_cast<long>(i) * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
}

}  // namespace lesson13
