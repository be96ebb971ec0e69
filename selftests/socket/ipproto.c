// SPDX-License-Identifier: GPL-2.0
/*
 * socket/ipproto: IPPROTO_SMC, SMC sockets made through the inet families
 * (socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_SMC), Linux 6.11's
 * interface; kernel/smc_inet.c).
 *
 * What is IPPROTO_SMC's own: the socket answers as an inet socket of its
 * family (SO_DOMAIN) with protocol IPPROTO_SMC (SO_PROTOCOL), the sockets
 * accept() gives are the same, only SOCK_STREAM exists, and the sockets
 * are af_smc's (sock_diag lists them; over the loopback ISM device they
 * are SMC-D, and against a plain TCP peer they fall back). Everything
 * else a program sees is checked against TCP by the differential suite in
 * its "ipproto" mode (tests.list). Our af_smc only: Debian's smc.ko has
 * no IPPROTO_SMC.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/smc_diag.h>
#include <smc/af_smc.h>

#include "family.h"
#include "smcdiag.h"
#include "tap.h"

static const int families[] = { AF_INET, AF_INET6 };

static const struct sf_family *ipproto_family(int af)
{
	const struct sf_family *f = sf_find(af == AF_INET ? "smcin" : "smcin6");

	sf_require(f);
	return f;
}

static int sockopt_int(int fd, int level, int name)
{
	int v = -1;
	socklen_t len = sizeof(v);

	if (EXPECT_SYS(getsockopt(fd, level, name, &v, &len)))
		return -1;
	return v;
}

/* SO_DOMAIN, SO_TYPE and SO_PROTOCOL of an IPPROTO_SMC socket of af. */
static void expect_identity(int fd, int af, const char *what)
{
	tap_diag("%s", what);
	EXPECT_EQ(sockopt_int(fd, SOL_SOCKET, SO_DOMAIN), af);
	EXPECT_EQ(sockopt_int(fd, SOL_SOCKET, SO_TYPE), SOCK_STREAM);
	EXPECT_EQ(sockopt_int(fd, SOL_SOCKET, SO_PROTOCOL), IPPROTO_SMC);
}

/* The socket answers as an inet socket of its family, and is af_smc's. */
static void identity(const void *arg)
{
	(void)arg;
	for (unsigned int i = 0; i < 2; i++) {
		int af = families[i], fd;
		struct sd_sock sd;

		fd = ASSERT_SYS(sf_socket(ipproto_family(af), 0));
		expect_identity(fd, af, af == AF_INET ? "AF_INET" : "AF_INET6");
		/* sock_diag of AF_SMC lists af_smc's sockets: this is one. */
		EXPECT_EQ(sd_find_fd(fd, &sd), 0);
		close(fd);
	}
}

/* socket()'s errno, 0 when it made one. */
static int socket_errno(int af, int type, int protocol)
{
	int fd = socket(af, type, protocol), err = errno;

	if (fd < 0)
		return err;
	close(fd);
	return 0;
}

/*
 * Only SOCK_STREAM: the inet family refuses the other types as it does
 * for a protocol nobody registered (257), its own answer being the oracle.
 */
static void other_types(const void *arg)
{
	static const int types[] = { SOCK_DGRAM, SOCK_SEQPACKET };

	(void)arg;
	ipproto_family(AF_INET);
	for (unsigned int i = 0; i < 2; i++) {
		for (unsigned int t = 0; t < 2; t++) {
			int err = socket_errno(families[i], types[t], IPPROTO_SMC);

			tap_diag("family %d, type %d: %s", families[i], types[t],
				 tap_errno_name(err));
			EXPECT(err != 0);
			EXPECT_EQ(err, socket_errno(families[i], types[t], 257));
		}
	}
}

/* /proc/net/protocols names both protos as Linux 6.11 does. */
static void proc_protocols(const void *arg)
{
	char line[512];
	int v4 = 0, v6 = 0;
	FILE *fp;

	(void)arg;
	ipproto_family(AF_INET);
	fp = fopen("/proc/net/protocols", "r");
	if (!fp)
		tap_skip("no /proc/net/protocols: %s", tap_errno_name(errno));
	while (fgets(line, sizeof(line), fp)) {
		v4 |= !strncmp(line, "INET_SMC ", 9);
		v6 |= !strncmp(line, "INET6_SMC ", 10);
	}
	fclose(fp);
	EXPECT_EQ(v4, 1);
	EXPECT_EQ(v6, 1);
}

/* Every byte of len back and forth between a and b, byte-exact. */
static void echo(int a, int b, size_t len)
{
	char *out = malloc(len), *in = malloc(len);
	size_t done;
	ssize_t n;

	ASSERT(out && in);
	for (size_t i = 0; i < len; i++)
		out[i] = (char)(i * 7 + 3);
	/* Below the rings' size: the write never waits for the read. */
	ASSERT_EQ(write(a, out, len), (ssize_t)len);
	for (done = 0; done < len; done += (size_t)n) {
		n = read(b, in + done, len - done);
		ASSERT(n > 0);
	}
	EXPECT_EQ(memcmp(in, out, len), 0);
	free(out);
	free(in);
}

