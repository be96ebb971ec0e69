// SPDX-License-Identifier: GPL-2.0
/*
 * handshake/dmbtoken: a peer that speaks CLC must not reach somebody
 * else's SMC-D DMB (issue 17, hole 1; Documentation/security.md).
 *
 * A victim pair (root, this namespace) runs SMC-D over the loopback ISM
 * device. An attacker, uid 65534 in a user and network namespace of its
 * own, connects an AF_SMC socket to a server of its own that answers with
 * a forged Accept: the client's own GID and CHID (what any loopback peer
 * sends), but the victim's DMB token. The server is smc_badpeer's forger
 * (only kernel code can offer SMC in the TCP handshake; a TUN-based TCP
 * stack in the attacker's namespace could send the same bytes). The
 * attacker's kernel must decline (SMC_CLC_DECL_SYNCERR, see
 * Documentation/decisions.md) and fall back to TCP, and the bytes the
 * attacker then sends must not reach the victim, whose stream stays
 * byte-exact. The same with the roles turned: the attacker's own AF_SMC
 * listener gets a forged Confirm naming the victim's DMB from the forger
 * as a client; its kernel must decline SYNCERR and fall back too. The
 * attacker learns the token the easiest way there is:
 * root reads it from sock_diag for it; a second case shows that nobody
 * else can, and a third that tokens do not follow a pattern.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/smc_diag.h>
#include <smc/af_smc.h>

#include "family.h"
#include "smcdiag.h"
#include "stream.h"
#include "tap.h"

#define FORGE_PORT	7740		/* in the attacker's own namespace */
#define DECL_SYNCERR	0x04000000u	/* SMC_CLC_DECL_SYNCERR */
#define DECL_MODEUNSUPP	0x03040000u	/* SMC_CLC_DECL_MODEUNSUPP */
#define DMB_MIN		(16u * 1024)	/* af_smc's SMC_BUF_MIN_SIZE */
#define SEED		0x646d62746f6b656eull
#define HEAD		4096		/* victim bytes waiting when the attack comes */
#define TAIL		(1 << 20)	/* victim bytes after it */

/* The size class of a DMB made with net.smc.rmem, as af_smc picks it. */
static unsigned int rmem_class(void)
{
	unsigned int want = 0, class = 0;
	FILE *f = fopen("/proc/sys/net/smc/rmem", "r");

	if (f) {
		if (fscanf(f, "%u", &want) != 1)
			want = 0;
		fclose(f);
	}
	while (class < 15 && (DMB_MIN << class) < want)
		class++;
	return class;
}

struct victim {
	int lfd, cfd, afd;
	struct sd_sock client, server;	/* as root sees them */
};

/* An SMC-D pair in this namespace, with the tokens of both DMBs. */
static void victim_up(struct victim *v)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage addr;

	sf_require(f);
	v->lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	v->cfd = ASSERT_SYS(sf_connect(f, &addr));
	v->afd = ASSERT_SYS(accept(v->lfd, NULL, NULL));
	ASSERT_EQ(sd_find_fd(v->cfd, &v->client), 0);
	ASSERT_EQ(sd_find_fd(v->afd, &v->server), 0);
	ASSERT_EQ(v->client.mode, SMC_DIAG_MODE_SMCD);
	ASSERT_EQ(v->server.mode, SMC_DIAG_MODE_SMCD);
	ASSERT(v->client.has_dmb && v->server.has_dmb);
	tap_diag("victim: client DMB %016llx, server DMB %016llx",
		 (unsigned long long)v->client.token,
		 (unsigned long long)v->server.token);
	ASSERT(v->client.token && v->server.token);
	EXPECT_EQ(v->client.peer_token, v->server.token);
}

static void write_pattern(int fd, uint64_t off, size_t len)
{
	static char buf[65536];

	if (pattern_write(fd, SEED, off, len, buf, sizeof(buf)))
		exit(1);
}

/* What the attacker saw, through a pipe to the case. */
struct attack_report {
	int stage;		/* how far it got: 3 = connected and sent */
	int err;		/* errno of the step that failed */
	int connect_rc;
	struct sd_sock s;	/* its own socket, from its own namespace */
	int found;
};

/*
 * The attacker: unprivileged, in namespaces of its own. Tells the case it
 * is ready, waits for the forger to listen, connects (or, if serve, has
 * its own listener take the forger's connection), and writes bytes that
 * would land in the victim's ring if its kernel took the DMB.
 */
