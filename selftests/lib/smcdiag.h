/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smcdiag.h: what sock_diag says about AF_SMC sockets, for selftests.
 *
 * A minimal reader of its own (not the userspace tools' library), so that
 * the kernel's answers are checked by code that shares nothing with the
 * code whose output the tools tests check.
 */
#ifndef SMC_SELFTESTS_SMCDIAG_H
#define SMC_SELFTESTS_SMCDIAG_H

#include <stdbool.h>
#include <stdint.h>

struct sd_sock {
	uint64_t inode;
	uint32_t uid;
	uint8_t state;		/* SMC_ACTIVE 1, SMC_INIT 2, SMC_CLOSED 7, SMC_LISTEN 10 */
	uint8_t mode;		/* SMC_DIAG_MODE_* */
	uint8_t shutdown;
	uint16_t sport, dport;	/* host order */
	bool has_fallback;	/* SMC_DIAG_FALLBACK present */
	uint32_t reason, peer_diagnosis;
	bool has_dmb;		/* SMC_DIAG_DMBINFO present (SMC-D) */
	uint32_t linkid;	/* the link group's id */
	uint64_t token, peer_token;
	/* Both ends' device GIDs, 128 bits: ext 0 unless the device is emulated. */
	uint64_t my_gid, my_gid_ext, peer_gid, peer_gid_ext;
	/* SMC_DIAG_CONNINFO: the buffers' sizes, the connection's token. */
	bool has_conn;
	uint32_t conn_token, rmbe_size, peer_rmbe_size, sndbuf_size;
};

/*
 * Dump every AF_SMC socket of this network namespace into out[] (at most
 * max). Returns the number found (may exceed max), or -errno.
 */
int sd_dump(struct sd_sock *out, int max);

/*
 * The entry for the socket behind fd (by inode), from a fresh dump, dumped
 * again for up to 1 s while a dump that changed under it lacks it; 0 or
 * -errno (-ENOENT: not in a dump that went through unchanged, or in none).
 */
int sd_find_fd(int fd, struct sd_sock *res);
/* Both may be called from several threads: their dumps run one at a time. */

#endif