/* An address's family and port. */
static void addr_of(int fd, int peer, int *af, unsigned int *port)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	memset(&ss, 0, sizeof(ss));
	if (peer)
		EXPECT_SYS(getpeername(fd, (struct sockaddr *)&ss, &len));
	else
		EXPECT_SYS(getsockname(fd, (struct sockaddr *)&ss, &len));
	*af = ss.ss_family;
	*port = sf_port(&ss);
}

/*
 * A listener and a client of IPPROTO_SMC on the loopback address: the
 * connection is SMC-D (the loopback ISM device, on by default), and both
 * ends, the accepted one included, answer as inet sockets of the family.
 */
static void connection(const void *arg)
{
	(void)arg;
	for (unsigned int i = 0; i < 2; i++) {
		const struct sf_family *f = ipproto_family(families[i]);
		struct sockaddr_storage addr;
		int l, c, a, af_c, af_a;
		unsigned int port_c, port_a;
		struct sd_sock sd;

		tap_diag("%s", f->label);
		l = ASSERT_SYS(sf_listen(f, NULL, 0, 8, &addr));
		c = ASSERT_SYS(sf_socket(f, 0));
		ASSERT_SYS(connect(c, (struct sockaddr *)&addr, sf_addr_len(&addr)));
		a = ASSERT_SYS(accept(l, NULL, NULL));
		expect_identity(a, families[i], "the accepted socket");
		addr_of(c, 0, &af_c, &port_c);
		addr_of(a, 1, &af_a, &port_a);
		EXPECT_EQ(af_c, families[i]);
		EXPECT_EQ(af_a, families[i]);
		EXPECT_EQ(port_c, port_a);
		addr_of(a, 0, &af_a, &port_a);
		EXPECT_EQ(port_a, sf_port(&addr));
		echo(c, a, 32768);
		echo(a, c, 32768);
		if (EXPECT_EQ(sd_find_fd(c, &sd), 0))
			EXPECT_EQ(sd.mode, SMC_DIAG_MODE_SMCD);
		if (EXPECT_EQ(sd_find_fd(a, &sd), 0))
			EXPECT_EQ(sd.mode, SMC_DIAG_MODE_SMCD);
		/* TCP's options reach the connection as on AF_SMC. */
		ASSERT_SYS(setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int)));
		EXPECT_EQ(sockopt_int(c, IPPROTO_TCP, TCP_NODELAY), 1);
		close(a);
		close(c);
		close(l);
	}
}

/* Against a plain TCP listener the client falls back, and stays IPPROTO_SMC. */
static void fallback(const void *arg)
{
	(void)arg;
	for (unsigned int i = 0; i < 2; i++) {
		const struct sf_family *f = ipproto_family(families[i]);
		const struct sf_family *tcp = sf_oracle(f);
		struct sockaddr_storage addr;
		struct sd_sock sd;
		int l, c, a;

		tap_diag("%s to %s", f->label, tcp->label);
		l = ASSERT_SYS(sf_listen(tcp, NULL, 0, 8, &addr));
		c = ASSERT_SYS(sf_socket(f, 0));
		ASSERT_SYS(connect(c, (struct sockaddr *)&addr, sf_addr_len(&addr)));
		a = ASSERT_SYS(accept(l, NULL, NULL));
		echo(c, a, 4096);
		echo(a, c, 4096);
		if (EXPECT_EQ(sd_find_fd(c, &sd), 0)) {
			EXPECT_EQ(sd.mode, SMC_DIAG_MODE_FALLBACK_TCP);
			EXPECT_EQ(sd.reason, 0x03010000u);	/* SMC_CLC_DECL_PEERNOSMC */
		}
		expect_identity(c, families[i], "the client after its fallback");
		close(a);
		close(c);
		close(l);
	}
}

int main(void)
{
	tap_add(identity, NULL, 30, "IPPROTO_SMC sockets are inet sockets of their family "
		"(SO_DOMAIN, SO_TYPE, SO_PROTOCOL 256) and af_smc's (sock_diag)");
	tap_add(other_types, NULL, 30, "IPPROTO_SMC with SOCK_DGRAM or SOCK_SEQPACKET: "
		"refused as the inet family refuses an unknown protocol");
	tap_add(proc_protocols, NULL, 30, "/proc/net/protocols lists INET_SMC and INET6_SMC");
	tap_add(connection, NULL, 60, "IPPROTO_SMC to IPPROTO_SMC over loopback, IPv4 and IPv6: "
		"SMC-D both ends, the accepted socket of the same family and protocol, "
		"inet addresses, bytes exact, TCP_NODELAY");
	tap_add(fallback, NULL, 60, "IPPROTO_SMC to a plain TCP listener: "
		"a TCP fallback (peer without SMC), bytes exact, still IPPROTO_SMC");
	return tap_run();
}
