// SPDX-License-Identifier: GPL-2.0
/*
 * smcr/autocork SERVER CLIENT DEVICE: net.smc.autocorking_size is acted on
 * (kernel/smc_tx.c, smc_tx_autocork()). Run by autocork_topo1.sh in
 * topology 1: SMC-R from CLIENT (10.43.2.1, rxev1) to SERVER (10.43.2.2,
 * rxev2) in one VM.
 *
 * Each case makes one connection. The client writes COUNT messages of
 * MSG bytes back to back (32 KiB in all, half the peer's 64 KiB ring, so
 * flow control never holds a write back), the server reads them to the
 * end of stream and compares every byte. What went over the link is
 * counted by the client's RDMA device, DEVICE's hw_counters/sent_pkts:
 * rxe's own count of the RoCE packets it sent (an RDMA WRITE of 64 bytes
 * and a 44-byte CDC SEND are one packet each; rxe's ACKs of the server's
 * few messages add some), not af_smc's say-so. The script delays what
 * smcv2 sends by 5 ms (netem), so a CDC is on its way for 5 ms, as over a
 * real link, instead of for about one write's time under TCG.
 *   - autocorking_size 0 (off): each write goes at once as its own WRITE
 *     and CDC, so at least 2 packets per write;
 *   - autocorking_size 65536 (the default): a write made while the last
 *     CDC is on its way waits for it and goes with the others that came
 *     meanwhile, so fewer than 1 packet per write.
 * In both the connection must be SMC-R and the bytes arrive in order.
 * The sysctl is restored afterwards.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/smc_diag.h>
#include <smc/af_smc.h>

#include "exchange.h"
#include "family.h"
#include "smcdiag.h"
#include "stream.h"
#include "sysfile.h"
#include "tap.h"

#define PORT0	4490
#define COUNT	512
#define MSG	64
#define SYSCTL	"/proc/sys/net/smc/autocorking_size"

static const char *server_ip, *client_ip, *device;

/*
 * ib_core serves hw_counters from a copy up to its lifespan old (10 ms for
 * rxe): a run shorter than that read the same copy twice (0 packets). The
 * wait makes each read a fresh one.
 */
static long long sent_pkts(void)
{
	char path[256], val[64];

	usleep(100 * 1000);

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters/sent_pkts",
		 device);
	if (sysfile_read(path, val, sizeof(val)))
		return -1;
	return atoll(val);
}

/* One connection with autocorking_size size; the packets DEVICE sent for it. */
static long long one_stream(const char *size, int port)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage sa, ca;
	static unsigned char sbuf[4096];
	struct exchange s = { .total = COUNT * MSG, .buf = sbuf, .size = sizeof(sbuf) };
	unsigned char msg[MSG];
	struct sd_sock sd;
	pthread_t t;
	long long before, after;
	int fd, rc;

	ASSERT_SYS(sysfile_write(SYSCTL, size));
	ASSERT(sf_addr(f, server_ip, port, &sa) && sf_addr(f, client_ip, 0, &ca));
	s.lfd = ASSERT_SYS(sf_listen(f, server_ip, port, 1, NULL));
	ASSERT_EQ(pthread_create(&t, NULL, exchange_serve, &s), 0);
	fd = ASSERT_SYS(sf_socket(f, 0));
	ASSERT_SYS(bind(fd, (struct sockaddr *)&ca, sf_addr_len(&ca)));
	ASSERT_SYS(connect(fd, (struct sockaddr *)&sa, sf_addr_len(&sa)));
	rc = sd_find_fd(fd, &sd);
	if (!EXPECT_EQ(rc, 0) || !EXPECT_EQ(sd.mode, SMC_DIAG_MODE_SMCR))
		tap_abort();
	before = sent_pkts();
	ASSERT(before >= 0);
	/* COUNT writes of MSG bytes, back to back. */
	ASSERT_SYS(pattern_write(fd, EXCHANGE_TO_SERVER, 0, COUNT * MSG, msg, MSG));
	ASSERT_SYS(shutdown(fd, SHUT_WR));
	pthread_join(t, NULL);
	after = sent_pkts();
	close(fd);
	close(s.lfd);
	/* All the bytes, every one right, and no more. */
	EXPECT_EQ(s.bad, COUNT * MSG);
	EXPECT_EQ(s.extra, 0);
	tap_diag("autocorking_size %s: %d writes of %d bytes, %s sent %lld packets", size,
		 COUNT, MSG, device, after - before);
	return after - before;
}

static void run_case(const void *arg)
{
	const char *size = arg;
	char old[64];
	long long pkts;

	ASSERT_SYS(sysfile_read(SYSCTL, old, sizeof(old)));
	pkts = one_stream(size, PORT0 + (int)strlen(size));
	EXPECT_SYS(sysfile_write(SYSCTL, old));
	if (!strcmp(size, "0"))
		EXPECT(pkts >= 2 * COUNT);
	else
		EXPECT(pkts < COUNT);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: autocork SERVER CLIENT DEVICE\n");
		return 2;
	}
	server_ip = argv[1];
	client_ip = argv[2];
	device = argv[3];
	tap_add(run_case, "0", 60,
		"autocorking_size 0: each of %d small writes is its own RDMA WRITE and CDC "
		"(at least 2 packets per write on %s)", COUNT, device);
	tap_add(run_case, "65536", 60,
		"autocorking_size 65536: writes made while a CDC is on its way go together "
		"(fewer packets than writes on %s)", device);
	return tap_run();
}
