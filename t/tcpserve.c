/* A TCP server for tests: serves each FILE to one connection, in bursts,
 * then closes it (as a traced program that exits).
 *
 *   tcpserve PORTFILE FILE...
 *
 * Listens on a free loopback port and writes the port number to PORTFILE;
 * for each FILE: accepts one connection, sends the file in 1 KiB bursts
 * 20 ms apart, and closes the connection.  Between FILEs the listener is
 * closed and opened again on the same port, as a restarted program would. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int listen_on(uint16_t *port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(*port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 1) ||
	    getsockname(fd, (struct sockaddr *)&a, &len)) {
		perror("tcpserve");
		exit(1);
	}
	*port = ntohs(a.sin_port);
	return fd;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: tcpserve PORTFILE FILE...\n");
		return 2;
	}
	uint16_t port = 0;
	for (int i = 2; i < argc; i++) {
		int l = listen_on(&port);
		if (i == 2) {
			FILE *pf = fopen(argv[1], "w");
			if (!pf || fprintf(pf, "%u\n", port) < 0 || fclose(pf))
				return 1;
		}
		int c = accept(l, NULL, NULL);
		close(l);
		FILE *f = fopen(argv[i], "rb");
		char buf[1024];
		size_t n;
		struct timespec gap = {0, 20000000};
		while (f && c >= 0 && (n = fread(buf, 1, sizeof buf, f)) > 0) {
			if (write(c, buf, n) != (ssize_t)n)
				break;
			nanosleep(&gap, NULL);
		}
		if (f)
			fclose(f);
		close(c);
	}
	return 0;
}
