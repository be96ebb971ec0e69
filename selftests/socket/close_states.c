// SPDX-License-Identifier: GPL-2.0
/*
 * socket/close_states: the close states of an SMC-D connection as sock_diag
 * reports them (and smcss prints them), read by this test's own reader
 * (lib/smcdiag.c). Each case drives both ends into a state and looks at
 * both: an open socket by its inode, a closed one (an orphan, inode 0) by
 * its ports. Values are Linux's enum smc_state.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/smc_diag.h>

#include "diff.h"
#include "family.h"
#include "smcdiag.h"
#include "tap.h"

enum {
	ACTIVE = 1, CLOSED = 7, PEERCLW1 = 20, PEERCLW2 = 21, APPLCLW1 = 22,
	APPLCLW2 = 23, APPLFINCLW = 24, PEERFINCLW = 25, PEERABORTW = 26,
	PROCESSABORT = 27,
};

struct pair {
	struct sf_conn c;
	unsigned int cport, sport;	/* the client's and the server's local ports */
};

static unsigned int local_port(int fd)
{
	struct sockaddr_storage a;
	socklen_t len = sizeof(a);

	ASSERT_SYS(getsockname(fd, (struct sockaddr *)&a, &len));
	return sf_port(&a);
}

static void pair_open(struct pair *p)
{
	const struct sf_family *f = sf_find("smc");

	sf_require(f);
	diff_establish(f, &p->c);	/* fails unless both ends are SMC-D */
	p->cport = local_port(p->c.client);
	p->sport = local_port(p->c.server);
}

/* The state of the socket with local port lport and peer port dport; -1 if none. */
static int state_by_ports(unsigned int lport, unsigned int dport)
{
	static struct sd_sock all[1024];
	int n = sd_dump(all, 1024);

	ASSERT(n >= 0);
	for (int i = 0; i < n && i < 1024; i++)
		if (all[i].sport == lport && all[i].dport == dport)
			return all[i].state;
	return -1;
}

/* Wait up to 5 s for the socket (by ports) to be in state want. */
static void expect_state(const char *what, unsigned int lport, unsigned int dport, int want)
{
	int64_t end = diff_now_ms() + 5000;
	int got;

	while ((got = state_by_ports(lport, dport)) != want && diff_now_ms() < end)
		usleep(10000);
	tap_diag("%s: state %d", what, got);
	if (got != want)
		tap_fail("%s: state %d, want %d", what, got, want);
}

#define CLIENT(p) (p)->cport, (p)->sport
#define SERVER(p) (p)->sport, (p)->cport

static void active(const void *arg)
{
	struct pair p;

	(void)arg;
	pair_open(&p);
	expect_state("client", CLIENT(&p), ACTIVE);
	expect_state("server", SERVER(&p), ACTIVE);
	diff_conn_close(&p.c);
	/* Both closed: the connection is gone from sock_diag. */
	expect_state("client after both closed", CLIENT(&p), -1);
	expect_state("server after both closed", SERVER(&p), -1);
}

static void half_closes(const void *arg)
{
	struct pair p;

	(void)arg;
	pair_open(&p);
	ASSERT_SYS(shutdown(p.c.client, SHUT_WR));
	expect_state("client after SHUT_WR", CLIENT(&p), PEERCLW1);
	expect_state("server after the peer's SHUT_WR", SERVER(&p), APPLCLW1);
	ASSERT_SYS(shutdown(p.c.server, SHUT_WR));
	expect_state("client, both SHUT_WR", CLIENT(&p), PEERCLW2);
	expect_state("server, both SHUT_WR", SERVER(&p), APPLCLW2);
	diff_conn_close(&p.c);
}

static void peer_closes_after_shutdown(const void *arg)
{
	struct pair p;

	(void)arg;
	pair_open(&p);
	ASSERT_SYS(shutdown(p.c.client, SHUT_WR));
	expect_state("server after the peer's SHUT_WR", SERVER(&p), APPLCLW1);
	ASSERT_SYS(close(p.c.server));
	p.c.server = -1;
	/* The server, closed while the client is open, lives on as an orphan. */
	expect_state("server closed, the peer only shut down", SERVER(&p), PEERFINCLW);
	expect_state("client, the peer closed", CLIENT(&p), APPLFINCLW);
	ASSERT_SYS(close(p.c.client));
	p.c.client = -1;
	expect_state("server orphan after the peer closed", SERVER(&p), -1);
	diff_conn_close(&p.c);
}

