// SPDX-License-Identifier: GPL-2.0
/*
 * smc-echo: a stream echo server and a verifying client, for moving and
 * checking bulk data over TCP or AF_SMC (loopback, namespaces, VMs, and later
 * SMC-D / SMC-R). Both sides pick the family with -f, so the same run can be
 * made over TCP as a reference.
 *
 * The client sends a pseudo-random stream (stream.h) while it reads the echo,
 * compares every received byte with the regenerated stream, and finally checks
 * the byte count and the checksum of what came back against what it sent.
 * The server prints the checksum of what it echoed, so a script can also
 * compare the three views (sent, echoed, received) across machines.
 *
 * One way (-o on the client, -v on the server): the client only sends, and
 * the server echoes nothing but compares every byte with the stream of the
 * same seed itself. A test that needs the client's sending never to stall on
 * its own reading uses it (smcr/failover_topo1.sh: a sender that always has
 * bytes to write, so its link fails with WRITEs queued).
 *
 * A client with -e FILE ends its stream at the next write once FILE exists
 * (and -m BYTES were sent): a test that fails a link under a stream stops
 * it as soon as it has checked the move, instead of sizing the stream for
 * the slowest host (topology.sh, topo_echo_stop).
 *
 * Output lines a script can parse (stdout):
 *	listening on ADDR port PORT (family N)
 *	echoed bytes=N checksum=HEX              (server, per connection)
 *	connection N: verified bytes=N checksum=HEX  (server -v, per connection)
 *	sent bytes=N checksum=HEX                (client)
 *	received bytes=N checksum=HEX            (client)
 *	verified N bytes in S s (R MiB/s)        (client, on success)
 *	sent N bytes one way in S s (R MiB/s)    (client -o, at the server's EOF)
 *	mode M reason 0xL peer 0xP               (client, AF_SMC: after connect)
 *	connection N mode M reason 0xL peer 0xP  (server, AF_SMC: after accept)
 * M is what sock_diag says the connection is: SMCD, SMCR or TCP (a fallback),
 * so a script that calls an echo SMC-D or SMC-R can prove it.
 * Errors go to stderr as "smc-echo: ...". Exit status: 0 success, 1 failure,
 * 2 usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/smc_diag.h>

#include "family.h"
#include "smcdiag.h"
#include "stream.h"
#include "tap.h"

/* No progress at all for this long (times SMC_TIMEOUT_SCALE): give up. */
#define IDLE_LIMIT_S 60