static void attacker(int ready, int go, int report, int serve)
{
	struct attack_report r = { 0 };
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(FORGE_PORT),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	static char junk[HEAD];
	struct pollfd pfd;
	char c = 0;
	int fd, lfd = -1;

	r.stage = 0;
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		goto fail;
	r.stage = 1;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) || sf_lo_up())
		goto fail;
	r.stage = 2;
	if (serve) {
		lfd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
		if (lfd < 0 || bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) ||
		    listen(lfd, 1))
			goto fail;
	}
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		goto fail;
	if (serve) {
		pfd = (struct pollfd){ .fd = lfd, .events = POLLIN };
		errno = ETIMEDOUT;
		if (poll(&pfd, 1, 15000) != 1)
			goto fail;
		fd = accept(lfd, NULL, NULL);
		r.connect_rc = fd < 0 ? -1 : 0;
	} else {
		fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
		if (fd < 0)
			goto fail;
		r.connect_rc = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	}
	if (r.connect_rc)
		goto fail;
	memset(junk, 'X', sizeof(junk));
	if (send(fd, junk, sizeof(junk), MSG_NOSIGNAL) != (ssize_t)sizeof(junk))
		goto fail;
	r.stage = 3;
	r.found = !sd_find_fd(fd, &r.s);
	/* Give stray writes the time to land before the victim reads. */
	usleep(200 * 1000);
	close(fd);
	errno = 0;
fail:
	r.err = errno;
	if (write(report, &r, sizeof(r)) != sizeof(r))
		exit(2);
	exit(0);
}

static void forge(const char *param, pid_t pid, uint64_t token, unsigned int class,
		  uint64_t ext_xor)
{
	char cmd[96], path[96];
	int fd;

	snprintf(path, sizeof(path), "/sys/module/smc_badpeer/parameters/%s", param);
	fd = ASSERT_SYS(open(path, O_WRONLY));
	snprintf(cmd, sizeof(cmd), "%d %d %llx %u %llx", (int)pid, FORGE_PORT,
		 (unsigned long long)token, class, (unsigned long long)ext_xor);
	ASSERT_EQ(write(fd, cmd, strlen(cmd)), (long)strlen(cmd));
	close(fd);
}

static void forge_result(char *buf, size_t len)
{
	int fd = open("/sys/module/smc_badpeer/parameters/forge_result", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
}

/*
 * arg: which victim DMB the forged message names, "server" (the ring the
 * victim client writes into) or "client"; and which message: a forged
 * Accept to the attacker's client, or with "confirm" a forged Confirm to
 * the attacker's listener; with "halfgid" the Accept names the client's
 * device by the first half of its 128-bit GID only (the second is off by
 * a bit), which the client must not take for its device.
 */
static void forged_attach(const void *arg)
{
	const int server_dmb = !!strstr(arg, "server");
	const int confirm = !!strstr(arg, "confirm");
	const int halfgid = !!strstr(arg, "halfgid");
	const uint32_t code = halfgid ? DECL_MODEUNSUPP : DECL_SYNCERR;
	int ready[2], go[2], report[2];
	struct attack_report r;
	char res[64], expect[64];
	struct victim v;
	pid_t pid, writer;
	int status, wfd, rfd;
	size_t total = HEAD + TAIL, at;
	char *buf;

	victim_up(&v);
	/* The reading end's ring holds HEAD unread bytes when the attack comes. */
	wfd = server_dmb ? v.cfd : v.afd;
	rfd = server_dmb ? v.afd : v.cfd;
	write_pattern(wfd, 0, HEAD);
	ASSERT_SYS(pipe(ready));
	ASSERT_SYS(pipe(go));
	ASSERT_SYS(pipe(report));
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		close(report[0]);
		attacker(ready[1], go[0], report[1], confirm);
	}
	close(ready[1]);
	close(go[0]);
	close(report[1]);
	if (read(ready[0], res, 1) == 1) {
		forge(confirm ? "forge_confirm" : "forge", pid,
		      server_dmb ? v.server.token : v.client.token, rmem_class(),
		      halfgid ? 1 : 0);
		ASSERT_EQ(write(go[1], "g", 1), 1);
	}
	memset(&r, 0, sizeof(r));
	EXPECT_EQ(read(report[0], &r, sizeof(r)), (long)sizeof(r));
	ASSERT_SYS(waitpid(pid, &status, 0));
	EXPECT_EQ(status, 0);
	/* A forger that got no answer says so after its 2 s read timeout. */
	for (at = 0; at < 60; at++) {
		forge_result(res, sizeof(res));
		if (strcmp(res, "pending"))
			break;
		usleep(100 * 1000);
	}
	tap_diag("attacker: stage %d, connect %d, errno %s; forger saw: %s", r.stage,
		 r.connect_rc, tap_errno_name(r.err), res);
	/* uid 65534 in namespaces of its own, connected and sending. */
	ASSERT_EQ(r.stage, 3);
	snprintf(expect, sizeof(expect), "decline 0x%08x", code);
	EXPECT(!strcmp(res, expect));
	EXPECT(r.found);
	if (r.found) {
		tap_diag("attacker's socket: mode %u, fallback 0x%08x, token %016llx",
			 r.s.mode, r.s.reason, (unsigned long long)r.s.token);
		EXPECT_EQ(r.s.mode, SMC_DIAG_MODE_FALLBACK_TCP);
		EXPECT_EQ(r.s.reason, code);
	}

	/* The victim: every byte as sent, on a connection still SMC-D. */
	writer = ASSERT_SYS(fork());
	if (writer == 0) {
		write_pattern(wfd, HEAD, TAIL);
		exit(0);
	}
	buf = malloc(total);
	ASSERT(buf);
	if (sf_read_all(rfd, buf, total)) {
		tap_fail("the victim's read failed: %s", tap_errno_name(errno));
		free(buf);
		return;
	}
	at = pattern_mismatch(buf, total, SEED, 0);
	if (at != total)
		tap_diag("victim stream differs at byte %zu: 0x%02x, expected a pattern byte",
			 at, (unsigned char)buf[at]);
	EXPECT_EQ(at, total);
	free(buf);
	ASSERT_SYS(waitpid(writer, &status, 0));
	EXPECT_EQ(status, 0);
	ASSERT_EQ(sd_find_fd(rfd, &v.server), 0);
	EXPECT_EQ(v.server.mode, SMC_DIAG_MODE_SMCD);
	close(v.cfd);
	close(v.afd);
	close(v.lfd);
}

