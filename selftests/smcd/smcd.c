// SPDX-License-Identifier: GPL-2.0
/*
 * smcd/smcd: connections over the loopback ISM device really are SMC-D,
 * and move data right. Run by smcd.sh with af_smc loaded as
 * loopback_ism=1.
 *
 * Sizes are chosen around the ring: a 16 KiB DMB holds a 32-byte CDC
 * header and a ring of 16 KiB - 32, so transfers of ring-1, ring, ring+1
 * and many rings cross the wrap point at different offsets.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/smc_diag.h>
#include <linux/sockios.h>

#include "family.h"
#include "smcdiag.h"
#include "stream.h"
#include "tap.h"

#define RING_MIN (16 * 1024 - 32)

struct pair {
	int lfd, cfd, afd;
};

static void smcd_pair(const struct sf_family *f, struct pair *p, int rcvbuf)
{
	struct sockaddr_storage addr;

	sf_require(f);
	p->lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	if (rcvbuf)
		ASSERT_SYS(setsockopt(p->lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)));
	p->cfd = ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	if (rcvbuf)
		ASSERT_SYS(setsockopt(p->cfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)));
	ASSERT_SYS(connect(p->cfd, (struct sockaddr *)&addr, sf_addr_len(&addr)));
	p->afd = ASSERT_SYS(accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC));
}

/*
 * The cases say SMC-D: a connection that fell back would move the same
 * bytes over TCP and pass them. sock_diag must say SMC-D with no reason.
 */
static void assert_smcd(int fd, const char *end)
{
	struct sd_sock s;

	ASSERT_EQ(sd_find_fd(fd, &s), 0);
	if (s.mode != SMC_DIAG_MODE_SMCD || s.reason || s.peer_diagnosis) {
		tap_fail("the %s end is not SMC-D: mode %u, fallback reason 0x%08x, peer 0x%08x",
			 end, s.mode, s.reason, s.peer_diagnosis);
		tap_end();
	}
}

/* An SMC-D pair, both ends proven SMC-D. */
static void smcd_pair_checked(const struct sf_family *f, struct pair *p, int rcvbuf)
{
	smcd_pair(f, p, rcvbuf);
	assert_smcd(p->cfd, "client");
	assert_smcd(p->afd, "server");
}

static void is_smcd(const void *arg)
{
	struct sd_sock c, a;
	struct pair p;

	smcd_pair(sf_find(arg), &p, 0);
	ASSERT_EQ(sd_find_fd(p.cfd, &c), 0);
	ASSERT_EQ(sd_find_fd(p.afd, &a), 0);
	tap_diag("client mode %u reason 0x%08x, server mode %u reason 0x%08x",
		 c.mode, c.reason, a.mode, a.reason);
	EXPECT_EQ(c.mode, SMC_DIAG_MODE_SMCD);
	EXPECT_EQ(a.mode, SMC_DIAG_MODE_SMCD);
	EXPECT_EQ(c.reason, 0);
	EXPECT_EQ(a.reason, 0);
	EXPECT_EQ(c.state, 1);
	EXPECT_EQ(a.state, 1);
	/*
	 * The loopback device's CHID is an emulated device's (SMCv2.1): its
	 * GID has 128 bits, both halves in the CLC, and both ends name the
	 * one device, so each end's peer GID is its own, all of it.
	 */
	tap_diag("client gid %016llx%016llx peer %016llx%016llx",
		 (unsigned long long)c.my_gid, (unsigned long long)c.my_gid_ext,
		 (unsigned long long)c.peer_gid, (unsigned long long)c.peer_gid_ext);
	EXPECT(c.my_gid_ext != 0);
	EXPECT(c.my_gid == c.peer_gid && c.my_gid_ext == c.peer_gid_ext);
	EXPECT(a.my_gid == a.peer_gid && a.my_gid_ext == a.peer_gid_ext);
	EXPECT(a.my_gid == c.my_gid && a.my_gid_ext == c.my_gid_ext);
}

