// The reference the throwaway lesson's tests compare add() with.
#pragma once

namespace throwaway::reference {
inline long add(int a, int b) {
  return static_cast<long>(a) + b;
}
}  // namespace throwaway::reference
