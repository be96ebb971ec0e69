// SPDX-License-Identifier: GPL-2.0
/*
 * smcd/memlimit: SMC buffers count against the owner's memory cgroup
 * and against a per-namespace cap (Documentation/security.md, "SMC
 * buffers outside the container's limits").
 *
 * The cases (SMC-D over the loopback ISM device, each in a network
 * namespace of its own):
 *  - memcg: a process in a memory cgroup with memory.max 32 MiB opens
 *    SMC-D pairs with 1 MiB DMBs (net.smc.rmem), listener and client both
 *    in the cgroup, until one falls back (at most 48 pairs, 96 MiB of
 *    DMBs). memory.current must rise by the DMBs of every SMC-D pair, a
 *    pair must fall back (the server with SMC_CLC_DECL_MEM) before the
 *    DMBs pass memory.max, that pair must carry data over TCP, nobody is
 *    OOM-killed, and once all is closed (lgr_linger 1 s, so pooled DMBs
 *    go) the cgroup's charge is back near 0.
 *    With "smcr ADDR" (smcr/memlimit_topo1.sh, which sets up topology 1
 *    and af_smc with smcr=1): the same over SMC-R to a listener on ADDR,
 *    in the initial namespace (where the rxe devices are); RMBs and send
 *    buffers are allocated in the handshake, so each pair charges both.
 *  - nobuf: an SMC-D pair in the same cgroup, the client's send buffer
 *    1 MiB (net.smc.wmem), made only when the peer's ring is full; then
 *    memory.max is lowered to just above memory.current, so the memcg
 *    cannot take that buffer. The client pumps 4 MiB through
 *    non-blocking send/recv and poll: every byte must arrive in order,
 *    no send may fail (the connection goes on without a send buffer,
 *    writing into the peer's ring as it drains), poll must not report
 *    room that send then refuses, memory.events must count the
 *    refused charge and memory.stat's kernel memory must not have grown
 *    by the buffer (else the case proved nothing). The server's ring
 *    does not grow in this case (tcp_moderate_rcvbuf 0 in its namespace).
 *  - netns: net.smc.mem_limit of 5 pairs' buffers (64 KiB DMB and 64 KiB
 *    send buffer per socket): 5 pairs are SMC-D, 3 more fall back, the
 *    server with SMC_CLC_DECL_MEM, and SMC_NETLINK_GET_FBACK_STATS counts
 *    3 server fallbacks of that code; after one SMC-D pair is closed a
 *    new pair is SMC-D again (the bytes came back); with the limit 0 no
 *    pair is SMC-D.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <smc/af_smc.h>

#include "diff.h"
#include "family.h"
#include "genl.h"
#include "smcdiag.h"
#include "stream.h"
#include "tap.h"

#define DECL_MEM	0x01010000u	/* SMC_CLC_DECL_MEM */
#define DECL_PEERDECL	0x05000000u	/* SMC_CLC_DECL_PEERDECL */

#define CG_MNT		"/sys/fs/cgroup"
#define CG_DIR		CG_MNT "/smc-memlimit"
#define CG2_MAGIC	0x63677270	/* CGROUP2_SUPER_MAGIC */
#define CG_MAX		(32 << 20)
#define CG_DMB		(1 << 20)	/* net.smc.rmem: 1 MiB DMBs */
#define CG_PAIRS	48		/* 96 MiB of DMBs: 3 x memory.max */
#define LINGER		"/sys/module/af_smc/parameters/lgr_linger"
#define NOBUF_SNDBUF	(1 << 20)	/* net.smc.wmem of the nobuf case */
#define NOBUF_BYTES	(4 << 20)	/* pumped through it */
#define NOBUF_SEED	0x6e6f627566ull	/* its byte stream (stream.h) */

/* "smcr ADDR": the memcg case over SMC-R to ADDR; NULL: SMC-D on lo. */
static const char *smcr_addr;

#define NS_SOCK_BYTES	(2 * 65536)	/* DMB and send buffer, defaults */
#define NS_FIT		5
#define NS_PAIRS	8

static int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	err = errno;
	close(fd);
	errno = err;
	return n < 0 ? -1 : 0;
}

static int read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static long long read_num(const char *path)
{
	char buf[64];

	if (read_file(path, buf, sizeof(buf)) < 0) {
		tap_fail("cannot read %s: %s", path, strerror(errno));
		tap_abort();
	}
	return strtoll(buf, NULL, 10);
}