/* sock_diag shows DMB tokens to CAP_NET_ADMIN only; the rest to anyone. */
static void diag_tokens(const void *arg)
{
	struct sd_sock s;
	struct victim v;
	pid_t pid;
	int status;

	(void)arg;
	victim_up(&v);
	pid = ASSERT_SYS(fork());
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			exit(2);
		if (sd_find_fd(v.cfd, &s))
			exit(3);
		tap_diag("uid 65534 sees: mode %u, dmbinfo %d, token %016llx, peer token %016llx",
			 s.mode, s.has_dmb, (unsigned long long)s.token,
			 (unsigned long long)s.peer_token);
		/* The record is there (mode, link group); the tokens are not. */
		exit(s.mode == SMC_DIAG_MODE_SMCD && s.has_dmb && s.linkid &&
		     !s.token && !s.peer_token ? 0 : 1);
	}
	ASSERT_SYS(waitpid(pid, &status, 0));
	EXPECT(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
	close(v.cfd);
	close(v.afd);
	close(v.lfd);
}

/* Tokens are random 64-bit values: no shared half, no counter. */
static void random_tokens(const void *arg)
{
	enum { N = 8 };
	struct victim v[N];
	int i, same_hi = 0, step_lo = 0;

	(void)arg;
	for (i = 0; i < N; i++)
		victim_up(&v[i]);
	for (i = 1; i < N; i++) {
		uint64_t a = v[i - 1].client.token, b = v[i].client.token;

		same_hi += (a >> 32) == (b >> 32);
		step_lo += (uint32_t)b - (uint32_t)a <= 4;
	}
	tap_diag("of %d consecutive DMB tokens: %d share the high half, %d are a small step apart",
		 N, same_hi, step_lo);
	/* A random pair shares 32 bits once in 2^32. */
	EXPECT_EQ(same_hi, 0);
	EXPECT(step_lo < 2);
	for (i = 0; i < N; i++) {
		close(v[i].cfd);
		close(v[i].afd);
		close(v[i].lfd);
	}
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	tap_add(forged_attach, "server", 60,
		"forged Accept naming the victim server's DMB, from uid 65534 in its own "
		"user and net namespace: SYNCERR decline, fallback, victim stream byte-exact");
	tap_add(forged_attach, "client", 60,
		"forged Accept naming the victim client's DMB: SYNCERR decline, fallback, "
		"victim stream byte-exact");
	/* The forger's client proposes as the clients above did to it. */
	tap_add(forged_attach, "confirm server", 60,
		"forged Confirm naming the victim server's DMB, to a listener of uid 65534 in "
		"its own namespaces: SYNCERR decline, fallback, victim stream byte-exact");
	/* SMCv2.1: the loopback device's GID has 128 bits, all of them count. */
	tap_add(forged_attach, "halfgid server", 60,
		"forged Accept naming the client's device by half its 128-bit GID: "
		"MODEUNSUPP decline, fallback, victim stream byte-exact");
	tap_add(diag_tokens, NULL, 30,
		"sock_diag: uid 65534 sees the DMB record with tokens 0");
	tap_add(random_tokens, NULL, 30,
		"DMB tokens are random: consecutive ones share no half and are no counter");
	return tap_run();
}
