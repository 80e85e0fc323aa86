// The emulator's one context switch: a fiber runs a function on a stack of its
// own, and control passes between it and the scheduler (the code that resumes it)
// only at resume() and yield(). Built on Boost.Context's raw fcontext; this file
// and fiber.cpp are the only ones that use Boost.
#pragma once

#include <boost/context/detail/fcontext.hpp>

#include <cstddef>

namespace cuda_emu::detail {

class fiber {
 public:
  using entry_fn = void (*)();

  // Makes a fiber that, once resumed, runs entry() on the usable `size` bytes
  // below `stack_top`. When entry() returns, control goes back to the scheduler
  // for good. Any fiber made before on the same stack is abandoned.
  void create(void* stack_top, std::size_t size, entry_fn entry);

  // resume() and yield() are inline: a switch is the emulator's hot path (every
  // thread at every barrier). Out of line they cost emulator_bench's barrier about
  // 10 ns more per thread (a call level more around each stack switch).

  // From the scheduler: runs the fiber until it yields or its entry returns.
  void resume() { context_ = boost::context::detail::jump_fcontext(context_, this).fctx; }

  // From inside a fiber: goes back to the scheduler, which resumed it; returns
  // when the scheduler resumes this fiber again (if it ever does).
  static void yield() {
    scheduler_ = boost::context::detail::jump_fcontext(scheduler_, nullptr).fctx;
  }

 private:
  static void trampoline(boost::context::detail::transfer_t t);

  // Where the scheduler stopped when it last resumed a fiber: a yield goes back there.
  static inline boost::context::detail::fcontext_t scheduler_ = nullptr;
  boost::context::detail::fcontext_t context_ = nullptr;  // where this fiber stopped
  entry_fn entry_ = nullptr;
};

}  // namespace cuda_emu::detail
