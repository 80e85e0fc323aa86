// Double-precision CPU references for lesson 13's tests. Independent of the
// exercise: they materialise the full score matrix, as standard attention does.
#pragma once

#include <vector>

namespace lesson13::reference {

// softmax(Q K^T) V with the row max subtracted, all in double. Q, K, V: n x d.
std::vector<double> standard_attention(const std::vector<float>& Q, const std::vector<float>& K,
                                       const std::vector<float>& V, int n, int d);

// The misconception the `blockwise-softmax-concat` veto detects: softmax taken
// inside each key block on its own, the blocks' P concatenated, times V. With
// `average`, each row is then divided by the number of key blocks (what follows
// if the running sum counts blocks instead of weights).
std::vector<double> blockwise_softmax_concat(const std::vector<float>& Q,
                                             const std::vector<float>& K,
                                             const std::vector<float>& V, int n, int d,
                                             int block_size, bool average);

// Whole-row softmax statistics of one query row, straight from its scores:
//   m = max_c s[c],  l = sum_c exp(s[c] - m),  O[k] = sum_c exp(s[c] - m) V[c][k].
struct row_statistics {
  double m;
  double l;
  std::vector<double> O;
};
row_statistics row_stats(const std::vector<double>& scores, const std::vector<float>& V, int d);

}  // namespace lesson13::reference
