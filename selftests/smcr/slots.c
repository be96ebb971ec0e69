// SPDX-License-Identifier: GPL-2.0
/*
 * smcr/slots SERVER CLIENT: net.smc.smcr_max_send_wr and smcr_max_recv_wr
 * size a new SMC-R link's queues (kernel/smcr_link.c, smcr_link_size()).
 * Run by slots_topo1.sh in topology 1: SMC-R from CLIENT (10.43.2.1,
 * rxev1) to SERVER (10.43.2.2, rxev2) in one VM, one namespace, so both
 * ends' links take the same values. af_smc's lgr_linger is 0 here, so a
 * group goes with its last connection and the next case makes new links.
 *
 * Each case sets the two sysctls, makes one connection and moves 1 MiB
 * each way in 100-byte writes (every byte compared), so that CDCs queue
 * for the send slots and the receives are used many times over. Then,
 * with the connection open, debugfs smcr_lgr must show both groups
 * (client and server) with those send_slots and recv_slots, and a QP the
 * device (rxe) made with room for them: qp_send_wr at least send_slots
 * plus the 16 REG_MR/WRITE requests, qp_recv_wr at least recv_slots (the
 * driver's own answer to ib_create_qp(), not a copy of the sysctl).
 * One case changes the sysctls while a group exists: a second connection
 * joins that group, whose links keep what they were made with.
 * The sysctls and lgr_linger are put back afterwards.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/smc_diag.h>
#include <smc/af_smc.h>

#include "exchange.h"
#include "family.h"
#include "smcdiag.h"
#include "stream.h"
#include "sysfile.h"
#include "tap.h"

#define PORT0		4520
#define TOTAL		(1 << 20)
#define MSG		100
#define RBUF		4096
#define WR_CTX		16	/* kernel/smcr_link.h, SMCR_WR_CTX */
#define SEND_SYSCTL	"/proc/sys/net/smc/smcr_max_send_wr"
#define RECV_SYSCTL	"/proc/sys/net/smc/smcr_max_recv_wr"
#define LINGER		"/sys/module/af_smc/parameters/lgr_linger"
#define SMCR_LGR	"/sys/kernel/debug/af_smc/smcr_lgr"

static const char *server_ip, *client_ip;

struct slots {
	const char *send, *recv;
	const char *later_send, *later_recv;	/* NULL: no second connection */
};

/*
 * Both groups' lines show send_slots send and recv_slots recv, and QPs
 * with room for them. The count of lines checked, or -1.
 */
static int check_lgrs(unsigned int send, unsigned int recv)
{
	FILE *f = fopen(SMCR_LGR, "re");
	char line[512];
	int n = 0;

	if (!EXPECT(f != NULL))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned int ss, rs, qs, qr;
		const char *p = strstr(line, " send_slots ");

		if (strncmp(line, "lgr ", 4))
			continue;
		line[strcspn(line, "\n")] = 0;
		tap_diag("%s", line);
		if (!EXPECT(p && sscanf(p, " send_slots %u recv_slots %u qp_send_wr %u qp_recv_wr %u",
					&ss, &rs, &qs, &qr) == 4))
			continue;
		EXPECT_EQ(ss, send);
		EXPECT_EQ(rs, recv);
		EXPECT(qs >= send + WR_CTX);
		EXPECT(qr >= recv);
		n++;
	}
	fclose(f);
	return n;
}

static int smcr_connect(const struct sf_family *f, int port)
{
	struct sockaddr_storage sa, ca;
	struct sd_sock sd;
	int fd;

	ASSERT(sf_addr(f, server_ip, port, &sa) && sf_addr(f, client_ip, 0, &ca));
	fd = ASSERT_SYS(sf_socket(f, 0));
	ASSERT_SYS(bind(fd, (struct sockaddr *)&ca, sf_addr_len(&ca)));
	ASSERT_SYS(connect(fd, (struct sockaddr *)&sa, sf_addr_len(&sa)));
	if (!EXPECT_EQ(sd_find_fd(fd, &sd), 0) || !EXPECT_EQ(sd.mode, SMC_DIAG_MODE_SMCR))
		tap_abort();
	return fd;
}

/* The server of one connection: reads the client's MiB, sends one back. */
static void server_start(struct exchange *x, unsigned char *buf, int lfd, pthread_t *t)
{
	*x = (struct exchange){
		.lfd = lfd, .total = TOTAL, .reply = 1,
		.buf = buf, .size = RBUF, .write_size = MSG,
	};
	ASSERT_EQ(pthread_create(t, NULL, exchange_serve, x), 0);
}

/* The client's half: 1 MiB each way, in MSG-byte writes; the first wrong byte. */
static int64_t client_exchange(int fd)
{
	unsigned char buf[RBUF];

	ASSERT_SYS(pattern_write(fd, EXCHANGE_TO_SERVER, 0, TOTAL, buf, MSG));
	return pattern_read(fd, EXCHANGE_TO_CLIENT, 0, TOTAL, buf, sizeof(buf));
}