/*
 * The value of KEY in a flat-keyed file such as memory.events or
 * memory.stat; -1 if none. The buffer is static: in the nobuf case's
 * full cgroup a stack page never touched before may be one page too many.
 */
static long long read_key(const char *path, const char *key)
{
	static char buf[8192];
	char *p;
	size_t kl = strlen(key);

	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtoll(p + kl + 1, NULL, 10);
	return -1;
}

static void sysctl_set(const char *name, const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/sys/net/smc/%s", name);
	if (write_file(path, value) < 0) {
		tap_fail("net.smc.%s = %s: %s", name, value, strerror(errno));
		tap_abort();
	}
}

/* A network namespace of our own with lo up: limits and counters are ours. */
static void own_netns(void)
{
	ASSERT_SYS(unshare(CLONE_NEWNET));
	ASSERT_SYS(sf_lo_up());
}

static int smc_listener(struct sockaddr_in *a, const char *addr)
{
	socklen_t al = sizeof(*a);
	int l = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, 0));

	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	ASSERT_EQ(inet_pton(AF_INET, addr, &a->sin_addr), 1);
	ASSERT_SYS(bind(l, (void *)a, sizeof(*a)));
	ASSERT_SYS(listen(l, 128));
	ASSERT_SYS(getsockname(l, (void *)a, &al));
	return l;
}

struct pair {
	int c, s;
	struct sd_sock cd, sd;	/* sock_diag of both ends */
};

/* One connected pair on listener l; both ends looked up in sock_diag. */
static void open_pair(int l, const struct sockaddr_in *a, struct pair *p)
{
	p->c = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, 0));
	ASSERT_SYS(connect(p->c, (const void *)a, sizeof(*a)));
	p->s = ASSERT_SYS(accept4(l, NULL, NULL, SOCK_CLOEXEC));
	ASSERT_EQ(sd_find_fd(p->c, &p->cd), 0);
	ASSERT_EQ(sd_find_fd(p->s, &p->sd), 0);
}

static int is_smcd(const struct pair *p)
{
	return p->cd.mode == SMC_DIAG_MODE_SMCD && p->sd.mode == SMC_DIAG_MODE_SMCD;
}

/* Both ends in the mode the memcg case runs in. */
static int is_smc(const struct pair *p)
{
	int mode = smcr_addr ? SMC_DIAG_MODE_SMCR : SMC_DIAG_MODE_SMCD;

	return p->cd.mode == mode && p->sd.mode == mode;
}

/*
 * A pair that fell back: both ends TCP, one for want of memory (its own
 * reason), the other because that one declined with it; and the
 * connection carries data. The server makes its DMB first, at the
 * Proposal; the client at the Accept: either may be the one refused.
 */
static void expect_mem_fallback(const struct pair *p)
{
	const struct sd_sock *short_of = p->sd.reason == DECL_MEM ? &p->sd : &p->cd;
	const struct sd_sock *told = short_of == &p->sd ? &p->cd : &p->sd;
	char buf[8];

	EXPECT_EQ(p->sd.mode, SMC_DIAG_MODE_FALLBACK_TCP);
	EXPECT_EQ(p->cd.mode, SMC_DIAG_MODE_FALLBACK_TCP);
	EXPECT_EQ(short_of->reason, DECL_MEM);
	EXPECT_EQ(told->reason, DECL_PEERDECL);
	EXPECT_EQ(told->peer_diagnosis, DECL_MEM);
	ASSERT_EQ(write(p->c, "ping", 4), 4);
	ASSERT_EQ(read(p->s, buf, sizeof(buf)), 4);
	EXPECT(!memcmp(buf, "ping", 4));
}

static void close_pair(struct pair *p)
{
	close(p->c);
	close(p->s);
}

/* ---- memcg ---- */

