// Runs a command as on a machine where user namespaces are blocked (a Docker runner's
// default seccomp profile): unshare, setns and clone with CLONE_NEWUSER fail with EPERM
// for it and everything it starts. The grader must then fall back to the restricted
// level. Used by no_userns_test.sh.
//   build/bin/without_userns build/bin/grader lesson13 --answers
#include <sched.h>
#include <seccomp.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: without_userns program [args]\n");
    return 2;
  }
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  const bool ok =
      ctx && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0) == 0 &&
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 0) == 0 &&
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) == 0 &&
      seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                       SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) == 0 &&
      seccomp_load(ctx) == 0;
  if (!ok) {
    std::fprintf(stderr, "without_userns: cannot install the seccomp filter\n");
    return 2;
  }
  seccomp_release(ctx);
  execvp(argv[1], argv + 1);
  std::perror("without_userns: exec");
  return 127;
}
