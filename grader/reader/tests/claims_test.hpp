// What the claims tests share: a claim's status in a text, and the claim they test most.
#pragma once

#include <string_view>

#include "grader/reader/reader.hpp"

using grader::claim;
using grader::claim_status;
using grader::claim_text;
using grader::make_claim;

inline claim_status status(std::string_view text, const claim& c) {
  return claim_text(text).find(c).status;
}

// "FlashAttention lowers the FLOPs", as the examples use it.
inline const claim flops = make_claim({{"reduc", "lower", "fewer", "减少", "降低", "少"},
                                       {"flops", "计算量", "floating-point operations"}});
