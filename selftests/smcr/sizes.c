// SPDX-License-Identifier: GPL-2.0
/*
 * smcr/sizes SERVER CLIENT: SMC-R buffers past 1 MiB (Linux 6.11's
 * ceiling, 512 MiB; kernel/smc_conn.h, SMCR_BUF_MAX_CLASS). Run by
 * sizes_topo1.sh in topology 1: SMC-R from CLIENT (10.43.2.1, rxev1) to
 * SERVER (10.43.2.2, rxev2) in one VM, one namespace, af_smc with smcr=1
 * loopback_ism=0 (so no SMC-D here: smcd/smcd_sizes checks SMC-D's 1 MiB
 * ceiling for net.smc.rmem and SO_SNDBUF).
 *
 * - net.smc.wmem/rmem keep Linux's bounds: 16 KiB .. INT_MAX / 2, so
 *   16383 and 1 GiB are EINVAL and leave the value as it was; 512 MiB
 *   and 513 MiB are taken (a connection then gets at most 512 MiB).
 * - With wmem = rmem = 2, 4 and 8 MiB, one connection moves twice that
 *   each way (every byte compared, the rings wrap), and then, open,
 *   sock_diag says both ends' RMBs, send buffers and the peers' RMBs are
 *   that size, and debugfs smcr_conns says the same of the buffers
 *   themselves, virtually contiguous (past 1 MiB, kernel/smcr_buf.c).
 * - SO_SNDBUF/SO_RCVBUF 4 MiB on the client with net.core.wmem_max and
 *   rmem_max raised to 8 MiB: its buffers are 4 MiB (the server's
 *   sock_diag says its peer's RMB is 4 MiB); under the core's maxima as
 *   they were, the buffers are the class that holds those, as setsockopt
 *   clamps SO_SNDBUF for any socket.
 * - Every group's pool holds at most 64 MiB (SMCR_POOL_BYTES) and its
 *   link writes at most 1 MiB per RDMA WRITE (rxe allows more); a push
 *   of 8 MiB (corked, then uncorked) is eight WRITEs of 1 MiB.
 * - In a memory cgroup that cannot take four 8 MiB buffers, buffers step
 *   down a class at a time (never below 1 MiB: smcr/memlimit_topo1 needs
 *   a memcg at its end to fall back) and the connection uses what it got;
 *   so too with physically contiguous buffers (4 MiB at most), in a
 *   cgroup that cannot take four of 4 MiB.
 * - net.smc.smcr_buf_type acts, read when the buffers are made: with 1
 *   (virtually contiguous) buffers of 64 KiB and 1 MiB are vmalloc'd;
 *   with 0 (physically contiguous, Linux's default) they are one block of
 *   pages each, also right after vmalloc'd ones of those sizes went to
 *   the group's pool (a pooled RMB of the other kind is not handed on);
 *   with 0 and 8 MiB asked for, every buffer is one block of 4 MiB, the
 *   largest the page allocator has (a smaller class, 1 MiB at the least,
 *   if no such block is free); with 2 (mixed) a block up to 1 MiB and
 *   vmalloc past it, as before the sysctl acted. Each moves its bytes
 *   both ways, every byte compared. The cases before these set 2: they
 *   are about sizes past 1 MiB, which only vmalloc gives.
 * - Rings that grow (Documentation/smc-r.md): with 64 KiB rings (Linux's
 *   net.smc.rmem) and net.ipv4.tcp_moderate_rcvbuf 1, 32 MiB each way
 *   grows both ends' rings, two classes at a time, every byte compared,
 *   and each end's sock_diag and debugfs agree with the other's on the
 *   new sizes. The other cases run with tcp_moderate_rcvbuf 0, so that
 *   their rings stay the size they check.
 * Every sysctl is put back afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <linux/smc_diag.h>
#include <smc/af_smc.h>

#include "exchange.h"
#include "family.h"
#include "smcdiag.h"
#include "stream.h"
#include "sysfile.h"
#include "tap.h"

#define PORT0		4620
#define MIB		(1u << 20)
#define BUF_MIN		(16u * 1024)	/* SMC_BUF_MIN_SIZE */
#define POOL_BYTES	(64ull * MIB)	/* kernel/smcr_lgr.c, SMCR_POOL_BYTES */
#define WMEM		"/proc/sys/net/smc/wmem"
#define RMEM		"/proc/sys/net/smc/rmem"
#define CORE_WMEM_MAX	"/proc/sys/net/core/wmem_max"
#define CORE_RMEM_MAX	"/proc/sys/net/core/rmem_max"
#define SMCR_LGR	"/sys/kernel/debug/af_smc/smcr_lgr"
#define SMCR_CONNS	"/sys/kernel/debug/af_smc/smcr_conns"
#define BUF_TYPE	"/proc/sys/net/smc/smcr_buf_type"
#define MODERATE	"/proc/sys/net/ipv4/tcp_moderate_rcvbuf"
#define BLOCK_MAX	(4 * MIB)	/* order 10 (MAX_ORDER - 1) of 4 KiB pages */
#define LINGER		"/sys/module/af_smc/parameters/lgr_linger"
#define CG_MNT		"/sys/fs/cgroup"
#define CG_DIR		CG_MNT "/smc-sizes"
#define CG2_MAGIC	0x63677270	/* CGROUP2_SUPER_MAGIC */