/* Write len pattern bytes into fd from a child, then SHUT_WR. */
static pid_t writer(int fd, size_t len, uint64_t seed)
{
	pid_t pid = fork();

	if (pid == 0) {
		static char buf[65536];

		if (pattern_write(fd, seed, 0, len, buf, sizeof(buf)))
			_exit(1);
		_exit(shutdown(fd, SHUT_WR) ? 2 : 0);
	}
	return pid;
}

/* Read to EOF and check every byte; returns the count. */
static size_t reader(int fd, uint64_t seed)
{
	static char buf[70000];
	size_t off = 0;
	ssize_t r;

	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		size_t bad = pattern_mismatch(buf, (size_t)r, seed, off);

		if (bad != (size_t)r) {
			tap_fail("byte %zu differs", off + bad);
			tap_abort();
		}
		off += (size_t)r;
	}
	EXPECT_EQ(r, 0);
	return off;
}

static void transfer(const void *arg)
{
	static const size_t sizes[] = {
		1, RING_MIN - 1, RING_MIN, RING_MIN + 1, 3 * RING_MIN + 17, 1 << 20,
		(16 << 20) + 5,
	};
	const struct sf_family *f = sf_find("smc");
	unsigned int i;

	(void)arg;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct pair p;
		int status;
		pid_t pid;

		/* The smallest buffers: 16 KiB DMBs, so the ring wraps often. */
		smcd_pair_checked(f, &p, 1);
		pid = writer(p.cfd, sizes[i], i + 1);
		EXPECT_EQ(reader(p.afd, i + 1), (long long)sizes[i]);
		ASSERT_SYS(waitpid(pid, &status, 0));
		EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		/* And back, the server writing. */
		pid = writer(p.afd, sizes[i], i + 100);
		EXPECT_EQ(reader(p.cfd, i + 100), (long long)sizes[i]);
		ASSERT_SYS(waitpid(pid, &status, 0));
		EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		tap_diag("%zu bytes each way", sizes[i]);
		close(p.cfd);
		close(p.afd);
		close(p.lfd);
	}
}

