/* SPDX-License-Identifier: GPL-2.0 */
/*
 * diff.h: differential observation of a socket case, SMC against TCP.
 *
 * A case is written once as an observer, observe_X(family, struct obs *),
 * that drives sockets of the family and records what the program using them
 * would see: return values, errno, poll and epoll masks, whether data arrived
 * intact. diff_run() runs the observer on the family's TCP oracle first and
 * then on the family itself, prints both records, and fails the case on the
 * first entry that differs ("AF_SMC DIFFERS FROM TCP: ..."). On a TCP family
 * the observer just runs once. EXPECT/ASSERT checks inside an observer state
 * what Linux TCP is known to do and apply to both runs.
 *
 * Only things that must be equal go into a record: never descriptor numbers,
 * ports or times (record "waited at least the timeout" as 0/1 instead).
 */
#ifndef SMC_SELFTESTS_DIFF_H
#define SMC_SELFTESTS_DIFF_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "family.h"

enum obs_kind { OBS_INT, OBS_ERRNO, OBS_POLL, OBS_EPOLL };

#define OBS_MAX 128

struct obs {
	unsigned int n;
	struct {
		char name[56];
		enum obs_kind kind;
		long long v;
	} item[OBS_MAX];
};

void obs_int(struct obs *o, const char *name, long long v);
void obs_errno(struct obs *o, const char *name, int err);
void obs_poll(struct obs *o, const char *name, short revents);
void obs_epoll(struct obs *o, const char *name, uint32_t events);
/*
 * A value the case's description promises (what Linux TCP does): the last
 * entry called "name" must be v, on the oracle and on the family alike.
 */
void obs_want(struct obs *o, const char *name, long long v);
/* "name" = ret and "name errno" = err. */
void obs_result(struct obs *o, const char *name, long long ret, int err);

/*
 * Run a call and record its outcome as "name": OBS_RET records the return
 * value and the errno (0 on success), OBS_ERR only the errno (for calls that
 * return descriptors or counts that may legitimately differ). Both yield the
 * return value and leave errno as the call set it.
 */
#define OBS_RET(o, name, call)                                                \
	({                                                                    \
		errno = 0;                                                    \
		long long r_ = (long long)(call);                             \
		int e_ = r_ == -1 ? errno : 0;                                \
		obs_result(o, name, r_, e_);                                  \
		errno = e_;                                                   \
		r_;                                                           \
	})
#define OBS_ERR(o, name, call)                                                \
	({                                                                    \
		errno = 0;                                                    \
		long long r_ = (long long)(call);                             \
		int e_ = r_ == -1 ? errno : 0;                                \
		obs_errno(o, name, e_);                                       \
		errno = e_;                                                   \
		r_;                                                           \
	})

typedef void (*obs_fn)(const struct sf_family *f, struct obs *o);

/* Run fn on f's oracle (if any) and on f, and compare the records. */
void diff_run(const struct sf_family *f, obs_fn fn);