static const char *server_ip, *client_ip;

/*
 * net.smc.smcr_buf_type as this case set it (each case is a process of
 * its own): 0 physically contiguous, 1 virtually, 2 mixed.
 */
static int buf_type = -1;

static void set_buf_type(int type)
{
	char v[8];

	snprintf(v, sizeof(v), "%d", type);
	ASSERT_SYS(sysfile_write(BUF_TYPE, v));
	buf_type = type;
	tap_diag("net.smc.smcr_buf_type = %d", type);
}

/* Whether a buffer of size is vmalloc'd under buf_type (kernel/smcr_buf.c). */
static unsigned int virt_for(uint32_t size)
{
	if (buf_type == 0)
		return 0;
	if (buf_type == 1)
		return 1;
	return size > MIB;
}

/* The SMC-R class that holds want bytes (kernel/smc_conn.h). */
static uint32_t smcr_size_for(uint32_t want)
{
	uint32_t size = BUF_MIN;

	while (size < (512u * MIB) && size < want)
		size <<= 1;
	return size;
}

/*
 * The I/O buffers, the server thread's and its stack: static, so the
 * cgroup case can touch every page before it sets memory.max (a page
 * fault past it would be the memcg's OOM kill, not the kernel's answer).
 */
#define IOBUF		(64 * 1024)
#define STACK		(256 * 1024)
static unsigned char client_buf[IOBUF], server_buf[IOBUF];
static unsigned char server_stack[STACK] __attribute__((aligned(4096)));

/* fd's sock_diag entry, which must be an SMC-R connection with CONNINFO. */
static void diag(int fd, struct sd_sock *sd, const char *who)
{
	ASSERT_EQ(sd_find_fd(fd, sd), 0);
	ASSERT_EQ(sd->mode, SMC_DIAG_MODE_SMCR);
	ASSERT(sd->has_conn);
	tap_diag("%s: sock_diag token %u rmbe_size %u sndbuf_size %u peer_rmbe_size %u",
		 who, sd->conn_token, sd->rmbe_size, sd->sndbuf_size,
		 sd->peer_rmbe_size);
}

/*
 * debugfs smcr_conns' line for token: its buffers are rmb and sndbuf
 * bytes, vmalloc'd or not as buf_type says. 0 when found and checked.
 */
static int check_conn_line(uint32_t token, uint32_t rmb, uint32_t sndbuf)
{
	FILE *f = fopen(SMCR_CONNS, "re");
	char line[512];
	int found = -1;

	if (!EXPECT(f != NULL))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned int tok, rs, rv, ss, sv;
		const char *p = strstr(line, " token ");
		const char *q = strstr(line, " rmb_size ");

		if (!p || sscanf(p, " token %u", &tok) != 1 || tok != token)
			continue;
		line[strcspn(line, "\n")] = 0;
		tap_diag("smcr_conns: %s", line);
		if (!EXPECT(q && sscanf(q, " rmb_size %u rmb_virt %u sndbuf_size %u sndbuf_virt %u",
					&rs, &rv, &ss, &sv) == 4))
			break;
		EXPECT_EQ(rs, rmb);
		EXPECT_EQ(ss, sndbuf);
		EXPECT_EQ(rv, virt_for(rmb));
		EXPECT_EQ(sv, virt_for(sndbuf));
		found = 0;
		break;
	}
	fclose(f);
	return EXPECT_EQ(found, 0) ? 0 : -1;
}

/* Every group: pool_bytes within the bound, write_max 1 MiB. */
static void check_lgrs(void)
{
	FILE *f = fopen(SMCR_LGR, "re");
	char line[768];
	int n = 0;

	if (!EXPECT(f != NULL))
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long pool;
		unsigned int wmax;
		const char *p = strstr(line, " pool_bytes ");

		if (strncmp(line, "lgr ", 4))
			continue;
		if (!EXPECT(p && sscanf(p, " pool_bytes %llu write_max %u", &pool, &wmax) == 2))
			continue;
		tap_diag("group: pool_bytes %llu write_max %u", pool, wmax);
		EXPECT(pool <= POOL_BYTES);
		EXPECT_EQ(wmax, MIB);
		n++;
	}
	fclose(f);
	EXPECT(n >= 2);
}

/*
 * One connection, sndbuf/rcvbuf set on the client when not 0; total bytes
 * each way, compared. Then, open, both ends' sizes: the client's buffers
 * crmb/csnd, the server's srmb/ssnd (0: not checked, only shown); each
 * end's idea of its peer's RMB must be the peer's own. The two ends'
 * sock_diag entries go to *cout and *sout when not NULL.
 */