static void run_case(const void *arg)
{
	const struct slots *c = arg;
	const struct sf_family *f = sf_find("smc");
	int port = PORT0 + atoi(c->send) % 400;
	char old_send[32], old_recv[32], old_linger[32];
	static unsigned char sbuf[RBUF], sbuf2[RBUF];
	struct exchange s;
	long deadline;
	pthread_t t;
	int fd, lfd;

	ASSERT_SYS(sysfile_read(SEND_SYSCTL, old_send, sizeof(old_send)));
	ASSERT_SYS(sysfile_read(RECV_SYSCTL, old_recv, sizeof(old_recv)));
	ASSERT_SYS(sysfile_read(LINGER, old_linger, sizeof(old_linger)));
	ASSERT_SYS(sysfile_write(LINGER, "0"));
	/* No group left from before: this case's links are new. */
	deadline = tap_now_ms() + (long)(30000 * tap_timeout_scale());
	while (sysfile_count_lines(SMCR_LGR, "lgr ") != 0 && tap_now_ms() < deadline)
		usleep(100 * 1000);
	ASSERT_EQ(sysfile_count_lines(SMCR_LGR, "lgr "), 0);

	ASSERT_SYS(sysfile_write(SEND_SYSCTL, c->send));
	ASSERT_SYS(sysfile_write(RECV_SYSCTL, c->recv));
	lfd = ASSERT_SYS(sf_listen(f, server_ip, port, 2, NULL));
	server_start(&s, sbuf, lfd, &t);
	fd = smcr_connect(f, port);
	EXPECT_EQ(client_exchange(fd), TOTAL);
	/* Both ends' groups, the connection still open. */
	EXPECT_EQ(check_lgrs((unsigned int)atoi(c->send), (unsigned int)atoi(c->recv)), 2);

	if (c->later_send) {
		struct exchange s2;
		pthread_t t2;
		int fd2;

		ASSERT_SYS(sysfile_write(SEND_SYSCTL, c->later_send));
		ASSERT_SYS(sysfile_write(RECV_SYSCTL, c->later_recv));
		server_start(&s2, sbuf2, lfd, &t2);
		fd2 = smcr_connect(f, port);
		EXPECT_EQ(client_exchange(fd2), TOTAL);
		tap_diag("sysctls now %s/%s: the second connection joined the groups made with %s/%s",
			 c->later_send, c->later_recv, c->send, c->recv);
		EXPECT_EQ(check_lgrs((unsigned int)atoi(c->send), (unsigned int)atoi(c->recv)), 2);
		ASSERT_SYS(shutdown(fd2, SHUT_WR));
		pthread_join(t2, NULL);
		close(fd2);
		EXPECT_EQ(s2.bad, TOTAL);
		EXPECT_EQ(s2.sent, 0);
	}

	ASSERT_SYS(shutdown(fd, SHUT_WR));
	pthread_join(t, NULL);
	close(fd);
	close(lfd);
	EXPECT_EQ(s.bad, TOTAL);
	EXPECT_EQ(s.sent, 0);
	tap_diag("smcr_max_send_wr %s, smcr_max_recv_wr %s: 1 MiB each way in %d-byte writes",
		 c->send, c->recv, MSG);
	EXPECT_SYS(sysfile_write(SEND_SYSCTL, old_send));
	EXPECT_SYS(sysfile_write(RECV_SYSCTL, old_recv));
	EXPECT_SYS(sysfile_write(LINGER, old_linger));
}

static const struct slots cases[] = {
	{ "16", "48", NULL, NULL },
	{ "2", "2", "2048", "2048" },
	{ "2048", "2048", NULL, NULL },
	{ "3", "100", NULL, NULL },
};

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: slots SERVER CLIENT\n");
		return 2;
	}
	server_ip = argv[1];
	client_ip = argv[2];
	tap_add(run_case, &cases[0], 120,
		"smcr_max_send_wr 16, smcr_max_recv_wr 48 (the defaults) size both links and their QPs");
	tap_add(run_case, &cases[1], 120,
		"smcr_max_send_wr 2, smcr_max_recv_wr 2: 1 MiB each way intact, both links "
		"made with 2 and 2; a group made so keeps them when the sysctls go to 2048");
	tap_add(run_case, &cases[2], 120,
		"smcr_max_send_wr 2048, smcr_max_recv_wr 2048 (the largest): both links "
		"and QPs sized so, 1 MiB each way intact");
	tap_add(run_case, &cases[3], 120,
		"smcr_max_send_wr 3, smcr_max_recv_wr 100: each sysctl acts on its own queue");
	return tap_run();
}
