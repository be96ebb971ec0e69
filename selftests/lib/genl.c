// SPDX-License-Identifier: GPL-2.0
/* genl.c: raw generic netlink for selftest programs (see genl.h). */
#define _GNU_SOURCE
#include "genl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

static uint32_t genl_seq = 1;

int genl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return fd;
}

void genl_req_init(struct genl_req *r, uint16_t family, uint8_t cmd,
		   uint8_t version, uint16_t flags)
{
	struct genlmsghdr *g;

	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = family;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	g = NLMSG_DATA(&r->nlh);
	g->cmd = cmd;
	g->version = version;
}

void genl_put_raw(struct genl_req *r, uint16_t type, const void *data, size_t len)
{
	size_t at = NLMSG_ALIGN(r->nlh.nlmsg_len);
	struct nlattr *a = (struct nlattr *)(r->buf + at);

	/* Requests are built by the test itself: overflowing is a bug there. */
	if (at + NLA_ALIGN(NLA_HDRLEN + len) > sizeof(r->buf))
		abort();
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((unsigned char *)a + NLA_HDRLEN, data, len);
	memset((unsigned char *)a + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	r->nlh.nlmsg_len = at + NLA_ALIGN(a->nla_len);
}

void genl_put_str(struct genl_req *r, uint16_t type, const char *s)
{
	genl_put_raw(r, type, s, strlen(s) + 1);
}

void genl_put_u8(struct genl_req *r, uint16_t type, uint8_t v)
{
	genl_put_raw(r, type, &v, sizeof(v));
}

void genl_put_u32(struct genl_req *r, uint16_t type, uint32_t v)
{
	genl_put_raw(r, type, &v, sizeof(v));
}

static int append_msg(struct genl_result *res, const struct nlmsghdr *nlh)
{
	size_t len = NLMSG_ALIGN(nlh->nlmsg_len);
	unsigned char *p = realloc(res->msgs, res->msgs_len + len);

	if (!p)
		return -1;
	memcpy(p + res->msgs_len, nlh, nlh->nlmsg_len);
	memset(p + res->msgs_len + nlh->nlmsg_len, 0, len - nlh->nlmsg_len);
	res->msgs = p;
	res->msgs_len += len;
	res->n_msgs++;
	return 0;
}

/* Extended ack attributes from p to the end of nlh. */
static void parse_tlvs(const struct nlmsghdr *nlh, const unsigned char *p,
		       struct genl_result *res)
{
	const unsigned char *end = (const unsigned char *)nlh + nlh->nlmsg_len;

	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t plen;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		plen = a->nla_len - NLA_HDRLEN;
		if (a->nla_type == NLMSGERR_ATTR_MSG) {
			size_t n = plen < sizeof(res->extack) - 1 ? plen : sizeof(res->extack) - 1;

			memcpy(res->extack, p + NLA_HDRLEN, n);
			res->extack[n] = 0;
		} else if (a->nla_type == NLMSGERR_ATTR_OFFS && plen >= 4) {
			uint32_t v;

			memcpy(&v, p + NLA_HDRLEN, 4);
			res->bad_attr_offset = (int)v;
		}
		p += NLA_ALIGN(a->nla_len);
	}
}

/* An ack: the errno, then the echoed request (or its header), then TLVs. */
static void parse_ack(const struct nlmsghdr *nlh, struct genl_result *res)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	size_t off = sizeof(*e);

	res->error = -e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	parse_tlvs(nlh, (const unsigned char *)e + NLMSG_ALIGN(off), res);
}

/* The end of a dump: the errno, then TLVs. */
static void parse_done(const struct nlmsghdr *nlh, struct genl_result *res)
{
	int v;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(v)))
		return;
	memcpy(&v, NLMSG_DATA(nlh), sizeof(v));
	res->error = -v;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		parse_tlvs(nlh, (const unsigned char *)NLMSG_DATA(nlh) +
			   NLMSG_ALIGN(sizeof(v)), res);
}

int genl_exchange(int fd, struct genl_req *r, struct genl_result *res)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	static unsigned char buf[65536];
	uint32_t seq = genl_seq++;
	int done = 0;

	memset(res, 0, sizeof(*res));
	res->bad_attr_offset = -1;
	r->nlh.nlmsg_seq = seq;
	r->nlh.nlmsg_flags |= NLM_F_ACK;
	if (sendto(fd, r->buf, r->nlh.nlmsg_len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -1;
	while (!done) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *nlh;
		size_t left;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		left = (size_t)n;
		for (nlh = (struct nlmsghdr *)buf; NLMSG_OK(nlh, left);
		     nlh = NLMSG_NEXT(nlh, left)) {
			if (nlh->nlmsg_seq != seq)
				continue;	/* a stale answer */
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				parse_ack(nlh, res);
				done = 1;
				break;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				/* With NLM_F_ACK, no ack follows a dump's DONE. */
				parse_done(nlh, res);
				done = 1;
				break;
			}
			if (append_msg(res, nlh) < 0)
				return -1;
		}
	}
	return 0;
}