static void one_conn(int port, int sndbuf, int rcvbuf, uint64_t total,
		     uint32_t crmb, uint32_t csnd, uint32_t srmb, uint32_t ssnd,
		     struct sd_sock *cout, struct sd_sock *sout)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage sa, ca;
	struct sd_sock cd, sd;
	struct exchange s = {
		.total = total, .reply = 1, .buf = server_buf, .size = IOBUF,
	};
	pthread_attr_t attr;
	pthread_t t;
	int fd, sfd;

	ASSERT(sf_addr(f, server_ip, port, &sa) && sf_addr(f, client_ip, 0, &ca));
	s.lfd = ASSERT_SYS(sf_listen(f, server_ip, port, 2, NULL));
	ASSERT_EQ(pthread_attr_init(&attr), 0);
	ASSERT_EQ(pthread_attr_setstack(&attr, server_stack, sizeof(server_stack)), 0);
	ASSERT_EQ(pthread_create(&t, &attr, exchange_serve, &s), 0);
	pthread_attr_destroy(&attr);
	fd = ASSERT_SYS(sf_socket(f, 0));
	if (sndbuf)
		ASSERT_SYS(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)));
	if (rcvbuf)
		ASSERT_SYS(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)));
	ASSERT_SYS(bind(fd, (struct sockaddr *)&ca, sf_addr_len(&ca)));
	ASSERT_SYS(connect(fd, (struct sockaddr *)&sa, sf_addr_len(&sa)));
	ASSERT_SYS(pattern_write(fd, EXCHANGE_TO_SERVER, 0, total, client_buf, IOBUF));
	EXPECT_EQ(pattern_read(fd, EXCHANGE_TO_CLIENT, 0, total, client_buf, IOBUF),
		  (int64_t)total);

	/* The server has sent everything: its descriptor is set and open. */
	sfd = __atomic_load_n(&s.fd, __ATOMIC_ACQUIRE);
	diag(fd, &cd, "client");
	if (crmb)
		EXPECT_EQ(cd.rmbe_size, crmb);
	if (csnd)
		EXPECT_EQ(cd.sndbuf_size, csnd);
	if (cout)
		*cout = cd;
	if (EXPECT(sfd >= 0)) {
		diag(sfd, &sd, "server");
		EXPECT_EQ(sd.peer_rmbe_size, cd.rmbe_size);
		EXPECT_EQ(cd.peer_rmbe_size, sd.rmbe_size);
		if (sout)
			*sout = sd;
		if (srmb)
			EXPECT_EQ(sd.rmbe_size, srmb);
		if (ssnd)
			EXPECT_EQ(sd.sndbuf_size, ssnd);
		check_conn_line(sd.conn_token, sd.rmbe_size, sd.sndbuf_size);
	}
	check_conn_line(cd.conn_token, cd.rmbe_size, cd.sndbuf_size);
	check_lgrs();

	ASSERT_SYS(shutdown(fd, SHUT_WR));
	pthread_join(t, NULL);
	close(fd);
	close(s.lfd);
	EXPECT_EQ(s.bad, (int64_t)total);
	EXPECT_EQ(s.sent, 0);
	tap_diag("%llu bytes each way, every byte compared",
		 (unsigned long long)total);
}

/* A refused write leaves the value; a taken one reads back as written. */
static void sysctl_bounds(const void *arg)
{
	static const char *const files[] = { WMEM, RMEM };
	char old[32], now[32];

	(void)arg;
	for (unsigned int i = 0; i < 2; i++) {
		ASSERT_SYS(sysfile_read(files[i], old, sizeof(old)));
		tap_diag("%s was %s", files[i], old);
		EXPECT_ERRNO(sysfile_write(files[i], "1073741824"), EINVAL);
		EXPECT_ERRNO(sysfile_write(files[i], "16383"), EINVAL);
		ASSERT_SYS(sysfile_read(files[i], now, sizeof(now)));
		EXPECT_EQ(strcmp(now, old), 0);
		EXPECT_SYS(sysfile_write(files[i], "536870912"));
		ASSERT_SYS(sysfile_read(files[i], now, sizeof(now)));
		EXPECT_EQ(strcmp(now, "536870912"), 0);
		/* Linux's bound is INT_MAX / 2: 513 MiB is taken there too. */
		EXPECT_SYS(sysfile_write(files[i], "537919488"));
		EXPECT_SYS(sysfile_write(files[i], "1073741823"));
		ASSERT_SYS(sysfile_read(files[i], now, sizeof(now)));
		EXPECT_EQ(strcmp(now, "1073741823"), 0);
		EXPECT_ERRNO(sysfile_write(files[i], "1073741824"), EINVAL);
		ASSERT_SYS(sysfile_read(files[i], now, sizeof(now)));
		EXPECT_EQ(strcmp(now, "1073741823"), 0);
		EXPECT_SYS(sysfile_write(files[i], old));
	}
}