struct options {
	int server, client;
	int one_way, verify;
	const struct sf_family *family;
	const char *addr;
	unsigned int port;
	long long bytes;
	uint64_t seed;
	long connections;
	const char *ready_file;
	const char *end_file;	/* -e: end the stream once it exists */
	long long min_bytes;	/* -m: but not before this many bytes */
	int connect_wait;
	int time_limit;
	size_t buf_size;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: smc-echo -s [-v] [-f FAMILY] [-a ADDR] [-p PORT] [-k COUNT] [-r FILE] [-x SEED]\n"
		"       smc-echo -c [-o] [-f FAMILY] [-a ADDR] -p PORT [-n BYTES] [-e FILE [-m BYTES]]\n"
		"                   [-x SEED] [-w SECONDS]\n"
		"common: [-t SECONDS] [-b BUFSIZE]\n"
		"  -s          server: echo each connection back until the client's EOF\n"
		"  -c          client: send -n BYTES of pattern, verify the echo\n"
		"  -v          server: echo nothing; compare what arrives with the\n"
		"              pattern of -x SEED, close at the client's EOF\n"
		"  -o          client: one way, for a server with -v: send, then wait\n"
		"              for its EOF; any byte that comes back is an error\n"
		"  -f FAMILY   inet, inet6, smc (default) or smc6\n"
		"  -a ADDR     server: address to bind (default any); client: server\n"
		"              address (default loopback)\n"
		"  -p PORT     server: port (default 0, the kernel picks); client: required\n"
		"  -k COUNT    server: connections to serve, then exit (default 1, 0 = forever)\n"
		"  -r FILE     server: write the port to FILE once listening\n"
		"  -n BYTES    client: bytes to send, K/M/G suffixes (default 64M)\n"
		"  -e FILE     client: end the stream at the next write once FILE exists\n"
		"              (-n stays the most it sends)\n"
		"  -m BYTES    client, with -e: but not before BYTES were sent\n"
		"  -x SEED     pattern seed (default 1)\n"
		"  -w SECONDS  client: retry a refused connect for this long (server starting)\n"
		"  -t SECONDS  time limit of the whole program, times SMC_TIMEOUT_SCALE\n"
		"              (default 600, 0 = none)\n"
		"  -b BUFSIZE  read/write size (default 64K)\n");
	exit(2);
}

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("smc-echo: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void on_alarm(int sig)
{
	static const char msg[] = "smc-echo: time limit reached\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static double seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void write_ready_file(const char *path, unsigned int port)
{
	char tmp[4096];
	FILE *f;

	/* Written aside and renamed, so a waiter never reads half a file. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", port) < 0 || fclose(f) || rename(tmp, path))
		die("cannot write %s: %s", path, strerror(errno));
}

/* The "mode" line of an AF_SMC connection (see the top); nothing for TCP. */
static void print_mode(const struct options *o, const char *prefix, int fd)
{
	static const char *const names[] = {
		[SMC_DIAG_MODE_SMCR] = "SMCR",
		[SMC_DIAG_MODE_FALLBACK_TCP] = "TCP",
		[SMC_DIAG_MODE_SMCD] = "SMCD",
	};
	struct sd_sock s;
	int rc;

	if (!o->family->oracle)
		return;
	rc = sd_find_fd(fd, &s);
	if (rc)
		printf("%smode unknown: sock_diag: %s\n", prefix, strerror(-rc));
	else if (s.mode >= sizeof(names) / sizeof(names[0]))
		printf("%smode unknown: sock_diag mode %u\n", prefix, s.mode);
	else
		printf("%smode %s reason 0x%08x peer 0x%08x\n", prefix, names[s.mode],
		       s.reason, s.peer_diagnosis);
	fflush(stdout);
}

static void explain_mismatch(const unsigned char *buf, size_t n, uint64_t seed, uint64_t off);

/*
 * Echo one connection, or with -v compare it with the pattern; returns 0
 * when it ended with the client's EOF (and with -v every byte matched).
 */
static int echo_connection(const struct options *o, int fd, char *buf, size_t size,
			   long number)
{
	struct stream_sum sum;

	stream_sum_init(&sum);
	for (;;) {
		ssize_t n = read(fd, buf, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "smc-echo: connection %ld: read after %" PRIu64
				" bytes: %s\n", number, sum.bytes, strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		if (o->verify) {
			size_t bad = pattern_mismatch(buf, (size_t)n, o->seed, sum.bytes);

			if (bad < (size_t)n) {
				explain_mismatch((const unsigned char *)buf + bad, (size_t)n - bad,
						 o->seed, sum.bytes + bad);
				fprintf(stderr, "smc-echo: connection %ld: data differs at byte %"
					PRIu64 "\n", number, sum.bytes + bad);
				return -1;
			}
			stream_sum_add(&sum, buf, (size_t)n);
			continue;
		}
		stream_sum_add(&sum, buf, (size_t)n);
		if (sf_write_all(fd, buf, (size_t)n)) {
			fprintf(stderr, "smc-echo: connection %ld: write after %" PRIu64
				" bytes: %s\n", number, sum.bytes, strerror(errno));
			return -1;
		}
	}
	printf("connection %ld: %s bytes=%" PRIu64 " checksum=%016" PRIx64 "\n",
	       number, o->verify ? "verified" : "echoed", sum.bytes, stream_sum_value(&sum));
	fflush(stdout);
	return 0;
}

static int run_server(const struct options *o)
{
	struct sockaddr_storage bound, peer;
	char text[128], *buf = malloc(o->buf_size);
	int lfd, failures = 0;

	if (!buf)
		die("out of memory");
	lfd = sf_listen(o->family, o->addr ? o->addr : "any", o->port, 16, &bound);
	if (lfd < 0)
		die("cannot listen (%s) on %s port %u: %s", o->family->label,
		    o->addr ? o->addr : "any", o->port, strerror(errno));
	printf("listening on %s, %s\n", sf_addr_str(&bound, text, sizeof(text)),
	       o->family->label);
	fflush(stdout);
	if (o->ready_file)
		write_ready_file(o->ready_file, sf_port(&bound));

	for (long i = 1; o->connections == 0 || i <= o->connections; i++) {
		socklen_t len = sizeof(peer);
		int fd = accept4(lfd, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED) {
				i--;
				continue;
			}
			die("accept: %s", strerror(errno));
		}
		printf("connection %ld from %s\n", i, sf_addr_str(&peer, text, sizeof(text)));
		fflush(stdout);
		snprintf(text, sizeof(text), "connection %ld ", i);
		print_mode(o, text, fd);
		failures += echo_connection(o, fd, buf, o->buf_size, i) != 0;
		close(fd);
	}
	close(lfd);
	free(buf);
	return failures ? 1 : 0;
}

static int connect_with_retry(const struct options *o, const struct sockaddr_storage *addr)
{
	double deadline = seconds_now() + o->connect_wait;
	char text[128];

	for (;;) {
		int fd = sf_connect(o->family, addr);

		if (fd >= 0)
			return fd;
		/* A server that is still starting refuses; anything else is final. */
		if (errno != ECONNREFUSED || seconds_now() >= deadline)
			die("connect (%s) to %s: %s", o->family->label,
			    sf_addr_str(addr, text, sizeof(text)), strerror(errno));
		usleep(100 * 1000);
	}
}

/*
 * A mismatch at stream offset OFF (BUF[0] is that byte, N bytes read from
 * there): say on stderr how long the bad run is and whether its first
 * bytes are the stream's own from another offset within 64 MiB before or
 * after (a ring's bytes a lap early or late), or zeros, so that a
 * corruption says what kind it is before the client dies.
 */
static void explain_mismatch(const unsigned char *buf, size_t n, uint64_t seed, uint64_t off)
{
	unsigned char want[4096], other[32];
	size_t run = 0, cmp = n < sizeof(other) ? n : sizeof(other), i, zeros = 0;
	int64_t d;

	while (run < n) {
		size_t k = n - run < sizeof(want) ? n - run : sizeof(want);

		pattern_fill(want, k, seed, off + run);
		for (i = 0; i < k && buf[run + i] != want[i]; i++)
			;
		run += i;
		if (i < k)
			break;
	}
	for (i = 0; i < cmp; i++)
		zeros += !buf[i];
	fprintf(stderr, "smc-echo: %zu bad bytes from %" PRIu64 " (of %zu read), %zu of the first %zu zero:",
		run, off, n, zeros, cmp);
	for (i = 0; i < cmp; i++)
		fprintf(stderr, " %02x", buf[i]);
	fputc('\n', stderr);
	/*
	 * Shifts by whole 512-byte units: rings and their CDCs come in those.
	 * Among 262,144 shifts a few bytes would match one by chance: it
	 * takes 16 to say anything.
	 */
	if (cmp < 16) {
		fprintf(stderr, "smc-echo: too few bytes read after it to look for them elsewhere in the stream\n");
		return;
	}
	for (d = -(64LL << 20); d <= (64LL << 20); d += 512) {
		if (!d || (d < 0 && (uint64_t)-d > off))
			continue;
		pattern_fill(other, cmp, seed, off + (uint64_t)d);
		if (!memcmp(other, buf, cmp)) {
			fprintf(stderr, "smc-echo: they are the stream's bytes at %" PRIu64 " (%+" PRId64 ")\n",
				off + (uint64_t)d, d);
			return;
		}
	}
	fprintf(stderr, "smc-echo: they are not the stream's bytes at any 512-byte shift within 64 MiB\n");
}

static int run_client(const struct options *o)
{
	struct stream_sum sent_sum, recv_sum;
	struct sockaddr_storage addr, local;
	char text[128], text2[128];
	uint64_t total = (uint64_t)o->bytes, sent = 0, received = 0;
	char *sbuf = malloc(o->buf_size), *rbuf = malloc(o->buf_size);
	socklen_t len = sizeof(local);
	int fd, eof = 0, wr_shut = 0;
	unsigned int idle_s = tap_scaled_seconds(IDLE_LIMIT_S);
	double start, elapsed;

	if (!sbuf || !rbuf)
		die("out of memory");
	if (!sf_addr(o->family, o->addr, o->port, &addr))
		die("'%s' is not an address of %s", o->addr, o->family->label);
	fd = connect_with_retry(o, &addr);
	getsockname(fd, (struct sockaddr *)&local, &len);
	printf("connected to %s from %s, %s\n", sf_addr_str(&addr, text, sizeof(text)),
	       sf_addr_str(&local, text2, sizeof(text2)), o->family->label);
	fflush(stdout);
	print_mode(o, "", fd);
	/* Send and receive at once: echoing needs both, or buffers fill and stall. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
		die("fcntl: %s", strerror(errno));

	stream_sum_init(&sent_sum);
	stream_sum_init(&recv_sum);
	start = seconds_now();
	while (!eof) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int r;

		/*
		 * The test that runs us says when it has seen what it waited
		 * for; everything sent up to here is still verified.
		 */
		if (!wr_shut && o->end_file && sent < total &&
		    sent >= (uint64_t)o->min_bytes && !access(o->end_file, F_OK))
			total = sent;
		if (!wr_shut && sent == total) {
			if (shutdown(fd, SHUT_WR))
				die("shutdown(SHUT_WR) after %" PRIu64 " bytes: %s", sent,
				    strerror(errno));
			wr_shut = 1;
		}
		if (!wr_shut)
			pfd.events |= POLLOUT;
		r = poll(&pfd, 1, (int)idle_s * 1000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("poll: %s", strerror(errno));
		if (r == 0)
			die("no progress for %u s: sent %" PRIu64 ", received %" PRIu64
			    " of %" PRIu64 " bytes", idle_s, sent, received, total);
		if (pfd.revents & POLLOUT) {
			size_t n = total - sent < o->buf_size ? (size_t)(total - sent) : o->buf_size;
			ssize_t w;

			/* The stream is addressable, so a short write just resumes. */
			pattern_fill(sbuf, n, o->seed, sent);
			w = send(fd, sbuf, n, MSG_NOSIGNAL);
			if (w < 0 && errno != EAGAIN && errno != EINTR)
				die("send after %" PRIu64 " bytes: %s", sent, strerror(errno));
			if (w > 0) {
				stream_sum_add(&sent_sum, sbuf, (size_t)w);
				sent += (uint64_t)w;
			}
		}
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = read(fd, rbuf, o->buf_size);
			size_t bad;

			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n < 0)
				die("read after %" PRIu64 " bytes: %s", received, strerror(errno));
			if (n == 0) {
				eof = 1;
				break;
			}
			if (o->one_way)
				die("%zd bytes came back on a one-way stream", n);
			if (received + (uint64_t)n > sent)
				die("received %" PRIu64 " bytes but only %" PRIu64 " were sent",
				    received + (uint64_t)n, sent);
			bad = pattern_mismatch(rbuf, (size_t)n, o->seed, received);
			if (bad < (size_t)n) {
				unsigned char want;

				pattern_fill(&want, 1, o->seed, received + bad);
				explain_mismatch((const unsigned char *)rbuf + bad, (size_t)n - bad,
						 o->seed, received + bad);
				die("data differs at byte %" PRIu64 ": got 0x%02x, sent 0x%02x",
				    received + bad, (unsigned char)rbuf[bad], want);
			}
			stream_sum_add(&recv_sum, rbuf, (size_t)n);
			received += (uint64_t)n;
		}
	}
	elapsed = seconds_now() - start;
	close(fd);
	printf("sent bytes=%" PRIu64 " checksum=%016" PRIx64 "\n", sent_sum.bytes,
	       stream_sum_value(&sent_sum));
	if (o->one_way) {
		/* The server's EOF came after ours: it read all, and says if it matched. */
		if (sent != total)
			die("EOF after %" PRIu64 " of %" PRIu64 " bytes sent", sent, total);
		printf("sent %" PRIu64 " bytes one way in %.2f s (%.1f MiB/s)\n", total, elapsed,
		       elapsed > 0 ? (double)total / (1 << 20) / elapsed : 0.0);
		free(sbuf);
		free(rbuf);
		return 0;
	}
	printf("received bytes=%" PRIu64 " checksum=%016" PRIx64 "\n", recv_sum.bytes,
	       stream_sum_value(&recv_sum));
	if (received != total)
		die("EOF after %" PRIu64 " of %" PRIu64 " bytes", received, total);
	if (stream_sum_value(&sent_sum) != stream_sum_value(&recv_sum))
		die("checksum of the echo differs from what was sent");
	printf("verified %" PRIu64 " bytes in %.2f s (%.1f MiB/s)\n", total, elapsed,
	       elapsed > 0 ? (double)total / (1 << 20) / elapsed : 0.0);
	free(sbuf);
	free(rbuf);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o = {
		.family = sf_find("smc"), .bytes = 64LL << 20, .seed = 1,
		.connections = 1, .time_limit = 600, .buf_size = 64 << 10,
	};
	long long v;
	int c;

	while ((c = getopt(argc, argv, "scovf:a:p:k:r:n:e:m:x:w:t:b:h")) != -1) {
		switch (c) {
		case 's': o.server = 1; break;
		case 'c': o.client = 1; break;
		case 'o': o.one_way = 1; break;
		case 'v': o.verify = 1; break;
		case 'f':
			o.family = sf_find(optarg);
			if (!o.family)
				usage();
			break;
		case 'a': o.addr = optarg; break;
		case 'p': o.port = (unsigned int)strtoul(optarg, NULL, 10); break;
		case 'k': o.connections = strtol(optarg, NULL, 10); break;
		case 'r': o.ready_file = optarg; break;
		case 'n':
			o.bytes = parse_size(optarg);
			if (o.bytes < 0)
				usage();
			break;
		case 'e': o.end_file = optarg; break;
		case 'm':
			o.min_bytes = parse_size(optarg);
			if (o.min_bytes < 0)
				usage();
			break;
		case 'x': o.seed = strtoull(optarg, NULL, 0); break;
		case 'w': o.connect_wait = atoi(optarg); break;
		case 't': o.time_limit = atoi(optarg); break;
		case 'b':
			v = parse_size(optarg);
			if (v <= 0 || v > (1LL << 30))
				usage();
			o.buf_size = (size_t)v;
			break;
		default: usage();
		}
	}
	if (optind != argc || o.server == o.client || (o.client && !o.port) ||
	    (o.one_way && !o.client) || (o.verify && !o.server) ||
	    (o.end_file && !o.client) || (o.min_bytes && !o.end_file))
		usage();
	signal(SIGPIPE, SIG_IGN);
	signal(SIGALRM, on_alarm);
	/* A limit for the stock kernel: the debug kernel moves bytes slower. */
	if (o.time_limit > 0)
		alarm(tap_scaled_seconds((unsigned int)o.time_limit));
	return o.server ? run_server(&o) : run_client(&o);
}