static void flow_control(const void *arg)
{
	char buf[4096], ev[64];
	int inq = -1, outq = -1;
	struct pollfd pfd;
	struct pair p;
	size_t sent = 0;
	ssize_t n;

	(void)arg;
	/* SO_RCVBUF 1 on both ends: the smallest DMBs, a 16 KiB - 32 ring. */
	smcd_pair_checked(sf_find("smc"), &p, 1);
	/*
	 * Nobody reads: the sender fills the peer's ring and then its own
	 * send buffer (net.smc.wmem, 64 KiB), then EAGAIN. The reader's
	 * SIOCINQ sees the ring full, the writer's SIOCOUTQ the rest.
	 */
	memset(buf, 'x', sizeof(buf));
	while ((n = send(p.afd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		sent += (size_t)n;
	EXPECT_ERRNO(send(p.afd, buf, 1, MSG_DONTWAIT), EAGAIN);
	tap_diag("the ring and the send buffer took %zu bytes", sent);
	EXPECT_EQ(ioctl(p.cfd, SIOCINQ, &inq), 0);
	EXPECT_EQ(inq, (int)RING_MIN);
	EXPECT_EQ(ioctl(p.afd, SIOCOUTQ, &outq), 0);
	EXPECT_EQ((size_t)outq, sent - RING_MIN);
	EXPECT_EQ(sent, RING_MIN + 65536);
	pfd = (struct pollfd){ .fd = p.afd, .events = POLLOUT };
	EXPECT_EQ(poll(&pfd, 1, 0), 0);
	pfd = (struct pollfd){ .fd = p.cfd, .events = POLLIN };
	EXPECT_EQ(poll(&pfd, 1, 0), 1);
	tap_diag("reader poll: %s", sf_poll_str(pfd.revents, ev, sizeof(ev)));
	/* Reading makes room, and the writer sees it. */
	EXPECT_EQ(read(p.cfd, buf, sizeof(buf)), (long long)sizeof(buf));
	pfd = (struct pollfd){ .fd = p.afd, .events = POLLOUT };
	EXPECT_EQ(poll(&pfd, 1, 1000), 1);
	EXPECT_EQ(send(p.afd, buf, sizeof(buf), MSG_DONTWAIT), (long long)sizeof(buf));
}

static void half_close(const void *arg)
{
	char c;
	struct pair p;

	(void)arg;
	smcd_pair_checked(sf_find("smc"), &p, 0);
	ASSERT_EQ(write(p.cfd, "a", 1), 1);
	ASSERT_SYS(shutdown(p.cfd, SHUT_WR));
	EXPECT_EQ(read(p.afd, &c, 1), 1);
	EXPECT_EQ(read(p.afd, &c, 1), 0);		/* EOF */
	EXPECT_ERRNO(send(p.cfd, "b", 1, MSG_NOSIGNAL), EPIPE);
	EXPECT_EQ(write(p.afd, "z", 1), 1);		/* the other way still works */
	EXPECT_EQ(read(p.cfd, &c, 1), 1);
	EXPECT_EQ(c, 'z');
}

static void close_unread(const void *arg)
{
	char c;
	struct pair p;

	(void)arg;
	smcd_pair_checked(sf_find("smc"), &p, 0);
	ASSERT_EQ(write(p.cfd, "abc", 3), 3);
	usleep(100 * 1000);
	close(p.afd);			/* with 3 unread bytes: an abort */
	usleep(100 * 1000);
	EXPECT_ERRNO(recv(p.cfd, &c, 1, MSG_DONTWAIT), ECONNRESET);
}

/*
 * A listener closed with an SMC-D connection nobody accepted: the client
 * learns (EOF or a reset, as TCP gives), and the child's DMB and device
 * reference go with it (the harness's rmmod at the end proves the latter).
 */
static void unaccepted(const void *arg)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage addr;
	struct pollfd pfd;
	int lfd, cfd;
	ssize_t r;
	char c;

	(void)arg;
	sf_require(f);
	lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	cfd = ASSERT_SYS(sf_connect(f, &addr));
	assert_smcd(cfd, "client");
	usleep(100 * 1000);
	ASSERT_SYS(close(lfd));
	pfd = (struct pollfd){ .fd = cfd, .events = POLLIN };
	EXPECT_EQ(poll(&pfd, 1, 2000), 1);
	r = recv(cfd, &c, 1, MSG_DONTWAIT);
	tap_diag("client recv after the listener closed: %zd (%s)", r,
		 r < 0 ? tap_errno_name(errno) : "EOF");
	EXPECT(r == 0 || (r < 0 && errno == ECONNRESET));
}

static const struct tap_case cases[] = {
	{ "smc ipv4: both ends are SMC-D, no fallback reason", is_smcd, "smc", 0 },
	{ "smc ipv6: both ends are SMC-D, no fallback reason", is_smcd, "smc6", 0 },
	{ "byte-exact both ways, 1 B to 16 MiB, across the ring's wrap", transfer, NULL, 120 },
	{ "flow control: the peer's ring, then the send buffer fill, then EAGAIN; reading frees room", flow_control, NULL, 0 },
	{ "shutdown(SHUT_WR): EOF for the peer, EPIPE for us, the peer still writes",
	  half_close, NULL, 0 },
	{ "close with unread data: the peer gets ECONNRESET", close_unread, NULL, 0 },
	{ "listener closed with an unaccepted SMC-D connection: the client learns",
	  unaccepted, NULL, 0 },
};

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	tap_add_table(cases, sizeof(cases) / sizeof(cases[0]));
	return tap_run();
}
