// SPDX-License-Identifier: GPL-2.0
/*
 * smcd/smcd_sizes: DMB sizing (SO_RCVBUF, net.smc.rmem), every size class
 * byte-exact across its ring's wrap point, rings that grow and where they
 * stop, DMB reuse from the link group's pool, link groups per peer. Run by smcd.sh with af_smc loaded
 * as loopback_ism=1.
 *
 * A DMB of class n is 16 KiB << n bytes: a 32-byte CDC header, then the
 * ring. How many bytes a sender can put in before EAGAIN while nobody
 * reads is exactly the peer's ring: that is how the tests see a class.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/smc_diag.h>
#include <linux/sockios.h>

#include "family.h"
#include "objects.h"
#include "smcdiag.h"
#include "stream.h"
#include "tap.h"

#define CDC_LEN 32
#define CLASSES 7
#define DMB(c) ((size_t)16384 << (c))
#define RING(c) (DMB(c) - CDC_LEN)

struct pair {
	int lfd, cfd, afd;
};

/*
 * rcvbuf, sndbuf: 0 leaves the default (net.smc.rmem, net.smc.wmem); else
 * SO_RCVBUFFORCE, SO_SNDBUFFORCE (past net.core.*mem_max), set on both
 * ends before listen() and connect(), where tcp(7) says buffer sizes must
 * be set to take effect.
 */
static void pair_open_bufs(struct pair *p, int rcvbuf, int sndbuf)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage addr;
	socklen_t alen = sizeof(addr);
	struct sd_sock c, a;

	sf_require(f);
	p->lfd = ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	p->cfd = ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	if (rcvbuf) {
		/* The core stores twice the value; af_smc halves it back. */
		ASSERT_SYS(setsockopt(p->lfd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)));
		ASSERT_SYS(setsockopt(p->cfd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)));
	}
	if (sndbuf) {
		ASSERT_SYS(setsockopt(p->lfd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)));
		ASSERT_SYS(setsockopt(p->cfd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)));
	}
	alen = sf_addr(f, NULL, 0, &addr);
	ASSERT_SYS(bind(p->lfd, (struct sockaddr *)&addr, alen));
	alen = sizeof(addr);
	ASSERT_SYS(listen(p->lfd, 16));
	ASSERT_SYS(getsockname(p->lfd, (struct sockaddr *)&addr, &alen));
	ASSERT_SYS(connect(p->cfd, (struct sockaddr *)&addr, sf_addr_len(&addr)));
	p->afd = ASSERT_SYS(accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC));
	ASSERT_EQ(sd_find_fd(p->cfd, &c), 0);
	ASSERT_EQ(sd_find_fd(p->afd, &a), 0);
	ASSERT_EQ(c.mode, SMC_DIAG_MODE_SMCD);
	ASSERT_EQ(a.mode, SMC_DIAG_MODE_SMCD);
}

static void pair_open(struct pair *p, int rcvbuf)
{
	pair_open_bufs(p, rcvbuf, 0);
}

static void pair_close(struct pair *p)
{
	close(p->cfd);
	close(p->afd);
	close(p->lfd);
}

/*
 * Send from fd until EAGAIN while nobody reads at peer. What went sits in
 * two places: the peer's ring (the peer's SIOCINQ) and fd's send buffer
 * (fd's SIOCOUTQ), which must add up. Returns the ring's part; *total
 * gets all of it, for drain().
 */