static void cg_worker(void)
{
	static struct pair pairs[CG_PAIRS];
	char pid[32], num[32];
	long long base, cur = 0, peak;
	struct sockaddr_in a;
	int l, n, smcd = 0;

	snprintf(pid, sizeof(pid), "%d", getpid());
	ASSERT_SYS(write_file(CG_DIR "/cgroup.procs", pid));
	/* SMC-R needs the rxe devices of the initial namespace. */
	if (!smcr_addr)
		own_netns();
	snprintf(num, sizeof(num), "%d", CG_DMB);
	sysctl_set("rmem", num);
	l = smc_listener(&a, smcr_addr ?: "127.0.0.1");
	base = read_num(CG_DIR "/memory.current");
	peak = base;
	for (n = 0; n < CG_PAIRS; n++) {
		open_pair(l, &a, &pairs[n]);
		if (!is_smc(&pairs[n]))
			break;
		smcd++;
		cur = read_num(CG_DIR "/memory.current");
		if (cur > peak)
			peak = cur;
	}
	tap_diag("%d %s pairs of 2 x %d KiB receive buffers; memory.current %lld KiB before, "
		 "%lld KiB after the last of them (peak %lld KiB), memory.max %d KiB",
		 smcd, smcr_addr ? "SMC-R" : "SMC-D", CG_DMB >> 10, base >> 10, cur >> 10, peak >> 10, CG_MAX >> 10);
	/* Room for several before the limit: the setting is what it says. */
	EXPECT(smcd >= 4);
	/* Each SMC-D pair's two DMBs are charged here (90%: the rest is noise). */
	if (smcd && cur - base < (long long)smcd * 2 * CG_DMB * 9 / 10)
		tap_fail("memory.current rose by %lld KiB for %d SMC pairs: their "
			 "%d KiB of receive buffers are not charged to the cgroup",
			 (cur - base) >> 10, smcd, smcd * 2 * (CG_DMB >> 10));
	/* The DMBs never got past the limit: a pair fell back first. */
	if (n == CG_PAIRS) {
		tap_fail("all %d pairs are SMC: %d MiB of receive buffers in a cgroup of %d MiB",
			 CG_PAIRS, CG_PAIRS * 2 * (CG_DMB >> 20), CG_MAX >> 20);
	} else {
		tap_diag("pair %d fell back: server reason 0x%08x (peer's 0x%08x), "
			 "client reason 0x%08x (peer's 0x%08x)", n + 1,
			 pairs[n].sd.reason, pairs[n].sd.peer_diagnosis,
			 pairs[n].cd.reason, pairs[n].cd.peer_diagnosis);
		EXPECT((long long)smcd * 2 * CG_DMB <= CG_MAX);
		expect_mem_fallback(&pairs[n]);
		close_pair(&pairs[n]);
	}
	while (smcd--)
		close_pair(&pairs[smcd]);
	close(l);
}

/* What cg_setup() changed, for cg_teardown() to put back. */
struct cg_state {
	int mounted;
	char linger[16], rmem[32];
};

static void cg_setup(struct cg_state *st)
{
	struct statfs fs;

	memset(st, 0, sizeof(*st));
	strcpy(st->linger, "10");
	/* The guest does not mount cgroup2; a host may have it already. */
	if (statfs(CG_MNT, &fs) < 0 || fs.f_type != CG2_MAGIC) {
		ASSERT_SYS(mount("cgroup2", CG_MNT, "cgroup2", 0, NULL));
		st->mounted = 1;
	}
	ASSERT_SYS(write_file(CG_MNT "/cgroup.subtree_control", "+memory"));
	rmdir(CG_DIR);
	ASSERT_SYS(mkdir(CG_DIR, 0755));
	ASSERT_SYS(write_file(CG_DIR "/memory.max", "33554432"));
	/* No swap in the guest; a host's must not hide the charge either. */
	write_file(CG_DIR "/memory.swap.max", "0");
	/* Pooled DMBs go 1 s after their group's last connection. */
	ASSERT_SYS(read_file(LINGER, st->linger, sizeof(st->linger)));
	st->linger[strcspn(st->linger, "\n")] = 0;
	ASSERT_SYS(write_file(LINGER, "1"));
	/* Over SMC-R the worker sets rmem in our namespace: put it back. */
	if (smcr_addr)
		ASSERT_SYS(read_file("/proc/sys/net/smc/rmem", st->rmem, sizeof(st->rmem)));
}