/* DIFF_CASE(x): the sf_case function x() running observe_x() differentially. */
#define DIFF_CASE(x)                                                          \
	static void x(const struct sf_family *f)                             \
	{                                                                     \
		diff_run(f, observe_##x);                                     \
	}

/* ---- helpers for observers ---- */

#define DIFF_WAIT_MS 10000 /* for things that happen at once on loopback */

struct sf_conn {
	int lfd, client, server;
	struct sockaddr_storage addr; /* the listener's */
};

/*
 * What the AF_SMC half must prove about every connection it makes: that it
 * runs over SMC-D (the default), over SMC-R (topology 1, see
 * tools/smcr-topo1.sh; or over one rxe device, smcr/diff.sh), or that it fell back to TCP (a run with the ISM
 * device off). Set from $SMC_DIFF_MODE ("smcd", "smcr" or "fallback") at
 * the first check; anything else fails the case.
 *
 * SMC-R mode also wants $SMC_TEST_LOCAL4 (the address "this host" means,
 * one on an rxe-backed netdev) and $SMC_DIFF_RXE (the rxe devices, e.g.
 * "rxev1 rxev2"; optional): every device's RoCE packet counters, sent and
 * received, must move while the AF_SMC half of a case that made
 * connections runs. $SMC_TEST_LOCAL6 is the same for IPv6: SMC-R
 * connections over IPv6 are SMC-Rv1 with the IPv6 prefix area
 * (Documentation/smc-r.md, "IPv6").
 */
enum diff_mode { DIFF_MODE_SMCD, DIFF_MODE_SMCR, DIFF_MODE_FALLBACK };
/* The mode $SMC_DIFF_MODE asks for. */
enum diff_mode diff_mode(void);
/*
 * Fail the case unless the connected socket fd of family f is in the
 * expected mode, as sock_diag reports it. Nothing for the TCP families.
 */
void diff_check_mode(const struct sf_family *f, int fd);
/*
 * A case that bursts connections at a tiny backlog may make TCP answer
 * with SYN cookies (its SYN queue is full, tcp_syncookies=1), and a SYN
 * cookie's SYN-ACK carries no SMC option: that connection is TCP on both
 * ends, fallback reason PEERNOSMC, as on Linux. After
 * diff_syncookies_allow(), diff_check_mode() takes such a fallback as
 * one of these, with a diagnostic, when TcpExtSyncookiesSent of the
 * listener's host rose since the call: this one, or across two VMs VM 1,
 * whose count both sides exchange (the CI of 1ae18bb failed on such a
 * fallback in socket/accept_2vm_smcd, 4 of 6 connected at backlog 2,
 * when only one VM's cookies were accepted).
 * diff_syncookies_end() ends the allowance.
 */
void diff_syncookies_allow(void);
void diff_syncookies_end(void);
/*
 * Fail the case unless the connected socket fd of family f fell back to TCP
 * with the local reason given (SMC_CLC_DECL_*), whatever the mode the run
 * asks for: for cases that promise a fallback (TCP Fast Open). Nothing for
 * the TCP families.
 */
void diff_check_fallback(const struct sf_family *f, int fd, uint32_t reason);
/* sf_connect() and accept4(SOCK_CLOEXEC) that check the mode on success. */
int diff_connect(const struct sf_family *f, const struct sockaddr_storage *addr);
int diff_accept(const struct sf_family *f, int lfd);

/*
 * Listener on loopback, blocking connect, accept4(SOCK_CLOEXEC); both ends
 * checked with diff_check_mode().
 */
void diff_establish(const struct sf_family *f, struct sf_conn *c);
void diff_conn_close(struct sf_conn *c);

int64_t diff_now_ms(void);
/* poll() for events up to ms; the revents (0 on timeout). */
short diff_poll(int fd, short events, int ms);
/* What poll() reports right now for every event worth seeing. */
short diff_poll_now(int fd);
/* Wait until poll reports any of events, then let the state settle a moment. */
short diff_wait(int fd, short events);
/* SO_ERROR (which clears it). */
int diff_so_error(int fd);
void diff_set_nonblock(int fd, int on);
/* Send with MSG_DONTWAIT until EAGAIN; the bytes queued. */
size_t diff_fill(int fd);
/* Wait until SIOCINQ of fd reaches n bytes; returns SIOCINQ. */
int diff_wait_inq(int fd, int n);
/*
 * Wait until SIOCOUTQ of fd is 0: the peer acknowledged (TCP) or consumed
 * (SMC) every byte. Returns SIOCOUTQ, non-zero if the wait timed out.
 */
int diff_wait_outq_empty(int fd);
/* Read (blocking) and discard everything until EOF or error; bytes read. */
size_t diff_drain(int fd);
/* Send len pattern bytes of seed; read them back on the other fd and compare. */
int diff_transfer_ok(int from, int to, size_t len, uint64_t seed);
/* A loopback port with nobody listening, kept reserved by the returned TCP socket. */
int diff_closed_port(const struct sf_family *f, struct sockaddr_storage *addr);

#endif
