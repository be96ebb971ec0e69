// SPDX-License-Identifier: GPL-2.0
/* smcdiag.c: a minimal sock_diag reader for AF_SMC (see smcdiag.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <linux/smc_diag.h>
#include <smc/af_smc.h>

#include "smcdiag.h"

/*
 * A dump reads into static buffers (sd_dump_once()'s, sd_find_fd()'s), so
 * dumps run one at a time: a test's threads call these at once (CI of
 * session 42: handshake/hostile's ring-grow workers, one finding its
 * socket while another's dump overwrote the list, found it missing).
 */
static pthread_mutex_t sd_lock = PTHREAD_MUTEX_INITIALIZER;

static void sd_parse(const struct nlmsghdr *nlh, struct sd_sock *s)
{
	const struct smc_diag_msg *m = NLMSG_DATA(nlh);
	const struct rtattr *a = (const void *)(m + 1);
	int len = (int)nlh->nlmsg_len - NLMSG_LENGTH(sizeof(*m));

	memset(s, 0, sizeof(*s));
	s->inode = m->diag_inode;
	s->uid = m->diag_uid;
	s->state = m->diag_state;
	s->mode = m->diag_mode;
	s->shutdown = m->diag_shutdown;
	s->sport = ntohs(m->id.idiag_sport);
	s->dport = ntohs(m->id.idiag_dport);
	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == SMC_DIAG_FALLBACK &&
		    RTA_PAYLOAD(a) >= sizeof(struct smc_diag_fallback)) {
			const struct smc_diag_fallback *f = RTA_DATA(a);

			s->has_fallback = true;
			s->reason = f->reason;
			s->peer_diagnosis = f->peer_diagnosis;
		}
		if (a->rta_type == SMC_DIAG_CONNINFO &&
		    RTA_PAYLOAD(a) >= sizeof(struct smc_diag_conninfo)) {
			const struct smc_diag_conninfo *c = RTA_DATA(a);

			s->has_conn = true;
			s->conn_token = c->token;
			s->rmbe_size = c->rmbe_size;
			s->peer_rmbe_size = c->peer_rmbe_size;
			s->sndbuf_size = c->sndbuf_size;
		}
		/* 6.1's form ends with peer_token; 6.8 added the GID halves. */
		if (a->rta_type == SMC_DIAG_DMBINFO &&
		    RTA_PAYLOAD(a) >= offsetof(struct smcd_diag_dmbinfo, peer_gid_ext)) {
			const struct smcd_diag_dmbinfo *d = RTA_DATA(a);

			s->has_dmb = true;
			s->linkid = d->linkid;
			s->token = d->token;
			s->peer_token = d->peer_token;
			s->my_gid = d->my_gid;
			s->peer_gid = d->peer_gid;
			if (RTA_PAYLOAD(a) >= sizeof(*d)) {
				s->my_gid_ext = d->my_gid_ext;
				s->peer_gid_ext = d->peer_gid_ext;
			}
		}
	}
}

/* One dump; *intr: the kernel said the list changed between its parts. */
static int sd_dump_once(struct sd_sock *out, int max, int *intr)
{
	struct {
		struct nlmsghdr nlh;
		struct smc_diag_req req;
	} q = {
		.nlh = {
			.nlmsg_len = sizeof(q),
			.nlmsg_type = SOCK_DIAG_BY_FAMILY,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
			.nlmsg_seq = 1,
		},
		.req = { .diag_family = AF_SMC,
			 .diag_ext = 1 << (SMC_DIAG_SHUTDOWN - 1) |
				     1 << (SMC_DIAG_CONNINFO - 1) |
				     1 << (SMC_DIAG_DMBINFO - 1) },
	};
	static char buf[65536];
	int fd, n = 0, rc = 0, done = 0;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		return -errno;
	if (send(fd, &q, sizeof(q), 0) < 0) {
		rc = -errno;
		goto out;
	}
	while (!done) {
		ssize_t len = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (len < 0) {
			rc = -errno;
			goto out;
		}
		for (h = (void *)buf; NLMSG_OK(h, (size_t)len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				*intr = 1;
			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				rc = e->error ? e->error : -EPROTO;
				goto out;
			}
			if (n < max)
				sd_parse(h, &out[n]);
			n++;
		}
	}
	rc = n;
out:
	close(fd);
	return rc;
}

/*
 * A dump in parts resumes by position, so a socket closed meanwhile can
 * make it skip another one: dump again until one went through unchanged
 * (with sockets opened and closed all the time, the last try counts, and
 * *complete says whether it went through unchanged).
 */
static int sd_dump_checked(struct sd_sock *out, int max, int *complete)
{
	int tries, n = 0, intr = 1;

	for (tries = 0; intr && tries < 10; tries++) {
		intr = 0;
		n = sd_dump_once(out, max, &intr);
		if (n < 0)
			return n;
	}
	*complete = !intr;
	return n;
}

int sd_dump(struct sd_sock *out, int max)
{
	int complete, n;

	pthread_mutex_lock(&sd_lock);
	n = sd_dump_checked(out, max, &complete);
	pthread_mutex_unlock(&sd_lock);
	return n;
}

static int sd_find_fd_locked(const struct stat *st, struct sd_sock *res)
{
	static struct sd_sock all[4096];
	int n, i, tries, complete;

	/*
	 * A socket missing from a dump that changed under it may have been
	 * skipped (handshake/hostile's 40 connections beside hundreds of
	 * orphans closing, CI 2026-12-03): look again, for a second at most.
	 * One missing from a dump that went through unchanged is missing.
	 */
	for (tries = 0; tries < 100; tries++) {
		n = sd_dump_checked(all, 4096, &complete);
		if (n < 0)
			return n;
		for (i = 0; i < n && i < 4096; i++) {
			if (all[i].inode == st->st_ino) {
				*res = all[i];
				return 0;
			}
		}
		if (complete)
			break;
		usleep(10000);
	}
	return -ENOENT;
}

int sd_find_fd(int fd, struct sd_sock *res)
{
	struct stat st;
	int rc;

	if (fstat(fd, &st))
		return -errno;
	pthread_mutex_lock(&sd_lock);
	rc = sd_find_fd_locked(&st, res);
	pthread_mutex_unlock(&sd_lock);
	return rc;
}