static size_t fill(int fd, int peer, size_t *total)
{
	static char buf[65536];
	size_t sent = 0;
	int inq = -1, outq = -1;
	ssize_t n;

	while ((n = send(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		sent += (size_t)n;
	EXPECT_ERRNO(send(fd, buf, 1, MSG_DONTWAIT), EAGAIN);
	EXPECT_EQ(ioctl(peer, SIOCINQ, &inq), 0);
	EXPECT_EQ(ioctl(fd, SIOCOUTQ, &outq), 0);
	EXPECT_EQ((size_t)inq + (size_t)outq, sent);
	*total = sent;
	return (size_t)inq;
}

/* Drain what fill() put in, so the pair closes without an abort. */
static void drain(int fd, size_t len)
{
	static char buf[65536];

	while (len) {
		ssize_t r = read(fd, buf, len < sizeof(buf) ? len : sizeof(buf));

		ASSERT(r > 0);
		len -= (size_t)r;
	}
}

static void classes(const void *arg)
{
	int c;

	(void)arg;
	for (c = 0; c < CLASSES; c++) {
		struct pair p;
		size_t got, total;

		pair_open(&p, (int)DMB(c));
		got = fill(p.afd, p.cfd, &total);
		tap_diag("SO_RCVBUF %zu: the client's ring took %zu bytes", DMB(c), got);
		EXPECT_EQ(got, RING(c));
		drain(p.cfd, total);
		got = fill(p.cfd, p.afd, &total);
		EXPECT_EQ(got, RING(c));
		drain(p.afd, total);
		pair_close(&p);
	}
	/* Between classes: rounded up; beyond 1 MiB: 1 MiB. */
	{
		struct pair p;
		size_t got, total;

		pair_open(&p, 40000);
		got = fill(p.afd, p.cfd, &total);
		EXPECT_EQ(got, RING(2));
		drain(p.cfd, total);
		pair_close(&p);
		pair_open(&p, 8 << 20);
		got = fill(p.afd, p.cfd, &total);
		EXPECT_EQ(got, RING(6));
		drain(p.cfd, total);
		pair_close(&p);
	}
}

/*
 * A sysctl file: its old text into old (len bytes at most), then set (if
 * not NULL) written; 0, or -1.
 */
static int sysctl_file(const char *path, const char *set, char *old, size_t len)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);
	ssize_t n;
	int rc = 0;

	if (fd < 0)
		return -1;
	n = read(fd, old, len - 1);
	old[n > 0 ? n : 0] = 0;
	if (set && pwrite(fd, set, strlen(set), 0) != (ssize_t)strlen(set))
		rc = -1;
	close(fd);
	return rc;
}

/* net.smc.NAME: returns the old value; set (if not 0) the new one. */
static int sysctl_smc(const char *name, int set)
{
	char path[64], val[32], old[64];

	snprintf(path, sizeof(path), "/proc/sys/net/smc/%s", name);
	snprintf(val, sizeof(val), "%d\n", set);
	if (sysctl_file(path, set ? val : NULL, old, sizeof(old)))
		return -1;
	return atoi(old);
}

static int sysctl_rmem(int set)
{
	return sysctl_smc("rmem", set);
}

static void rmem_sysctl(const void *arg)
{
	static const struct { int rmem; int class; } t[] = {
		{ 65536, 2 }, { 262144, 4 }, { 100000, 3 }, { 16384, 0 },
		/* SMC-R goes to 512 MiB (issue 22); a DMB stays at 1 MiB. */
		{ 8 << 20, 6 }, { 512 << 20, 6 },
	};
	int old = sysctl_rmem(0);
	unsigned int i;

	(void)arg;
	ASSERT(old > 0);
	tap_diag("net.smc.rmem was %d", old);
	EXPECT_EQ(old, 65536);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pair p;
		size_t got, total;

		ASSERT(sysctl_rmem(t[i].rmem) > 0);
		pair_open(&p, 0);
		got = fill(p.afd, p.cfd, &total);
		tap_diag("net.smc.rmem %d: the ring took %zu bytes", t[i].rmem, got);
		EXPECT_EQ(got, RING(t[i].class));
		drain(p.cfd, total);
		pair_close(&p);
	}
	sysctl_rmem(old);
}

/*
 * The send buffer's size: SO_SNDBUF (the core stores twice the value;
 * af_smc halves it back), else net.smc.wmem, rounded up to the DMB
 * classes, at most 1 MiB. With the peer's ring full, the writer's
 * SIOCOUTQ is what its send buffer took.
 */