static void sysctl_sizes(const void *arg)
{
	uint32_t size = (uint32_t)(uintptr_t)arg;
	char old_w[32], old_r[32], val[32];

	set_buf_type(2);
	ASSERT_SYS(sysfile_read(WMEM, old_w, sizeof(old_w)));
	ASSERT_SYS(sysfile_read(RMEM, old_r, sizeof(old_r)));
	snprintf(val, sizeof(val), "%u", size);
	ASSERT_SYS(sysfile_write(WMEM, val));
	ASSERT_SYS(sysfile_write(RMEM, val));
	tap_diag("net.smc.wmem = net.smc.rmem = %u", size);
	one_conn(PORT0 + (int)(size / MIB), 0, 0, 2ull * size,
		 size, size, size, size, NULL, NULL);
	EXPECT_SYS(sysfile_write(WMEM, old_w));
	EXPECT_SYS(sysfile_write(RMEM, old_r));
}

/*
 * Rings that grow: 64 KiB at first, bigger after 32 MiB each way, by a
 * class two or four up (256 KiB or 1 MiB: how often the reader found its
 * ring full in time is up to the scheduler); one_conn() checks that the
 * two ends agree and the buffers are what debugfs says.
 */
static void ring_growth(const void *arg)
{
	struct sd_sock cd, sd;
	char old_r[32];

	(void)arg;
	set_buf_type(0);
	ASSERT_SYS(sysfile_read(RMEM, old_r, sizeof(old_r)));
	ASSERT_SYS(sysfile_write(RMEM, "65536"));
	ASSERT_SYS(sysfile_write(MODERATE, "1"));
	one_conn(PORT0 + 40, 0, 0, 32ull * MIB, 0, 0, 0, 0, &cd, &sd);
	EXPECT_SYS(sysfile_write(MODERATE, "0"));
	EXPECT_SYS(sysfile_write(RMEM, old_r));
	tap_diag("rings after 32 MiB each way: the client's %u, the server's %u",
		 cd.rmbe_size, sd.rmbe_size);
	EXPECT(cd.rmbe_size == 256 * 1024 || cd.rmbe_size == MIB);
	EXPECT(sd.rmbe_size == 256 * 1024 || sd.rmbe_size == MIB);
}

/* SO_SNDBUF/SO_RCVBUF of size on the client, the core's maxima raised. */
static void sockopt_sizes(const void *arg)
{
	int size = (int)(uintptr_t)arg;
	char old_w[32], old_r[32], val[32];

	set_buf_type(2);
	ASSERT_SYS(sysfile_read(CORE_WMEM_MAX, old_w, sizeof(old_w)));
	ASSERT_SYS(sysfile_read(CORE_RMEM_MAX, old_r, sizeof(old_r)));
	snprintf(val, sizeof(val), "%d", 2 * size);
	ASSERT_SYS(sysfile_write(CORE_WMEM_MAX, val));
	ASSERT_SYS(sysfile_write(CORE_RMEM_MAX, val));
	tap_diag("net.core.wmem_max = rmem_max = %s, SO_SNDBUF = SO_RCVBUF = %d",
		 val, size);
	one_conn(PORT0 + 20, size, size, 2ull * (uint64_t)size,
		 (uint32_t)size, (uint32_t)size, 0, 0, NULL, NULL);
	EXPECT_SYS(sysfile_write(CORE_WMEM_MAX, old_w));
	EXPECT_SYS(sysfile_write(CORE_RMEM_MAX, old_r));
}

/* SO_SNDBUF/SO_RCVBUF of size under the core's maxima as they are. */
static void sockopt_clamped(const void *arg)
{
	int size = (int)(uintptr_t)arg;
	char w[32], r[32];
	uint32_t wmax, rmax;

	set_buf_type(2);
	ASSERT_SYS(sysfile_read(CORE_WMEM_MAX, w, sizeof(w)));
	ASSERT_SYS(sysfile_read(CORE_RMEM_MAX, r, sizeof(r)));
	wmax = (uint32_t)strtoul(w, NULL, 10);
	rmax = (uint32_t)strtoul(r, NULL, 10);
	tap_diag("net.core.wmem_max %u, rmem_max %u; SO_SNDBUF = SO_RCVBUF = %d",
		 wmax, rmax, size);
	if ((uint32_t)size <= wmax || (uint32_t)size <= rmax)
		tap_fail("the core's maxima are not below %d here", size);
	one_conn(PORT0 + 21, size, size, 2 * MIB,
		 smcr_size_for(rmax), smcr_size_for(wmax), 0, 0, NULL, NULL);
}

/* The client group's RDMA WRITEs posted and the largest; 0 or -1. */
static int client_writes(unsigned long long *writes, unsigned int *largest)
{
	FILE *f = fopen(SMCR_LGR, "re");
	char line[768];
	int rc = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, " writes ");

		if (strncmp(line, "lgr ", 4) || !strstr(line, " role client ") || !p)
			continue;
		if (sscanf(p, " writes %llu write_largest %u", writes, largest) == 2)
			rc = 0;
	}
	fclose(f);
	return rc;
}

