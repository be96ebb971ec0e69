/* SPDX-License-Identifier: GPL-2.0 */
/*
 * genl.h: raw generic netlink for selftest programs.
 *
 * The selftests are static programs without libnl, and tests of the
 * kernel's netlink families must see exactly what went over the wire: the
 * errno of the ack, the extack message, every attribute of every reply.
 * So this is a thin layer over a NETLINK_GENERIC socket: build a request
 * attribute by attribute (including malformed ones), send it, and collect
 * the replies and the ack.
 */
#ifndef SMC_SELFTESTS_GENL_H
#define SMC_SELFTESTS_GENL_H

#include <stddef.h>
#include <stdint.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>

#define GENL_REQ_MAX 4096

/* A request being built: nlmsghdr + genlmsghdr + attributes. */
struct genl_req {
	union {
		struct nlmsghdr nlh;
		unsigned char buf[GENL_REQ_MAX];
	};
};

/* The outcome of one request. */
struct genl_result {
	int error;		/* 0, or the positive errno of the ack */
	char extack[256];	/* NLMSGERR_ATTR_MSG, "" when none */
	int bad_attr_offset;	/* NLMSGERR_ATTR_OFFS, -1 when none */
	unsigned int n_msgs;	/* reply messages (not counting the ack) */
	unsigned char *msgs;	/* the replies, each a whole nlmsghdr, packed */
	size_t msgs_len;
};

/* A netlink socket with extended acks on; -1 with errno on failure. */
int genl_open(void);
/*
 * The numeric id of family "name", and (when not NULL) its version,
 * header size and maxattr; -1 with errno (ENOENT: no such family).
 */
int genl_family(int fd, const char *name, unsigned int *version,
		unsigned int *hdrsize, unsigned int *maxattr);
/*
 * The flags (GENL_ADMIN_PERM, GENL_CMD_CAP_DO, ...) the controller lists
 * for command cmd of family "name": 0 and *flags set, or -1 with errno
 * (ENOENT when the family has no such command).
 */
int genl_op_flags(int fd, const char *name, unsigned int cmd, unsigned int *flags);

void genl_req_init(struct genl_req *r, uint16_t family, uint8_t cmd,
		   uint8_t version, uint16_t flags);
/* Attributes; payload is copied as given (no NUL added by put_raw). */
void genl_put_raw(struct genl_req *r, uint16_t type, const void *data, size_t len);
void genl_put_str(struct genl_req *r, uint16_t type, const char *s);	/* with NUL */
void genl_put_u8(struct genl_req *r, uint16_t type, uint8_t v);
void genl_put_u32(struct genl_req *r, uint16_t type, uint32_t v);

/*
 * Send the request with NLM_F_ACK (and NLM_F_DUMP if it has it), collect
 * every reply and the final ack or NLMSG_DONE. Returns 0 when the exchange
 * itself worked (res->error then says what the kernel answered), -1 with
 * errno on a socket error. genl_result_free() releases res->msgs.
 */
int genl_exchange(int fd, struct genl_req *r, struct genl_result *res);
void genl_result_free(struct genl_result *res);

/* Iterate the replies: NULL when there are no more. */
const struct nlmsghdr *genl_next_msg(const struct genl_result *res,
				     const struct nlmsghdr *prev);
/* The top-level attribute "type" of a reply, or NULL. */
const struct nlattr *genl_attr(const struct nlmsghdr *nlh, size_t hdrsize,
			       uint16_t type);
/* The attribute as a string, or "" when it is not NUL-terminated. */
/* The member "type" of a nest, or NULL (also when nest is NULL). */
const struct nlattr *genl_nest(const struct nlattr *nest, uint16_t type);
const char *genl_attr_str(const struct nlattr *a);
int genl_attr_u8(const struct nlattr *a, uint8_t *v);

#endif