/* Run worker in a child in the cgroup; nobody may be OOM-killed. */
static void cg_run(void (*worker)(void))
{
	int status;
	pid_t pid;

	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		worker();
		_exit(tap_failed() ? 1 : 0);
	}
	ASSERT_SYS(waitpid(pid, &status, 0));
	if (WIFSIGNALED(status)) {
		tap_fail("the process in the cgroup was killed by signal %d "
			 "(memory.events oom_kill %lld)", WTERMSIG(status),
			 read_key(CG_DIR "/memory.events", "oom_kill"));
		tap_diag("memory.stat: anon %lld, file %lld, kernel %lld, sock %lld, percpu %lld",
			 read_key(CG_DIR "/memory.stat", "anon"),
			 read_key(CG_DIR "/memory.stat", "file"),
			 read_key(CG_DIR "/memory.stat", "kernel"),
			 read_key(CG_DIR "/memory.stat", "sock"),
			 read_key(CG_DIR "/memory.stat", "percpu"));
	}
	else if (WEXITSTATUS(status))
		tap_fail("the checks in the cgroup failed");
	EXPECT_EQ(read_key(CG_DIR "/memory.events", "oom_kill"), 0);
}

static void cg_teardown(const struct cg_state *st)
{
	long long charged, end;

	/* The charges go with the buffers: pooled ones after lgr_linger. */
	end = tap_now_ms() + 10000;
	while ((charged = read_num(CG_DIR "/memory.current")) > (2 << 20) &&
	       tap_now_ms() < end)
		usleep(100 * 1000);
	tap_diag("memory.current %lld KiB once everything is closed", charged >> 10);
	EXPECT(charged <= (2 << 20));

	write_file(LINGER, st->linger);
	if (*st->rmem)
		EXPECT_SYS(write_file("/proc/sys/net/smc/rmem", st->rmem));
	EXPECT_SYS(rmdir(CG_DIR));
	if (st->mounted)
		EXPECT_SYS(umount(CG_MNT));
}

static void memcg(const void *arg)
{
	struct cg_state st;

	(void)arg;
	cg_setup(&st);
	cg_run(cg_worker);
	cg_teardown(&st);
}

/* ---- a send buffer the memcg cannot take ---- */

