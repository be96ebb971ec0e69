// SPDX-License-Identifier: GPL-2.0
/*
 * socket/connect: connection set-up, blocking and non-blocking, to a
 * listening and to a closed port, on every family (-f). On an SMC family a
 * case also runs on its TCP oracle and requires the same observations (errno
 * values, poll events), because AF_SMC must be a drop-in for TCP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "family.h"
#include "stream.h"
#include "tap.h"

#define CONNECT_WAIT_MS 10000 /* a loopback handshake is far quicker, even under TCG */

/*
 * A loopback port nobody listens on: a plain TCP socket bound to it and never
 * listening keeps it from being taken, and makes the kernel answer a SYN with
 * RST. Returns the reserving socket; *addr is the address to connect to.
 */
static int reserve_closed_port(const struct sf_family *f, struct sockaddr_storage *addr)
{
	const struct sf_family *tcp = f->addr_family == AF_INET ? sf_find("inet")
								: sf_find("inet6");
	socklen_t len = sf_addr(tcp, NULL, 0, addr);
	int fd = ASSERT_SYS(sf_socket(tcp, SOCK_CLOEXEC));

	ASSERT_SYS(bind(fd, (struct sockaddr *)addr, len));
	len = sizeof(*addr);
	ASSERT_SYS(getsockname(fd, (struct sockaddr *)addr, &len));
	return fd;
}

static int so_error(int fd)
{
	int err = -1;
	socklen_t len = sizeof(err);

	EXPECT_SYS(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len));
	return err;
}

/* ---- blocking connect to a closed port ---- */

struct refused_obs {
	int connect_err;  /* errno of connect() */
	int so_error;     /* SO_ERROR afterwards: the error was already reported */
};

static void observe_blocking_refused(const struct sf_family *f, struct refused_obs *o)
{
	struct sockaddr_storage addr;
	int reserve = reserve_closed_port(f, &addr);
	int fd = ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));

	errno = 0;
	o->connect_err = connect(fd, (struct sockaddr *)&addr, sf_addr_len(&addr)) ? errno : 0;
	o->so_error = so_error(fd);
	tap_diag("%s: connect: %s, then SO_ERROR %s", f->label,
		 tap_errno_name(o->connect_err), tap_errno_name(o->so_error));
	close(fd);
	close(reserve);
}

static void blocking_refused(const struct sf_family *f)
{
	const struct sf_family *oracle = sf_oracle(f);
	struct refused_obs o, ref;

	sf_require(f);
	observe_blocking_refused(f, &o);
	if (o.connect_err != ECONNREFUSED)
		tap_fail("connect failed with %s, expected ECONNREFUSED",
			 tap_errno_name(o.connect_err));
	if (!oracle)
		return;
	observe_blocking_refused(oracle, &ref);
	if (o.connect_err != ref.connect_err || o.so_error != ref.so_error)
		tap_fail("%s differs from its oracle %s (see above)", f->label, oracle->label);
}

/* ---- non-blocking connect to a listener ---- */

static void nonblocking_connect(const struct sf_family *f)
{
	struct sockaddr_storage addr, peer, local;
	socklen_t len;
	char a[128], b[128], ev[128], buf[1000], back[1000];
	struct pollfd pfd;
	int lfd, fd, afd, r;

	sf_require(f);
	lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	fd = ASSERT_SYS(sf_socket(f, SOCK_NONBLOCK | SOCK_CLOEXEC));

	r = connect(fd, (struct sockaddr *)&addr, sf_addr_len(&addr));
	if (r == 0)
		tap_diag("connect completed at once");
	else if (errno != EINPROGRESS)
		ASSERT_SYS(r); /* fails the case with the errno */

	pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
	r = (int)ASSERT_SYS(poll(&pfd, 1, CONNECT_WAIT_MS));
	tap_diag("poll(POLLOUT): %s", sf_poll_str(pfd.revents, ev, sizeof(ev)));
	ASSERT_EQ(r, 1);
	EXPECT(pfd.revents & POLLOUT);
	EXPECT(!(pfd.revents & (POLLERR | POLLHUP)));
	EXPECT_EQ(so_error(fd), 0);
	/*
	 * Calling connect() again is how many programs learn the outcome. Linux
	 * TCP answers 0 once (the pending connect completed), then EISCONN.
	 */
	EXPECT_SYS(connect(fd, (struct sockaddr *)&addr, sf_addr_len(&addr)));
	EXPECT_ERRNO(connect(fd, (struct sockaddr *)&addr, sf_addr_len(&addr)), EISCONN);

	/* The peer is the listener's address: same format, address and port. */
	len = sizeof(peer);
	if (EXPECT_SYS(getpeername(fd, (struct sockaddr *)&peer, &len)) == 0) {
		tap_diag("peer %s", sf_addr_str(&peer, a, sizeof(a)));
		if (!EXPECT_EQ(len, sf_addr_len(&addr)) ||
		    !EXPECT(memcmp(&peer, &addr, sf_addr_len(&addr)) == 0))
			tap_diag("listener is %s", sf_addr_str(&addr, b, sizeof(b)));
	}
	len = sizeof(local);
	if (EXPECT_SYS(getsockname(fd, (struct sockaddr *)&local, &len)) == 0) {
		EXPECT_EQ(local.ss_family, f->addr_family);
		EXPECT(sf_port(&local) != 0);
	}

	afd = (int)ASSERT_SYS(accept4(lfd, NULL, NULL, SOCK_CLOEXEC));
	pattern_fill(buf, sizeof(buf), 7, 0);
	ASSERT_SYS(sf_write_all(fd, buf, sizeof(buf)));
	ASSERT_SYS(sf_read_all(afd, back, sizeof(back)));
	EXPECT(memcmp(buf, back, sizeof(buf)) == 0);
	ASSERT_SYS(sf_write_all(afd, back, sizeof(back)));
	memset(back, 0, sizeof(back));
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	ASSERT_EQ(ASSERT_SYS(poll(&pfd, 1, CONNECT_WAIT_MS)), 1);
	/* Non-blocking: the data may arrive in pieces; wait for each one. */
	for (size_t got = 0; got < sizeof(back);) {
		ssize_t n = read(fd, back + got, sizeof(back) - got);

		if (n < 0 && errno == EAGAIN) {
			pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
			ASSERT_EQ(ASSERT_SYS(poll(&pfd, 1, CONNECT_WAIT_MS)), 1);
			continue;
		}
		ASSERT(ASSERT_SYS(n) > 0);
		got += (size_t)n;
	}
	EXPECT(memcmp(buf, back, sizeof(buf)) == 0);
	close(afd);
	close(fd);
	close(lfd);
}