/*
 * A push of 8 MiB is eight RDMA WRITEs of 1 MiB (kernel/smcr_conn.c).
 * lgr_linger 0 and no group left: this case's links are new, so their
 * counters are this connection's. The client corks, sends 8 MiB in one
 * call (all of it fits its 8 MiB send buffer) and uncorks: the peer's
 * 8 MiB ring is empty, so one push takes everything. The server only
 * reads (its CDCs are SENDs, not WRITEs), every byte compared.
 */
static void split_writes(const void *arg)
{
	const struct sf_family *f = sf_find("smc");
	char old_w[32], old_r[32], old_linger[32];
	struct sockaddr_storage sa, ca;
	unsigned long long w0, w1;
	unsigned int l0, l1;
	struct exchange s = {
		.total = 8 * MIB, .buf = server_buf, .size = IOBUF,
	};
	pthread_attr_t attr;
	static unsigned char big[8 * MIB];
	long deadline;
	pthread_t t;
	int fd, on = 1, off = 0;
	ssize_t n;

	(void)arg;
	set_buf_type(2);
	ASSERT_SYS(sysfile_read(WMEM, old_w, sizeof(old_w)));
	ASSERT_SYS(sysfile_read(RMEM, old_r, sizeof(old_r)));
	ASSERT_SYS(sysfile_read(LINGER, old_linger, sizeof(old_linger)));
	ASSERT_SYS(sysfile_write(LINGER, "0"));
	deadline = (long)time(NULL) + (long)(30 * tap_timeout_scale());
	while (sysfile_count_lines(SMCR_LGR, "lgr ") != 0 && (long)time(NULL) < deadline)
		usleep(100 * 1000);
	ASSERT_EQ(sysfile_count_lines(SMCR_LGR, "lgr "), 0);
	ASSERT_SYS(sysfile_write(WMEM, "8388608"));
	ASSERT_SYS(sysfile_write(RMEM, "8388608"));
	pattern_fill(big, sizeof(big), EXCHANGE_TO_SERVER, 0);

	ASSERT(sf_addr(f, server_ip, PORT0 + 40, &sa) && sf_addr(f, client_ip, 0, &ca));
	s.lfd = ASSERT_SYS(sf_listen(f, server_ip, PORT0 + 40, 2, NULL));
	ASSERT_EQ(pthread_attr_init(&attr), 0);
	ASSERT_EQ(pthread_attr_setstack(&attr, server_stack, sizeof(server_stack)), 0);
	ASSERT_EQ(pthread_create(&t, &attr, exchange_serve, &s), 0);
	pthread_attr_destroy(&attr);
	fd = ASSERT_SYS(sf_socket(f, 0));
	ASSERT_SYS(bind(fd, (struct sockaddr *)&ca, sf_addr_len(&ca)));
	ASSERT_SYS(connect(fd, (struct sockaddr *)&sa, sf_addr_len(&sa)));
	ASSERT_EQ(client_writes(&w0, &l0), 0);
	ASSERT_SYS(setsockopt(fd, SOL_TCP, TCP_CORK, &on, sizeof(on)));
	n = send(fd, big, sizeof(big), MSG_NOSIGNAL);
	EXPECT_EQ(n, (ssize_t)sizeof(big));
	ASSERT_SYS(setsockopt(fd, SOL_TCP, TCP_CORK, &off, sizeof(off)));
	ASSERT_SYS(shutdown(fd, SHUT_WR));
	pthread_join(t, NULL);
	EXPECT_EQ(s.bad, (int64_t)(8 * MIB));
	ASSERT_EQ(client_writes(&w1, &l1), 0);
	tap_diag("client link: %llu RDMA WRITEs before, %llu after 8 MiB; the largest %u bytes",
		 w0, w1, l1);
	EXPECT(w1 - w0 >= 8 && w1 - w0 <= 16);
	EXPECT_EQ(l1, MIB);
	close(fd);
	close(s.lfd);
	EXPECT_SYS(sysfile_write(WMEM, old_w));
	EXPECT_SYS(sysfile_write(RMEM, old_r));
	EXPECT_SYS(sysfile_write(LINGER, old_linger));
}

/* The first line of path as a number; -1 if unreadable. */
static long long read_num(const char *path)
{
	char buf[64];

	return sysfile_read(path, buf, sizeof(buf)) ? -1 : strtoll(buf, NULL, 10);
}

/* The value of key in a flat-keyed file (memory.events); -1 if none. */
static long long read_key(const char *path, const char *key)
{
	FILE *f = fopen(path, "re");
	char k[64];
	long long v, found = -1;

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", k, &v) == 2)
		if (!strcmp(k, key))
			found = v;
	fclose(f);
	return found;
}

static int pow2_between(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v >= lo && v <= hi && !(v & (v - 1));
}

