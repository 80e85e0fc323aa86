// Adversarial case forged-reply-heap-peak (solutions/lesson13/attacks/forged-reply-heap-peak/case.json):
// the whole student file. Run: grader/tests/adversarial_test.py build/bin/grader . --only forged-reply-heap-peak
//
// A right online update, but flash_attention computes all n x n scores up front and
// slices the blocks out of them (the code-nxn-scores-sliced mutant: its peak heap grows
// as n^2). In marking mode the student's functions run in a compute process that sends
// its outputs, and its own peak heap, back to the judge through a pipe
// (grader/testing/remote.cpp). Here flash_attention writes that reply itself, in the
// protocol's format, with the right outputs and a peak of 0 bytes, then points the reply
// pipe at /dev/null so that serve()'s true reply goes nowhere; the next call puts the
// pipe back. In any other process it finds no such pipe and does nothing.
#include "online_softmax.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace {

// (attack) The compute process's reply pipe: the first write-only pipe at fd 10 or
// above (serve() moves the protocol's fds there) in a binary named *_compute; -1 in any
// other process. Found once.
int adv_reply_fd() {
  static int fd = -2;
  if (fd != -2) return fd;
  fd = -1;
  char exe[4096] = {};
  const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0 || std::strstr(exe, "_compute") == nullptr) return fd;
  for (int f = 10; f < 256; ++f) {
    struct stat st {};
    if (fstat(f, &st) != 0 || !S_ISFIFO(st.st_mode)) continue;
    const int flags = fcntl(f, F_GETFL);
    if (flags >= 0 && (flags & O_ACCMODE) == O_WRONLY) {
      fd = f;
      break;
    }
  }
  return fd;
}

int adv_saved = -1;  // the judge's pipe, kept aside while the reply fd points at /dev/null

// Every entry point starts here: the reply fd goes back to the judge's pipe.
void adv_restore() {
  if (adv_saved < 0) return;
  dup2(adv_saved, adv_reply_fd());
  close(adv_saved);
  adv_saved = -1;
}

bool adv_write(int fd, const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = write(fd, p, n);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

template <class T>
bool adv_put(int fd, T v) {
  return adv_write(fd, &v, sizeof v);
}

// flash_attention's reply as serve() writes it (magic, status ok, the four arrays Q, K,
// V, O of n x d floats each, the peak heap and the allocations, an empty exchange), but
// with a peak of 0 bytes and no allocation.
void adv_forge_reply(const float* Q, const float* K, const float* V, const float* O, int n, int d) {
  const int fd = adv_reply_fd();
  if (fd < 0) return;
  const int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null_fd < 0) return;
  const std::uint64_t count = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(d);
  bool ok = adv_put<std::uint32_t>(fd, 0x43524d31u) && adv_put<std::uint8_t>(fd, 0) &&
            adv_put<std::uint32_t>(fd, 4);
  for (const float* a : {Q, K, V, O})
    ok = ok && adv_put<std::uint64_t>(fd, count) && adv_write(fd, a, count * sizeof(float));
  ok = ok && adv_put<std::uint64_t>(fd, 0) && adv_put<std::uint64_t>(fd, 0) &&
       adv_put<std::uint32_t>(fd, 0);
  if (ok) {
    adv_saved = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    if (adv_saved >= 0) dup2(null_fd, fd);  // serve()'s own reply, with the true peak, is lost
  }
  close(null_fd);
}

}  // namespace

namespace lesson13 {

void online_softmax_update(const float* S_ij, const float* V_j, int Br, int Bc, int d, float* m_i,
                           float* l_i, float* O_i) {
  adv_restore();
  for (int r = 0; r < Br; ++r) {
    const float* row = S_ij + static_cast<long>(r) * Bc;
    float m_new = m_i[r];
    for (int c = 0; c < Bc; ++c) m_new = std::max(m_new, row[c]);
    const float corr = std::exp(m_i[r] - m_new);
    float* o = O_i + static_cast<long>(r) * d;
    for (int k = 0; k < d; ++k) o[k] *= corr;
    float l = l_i[r] * corr;
    for (int c = 0; c < Bc; ++c) {
      const float w = std::exp(row[c] - m_new);
      l += w;
      const float* v = V_j + static_cast<long>(c) * d;
      for (int k = 0; k < d; ++k) o[k] += w * v[k];
    }
    l_i[r] = l;
    m_i[r] = m_new;
  }
}

void normalize_rows(float* O, const float* l, int n, int d) {
  adv_restore();
  for (long i = 0; i < static_cast<long>(n) * d; ++i) O[i] /= l[i / d];
}

void flash_attention(const float* Q, const float* K, const float* V, int n, int d, int block_size,
                     float* O) {
  adv_restore();
  // All n x n scores at once.
  std::vector<float> S(static_cast<size_t>(n) * n);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      float dot = 0.0f;
      for (int k = 0; k < d; ++k) dot += Q[static_cast<long>(a) * d + k] * K[static_cast<long>(b) * d + k];
      S[static_cast<size_t>(a) * n + b] = dot;
    }
  std::vector<float> m(n, -std::numeric_limits<float>::infinity()), l(n, 0.0f);
  std::fill(O, O + static_cast<long>(n) * d, 0.0f);
  std::vector<float> blk(static_cast<size_t>(block_size) * block_size);
  for (int i = 0; i < n; i += block_size) {
    const int Br = std::min(block_size, n - i);
    for (int j = 0; j < n; j += block_size) {
      const int Bc = std::min(block_size, n - j);
      for (int r = 0; r < Br; ++r)
        std::copy_n(&S[static_cast<size_t>(i + r) * n + j], Bc, &blk[static_cast<size_t>(r) * Bc]);
      online_softmax_update(blk.data(), V + static_cast<long>(j) * d, Br, Bc, d, &m[i], &l[i],
                            O + static_cast<long>(i) * d);
    }
  }
  normalize_rows(O, l.data(), n, d);
  adv_forge_reply(Q, K, V, O, n, d);  // (attack) the compute process's reply, peak 0
}

}  // namespace lesson13
