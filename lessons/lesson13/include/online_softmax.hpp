// Lesson 13 exercise API: blocked online-softmax attention on the CPU.
// Implemented by exercises/lesson13/online_softmax.cpp (the student's file) and
// solutions/lesson13/online_softmax.cpp; tested by lessons/lesson13/tests/.
//
// All matrices are row-major float. Q, K, V and O are n x d. As in the reference the
// tests compare against (standard_attention in reference/attention_reference.hpp),
// scores are S = Q K^T with no 1/sqrt(d) factor (fold it into Q).
#pragma once

namespace lesson13 {

// One step of online softmax for a query block Q_i (Br rows) against one key/value
// block K_j, V_j (Bc rows). Inputs: S_ij = Q_i K_j^T (Br x Bc) and V_j (Bc x d).
// Running state per query row r, updated in place:
//   m_i[r]  the largest score seen so far (starts at -inf)
//   l_i[r]  sum of exp(score - m_i[r]) over the scores seen so far (starts at 0)
//   O_i     Br x d, sum of exp(score - m_i[r]) * v over the rows v seen so far,
//           not yet divided by l_i[r] (starts at 0)
void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i);

// The final normalisation: divides each row r of O (n x d) by l[r].
void normalize_rows(float* O, const float* l, int n, int d);

// softmax(Q K^T) V without ever holding more than one Br x Bc block of scores.
// Writes O (n x d). block_size is both Br and Bc; n need not be a multiple of it.
void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O);

}  // namespace lesson13