/* Every page the cgroup case writes, written once before memory.max. */
static void pretouch(void)
{
	volatile unsigned char stack[128 * 1024];
	struct sd_sock sd;
	char line[64];

	memset(client_buf, 1, sizeof(client_buf));
	memset(server_buf, 1, sizeof(server_buf));
	memset(server_stack, 1, sizeof(server_stack));
	for (size_t i = 0; i < sizeof(stack); i += 4096)
		stack[i] = 1;
	sd_dump(&sd, 0);
	sysfile_read(SMCR_CONNS, line, sizeof(line));
	sysfile_read(SMCR_LGR, line, sizeof(line));
}

/*
 * The stepdown case's net.smc.smcr_buf_type, the room the cgroup gets
 * above what it holds, and the largest buffer that type gives for the
 * 8 MiB asked for.
 */
struct stepdown_arg {
	int type;
	uint32_t spare;
	uint32_t max;
};

/*
 * In the cgroup (a child): memory.max a->spare above what the cgroup
 * holds now, wmem = rmem = 8 MiB: both ends' four buffers cannot all be
 * a->max (8 MiB vmalloc'd; 4 MiB, the largest block, physically
 * contiguous). A buffer past 1 MiB that the memcg refuses is tried a
 * class smaller (kernel/smcr_hs.c, smcr_hs_buf()), 1 MiB at the least:
 * the server's come first (its Accept names its RMB), so the client's
 * get less; the connection is SMC-R all the same, moves its bytes, and
 * each end's sock_diag says of its peer's RMB what the peer has.
 */
static void stepdown_worker(const struct stepdown_arg *a)
{
	struct sd_sock cd, sd;
	char num[32];
	long long cur, refused;
	uint32_t sum;

	pretouch();
	cur = read_num(CG_DIR "/memory.current");
	ASSERT(cur >= 0);
	snprintf(num, sizeof(num), "%lld", cur + (long long)a->spare);
	ASSERT_SYS(sysfile_write(CG_DIR "/memory.max", num));
	refused = read_key(CG_DIR "/memory.events", "max");
	tap_diag("memory.current %lld KiB, memory.max %s", cur >> 10, num);
	one_conn(PORT0 + 30 + a->type, 0, 0, 2 * MIB, 0, 0, 0, 0, &cd, &sd);
	sum = cd.rmbe_size + cd.sndbuf_size + sd.rmbe_size + sd.sndbuf_size;
	tap_diag("client rmb %u sndbuf %u, server rmb %u sndbuf %u: %u KiB of %u; "
		 "memory.events max +%lld",
		 cd.rmbe_size, cd.sndbuf_size, sd.rmbe_size, sd.sndbuf_size,
		 sum >> 10, (4 * a->max) >> 10,
		 read_key(CG_DIR "/memory.events", "max") - refused);
	EXPECT(sum < 4 * a->max);
	EXPECT(pow2_between(cd.rmbe_size, MIB, a->max));
	EXPECT(pow2_between(cd.sndbuf_size, MIB, a->max));
	EXPECT(pow2_between(sd.rmbe_size, MIB, a->max));
	EXPECT(pow2_between(sd.sndbuf_size, MIB, a->max));
	EXPECT(read_key(CG_DIR "/memory.events", "max") > refused);
}

static void stepdown(const void *arg)
{
	const struct stepdown_arg *a = arg;
	char old_w[32], old_r[32], pid[16];
	struct statfs fs;
	int mounted = 0, status;
	pid_t child;

	set_buf_type(a->type);
	ASSERT_SYS(sysfile_read(WMEM, old_w, sizeof(old_w)));
	ASSERT_SYS(sysfile_read(RMEM, old_r, sizeof(old_r)));
	/* The guest does not mount cgroup2; a host may have it already. */
	if (statfs(CG_MNT, &fs) < 0 || fs.f_type != CG2_MAGIC) {
		ASSERT_SYS(mount("cgroup2", CG_MNT, "cgroup2", 0, NULL));
		mounted = 1;
	}
	ASSERT_SYS(sysfile_write(CG_MNT "/cgroup.subtree_control", "+memory"));
	rmdir(CG_DIR);
	ASSERT_SYS(mkdir(CG_DIR, 0755));
	sysfile_write(CG_DIR "/memory.swap.max", "0");
	ASSERT_SYS(sysfile_write(WMEM, "8388608"));
	ASSERT_SYS(sysfile_write(RMEM, "8388608"));
	child = ASSERT_SYS(fork());
	if (child == 0) {
		snprintf(pid, sizeof(pid), "%d", (int)getpid());
		if (sysfile_write(CG_DIR "/cgroup.procs", pid))
			_exit(1);
		stepdown_worker(a);
		_exit(tap_failed() ? 1 : 0);
	}
	ASSERT_SYS(waitpid(child, &status, 0));
	if (WIFSIGNALED(status))
		tap_fail("the process in the cgroup was killed by signal %d (oom_kill %lld)",
			 WTERMSIG(status), read_key(CG_DIR "/memory.events", "oom_kill"));
	else if (WEXITSTATUS(status))
		tap_fail("the checks in the cgroup failed");
	EXPECT_SYS(sysfile_write(WMEM, old_w));
	EXPECT_SYS(sysfile_write(RMEM, old_r));
	/* Pooled RMBs keep the cgroup's charge; rmdir leaves it to them. */
	EXPECT_SYS(rmdir(CG_DIR));
	if (mounted)
		EXPECT_SYS(umount(CG_MNT));
}

