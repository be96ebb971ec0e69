/* SPDX-License-Identifier: GPL-2.0 */
/*
 * family.h: the socket families a selftest case runs on.
 *
 * Differential testing: every stream case runs on plain TCP (inet, inet6),
 * which is the oracle, and on AF_SMC (smc with the IPv4 address format, smc6
 * with IPv6), which must behave the same. An SMC family names its oracle so a
 * case can run both and compare what it observed. smcin and smcin6 are SMC
 * sockets made as socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_SMC);
 * they run when asked for (-f, or $SMC_FAMILIES), not by default.
 */
#ifndef SMC_SELFTESTS_FAMILY_H
#define SMC_SELFTESTS_FAMILY_H

#include <netinet/in.h>
#include <sys/socket.h>

struct sf_family {
	const char *name;   /* as given to -f: inet, inet6, smc, smc6, smcin, smcin6 */
	const char *label;  /* for case descriptions: "tcp ipv4", "smc ipv6" */
	int domain;         /* first argument of socket() */
	int protocol;       /* third argument of socket() */
	int addr_family;    /* the sockaddr format: AF_INET or AF_INET6 */
	const char *oracle; /* the TCP family to compare with; NULL for TCP */
};

#define SF_MAX 6
#define SF_DEFAULT 4	/* the first ones, run when no list is given */
extern const struct sf_family sf_families[SF_MAX];

/* The family called "name", or NULL. */
const struct sf_family *sf_find(const char *name);
/* The family whose results "f" must match, or NULL when f is the oracle. */
const struct sf_family *sf_oracle(const struct sf_family *f);
/*
 * The family of f's kind (TCP, AF_SMC or IPPROTO_SMC) whose addresses are
 * of addr_family (AF_INET or AF_INET6): smc6 for smc and AF_INET6.
 */
const struct sf_family *sf_kind(const struct sf_family *f, int addr_family);
/*
 * Parse "-f" arguments: a comma-separated list of names, added to list[]
 * (at most SF_MAX, without duplicates). Returns -1 on an unknown name.
 */
int sf_parse_list(const char *arg, const struct sf_family **list, int *count);

/* socket(domain, SOCK_STREAM | flags, protocol) of the family. */
int sf_socket(const struct sf_family *f, int flags);
/* 0 when the family's sockets can be created here, else the errno. */
int sf_probe(const struct sf_family *f);
/*
 * Inside a case: the family's sockets must be creatable. Where nobody
 * promised AF_SMC (a host without the module, a VM booted with module
 * "none") an unavailable family skips the case; in a VM that loaded an SMC
 * module ($SMC_MODULE ours or intree) it fails it, since there the missing
 * family is the regression the case exists to see.
 */
void sf_require(const struct sf_family *f);
/* 1 when this VM loaded an SMC module, so AF_SMC must exist. */
int sf_smc_promised(void);
/* 1 when this VM loaded our af_smc, so IPPROTO_SMC must exist too. */
int sf_smc_ours(void);

/*
 * Build an address of the family's format. host: a numeric address, "" or
 * NULL for loopback (IPv4: the address in $SMC_TEST_LOCAL4 instead, when
 * set: an address of this host on a real netdev; IPv6: $SMC_TEST_LOCAL6),
 * "any" for the wildcard. Returns the length, or 0 when
 * host is not an address of that format.
 */
socklen_t sf_addr(const struct sf_family *f, const char *host, unsigned int port,
		  struct sockaddr_storage *ss);
unsigned int sf_port(const struct sockaddr_storage *ss);
/* The length of the sockaddr held in ss (by its ss_family). */
socklen_t sf_addr_len(const struct sockaddr_storage *ss);
/* "127.0.0.1 port 4242" / "::1 port 4242" into buf (at least 80 bytes). */
const char *sf_addr_str(const struct sockaddr_storage *ss, char *buf, size_t size);

/*
 * A listening socket bound to host (as for sf_addr) and port (0: the kernel
 * picks one). Returns the descriptor or -1 with errno; *bound gets the
 * address actually bound (with the port), when not NULL.
 */
int sf_listen(const struct sf_family *f, const char *host, unsigned int port,
	      int backlog, struct sockaddr_storage *bound);
/* A blocking connect to addr; returns the descriptor or -1 with errno. */
int sf_connect(const struct sf_family *f, const struct sockaddr_storage *addr);
/*
 * af_smc's CLC wait in ms: how long one end of a handshake waits for the
 * other's next CLC message before it gives up (SMC_CLC_WAIT_TIME, 2 s),
 * times tap_timeout_scale(), as a debug build stretches it by the same
 * factor (kernel/smc_wait.h).
 */
long sf_clc_wait_ms(void);

/*
 * A case that runs once per family. sf_test_main() parses "-f LIST" (default:
 * every family), registers each case for each family, in case order and
 * family order ("tcp ipv4: DESCRIPTION", "smc ipv4: DESCRIPTION", ...), so a
 * TCP result and the SMC result that must match it are listed together, and
 * runs them (tap_run()). Returns the exit status for main().
 */
struct sf_case {
	const char *description;
	void (*fn)(const struct sf_family *f);
	unsigned int timeout; /* seconds, 0 for the default */
};
int sf_test_main(int argc, char **argv, const struct sf_case *cases, unsigned int count);

/* poll() events as text, "POLLIN|POLLOUT" ("0" for none), into buf. */
const char *sf_poll_str(short events, char *buf, size_t size);

/*
 * Write or read exactly len bytes; -1 on error or early EOF. A non-blocking
 * descriptor is waited for (poll, at most SF_IO_WAIT_MS at a time), so the
 * result does not depend on how fast the peer's bytes arrive.
 */
#define SF_IO_WAIT_MS 10000
int sf_write_all(int fd, const void *buf, size_t len);
int sf_read_all(int fd, void *buf, size_t len);

#endif
