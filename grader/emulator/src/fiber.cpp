// The fiber type (fiber.hpp) on Boost.Context's raw fcontext: make_fcontext builds
// a context on a given stack, jump_fcontext switches to one and hands back the
// context it left. The scheduler runs fibers one at a time on one OS thread.
#include "fiber.hpp"

namespace cuda_emu::detail {

namespace ctx = boost::context::detail;

void fiber::create(void* stack_top, std::size_t size, entry_fn entry) {
  entry_ = entry;
  context_ = ctx::make_fcontext(stack_top, size, trampoline);
}

// A fiber's first resume lands here, with the fiber itself as the data.
void fiber::trampoline(ctx::transfer_t t) {
  scheduler_ = t.fctx;
  static_cast<fiber*>(t.data)->entry_();
  ctx::jump_fcontext(scheduler_, nullptr);  // never resumed after this
  __builtin_unreachable();
}

}  // namespace cuda_emu::detail