/*
 * net.smc.smcr_buf_type = type (arg), then wmem = rmem = 64 KiB and
 * 1 MiB: every buffer vmalloc'd with 1, one block of pages with 0 and 2
 * (check_conn_line(), virt_for()); 16 times each buffer moved each way.
 */
static void buf_type_small(const void *arg)
{
	static const uint32_t sizes[] = { 64 * 1024, MIB };
	char old_w[32], old_r[32], val[32];
	int type = (int)(uintptr_t)arg;

	set_buf_type(type);
	ASSERT_SYS(sysfile_read(WMEM, old_w, sizeof(old_w)));
	ASSERT_SYS(sysfile_read(RMEM, old_r, sizeof(old_r)));
	for (unsigned int i = 0; i < 2; i++) {
		snprintf(val, sizeof(val), "%u", sizes[i]);
		ASSERT_SYS(sysfile_write(WMEM, val));
		ASSERT_SYS(sysfile_write(RMEM, val));
		tap_diag("net.smc.wmem = net.smc.rmem = %u", sizes[i]);
		one_conn(PORT0 + 50 + 2 * type + (int)i, 0, 0, 16ull * sizes[i],
			 sizes[i], sizes[i], sizes[i], sizes[i], NULL, NULL);
	}
	EXPECT_SYS(sysfile_write(WMEM, old_w));
	EXPECT_SYS(sysfile_write(RMEM, old_r));
}

/* Free blocks of order 10 in all zones (/proc/buddyinfo), or -1. */
static long free_blocks_max_order(void)
{
	FILE *f = fopen("/proc/buddyinfo", "re");
	char line[512];
	long sum = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "zone");
		long n[11];

		if (!p || sscanf(p, "zone %*s %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld",
				 &n[0], &n[1], &n[2], &n[3], &n[4], &n[5], &n[6],
				 &n[7], &n[8], &n[9], &n[10]) != 11)
			continue;
		sum = (sum < 0 ? 0 : sum) + n[10];
	}
	fclose(f);
	return sum;
}

/*
 * net.smc.smcr_buf_type 0 and wmem = rmem = 8 MiB: no block of pages is
 * that large (6.1's largest is order 10, 4 MiB), so every buffer is one
 * block of 4 MiB, or of a smaller class (1 MiB at the least) when the
 * page allocator has none free; never vmalloc'd. When /proc/buddyinfo
 * shows free blocks of order 10 for all four and some to spare, each
 * must be 4 MiB. 8 MiB each way, every byte compared.
 */
static void buf_type_phys_large(const void *arg)
{
	char old_w[32], old_r[32];
	struct sd_sock cd, sd;
	long blocks;
	int exact;

	(void)arg;
	set_buf_type(0);
	ASSERT_SYS(sysfile_read(WMEM, old_w, sizeof(old_w)));
	ASSERT_SYS(sysfile_read(RMEM, old_r, sizeof(old_r)));
	ASSERT_SYS(sysfile_write(WMEM, "8388608"));
	ASSERT_SYS(sysfile_write(RMEM, "8388608"));
	blocks = free_blocks_max_order();
	exact = blocks >= 8;
	tap_diag("free blocks of order 10: %ld; every buffer must be %s", blocks,
		 exact ? "4 MiB" : "1, 2 or 4 MiB");
	one_conn(PORT0 + 56, 0, 0, 8ull * MIB,
		 exact ? BLOCK_MAX : 0, exact ? BLOCK_MAX : 0,
		 exact ? BLOCK_MAX : 0, exact ? BLOCK_MAX : 0, &cd, &sd);
	EXPECT(pow2_between(cd.rmbe_size, MIB, BLOCK_MAX));
	EXPECT(pow2_between(cd.sndbuf_size, MIB, BLOCK_MAX));
	EXPECT(pow2_between(sd.rmbe_size, MIB, BLOCK_MAX));
	EXPECT(pow2_between(sd.sndbuf_size, MIB, BLOCK_MAX));
	EXPECT_SYS(sysfile_write(WMEM, old_w));
	EXPECT_SYS(sysfile_write(RMEM, old_r));
}

/*
 * 23 MiB: the server's two 8 MiB buffers fit, the client's RMB does at
 * 4 MiB and its send buffer at 2 MiB, 22 MiB in all, with 1 MiB left for
 * what else the cgroup is charged. With 22 MiB that was every byte the
 * cgroup had, and a CI run had the process OOM-killed at its next page
 * fault (passes before had other charges refuse the 2 MiB).
 */