static void close_first(const void *arg)
{
	struct pair p;

	(void)arg;
	pair_open(&p);
	ASSERT_SYS(close(p.c.client));
	p.c.client = -1;
	expect_state("client closed (orphan)", CLIENT(&p), PEERCLW1);
	expect_state("server, the peer closed", SERVER(&p), APPLCLW1);
	ASSERT_SYS(close(p.c.server));
	p.c.server = -1;
	expect_state("client orphan after the peer closed", CLIENT(&p), -1);
	diff_conn_close(&p.c);
}

static void abort_linger0(const void *arg)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };
	struct pair p;

	(void)arg;
	pair_open(&p);
	ASSERT_SYS(setsockopt(p.c.client, SOL_SOCKET, SO_LINGER, &l, sizeof(l)));
	ASSERT_SYS(close(p.c.client));
	p.c.client = -1;
	expect_state("client aborted (orphan)", CLIENT(&p), PEERABORTW);
	expect_state("server, the peer aborted", SERVER(&p), PROCESSABORT);
	ASSERT_SYS(close(p.c.server));
	p.c.server = -1;
	expect_state("client orphan after the peer closed", CLIENT(&p), -1);
	diff_conn_close(&p.c);
}

static void data_after_close(const void *arg)
{
	struct pair p;
	int err = 0;
	socklen_t len = sizeof(err);

	(void)arg;
	pair_open(&p);
	ASSERT_SYS(close(p.c.client));
	p.c.client = -1;
	expect_state("server, the peer closed", SERVER(&p), APPLCLW1);
	/* The orphan answers data with an abort, as TCP answers it with a RST. */
	ASSERT_EQ(send(p.c.server, "late", 4, MSG_NOSIGNAL), 4);
	expect_state("server after its data met the closed peer", SERVER(&p), PROCESSABORT);
	ASSERT_SYS(getsockopt(p.c.server, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(err, EPIPE);
	diff_conn_close(&p.c);
	expect_state("client orphan at the end", CLIENT(&p), -1);
}

static void write_int_file(const char *path, int v)
{
	FILE *f = fopen(path, "w");

	ASSERT(f != NULL);
	fprintf(f, "%d\n", v);
	ASSERT(fclose(f) == 0);
}

static int read_int_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	ASSERT(f != NULL);
	ASSERT(fscanf(f, "%d", &v) == 1);
	fclose(f);
	return v;
}

#define FIN_TIMEOUT "/proc/sys/net/ipv4/tcp_fin_timeout"

/*
 * An orphan whose peer never closes goes after tcp_fin_timeout, silently;
 * the peer's next write meets the reset (EPIPE, as TCP in CLOSE_WAIT).
 */
static void orphan_timeout(const void *arg)
{
	int old = read_int_file(FIN_TIMEOUT), err = 0;
	socklen_t len = sizeof(err);
	struct pair p;

	(void)arg;
	pair_open(&p);
	write_int_file(FIN_TIMEOUT, 2);
	ASSERT_SYS(close(p.c.client));
	p.c.client = -1;
	expect_state("client closed (orphan)", CLIENT(&p), PEERCLW1);
	write_int_file(FIN_TIMEOUT, old);
	expect_state("client orphan after tcp_fin_timeout", CLIENT(&p), -1);
	expect_state("server, still open", SERVER(&p), APPLCLW1);
	EXPECT_EQ(send(p.c.server, "x", 1, MSG_NOSIGNAL), 1);
	expect_state("server after writing to the vanished peer", SERVER(&p), PROCESSABORT);
	ASSERT_SYS(getsockopt(p.c.server, SOL_SOCKET, SO_ERROR, &err, &len));
	EXPECT_EQ(err, EPIPE);
	diff_conn_close(&p.c);
}

static const struct tap_case cases[] = {
	{ "connected: both ACTIVE; gone from sock_diag once both closed", active, NULL, 0 },
	{ "SHUT_WR: PEERCLW1/APPLCLW1, then both: PEERCLW2/APPLCLW2", half_closes, NULL, 0 },
	{ "SHUT_WR then the peer closes: APPLFINCLW, the closed peer PEERFINCLW",
	  peer_closes_after_shutdown, NULL, 0 },
	{ "close first: the orphan PEERCLW1 until the peer closes, the peer APPLCLW1",
	  close_first, NULL, 0 },
	{ "SO_LINGER {1, 0}: the orphan PEERABORTW, the peer PROCESSABORT", abort_linger0,
	  NULL, 0 },
	{ "data sent to a closed peer: it aborts, the sender PROCESSABORT with EPIPE",
	  data_after_close, NULL, 0 },
	{ "an orphan whose peer stays open goes after tcp_fin_timeout; the peer's write: EPIPE",
	  orphan_timeout, NULL, 0 },
};

int main(void)
{
	tap_add_table(cases, sizeof(cases) / sizeof(cases[0]));
	return tap_run();
}
