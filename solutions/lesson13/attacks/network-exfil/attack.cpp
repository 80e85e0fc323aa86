// Adversarial case network-exfil (solutions/lesson13/attacks/network-exfil/case.json): appended to the solution's online_softmax.cpp.
// Run: grader/tests/adversarial_test.py build/bin/grader . --only network-exfil

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace {
// A connect that gives up after timeout_ms.
bool adv_connect(int fd, const char* ip, int port, int timeout_ms) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, ip, &a.sin_addr);
  fcntl(fd, F_SETFL, O_NONBLOCK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return true;
  pollfd p{fd, POLLOUT, 0};
  if (poll(&p, 1, timeout_ms) != 1) return false;
  int err = 0;
  socklen_t len = sizeof err;
  getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
  return err == 0;
}

struct adv_net {
  adv_net() {
    if (int fd = socket(AF_INET, SOCK_STREAM, 0); fd >= 0) {
      if (adv_connect(fd, "127.0.0.1", @PORT@, 2000)) {
        const char msg[] = "adv-net @CASE@\n";
        if (write(fd, msg, sizeof msg - 1) > 0) std::printf("adv-net-" "reached 127.0.0.1\n");
      }
      close(fd);
    }
    if (int fd = socket(AF_INET, SOCK_STREAM, 0); fd >= 0) {
      if (adv_connect(fd, "1.1.1.1", 53, 3000)) std::printf("adv-net-" "reached 1.1.1.1:53/tcp\n");
      close(fd);
    }
    if (int fd = socket(AF_INET, SOCK_DGRAM, 0); fd >= 0) {
      // A DNS query for example.com, type A.
      const unsigned char q[] = {0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 7, 'e', 'x', 'a', 'm', 'p', 'l',
                                 'e', 3, 'c', 'o', 'm', 0, 0, 1, 0, 1};
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(53);
      inet_pton(AF_INET, "1.1.1.1", &a.sin_addr);
      if (sendto(fd, q, sizeof q, 0, reinterpret_cast<sockaddr*>(&a), sizeof a) > 0) {
        pollfd p{fd, POLLIN, 0};
        unsigned char buf[512];
        if (poll(&p, 1, 2000) == 1 && recv(fd, buf, sizeof buf, 0) > 0) std::printf("adv-net-" "dns-reply\n");
      }
      close(fd);
    }
    std::fflush(stdout);
  }
} adv_phone_home;
}  // namespace
