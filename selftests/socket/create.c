// SPDX-License-Identifier: GPL-2.0
/*
 * socket/create: what socket(AF_SMC, ...) accepts and refuses.
 *
 * AF_SMC takes only SOCK_STREAM and only the protocols SMCPROTO_SMC (IPv4
 * address format) and SMCPROTO_SMC6 (IPv6). These cases are about AF_SMC
 * itself, so there is no TCP oracle; they skip where AF_SMC is unavailable.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <smc/af_smc.h>

#include "family.h"
#include "tap.h"

static void require_smc(void)
{
	sf_require(sf_find("smc"));
}

/*
 * The socket() under test itself: in a VM that loaded an SMC module it must
 * succeed; only where nobody promised AF_SMC (a host) may its absence skip.
 */
static void create_proto(int protocol)
{
	int fd = socket(AF_SMC, SOCK_STREAM, protocol);
	int err = errno;

	if (fd < 0 && !sf_smc_promised())
		tap_skip("no AF_SMC here: socket(AF_SMC, SOCK_STREAM, %d): %s", protocol,
			 tap_errno_name(err));
	errno = err;
	ASSERT_SYS(fd);
	ASSERT_SYS(close(fd));
}

static void create_smc(const void *arg)
{
	(void)arg;
	create_proto(SMCPROTO_SMC);
}

static void create_smc6(const void *arg)
{
	(void)arg;
	create_proto(SMCPROTO_SMC6);
}

/* What getsockopt(SOL_SOCKET) reports must be what socket() was given. */
static void identity(const void *arg)
{
	(void)arg;
	require_smc();
	for (int protocol = SMCPROTO_SMC; protocol <= SMCPROTO_SMC6; protocol++) {
		int fd = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM, protocol));
		int v;
		socklen_t len;

		tap_diag("protocol %d", protocol);
		len = sizeof(v);
		if (EXPECT_SYS(getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len)) == 0)
			EXPECT_EQ(v, AF_SMC);
		len = sizeof(v);
		if (EXPECT_SYS(getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len)) == 0)
			EXPECT_EQ(v, SOCK_STREAM);
		len = sizeof(v);
		if (EXPECT_SYS(getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &len)) == 0)
			EXPECT_EQ(v, protocol);
		close(fd);
	}
}

/* The generic flags of socket()'s type argument must work on AF_SMC too. */
static void type_flags(const void *arg)
{
	int fd;

	(void)arg;
	require_smc();
	fd = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
	EXPECT(fcntl(fd, F_GETFL) & O_NONBLOCK);
	EXPECT(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	fd = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM, 0));
	EXPECT(!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	EXPECT(!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
	close(fd);
}

static void wrong_type(const void *arg)
{
	static const int types[] = { SOCK_DGRAM, SOCK_SEQPACKET, SOCK_RAW, SOCK_RDM };

	(void)arg;
	require_smc();
	for (unsigned int i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		EXPECT_ERRNO(socket(AF_SMC, types[i], SMCPROTO_SMC), ESOCKTNOSUPPORT);
		EXPECT_ERRNO(socket(AF_SMC, types[i], SMCPROTO_SMC6), ESOCKTNOSUPPORT);
	}
}

static void wrong_protocol(const void *arg)
{
	(void)arg;
	require_smc();
	EXPECT_ERRNO(socket(AF_SMC, SOCK_STREAM, 2), EPROTONOSUPPORT);
	/* A likely mistake: the TCP protocol number is not an SMC protocol. */
	EXPECT_ERRNO(socket(AF_SMC, SOCK_STREAM, IPPROTO_TCP), EPROTONOSUPPORT);
	EXPECT_ERRNO(socket(AF_SMC, SOCK_STREAM, 255), EPROTONOSUPPORT);
}

/* Many sockets at once, then all closed: creation has no hidden limit. */
static void many(const void *arg)
{
	enum { COUNT = 256 };
	int fds[COUNT];

	(void)arg;
	require_smc();
	for (int i = 0; i < COUNT; i++)
		fds[i] = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM, i % 2));
	for (int i = 0; i < COUNT; i++)
		ASSERT_SYS(close(fds[i]));
}

static const struct tap_case cases[] = {
	{ "socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC) succeeds", create_smc, NULL, 0 },
	{ "socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC6) succeeds", create_smc6, NULL, 0 },
	{ "SO_DOMAIN, SO_TYPE and SO_PROTOCOL report AF_SMC, SOCK_STREAM and the protocol",
	  identity, NULL, 0 },
	{ "SOCK_NONBLOCK and SOCK_CLOEXEC are honoured", type_flags, NULL, 0 },
	{ "SOCK_DGRAM, SOCK_SEQPACKET, SOCK_RAW, SOCK_RDM fail with ESOCKTNOSUPPORT",
	  wrong_type, NULL, 0 },
	{ "protocols 2, IPPROTO_TCP and 255 fail with EPROTONOSUPPORT", wrong_protocol,
	  NULL, 0 },
	{ "256 sockets open at once, then closed", many, NULL, 0 },
};

int main(void)
{
	tap_add_table(cases, sizeof(cases) / sizeof(cases[0]));
	return tap_run();
}