static void nobuf_worker(void)
{
	unsigned char *src = malloc(NOBUF_BYTES), *dst = malloc(NOBUF_BYTES);
	long long cur, refused, kernel, eagain = 0;
	uint32_t rmbe;
	size_t sent = 0, got = 0, bad;
	char pid[32], num[32];
	struct sockaddr_in a;
	struct pair p;
	int l;

	ASSERT(src && dst);
	/*
	 * No page of ours may need a charge once the limit is low: a fault
	 * then is the memcg's OOM kill. Both buffers are written (not with
	 * zeros: malloc + memset 0 may become a calloc that touches
	 * nothing), and, in the cgroup, mlockall() faults in the rest and
	 * breaks its copy-on-write sharing with our parent.
	 */
	pattern_fill(src, NOBUF_BYTES, NOBUF_SEED, 0);
	memset(dst, 0xa5, NOBUF_BYTES);
	snprintf(pid, sizeof(pid), "%d", getpid());
	ASSERT_SYS(write_file(CG_DIR "/cgroup.procs", pid));
	ASSERT_SYS(mlockall(MCL_CURRENT));
	own_netns();
	/*
	 * The server's ring stays as the handshake made it: a ring that
	 * grows while its reader keeps up (smcd_conn.c) would take the
	 * room below for itself, and then a page fault of ours is the
	 * memcg's OOM kill, not a refused send buffer.
	 */
	if (write_file("/proc/sys/net/ipv4/tcp_moderate_rcvbuf", "0") < 0) {
		tap_fail("net.ipv4.tcp_moderate_rcvbuf = 0: %s", strerror(errno));
		tap_abort();
	}
	snprintf(num, sizeof(num), "%d", NOBUF_SNDBUF);
	sysctl_set("wmem", num);
	l = smc_listener(&a, "127.0.0.1");
	open_pair(l, &a, &p);
	ASSERT(is_smcd(&p));
	rmbe = p.sd.rmbe_size;
	diff_set_nonblock(p.c, 1);
	diff_set_nonblock(p.s, 1);

	/*
	 * Room for a few pages, not for the 1 MiB send buffer. The room has
	 * two bounds because memory.current also counts the per-CPU charge
	 * caches (up to 64 pages a CPU, charged and not yet used, 512 KiB on
	 * two CPUs): room + caches must stay below the send buffer, and room
	 * less one CPU's cache must leave pages for this process.
	 */
	cur = read_num(CG_DIR "/memory.current");
	kernel = read_key(CG_DIR "/memory.stat", "kernel");
	snprintf(num, sizeof(num), "%lld", cur + (384 << 10));
	ASSERT_SYS(write_file(CG_DIR "/memory.max", num));
	refused = read_key(CG_DIR "/memory.events", "max");

	while (got < NOBUF_BYTES) {
		struct pollfd pf[2] = {
			{ .fd = p.c, .events = sent < NOBUF_BYTES ? POLLOUT : 0 },
			{ .fd = p.s, .events = POLLIN },
		};
		ssize_t n;

		if (ASSERT_SYS(poll(pf, 2, 10000)) == 0) {
			tap_fail("no progress for 10 s: %zu bytes sent, %zu received", sent, got);
			break;
		}
		if (pf[0].revents & (POLLERR | POLLHUP)) {
			tap_fail("the client's socket failed (revents %#x)", pf[0].revents);
			break;
		}
		if (pf[0].revents & POLLOUT) {
			n = send(p.c, src + sent, NOBUF_BYTES - sent, MSG_NOSIGNAL);
			if (n > 0) {
				sent += n;
			} else if (n < 0 && errno == EAGAIN) {
				eagain++;
			} else {
				tap_fail("send after %zu bytes: %zd (%s)", sent, n, strerror(errno));
				break;
			}
		}
		if (pf[1].revents & POLLIN) {
			n = recv(p.s, dst + got, NOBUF_BYTES - got, 0);
			if (n <= 0 && !(n < 0 && errno == EAGAIN)) {
				tap_fail("recv after %zu bytes: %zd (%s)", got, n, strerror(errno));
				break;
			}
			if (n > 0)
				got += n;
		}
	}
	refused = read_key(CG_DIR "/memory.events", "max") - refused;
	kernel = read_key(CG_DIR "/memory.stat", "kernel") - kernel;
	tap_diag("%zu of %d bytes arrived; memory.current %lld KiB, memory.max %s; "
		 "charges refused at the limit: %lld; memory.stat kernel %+lld KiB; "
		 "sends that found no room after POLLOUT: %lld",
		 got, NOBUF_BYTES, read_num(CG_DIR "/memory.current") >> 10, num,
		 refused, kernel >> 10, eagain);
	EXPECT_EQ(got, (size_t)NOBUF_BYTES);
	bad = pattern_mismatch(dst, got, NOBUF_SEED, 0);
	if (bad < got)
		tap_fail("byte %zu of the stream differs", bad);
	/*
	 * The case ran: the memcg refused the send buffer's charge, and the
	 * buffer was not made after all (memory.events counts hitting the
	 * limit, which a reclaim may then have cured).
	 */
	EXPECT(refused > 0);
	EXPECT(kernel < NOBUF_SNDBUF / 2);
	/* POLLOUT meant room: the one refusal at most found none. */
	EXPECT(eagain <= 1);
	ASSERT_SYS(write_file(CG_DIR "/memory.max", "33554432"));
	/* Looked up once there is room again: the dump allocates. */
	ASSERT_EQ(sd_find_fd(p.s, &p.sd), 0);
	EXPECT_EQ(p.sd.rmbe_size, rmbe);
	close_pair(&p);
	close(l);
}

static void nobuf(const void *arg)
{
	struct cg_state st;

	(void)arg;
	cg_setup(&st);
	cg_run(nobuf_worker);
	cg_teardown(&st);
}

/* ---- net.smc.mem_limit ---- */