static const struct stepdown_arg stepdown_virt = { 2, 23 * MIB, 8 * MIB };
/*
 * 13.75 MiB: the server's two 4 MiB blocks and the client's 4 MiB RMB
 * fit, its send buffer does not at 4 MiB, and does at 1 MiB with room
 * for what else the cgroup is charged. With 12 MiB the client's 4 MiB
 * RMB still fit, then not even a 1 MiB send buffer did, and the
 * connection fell back to TCP (measured), as it must at 1 MiB.
 */
static const struct stepdown_arg stepdown_phys = { 0, 13 * MIB + 768 * 1024, BLOCK_MAX };

int main(int argc, char **argv)
{
	char old_type[16], old_moderate[16];
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: sizes SERVER CLIENT\n");
		return 2;
	}
	server_ip = argv[1];
	client_ip = argv[2];
	if (sysfile_read(BUF_TYPE, old_type, sizeof(old_type))) {
		perror(BUF_TYPE);
		return 1;
	}
	/* The rings of the cases here stay the size they check. */
	if (sysfile_read(MODERATE, old_moderate, sizeof(old_moderate)) ||
	    sysfile_write(MODERATE, "0")) {
		perror(MODERATE);
		return 1;
	}
	tap_add(sysctl_bounds, NULL, 30,
		"net.smc.wmem/rmem: 16383 and 1 GiB are EINVAL and leave the value; "
		"512 MiB, 513 MiB and INT_MAX/2 are taken (Linux's bounds)");
	tap_add(split_writes, NULL, 180,
		"a push of 8 MiB (TCP_CORK, one send, uncork) is eight RDMA WRITEs of 1 MiB, "
		"every byte compared");
	tap_add(sysctl_sizes, (void *)(uintptr_t)(2 * MIB), 180,
		"wmem = rmem = 2 MiB: 4 MiB each way intact, every buffer 2 MiB and vmalloc'd");
	tap_add(sysctl_sizes, (void *)(uintptr_t)(4 * MIB), 240,
		"wmem = rmem = 4 MiB: 8 MiB each way intact, every buffer 4 MiB and vmalloc'd");
	tap_add(sysctl_sizes, (void *)(uintptr_t)(8 * MIB), 300,
		"wmem = rmem = 8 MiB: 16 MiB each way intact, every buffer 8 MiB and vmalloc'd");
	tap_add(sockopt_sizes, (void *)(uintptr_t)(4 * MIB), 240,
		"SO_SNDBUF = SO_RCVBUF = 4 MiB (net.core maxima 8 MiB): the client's buffers are 4 MiB");
	tap_add(sockopt_clamped, (void *)(uintptr_t)(4 * MIB), 180,
		"SO_SNDBUF = SO_RCVBUF = 4 MiB under the core's default maxima: clamped as for TCP");
	tap_add(stepdown, &stepdown_virt, 180,
		"wmem = rmem = 8 MiB in a memory cgroup with 23 MiB to spare: buffers "
		"step down a class at a time (to 1 MiB at the least), the connection is SMC-R with what it got "
		"(each end's peer RMB size is the peer's), 2 MiB each way intact");
	tap_add(stepdown, &stepdown_phys, 180,
		"the same with smcr_buf_type 0 and 13.75 MiB to spare: blocks of 4 MiB at most, "
		"stepping down to 1 MiB at the least, nobody OOM-killed, 2 MiB each way intact");
	/* Mixed first: it may take the vmalloc'd RMBs that type 1 pools. */
	tap_add(buf_type_small, (void *)(uintptr_t)2, 120,
		"smcr_buf_type 2 (mixed): buffers of 64 KiB and 1 MiB are one block of pages each, "
		"16 times their size each way intact");
	tap_add(buf_type_small, (void *)(uintptr_t)1, 120,
		"smcr_buf_type 1 (virtually contiguous): buffers of 64 KiB and 1 MiB are vmalloc'd, "
		"16 times their size each way intact");
	tap_add(buf_type_small, (void *)(uintptr_t)0, 120,
		"smcr_buf_type 0 (physically contiguous), after type 1 pooled vmalloc'd RMBs: buffers "
		"of 64 KiB and 1 MiB are one block of pages each, 16 times their size each way intact");
	tap_add(buf_type_phys_large, NULL, 240,
		"smcr_buf_type 0 and wmem = rmem = 8 MiB: every buffer one block of 4 MiB "
		"(the largest the page allocator has), 8 MiB each way intact");
	tap_add(ring_growth, NULL, 240,
		"rings that grow: 64 KiB rings, 32 MiB each way, both ends' rings grow "
		"(256 KiB or 1 MiB), the ends agree, every byte compared");
	rc = tap_run();
	if (sysfile_write(BUF_TYPE, old_type)) {
		perror(BUF_TYPE);
		rc = 1;
	}
	if (sysfile_write(MODERATE, old_moderate)) {
		perror(MODERATE);
		rc = 1;
	}
	return rc;
}