static void sndbuf_sizes(const void *arg)
{
	static const struct { int sndbuf, wmem; size_t want; } t[] = {
		{ 16384, 0, DMB(0) }, { 40000, 0, DMB(2) },
		{ 1 << 20, 0, DMB(6) }, { 8 << 20, 0, DMB(6) },
		{ 0, 16384, DMB(0) }, { 0, 200000, DMB(4) }, { 0, 65536, DMB(2) },
	};
	int old = sysctl_smc("wmem", 0);
	unsigned int i;

	(void)arg;
	ASSERT(old > 0);
	tap_diag("net.smc.wmem was %d", old);
	EXPECT_EQ(old, 65536);
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pair p;
		size_t got, total;

		if (t[i].wmem)
			ASSERT(sysctl_smc("wmem", t[i].wmem) > 0);
		pair_open_bufs(&p, 0, t[i].sndbuf);
		got = fill(p.afd, p.cfd, &total);
		tap_diag("SO_SNDBUF %d, net.smc.wmem %d: the send buffer took %zu bytes",
			 t[i].sndbuf, t[i].wmem ? t[i].wmem : old, total - got);
		EXPECT_EQ(got, RING(2));
		EXPECT_EQ(total - got, t[i].want);
		drain(p.cfd, total);
		pair_close(&p);
	}
	sysctl_smc("wmem", old);
}

/*
 * Write len bytes of the stream "seed" in pieces whose sizes cycle
 * through odd values, so that writes start and end all around the ring.
 */