/* ---- non-blocking connect to a closed port ---- */

struct nb_refused_obs {
	int connect_err;
	short revents;       /* of poll(POLLOUT) waiting for the outcome */
	short settled;       /* of a second poll for everything, a moment later */
	int so_error;
	int so_error_again;  /* SO_ERROR is cleared by reading it */
};

static void observe_nb_refused(const struct sf_family *f, struct nb_refused_obs *o)
{
	const short all = POLLIN | POLLPRI | POLLOUT | POLLRDHUP;
	struct sockaddr_storage addr;
	int reserve = reserve_closed_port(f, &addr);
	int fd = ASSERT_SYS(sf_socket(f, SOCK_NONBLOCK | SOCK_CLOEXEC));
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	char e1[128], e2[128];

	errno = 0;
	o->connect_err = connect(fd, (struct sockaddr *)&addr, sf_addr_len(&addr)) ? errno : 0;
	ASSERT_EQ(ASSERT_SYS(poll(&pfd, 1, CONNECT_WAIT_MS)), 1);
	o->revents = pfd.revents;
	/*
	 * The first poll returns on the first event; the state may still be
	 * moving (error set, then closed). Compare what it settles to.
	 */
	usleep(20000);
	pfd = (struct pollfd){ .fd = fd, .events = all };
	ASSERT_SYS(poll(&pfd, 1, 0));
	o->settled = pfd.revents;
	o->so_error = so_error(fd);
	o->so_error_again = so_error(fd);
	tap_diag("%s: connect: %s; poll(POLLOUT): %s; then poll(all): %s; SO_ERROR %s, then %s",
		 f->label, tap_errno_name(o->connect_err),
		 sf_poll_str(o->revents, e1, sizeof(e1)), sf_poll_str(o->settled, e2, sizeof(e2)),
		 tap_errno_name(o->so_error), tap_errno_name(o->so_error_again));
	close(fd);
	close(reserve);
}

static void nonblocking_refused(const struct sf_family *f)
{
	const struct sf_family *oracle = sf_oracle(f);
	struct nb_refused_obs o, ref;

	sf_require(f);
	observe_nb_refused(f, &o);
	EXPECT(o.connect_err == EINPROGRESS);
	EXPECT(o.revents & (POLLERR | POLLHUP));
	EXPECT(o.settled & POLLERR);
	EXPECT(o.settled & POLLHUP);
	EXPECT(o.so_error == ECONNREFUSED);
	EXPECT(o.so_error_again == 0);
	if (!oracle)
		return;
	observe_nb_refused(oracle, &ref);
	if (o.connect_err != ref.connect_err || o.revents != ref.revents ||
	    o.settled != ref.settled || o.so_error != ref.so_error ||
	    o.so_error_again != ref.so_error_again)
		tap_fail("%s differs from its oracle %s (see above)", f->label, oracle->label);
}

static const struct sf_case cases[] = {
	{ "blocking connect to a closed port fails with ECONNREFUSED", blocking_refused, 0 },
	{ "non-blocking connect: POLLOUT, SO_ERROR 0, connect again 0 then EISCONN, data",
	  nonblocking_connect, 0 },
	{ "non-blocking connect to a closed port: POLLERR|POLLHUP, SO_ERROR ECONNREFUSED",
	  nonblocking_refused, 0 },
};

int main(int argc, char **argv)
{
	return sf_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