void genl_result_free(struct genl_result *res)
{
	free(res->msgs);
	res->msgs = NULL;
	res->msgs_len = 0;
	res->n_msgs = 0;
}

const struct nlmsghdr *genl_next_msg(const struct genl_result *res,
				     const struct nlmsghdr *prev)
{
	const unsigned char *p;

	if (!prev)
		p = res->msgs;
	else
		p = (const unsigned char *)prev + NLMSG_ALIGN(prev->nlmsg_len);
	if (!res->msgs || p >= res->msgs + res->msgs_len)
		return NULL;
	return (const struct nlmsghdr *)p;
}

/* The attribute "type" among those from p to end, or NULL. */
static const struct nlattr *attr_find(const unsigned char *p, const unsigned char *end,
				      uint16_t type)
{
	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		p += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

const struct nlattr *genl_attr(const struct nlmsghdr *nlh, size_t hdrsize,
			       uint16_t type)
{
	return attr_find((const unsigned char *)NLMSG_DATA(nlh) + GENL_HDRLEN +
			 NLMSG_ALIGN(hdrsize),
			 (const unsigned char *)nlh + nlh->nlmsg_len, type);
}

const char *genl_attr_str(const struct nlattr *a)
{
	const char *s = (const char *)a + NLA_HDRLEN;
	size_t len = a->nla_len - NLA_HDRLEN;

	if (!len || memchr(s, 0, len) == NULL)
		return "";
	return s;
}

int genl_attr_u8(const struct nlattr *a, uint8_t *v)
{
	if (a->nla_len < NLA_HDRLEN + 1)
		return -1;
	*v = *((const uint8_t *)a + NLA_HDRLEN);
	return 0;
}

const struct nlattr *genl_nest(const struct nlattr *nest, uint16_t type)
{
	if (!nest)
		return NULL;
	return attr_find((const unsigned char *)nest + NLA_HDRLEN,
			 (const unsigned char *)nest + nest->nla_len, type);
}

static int get_family(int fd, const char *name, struct genl_result *res)
{
	struct genl_req r;

	genl_req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	genl_put_str(&r, CTRL_ATTR_FAMILY_NAME, name);
	if (genl_exchange(fd, &r, res) < 0)
		return -1;
	if (res->error || !res->n_msgs) {
		errno = res->error ? res->error : ENOENT;
		genl_result_free(res);
		return -1;
	}
	return 0;
}

static unsigned int attr_u32_or(const struct nlattr *a, unsigned int dflt)
{
	uint32_t v;

	if (!a || a->nla_len < NLA_HDRLEN + 4)
		return dflt;
	memcpy(&v, (const unsigned char *)a + NLA_HDRLEN, 4);
	return v;
}

int genl_family(int fd, const char *name, unsigned int *version,
		unsigned int *hdrsize, unsigned int *maxattr)
{
	struct genl_result res;
	const struct nlmsghdr *m;
	const struct nlattr *id;
	uint16_t v;

	if (get_family(fd, name, &res) < 0)
		return -1;
	m = genl_next_msg(&res, NULL);
	id = genl_attr(m, 0, CTRL_ATTR_FAMILY_ID);
	if (!id || id->nla_len < NLA_HDRLEN + 2) {
		genl_result_free(&res);
		errno = EPROTO;
		return -1;
	}
	memcpy(&v, (const unsigned char *)id + NLA_HDRLEN, 2);
	if (version)
		*version = attr_u32_or(genl_attr(m, 0, CTRL_ATTR_VERSION), 0);
	if (hdrsize)
		*hdrsize = attr_u32_or(genl_attr(m, 0, CTRL_ATTR_HDRSIZE), 0);
	if (maxattr)
		*maxattr = attr_u32_or(genl_attr(m, 0, CTRL_ATTR_MAXATTR), 0);
	genl_result_free(&res);
	return v;
}

int genl_op_flags(int fd, const char *name, unsigned int cmd, unsigned int *flags)
{
	struct genl_result res;
	const struct nlattr *ops;
	const unsigned char *p, *end;

	if (get_family(fd, name, &res) < 0)
		return -1;
	ops = genl_attr(genl_next_msg(&res, NULL), 0, CTRL_ATTR_OPS);
	if (ops) {
		p = (const unsigned char *)ops + NLA_HDRLEN;
		end = (const unsigned char *)ops + ops->nla_len;
		while (p + NLA_HDRLEN <= end) {
			const struct nlattr *op = (const struct nlattr *)p;

			if (op->nla_len < NLA_HDRLEN || p + op->nla_len > end)
				break;
			if (attr_u32_or(genl_nest(op, CTRL_ATTR_OP_ID), ~0u) == cmd) {
				*flags = attr_u32_or(genl_nest(op, CTRL_ATTR_OP_FLAGS), 0);
				genl_result_free(&res);
				return 0;
			}
			p += NLA_ALIGN(op->nla_len);
		}
	}
	genl_result_free(&res);
	errno = ENOENT;
	return -1;
}