static pid_t writer(int fd, size_t len, uint64_t seed)
{
	static const size_t pieces[] = { 1, 4093, 65536 + 7, 17, 300001, 16352, 999 };
	pid_t pid = fork();

	if (pid == 0) {
		static char buf[300001];
		size_t off = 0;
		unsigned int k = 0;

		while (off < len) {
			size_t n = pieces[k++ % 7];
			ssize_t w;

			if (n > len - off)
				n = len - off;
			pattern_fill(buf, n, seed, off);
			w = write(fd, buf, n);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(shutdown(fd, SHUT_WR) ? 2 : 0);
	}
	return pid;
}

/* Read to EOF in cycling sizes and check every byte; returns the count. */
static size_t reader(int fd, uint64_t seed)
{
	static const size_t pieces[] = { 65536, 3, 16385, 250000, 1021 };
	static char buf[250000];
	size_t off = 0;
	unsigned int k = 0;
	ssize_t r;

	while ((r = read(fd, buf, pieces[k++ % 5])) > 0) {
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

static void one_transfer(int wfd, int rfd, size_t len, uint64_t seed)
{
	int status;
	pid_t pid = writer(wfd, len, seed);

	ASSERT_SYS(pid);
	EXPECT_EQ(reader(rfd, seed), (long long)len);
	ASSERT_SYS(waitpid(pid, &status, 0));
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Sizes around each ring: below, at and just past the wrap, many wraps. */
static void wraps(const void *arg)
{
	int c;

	(void)arg;
	for (c = 0; c < CLASSES; c++) {
		size_t r = RING(c);
		const size_t sizes[] = { 1, r - 1, r, r + 1, 2 * r + r / 2 + 3, 5 * r + 7 };
		unsigned int i;

		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			struct pair p;

			pair_open(&p, (int)DMB(c));
			one_transfer(p.cfd, p.afd, sizes[i], c * 100 + i + 1);
			one_transfer(p.afd, p.cfd, sizes[i], c * 100 + i + 51);
			pair_close(&p);
		}
		tap_diag("class %d (%zu-byte ring): 1 B .. %zu B both ways", c, r, 5 * r + 7);
	}
}

static void big(const void *arg)
{
	const size_t len = (size_t)(uintptr_t)arg;
	struct pair p;

	pair_open(&p, len >= (64u << 20) ? (int)DMB(6) : (int)DMB(0));
	one_transfer(p.cfd, p.afd, len, len);
	pair_close(&p);
}

/*
 * Rings that grow (Documentation/smc-d.md): a reader that keeps emptying
 * its ring while the writer waits for room gets a ring two classes
 * bigger, up to 1 MiB, as TCP autotunes its receive buffer. Seen from
 * both ends: the reader's rmbe_size, the writer's peer_rmbe_size.
 */
static void ring_sizes(int rfd, int wfd, uint32_t *rmbe, uint32_t *peer_rmbe)
{
	struct sd_sock r, w;

	ASSERT_EQ(sd_find_fd(rfd, &r), 0);
	ASSERT_EQ(sd_find_fd(wfd, &w), 0);
	ASSERT(r.has_conn && w.has_conn);
	*rmbe = r.rmbe_size;
	*peer_rmbe = w.peer_rmbe_size;
}

/*
 * len bytes of stream seed from wfd to rfd, the writer in a child, with
 * no FIN after it (the pair goes on); every byte checked.
 */
static void stream(int wfd, int rfd, size_t len, uint64_t seed)
{
	static char buf[250000];
	size_t off = 0;
	int status;
	pid_t pid = fork();

	ASSERT_SYS(pid);
	if (pid == 0) {
		static char out[300001];
		size_t n;

		for (off = 0; off < len; off += n) {
			n = len - off < sizeof(out) ? len - off : sizeof(out);
			pattern_fill(out, n, seed, off);
			if (write(wfd, out, n) != (ssize_t)n)
				_exit(1);
		}
		_exit(0);
	}
	while (off < len) {
		ssize_t r = read(rfd, buf, sizeof(buf));

		ASSERT(r > 0);
		if (pattern_mismatch(buf, (size_t)r, seed, off) != (size_t)r) {
			tap_fail("byte %zu differs", off);
			tap_abort();
		}
		off += (size_t)r;
	}
	ASSERT_SYS(waitpid(pid, &status, 0));
	EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void grows(const void *arg)
{
	uint32_t a, b, a2, b2;
	char c = 0, buf[16];
	struct pair p;
	int n = -1;

	(void)arg;
	pair_open(&p, 0);
	ring_sizes(p.afd, p.cfd, &a, &b);
	EXPECT_EQ(a, RING(2));
	stream(p.cfd, p.afd, 64u << 20, 11);
	ring_sizes(p.afd, p.cfd, &a, &b);
	ring_sizes(p.cfd, p.afd, &a2, &b2);
	tap_diag("after 64 MiB one way: the reader's ring %u (the writer sees %u), "
		 "the other way's %u (seen %u)", a, b, a2, b2);
	EXPECT_EQ(a, RING(6));
	EXPECT_EQ(b, RING(6));
	EXPECT_EQ(a2, RING(2));		/* nothing came the other way */
	EXPECT_EQ(b2, RING(2));
	/* Both ways at once, then the other ring has grown too. */
	{
		pid_t pid = fork();
		int status;

		ASSERT_SYS(pid);
		if (pid == 0) {
			stream(p.afd, p.cfd, 64u << 20, 13);
			_exit(tap_failed() ? 1 : 0);
		}
		stream(p.cfd, p.afd, 32u << 20, 12);
		ASSERT_SYS(waitpid(pid, &status, 0));
		EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	ring_sizes(p.cfd, p.afd, &a2, &b2);
	tap_diag("after 64 MiB the other way: %u (seen %u)", a2, b2);
	EXPECT_EQ(a2, RING(6));
	EXPECT_EQ(b2, RING(6));
	/*
	 * Urgent data, SIOCINQ and the FIN in the grown ring, as before.
	 * The loopback device delivers within send(): no wait is needed.
	 */
	ASSERT_EQ(send(p.cfd, "0123456789", 10, 0), 10);
	ASSERT_EQ(send(p.cfd, "U", 1, MSG_OOB), 1);
	EXPECT_EQ(ioctl(p.afd, SIOCINQ, &n), 0);
	EXPECT_EQ(n, 10);		/* up to the mark */
	EXPECT_EQ(recv(p.afd, &c, 1, MSG_OOB), 1);
	EXPECT_EQ(c, 'U');
	EXPECT_EQ(read(p.afd, buf, sizeof(buf)), 10);
	EXPECT(memcmp(buf, "0123456789", 10) == 0);
	ASSERT_SYS(shutdown(p.cfd, SHUT_WR));
	EXPECT_EQ(read(p.afd, buf, sizeof(buf)), 0);
	pair_close(&p);
}

/*
 * Where a ring stays: SO_RCVBUF set (TCP's autotuning stops there too),
 * net.ipv4.tcp_moderate_rcvbuf 0; net.ipv4.tcp_rmem's maximum bounds it
 * (half of it, the other half being TCP's overhead); net.smc.mem_limit
 * without room for the bigger ring. Each stream stays byte-exact.
 */
static uint32_t grown_to(int rcvbuf)
{
	uint32_t a, b;
	struct pair p;

	pair_open(&p, rcvbuf);
	stream(p.cfd, p.afd, 32u << 20, 21);
	ring_sizes(p.afd, p.cfd, &a, &b);
	EXPECT_EQ(a, b);
	pair_close(&p);
	return a;
}

static void grow_bounds(const void *arg)
{
	static const char mod[] = "/proc/sys/net/ipv4/tcp_moderate_rcvbuf";
	static const char rmem[] = "/proc/sys/net/ipv4/tcp_rmem";
	char old_mod[64], old_rmem[64], cur[64];
	int old_limit;

	(void)arg;
	EXPECT_EQ(grown_to((int)DMB(2)), RING(2));
	ASSERT_EQ(sysctl_file(mod, "0\n", old_mod, sizeof(old_mod)), 0);
	EXPECT_EQ(grown_to(0), RING(2));
	ASSERT_EQ(sysctl_file(mod, old_mod, cur, sizeof(cur)), 0);
	ASSERT_EQ(sysctl_file(rmem, "4096 131072 524288\n", old_rmem, sizeof(old_rmem)), 0);
	EXPECT_EQ(grown_to(0), RING(4));
	ASSERT_EQ(sysctl_file(rmem, old_rmem, cur, sizeof(cur)), 0);
	/* Both ends' first buffers (2 x 64 KiB each), and 64 KiB more. */
	old_limit = sysctl_smc("mem_limit", 5 * 65536);
	ASSERT(old_limit > 0);
	EXPECT_EQ(grown_to(0), RING(2));
	sysctl_smc("mem_limit", old_limit);
	EXPECT_EQ(grown_to(0), RING(6));	/* and back */
}

static void reuse(const void *arg)
{
	struct smc_objects o0, o1, o2;
	struct pair p;
	size_t total;

	(void)arg;
	/* A class no other case here leaves in the pool last: 512 KiB. */
	pair_open(&p, (int)DMB(5));
	pair_close(&p);
	/* A CI run once read "conns 1" at close()'s return. */
	ASSERT_EQ(objects_wait_no_conns(&o0, 5), 0);
	tap_diag("after close: conns %ld dmbs %ld pooled %ld lgrs %ld",
		 o0.conns, o0.dmbs, o0.pool_dmbs, o0.lgrs);
	EXPECT_EQ(o0.conns, 0);
	EXPECT(o0.pool_dmbs >= 2);
	pair_open(&p, (int)DMB(5));
	ASSERT_EQ(objects_read(&o1), 0);
	tap_diag("new pair: conns %ld dmbs %ld pooled %ld", o1.conns, o1.dmbs, o1.pool_dmbs);
	EXPECT_EQ(o1.conns, 2);
	EXPECT_EQ(o1.dmbs, o0.dmbs);			/* nothing new registered */
	EXPECT_EQ(o1.pool_dmbs, o0.pool_dmbs - 2);	/* both taken from the pool */
	/* The reused DMBs start clean: data and flow control are right. */
	EXPECT_EQ(fill(p.afd, p.cfd, &total), RING(5));
	drain(p.cfd, total);
	one_transfer(p.cfd, p.afd, 3 * RING(5) + 11, 77);
	one_transfer(p.afd, p.cfd, 2 * RING(5) + 5, 78);
	pair_close(&p);
	ASSERT_EQ(objects_wait_no_conns(&o2, 5), 0);
	EXPECT_EQ(o2.conns, 0);
	EXPECT_EQ(o2.dmbs, o0.dmbs);
	EXPECT_EQ(o2.pool_dmbs, o0.pool_dmbs);
}

static void link_groups(const void *arg)
{
	struct sd_sock c1, a1, c2, a2;
	struct smc_objects o;
	struct pair p1, p2;

	(void)arg;
	pair_open(&p1, 0);
	pair_open(&p2, 0);
	ASSERT_EQ(sd_find_fd(p1.cfd, &c1), 0);
	ASSERT_EQ(sd_find_fd(p1.afd, &a1), 0);
	ASSERT_EQ(sd_find_fd(p2.cfd, &c2), 0);
	ASSERT_EQ(sd_find_fd(p2.afd, &a2), 0);
	ASSERT(c1.has_dmb && a1.has_dmb && c2.has_dmb && a2.has_dmb);
	tap_diag("link ids: clients %u %u, servers %u %u", c1.linkid, c2.linkid,
		 a1.linkid, a2.linkid);
	EXPECT(c1.linkid != 0 && a1.linkid != 0);
	EXPECT_EQ(c1.linkid, c2.linkid);	/* one group per peer and role */
	EXPECT_EQ(a1.linkid, a2.linkid);
	EXPECT(c1.linkid != a1.linkid);		/* the loopback: both roles here */
	EXPECT(c1.token != c2.token);
	EXPECT_EQ(c1.peer_token, a1.token);
	ASSERT_EQ(objects_read(&o), 0);
	EXPECT_EQ(o.lgrs, 2);
	EXPECT_EQ(o.conns, 4);
	pair_close(&p1);
	pair_close(&p2);
}

/* Last: with a short linger everything goes, to zero. */
static void all_freed(const void *arg)
{
	struct smc_objects o;

	(void)arg;
	ASSERT_EQ(objects_set_linger(1), 0);
	EXPECT_EQ(objects_wait_zero(&o, 15), 0);
	tap_diag("socks %ld conns %ld dmbs %ld pooled %ld lgrs %ld", o.socks,
		 o.conns, o.dmbs, o.pool_dmbs, o.lgrs);
	objects_set_linger(10);
}

static const struct tap_case cases[] = {
	{ "SO_RCVBUF picks the DMB size class, 16 KiB to 1 MiB, rounded up", classes, NULL, 120 },
	{ "net.smc.rmem sizes the DMB of sockets without SO_RCVBUF", rmem_sysctl, NULL, 60 },
	{ "SO_SNDBUF, else net.smc.wmem, sizes the send buffer", sndbuf_sizes, NULL, 60 },
	{ "every class byte-exact both ways, 1 B to 5 rings, across the wrap", wraps, NULL, 300 },
	{ "32 MiB byte-exact through a 16 KiB DMB", big, (void *)(uintptr_t)(32u << 20), 120 },
	{ "256 MiB byte-exact through a 1 MiB DMB", big, (void *)(uintptr_t)(256u << 20), 300 },
	{ "a ring grows to 1 MiB while its reader keeps up, each way on its own, byte-exact", grows, NULL, 300 },
	{ "a ring stays: SO_RCVBUF, tcp_moderate_rcvbuf 0, tcp_rmem's maximum, net.smc.mem_limit", grow_bounds, NULL, 300 },
	{ "a closed connection's DMBs serve the next one, clean", reuse, NULL, 60 },
	{ "connections to one peer share a link group per role", link_groups, NULL, 30 },
	{ "every connection, DMB and link group freed after the linger time", all_freed, NULL, 30 },
};

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	tap_add_table(cases, sizeof(cases) / sizeof(cases[0]));
	return tap_run();
}
