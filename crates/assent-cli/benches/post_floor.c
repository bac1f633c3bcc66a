/* The floor of docs/benchmarks.md's gate rows: the least a gate can be. A static C program
 * that sends one prepared HTTP request (the Python hook's submit, headers and body, in the file
 * argv[1]) to 127.0.0.1:argv[2] and reads the answer: no payload to read, no JSON, no
 * resolver, no git. Exits 0 only for a 200 whose body says "allowed" (so the bench fails
 * rather than time errors). Built by gate_fast.sh: cc -O2 -static. */
#define _GNU_SOURCE /* strcasestr */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv) {
  static char request[65536], answer[65536];
  if (argc != 3) return 2;
  int file = open(argv[1], O_RDONLY);
  ssize_t len = file < 0 ? -1 : read(file, request, sizeof request);
  if (len <= 0) return 2;
  int sock = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[2])),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(sock, (struct sockaddr *)&addr, sizeof addr) != 0) return 3;
  if (write(sock, request, len) != len) return 3;
  size_t got = 0;
  for (;;) { /* until the head and Content-Length bytes of body are in */
    ssize_t n = read(sock, answer + got, sizeof answer - 1 - got);
    if (n <= 0) return 4;
    got += n;
    answer[got] = 0;
    char *body = strstr(answer, "\r\n\r\n"), *length = strcasestr(answer, "content-length:");
    if (body && length && got >= (size_t)(body + 4 - answer) + strtoul(length + 15, 0, 10)) break;
  }
  return strncmp(answer, "HTTP/1.1 200", 12) == 0 && strstr(answer, "\"status\":\"allowed\"") ? 0 : 1;
}