/* Server fallbacks with code in this namespace's SMC_NETLINK_GET_FBACK_STATS. */
static long server_fallbacks(uint32_t code)
{
	const struct nlmsghdr *m = NULL;
	struct genl_result res = { 0 };
	struct genl_req r;
	long cnt = -1;
	int fd, fam;

	fd = ASSERT_SYS(genl_open());
	fam = ASSERT_SYS(genl_family(fd, SMC_GENL_FAMILY_NAME, NULL, NULL, NULL));
	genl_req_init(&r, fam, SMC_NETLINK_GET_FBACK_STATS, 1, NLM_F_DUMP);
	ASSERT_SYS(genl_exchange(fd, &r, &res));
	ASSERT_EQ(res.error, 0);
	while ((m = genl_next_msg(&res, m))) {
		const struct nlattr *f = genl_attr(m, 0, SMC_GEN_FBACK_STATS);
		const struct nlattr *a;
		uint32_t type = 0, rsn = 0, n = 0;
		int rem;

		if (!f)
			continue;
		a = (const void *)((const char *)f + NLA_HDRLEN);
		rem = f->nla_len - NLA_HDRLEN;
		for (; rem >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem;
		     rem -= NLA_ALIGN(a->nla_len),
		     a = (const void *)((const char *)a + NLA_ALIGN(a->nla_len))) {
			const void *v = (const char *)a + NLA_HDRLEN;

			switch (a->nla_type & NLA_TYPE_MASK) {
			case SMC_NLA_FBACK_STATS_TYPE:
				type = *(const uint8_t *)v;
				break;
			case SMC_NLA_FBACK_STATS_RSN_CODE:
				rsn = *(const uint32_t *)v;
				break;
			case SMC_NLA_FBACK_STATS_RSN_CNT:
				n = *(const uint16_t *)v;
				break;
			}
		}
		if (type && rsn == code)
			cnt = n;
	}
	genl_result_free(&res);
	close(fd);
	return cnt < 0 ? 0 : cnt;
}

static void netns_worker(void)
{
	struct pair pairs[NS_PAIRS], again;
	struct sockaddr_in a;
	char num[32];
	long long end;
	int l, n, smcd = 0, fb = 0;

	own_netns();
	snprintf(num, sizeof(num), "%d", NS_FIT * 2 * NS_SOCK_BYTES);
	sysctl_set("mem_limit", num);
	l = smc_listener(&a, "127.0.0.1");
	for (n = 0; n < NS_PAIRS; n++) {
		open_pair(l, &a, &pairs[n]);
		if (is_smcd(&pairs[n])) {
			smcd++;
			continue;
		}
		fb++;
		expect_mem_fallback(&pairs[n]);
		/* The server asks first, and is refused first. */
		EXPECT_EQ(pairs[n].sd.reason, DECL_MEM);
	}
	tap_diag("net.smc.mem_limit %s: %d pairs SMC-D, %d fell back", num, smcd, fb);
	EXPECT_EQ(smcd, NS_FIT);
	for (n = 0; n < NS_FIT; n++)
		EXPECT(is_smcd(&pairs[n]));
	EXPECT_EQ(server_fallbacks(DECL_MEM), NS_PAIRS - NS_FIT);

	/* A closed SMC-D pair gives its bytes back. */
	close_pair(&pairs[0]);
	end = tap_now_ms() + 5000;
	for (;;) {
		open_pair(l, &a, &again);
		if (is_smcd(&again) || tap_now_ms() > end)
			break;
		close_pair(&again);
		usleep(100 * 1000);
	}
	if (!is_smcd(&again))
		tap_fail("no pair is SMC-D again 5 s after an SMC-D pair closed "
			 "(server reason 0x%08x)", again.sd.reason);
	close_pair(&again);

	/* 0: no connection gets buffers. */
	sysctl_set("mem_limit", "0");
	open_pair(l, &a, &again);
	expect_mem_fallback(&again);
	close_pair(&again);
	for (n = 1; n < NS_PAIRS; n++)
		close_pair(&pairs[n]);
	close(l);
}

static void netns(const void *arg)
{
	int status;
	pid_t pid;

	(void)arg;
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		netns_worker();
		_exit(tap_failed() ? 1 : 0);
	}
	ASSERT_SYS(waitpid(pid, &status, 0));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		tap_fail("the checks in the namespace failed (status %#x)", status);
}

static const struct tap_case cases[] = {
	{ "SMC-D buffers are charged to the memcg; past memory.max they fall back, "
	  "no OOM kill", memcg, NULL, 240 },
	{ "SMC-D: a send buffer the full memcg cannot take: the connection goes on "
	  "without one, every byte arrives", nobuf, NULL, 120 },
	{ "net.smc.mem_limit: past it connections fall back with DECL_MEM, "
	  "counted; closing gives the bytes back", netns, NULL, 120 },
};

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "smcr")) {
		smcr_addr = argv[2];
		tap_add(memcg, NULL, 240, "SMC-R RMBs and send buffers are charged to the memcg; "
			"past memory.max they fall back, no OOM kill");
		return tap_run();
	}
	tap_add_table(cases, sizeof(cases) / sizeof(cases[0]));
	return tap_run();
}
