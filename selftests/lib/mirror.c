// SPDX-License-Identifier: GPL-2.0
/*
 * mirror.c: mirrored execution across two VMs (mirror.h): the control
 * connection, the table of virtual descriptors, and the wrapped calls.
 *
 * Linked only into programs built with smc_mirror_program() (CMake), which
 * pass --wrap=CALL for every call defined here as __wrap_CALL.
 */
#define _GNU_SOURCE
#include "mirror.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <smc/af_smc.h>

#include "smcdiag.h"
#include "tap.h"

/* The real calls (--wrap). */
int __real_socket(int, int, int);
int __real_bind(int, const struct sockaddr *, socklen_t);
int __real_listen(int, int);
int __real_connect(int, const struct sockaddr *, socklen_t);
int __real_accept(int, struct sockaddr *, socklen_t *);
int __real_accept4(int, struct sockaddr *, socklen_t *, int);
ssize_t __real_send(int, const void *, size_t, int);
ssize_t __real_sendto(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
ssize_t __real_sendmsg(int, const struct msghdr *, int);
ssize_t __real_recv(int, void *, size_t, int);
ssize_t __real_recvfrom(int, void *, size_t, int, struct sockaddr *, socklen_t *);
ssize_t __real_recvmsg(int, struct msghdr *, int);
ssize_t __real_read(int, void *, size_t);
ssize_t __real_write(int, const void *, size_t);
ssize_t __real_readv(int, const struct iovec *, int);
ssize_t __real_writev(int, const struct iovec *, int);
int __real_close(int);
int __real_shutdown(int, int);
int __real_setsockopt(int, int, int, const void *, socklen_t);
int __real_getsockopt(int, int, int, void *, socklen_t *);
int __real_getsockname(int, struct sockaddr *, socklen_t *);
int __real_getpeername(int, struct sockaddr *, socklen_t *);
int __real_fcntl(int, int, ...);
int __real_ioctl(int, unsigned long, ...);
int __real_poll(struct pollfd *, nfds_t, int);
int __real_select(int, fd_set *, fd_set *, fd_set *, struct timeval *);
int __real_epoll_ctl(int, int, int, struct epoll_event *);
int __real_epoll_wait(int, struct epoll_event *, int, int);
int __real_epoll_create1(int);
ssize_t __real_splice(int, loff_t *, int, loff_t *, size_t, unsigned int);
ssize_t __real_sendfile(int, int, off_t *, size_t);
pid_t __real_fork(void);

enum { SIDE_CLIENT = 0, SIDE_SERVER = 1, SIDE_BOTH = 2 };

static int me = -2;		/* -2: not read yet, -1: not mirroring */
static int chan = -1;		/* the control connection of this case */
static int pending = -1;	/* server: the connection the next case takes */
static int lsock = -1;		/* server: the control listener */
static uint32_t seq;		/* calls so far on chan */
static uint32_t forks;		/* forks so far in this case */

#define VFD_MAX 256
static struct vfd {
	int used;
	int owner;	/* SIDE_* */
	int real;	/* this side's socket, or -1 */
} vt[VFD_MAX];

#define HELLO_MAGIC 0x534d4952u	/* "SMIR" */
enum { HELLO_CASE = 1, HELLO_FORK = 2, HELLO_BYE = 3 };
struct hello {
	uint32_t magic, kind, number, fork;
	char desc[512];
};

#define MSG_SEGS 6
struct msg {
	uint32_t seq, op;
	int64_t ret;
	int32_t err, sig;
	uint32_t nseg;
	uint32_t seglen[MSG_SEGS];
};

/* ---- set-up ---- */

int mirror_active(void)
{
	if (me == -2) {
		const char *m = getenv("SMC_MIRROR");

		if (m && strcmp(m, "client") == 0)
			me = SIDE_CLIENT;
		else if (m && strcmp(m, "server") == 0)
			me = SIDE_SERVER;
		else
			me = -1;
	}
	return me >= 0;
}

int mirror_side(void)
{
	return mirror_active() ? me : 0;
}

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tap_fail("mirror (VM %d): %s", me, buf);
	tap_abort();
}

static int ctl_addr(struct sockaddr_in *sin)
{
	const char *ctl = getenv("SMC_MIRROR_CTL");
	char host[64];
	const char *colon;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	if (!ctl || !(colon = strrchr(ctl, ':')) || (size_t)(colon - ctl) >= sizeof(host))
		return -1;
	memcpy(host, ctl, (size_t)(colon - ctl));
	host[colon - ctl] = '\0';
	sin->sin_port = htons((uint16_t)atoi(colon + 1));
	return inet_pton(AF_INET, host, &sin->sin_addr) == 1 ? 0 : -1;
}

static int io_full(int fd, void *buf, size_t len, int writing)
{
	char *p = buf;

	while (len) {
		ssize_t n = writing ? __real_send(fd, p, len, MSG_NOSIGNAL)
				    : __real_recv(fd, p, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void put(const void *buf, size_t len)
{
	if (io_full(chan, (void *)buf, len, 1))
		die("the control connection broke while sending (the other VM ended the case)");
}

static void get(void *buf, size_t len)
{
	if (io_full(chan, buf, len, 0))
		die("the control connection broke while receiving (the other VM ended the case: see its log)");
}

static void hello_fill(struct hello *h, uint32_t kind)
{
	const char *d = tap_case_description(tap_case_number());

	memset(h, 0, sizeof(*h));
	h->magic = HELLO_MAGIC;
	h->kind = kind;
	h->number = tap_case_number();
	h->fork = forks;
	snprintf(h->desc, sizeof(h->desc), "%s", d ? d : "");
}

/* Client: a new control connection for this case (or fork), greeted. */
static int client_connect(uint32_t kind)
{
	struct sockaddr_in sin;
	struct hello h;
	int64_t tries;
	char ack = 0;
	int fd;

	if (ctl_addr(&sin))
		die("SMC_MIRROR_CTL is not ADDR:PORT");
	/* VM 1 may still be starting or finishing the previous case: retry. */
	for (tries = 0;; tries++) {
		fd = __real_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			die("socket: %s", strerror(errno));
		if (__real_connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0)
			break;
		__real_close(fd);
		if (tries >= 300)
			die("cannot reach VM 1's control listener: %s", strerror(errno));
		usleep(100000);
	}
	__real_setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	hello_fill(&h, kind);
	if (io_full(fd, &h, sizeof(h), 1) || io_full(fd, &ack, 1, 0) || ack != 'y')
		die("VM 1 refused case %u (fork %u): not the same program and arguments?",
		    h.number, h.fork);
	return fd;
}

/* Server: the next connection whose hello is {kind, number, fork}. */
static int server_accept(uint32_t kind, uint32_t number, uint32_t fork)
{
	for (;;) {
		struct hello h;
		int fd = __real_accept4(lsock, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			die("accept on the control listener: %s", strerror(errno));
		if (io_full(fd, &h, sizeof(h), 0) || h.magic != HELLO_MAGIC) {
			__real_close(fd);	/* a client that went away */
			continue;
		}
		h.desc[sizeof(h.desc) - 1] = '\0';
		if (h.kind == kind && h.number == number && h.fork == fork &&
		    (kind != HELLO_FORK || number == tap_case_number())) {
			__real_setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
			if (io_full(fd, "y", 1, 1) == 0)
				return fd;
		} else {
			io_full(fd, "n", 1, 1);
		}
		__real_close(fd);
	}
}

/* The control connection of this case; made at its first mirrored call. */
static void need_chan(void)
{
	if (chan >= 0)
		return;
	if (me == SIDE_SERVER) {
		if (pending < 0)
			die("no control connection in this case");
		chan = pending;
		pending = -1;
	} else {
		chan = client_connect(HELLO_CASE);
	}
	seq = 0;
}

/* ---- the table ---- */

static struct vfd *vget(int fd)
{
	if (me < 0 || fd < MIRROR_VFD_BASE || fd >= MIRROR_VFD_BASE + VFD_MAX)
		return NULL;
	return vt[fd - MIRROR_VFD_BASE].used ? &vt[fd - MIRROR_VFD_BASE] : NULL;
}

static int vfd_new(int owner, int real)
{
	for (int i = 0; i < VFD_MAX; i++) {
		if (!vt[i].used) {
			vt[i] = (struct vfd){ 1, owner, real };
			return MIRROR_VFD_BASE + i;
		}
	}
	die("more than %d mirrored sockets", VFD_MAX);
}

/* Whether this side makes the real call, and whose answer counts. */
static int runs_here(const struct vfd *v)
{
	return v->owner == SIDE_BOTH || v->owner == me;
}

static int authority(const struct vfd *v)
{
	return v->owner == SIDE_BOTH ? SIDE_SERVER : v->owner;
}

static const char *op_name(uint32_t op)
{
	static const char *names[] = { "?", "socket", "bind", "listen", "connect", "accept",
		"send", "recv", "sendmsg", "recvmsg", "readv", "close", "shutdown",
		"setsockopt", "getsockopt", "getsockname", "getpeername", "fcntl", "ioctl",
		"poll", "sock_diag", "exchange", "epoll_ctl" };

	return op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}
enum { OP_SOCKET = 1, OP_BIND, OP_LISTEN, OP_CONNECT, OP_ACCEPT, OP_SEND, OP_RECV,
       OP_SENDMSG, OP_RECVMSG, OP_READV, OP_CLOSE, OP_SHUTDOWN, OP_SETSOCKOPT,
       OP_GETSOCKOPT, OP_GETSOCKNAME, OP_GETPEERNAME, OP_FCNTL, OP_IOCTL, OP_POLL,
       OP_SOCK_DIAG, OP_EXCHANGE, OP_EPOLL_CTL };

struct seg {
	void *p;
	size_t len;	/* the sender's bytes to send; the receiver's bytes received */
	size_t room;	/* the size of the buffer at p */
};

/*
 * The answer of one call: the side "from" sends {ret, err, sig, segments},
 * the other receives them into its own *ret, *err, *sig and segments (the
 * same buffers of the same call, as both run the same code).
 */
static void sync_result(int from, uint32_t op, long long *ret, int *err, int *sig,
			struct seg *segs, unsigned int nseg)
{
	struct msg m;

	need_chan();
	memset(&m, 0, sizeof(m));
	if (from == me) {
		m.seq = seq;
		m.op = op;
		m.ret = *ret;
		m.err = *err;
		m.sig = sig ? *sig : 0;
		m.nseg = nseg;
		for (unsigned int i = 0; i < nseg; i++)
			m.seglen[i] = (uint32_t)segs[i].len;
		put(&m, sizeof(m));
		for (unsigned int i = 0; i < nseg; i++)
			if (segs[i].len)
				put(segs[i].p, segs[i].len);
	} else {
		get(&m, sizeof(m));
		if (m.seq != seq || m.op != op || m.nseg != nseg)
			die("the VMs diverged: call %u is %s here, call %u %s on VM %d",
			    seq, op_name(op), m.seq, op_name(m.op), from);
		for (unsigned int i = 0; i < nseg; i++) {
			if (m.seglen[i] > segs[i].room)
				die("%s: %u bytes from VM %d for %zu of room", op_name(op),
				    m.seglen[i], from, segs[i].room);
			if (m.seglen[i])
				get(segs[i].p, m.seglen[i]);
			segs[i].len = m.seglen[i];
		}
		*ret = m.ret;
		*err = m.err;
		if (sig)
			*sig = m.sig;
	}
	if (getenv("SMC_MIRROR_TRACE"))
		tap_diag("mirror call %u %s: VM %d answered %lld, %s", seq, op_name(op), from,
			 *ret, tap_errno_name(*err));
	seq++;
}

/* The common tail of a call on a virtual descriptor: sync, set errno. */
static long long finish(const struct vfd *v, uint32_t op, long long ret, int err,
			struct seg *segs, unsigned int nseg)
{
	sync_result(authority(v), op, &ret, &err, NULL, segs, nseg);
	errno = err;
	return ret;
}

#define CALL(expr) ({ errno = 0; long long r_ = (long long)(expr); e = r_ < 0 ? errno : 0; r_; })

/* A case that cannot run across two VMs: both sides skip it alike. */
static void unsplittable(const char *why) __attribute__((noreturn));
static void unsplittable(const char *why)
{
	tap_skip("cannot be split across two VMs: %s", why);
}

/* ---- SIGPIPE: raised by the owner's call, replayed on both sides ---- */

struct pipe_guard {
	sigset_t old;
};

static void sigpipe_block(struct pipe_guard *g)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	sigprocmask(SIG_BLOCK, &s, &g->old);
}

/* Whether the call raised SIGPIPE (then consumed, to be replayed). */
static int sigpipe_taken(void)
{
	sigset_t s, pend;
	struct timespec zero = { 0, 0 };

	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	sigpending(&pend);
	if (!sigismember(&pend, SIGPIPE))
		return 0;
	sigtimedwait(&s, NULL, &zero);
	return 1;
}

static void sigpipe_replay(struct pipe_guard *g, int sig)
{
	sigprocmask(SIG_SETMASK, &g->old, NULL);
	if (sig)
		raise(SIGPIPE);
}

/* A call that may raise SIGPIPE, on the owner; the signal comes back on both. */
#define SENDING_CALL(v, op, expr)                                             \
	({                                                                    \
		struct pipe_guard g_;                                         \
		long long r_ = -1;                                            \
		int e = 0, s_ = 0;                                            \
		sigpipe_block(&g_);                                           \
		if (runs_here(v)) {                                           \
			r_ = CALL(expr);                                      \
			s_ = sigpipe_taken();                                 \
		}                                                             \
		sync_result(authority(v), op, &r_, &e, &s_, NULL, 0);         \
		sigpipe_replay(&g_, s_);                                      \
		errno = e;                                                    \
		r_;                                                           \
	})

/* ---- the wrapped calls ---- */

int __wrap_socket(int domain, int type, int protocol)
{
	long long r;
	int e, fd;

	if (!mirror_active() || (domain != AF_INET && domain != AF_INET6 && domain != AF_SMC) ||
	    (type & 0xf) != SOCK_STREAM)
		return __real_socket(domain, type, protocol);
	/* Its role is not known yet: a copy on each VM, every call on both. */
	fd = (int)CALL(__real_socket(domain, type, protocol));
	r = fd;
	sync_result(SIDE_SERVER, OP_SOCKET, &r, &e, NULL, NULL, 0);
	if (r < 0) {
		if (fd >= 0)
			__real_close(fd);
		errno = e;
		return -1;
	}
	if (fd < 0)
		die("socket(%d, %d, %d) works on VM 1, not here: %s", domain, type, protocol,
		    strerror(errno));
	return vfd_new(SIDE_BOTH, fd);
}

/* VM 0's copy of a socket binds VM 0's address where VM 1's binds its own. */
static const struct sockaddr *local_addr(const struct sockaddr *sa, socklen_t len,
					 struct sockaddr_in *tmp)
{
	const char *srv = getenv("SMC_TEST_LOCAL4"), *cli = getenv("SMC_MIRROR_CLIENT4");
	struct in_addr s;

	if (me != SIDE_CLIENT || !sa || len < sizeof(*tmp) || sa->sa_family != AF_INET ||
	    !srv || !cli || inet_pton(AF_INET, srv, &s) != 1)
		return sa;
	memcpy(tmp, sa, sizeof(*tmp));
	if (tmp->sin_addr.s_addr != s.s_addr || inet_pton(AF_INET, cli, &tmp->sin_addr) != 1)
		return sa;
	return (const struct sockaddr *)tmp;
}

int __wrap_bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct vfd *v = vget(fd);
	struct sockaddr_in tmp;
	long long r = -1;
	int e = 0;

	if (!v)
		return __real_bind(fd, sa, len);
	if (runs_here(v))
		r = CALL(__real_bind(v->real, v->owner == SIDE_BOTH ? local_addr(sa, len, &tmp) : sa,
				     len));
	return (int)finish(v, OP_BIND, r, e, NULL, 0);
}

/* Drop this side's copy of a socket whose role became known. */
static void take_role(struct vfd *v, int owner)
{
	if (v->owner != SIDE_BOTH)
		return;
	v->owner = owner;
	if (owner != me && v->real >= 0) {
		__real_close(v->real);
		v->real = -1;
	}
}

int __wrap_listen(int fd, int backlog)
{
	struct vfd *v = vget(fd);
	long long r = -1;
	int e = 0;

	if (!v)
		return __real_listen(fd, backlog);
	take_role(v, SIDE_SERVER);
	if (runs_here(v))
		r = CALL(__real_listen(v->real, backlog));
	return (int)finish(v, OP_LISTEN, r, e, NULL, 0);
}

int __wrap_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct vfd *v = vget(fd);
	long long r = -1;
	int e = 0;

	if (!v)
		return __real_connect(fd, sa, len);
	take_role(v, SIDE_CLIENT);
	if (runs_here(v))
		r = CALL(__real_connect(v->real, sa, len));
	return (int)finish(v, OP_CONNECT, r, e, NULL, 0);
}

int __wrap_accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
	struct vfd *v = vget(fd);
	socklen_t room = len ? *len : 0;
	struct seg s[2] = { { sa, 0, sa ? room : 0 }, { len, 0, len ? sizeof(*len) : 0 } };
	long long r = -1;
	int e = 0, from, real = -1;

	if (!v)
		return __real_accept4(fd, sa, len, flags);
	from = authority(v);
	if (runs_here(v)) {
		r = CALL(__real_accept4(v->real, sa, len, flags));
		if (r >= 0 && me != from)
			__real_close((int)r);	/* VM 0's copy of an unlistened socket */
		else if (r >= 0)
			real = (int)r;
		s[0].len = r >= 0 && sa && len ? (*len < room ? *len : room) : 0;
		s[1].len = len ? sizeof(*len) : 0;
	}
	r = finish(v, OP_ACCEPT, r, e, s, 2);
	if (r < 0)
		return (int)r;
	return vfd_new(from, real);
}

int __wrap_accept(int fd, struct sockaddr *sa, socklen_t *len)
{
	if (!vget(fd))
		return __real_accept(fd, sa, len);
	return __wrap_accept4(fd, sa, len, 0);
}

ssize_t __wrap_sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *sa, socklen_t alen)
{
	struct vfd *v = vget(fd);

	if (!v)
		return __real_sendto(fd, buf, len, flags, sa, alen);
	return SENDING_CALL(v, OP_SEND, __real_sendto(v->real, buf, len, flags, sa, alen));
}

ssize_t __wrap_send(int fd, const void *buf, size_t len, int flags)
{
	struct vfd *v = vget(fd);

	if (!v)
		return __real_send(fd, buf, len, flags);
	return SENDING_CALL(v, OP_SEND, __real_send(v->real, buf, len, flags));
}

ssize_t __wrap_write(int fd, const void *buf, size_t len)
{
	struct vfd *v = vget(fd);

	if (!v)
		return __real_write(fd, buf, len);
	return SENDING_CALL(v, OP_SEND, __real_write(v->real, buf, len));
}

ssize_t __wrap_writev(int fd, const struct iovec *iov, int n)
{
	struct vfd *v = vget(fd);

	if (!v)
		return __real_writev(fd, iov, n);
	return SENDING_CALL(v, OP_SENDMSG, __real_writev(v->real, iov, n));
}

ssize_t __wrap_sendmsg(int fd, const struct msghdr *mh, int flags)
{
	struct vfd *v = vget(fd);

	if (!v)
		return __real_sendmsg(fd, mh, flags);
	return SENDING_CALL(v, OP_SENDMSG, __real_sendmsg(v->real, mh, flags));
}

static ssize_t recv_common(struct vfd *v, void *buf, size_t len, int flags, int use_read,
			   struct sockaddr *sa, socklen_t *alen)
{
	socklen_t room = alen ? *alen : 0;
	struct seg s[3] = { { buf, 0, buf ? len : 0 }, { sa, 0, sa ? room : 0 },
			    { alen, alen ? sizeof(*alen) : 0, alen ? sizeof(*alen) : 0 } };
	long long r = -1;
	int e = 0;

	if (runs_here(v)) {
		if (use_read)
			r = CALL(__real_read(v->real, buf, len));
		else
			r = CALL(__real_recvfrom(v->real, buf, len, flags, sa, alen));
		/* MSG_TRUNC returns a count but copies nothing. */
		s[0].len = r > 0 && buf && !(flags & MSG_TRUNC) ? ((size_t)r < len ? (size_t)r : len) : 0;
		s[1].len = sa && alen ? (*alen < room ? *alen : room) : 0;
	}
	return finish(v, OP_RECV, r, e, s, 3);
}

ssize_t __wrap_recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *sa,
			socklen_t *alen)
{
	struct vfd *v = vget(fd);

	if (!v)
		return __real_recvfrom(fd, buf, len, flags, sa, alen);
	return recv_common(v, buf, len, flags, 0, sa, alen);
}

ssize_t __wrap_recv(int fd, void *buf, size_t len, int flags)
{
	struct vfd *v = vget(fd);

	if (!v)
		return __real_recv(fd, buf, len, flags);
	return recv_common(v, buf, len, flags, 0, NULL, NULL);
}

ssize_t __wrap_read(int fd, void *buf, size_t len)
{
	struct vfd *v = vget(fd);

	if (!v)
		return __real_read(fd, buf, len);
	return recv_common(v, buf, len, 0, 1, NULL, NULL);
}

/* Scatter n bytes of flat into iov[] (the receiving side of readv/recvmsg). */
static void scatter(const struct iovec *iov, size_t niov, const char *flat, size_t n)
{
	for (size_t i = 0; i < niov && n; i++) {
		size_t c = iov[i].iov_len < n ? iov[i].iov_len : n;

		memcpy(iov[i].iov_base, flat, c);
		flat += c;
		n -= c;
	}
}

static size_t gather(const struct iovec *iov, size_t niov, char *flat, size_t n)
{
	size_t done = 0;

	for (size_t i = 0; i < niov && done < n; i++) {
		size_t c = iov[i].iov_len < n - done ? iov[i].iov_len : n - done;

		memcpy(flat + done, iov[i].iov_base, c);
		done += c;
	}
	return done;
}

static size_t iov_total(const struct iovec *iov, size_t n)
{
	size_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

ssize_t __wrap_recvmsg(int fd, struct msghdr *mh, int flags)
{
	struct vfd *v = vget(fd);
	size_t room;
	char *flat;
	long long r = -1;
	int e = 0;

	if (!v)
		return __real_recvmsg(fd, mh, flags);
	room = iov_total(mh->msg_iov, mh->msg_iovlen);
	flat = malloc(room ? room : 1);
	if (!flat)
		die("out of memory");
	{
		struct seg s[5] = {
			{ flat, 0, room }, { mh->msg_name, 0, mh->msg_namelen },
			{ &mh->msg_namelen, sizeof(mh->msg_namelen), sizeof(mh->msg_namelen) },
			{ mh->msg_control, 0, mh->msg_controllen },
			{ &mh->msg_controllen, sizeof(mh->msg_controllen), sizeof(mh->msg_controllen) },
		};
		struct seg f = { &mh->msg_flags, sizeof(mh->msg_flags), sizeof(mh->msg_flags) };
		struct seg all[6];

		if (runs_here(v)) {
			socklen_t nroom = mh->msg_namelen;
			size_t croom = mh->msg_controllen;

			r = CALL(__real_recvmsg(v->real, mh, flags));
			s[0].len = r > 0 ? gather(mh->msg_iov, mh->msg_iovlen, flat, (size_t)r) : 0;
			s[1].len = mh->msg_name ? (mh->msg_namelen < nroom ? mh->msg_namelen : nroom) : 0;
			s[3].len = mh->msg_control ? (mh->msg_controllen < croom ? mh->msg_controllen : croom) : 0;
		}
		memcpy(all, s, sizeof(s));
		all[5] = f;
		r = finish(v, OP_RECVMSG, r, e, all, 6);
		e = errno;
		if (authority(v) != me && all[0].len)
			scatter(mh->msg_iov, mh->msg_iovlen, flat, all[0].len);
	}
	free(flat);
	errno = e;
	return r;
}

ssize_t __wrap_readv(int fd, const struct iovec *iov, int n)
{
	struct vfd *v = vget(fd);
	size_t room;
	char *flat;
	long long r = -1;
	int e = 0;

	if (!v)
		return __real_readv(fd, iov, n);
	room = iov_total(iov, (size_t)n);
	flat = malloc(room ? room : 1);
	if (!flat)
		die("out of memory");
	{
		struct seg s = { flat, 0, room };

		if (runs_here(v)) {
			r = CALL(__real_readv(v->real, iov, n));
			s.len = r > 0 ? gather(iov, (size_t)n, flat, (size_t)r) : 0;
		}
		r = finish(v, OP_READV, r, e, &s, 1);
		e = errno;
		if (authority(v) != me && s.len)
			scatter(iov, (size_t)n, flat, s.len);
	}
	free(flat);
	errno = e;
	return r;
}

static void ep_forget(int fd);

int __wrap_close(int fd)
{
	struct vfd *v = vget(fd);
	long long r = -1;
	int e = 0;

	if (!v)
		return __real_close(fd);
	if (v->real >= 0)
		r = CALL(__real_close(v->real));
	r = finish(v, OP_CLOSE, r, e, NULL, 0);
	e = errno;
	v->used = 0;
	v->real = -1;
	ep_forget(fd);
	errno = e;
	return (int)r;
}

int __wrap_shutdown(int fd, int how)
{
	struct vfd *v = vget(fd);
	long long r = -1;
	int e = 0;

	if (!v)
		return __real_shutdown(fd, how);
	if (runs_here(v))
		r = CALL(__real_shutdown(v->real, how));
	return (int)finish(v, OP_SHUTDOWN, r, e, NULL, 0);
}

int __wrap_setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	struct vfd *v = vget(fd);
	long long r = -1;
	int e = 0;

	if (!v)
		return __real_setsockopt(fd, level, name, val, len);
	if (runs_here(v))
		r = CALL(__real_setsockopt(v->real, level, name, val, len));
	return (int)finish(v, OP_SETSOCKOPT, r, e, NULL, 0);
}

/* getsockopt, getsockname, getpeername: an object and its length back. */
static int get_common(struct vfd *v, uint32_t op, int level, int name, void *val,
		      socklen_t *len)
{
	socklen_t room = len ? *len : 0;
	struct seg s[2] = { { val, 0, val ? room : 0 },
			    { len, len ? sizeof(*len) : 0, len ? sizeof(*len) : 0 } };
	long long r = -1;
	int e = 0;

	if (runs_here(v)) {
		if (op == OP_GETSOCKOPT)
			r = CALL(__real_getsockopt(v->real, level, name, val, len));
		else if (op == OP_GETSOCKNAME)
			r = CALL(__real_getsockname(v->real, val, len));
		else
			r = CALL(__real_getpeername(v->real, val, len));
		s[0].len = r == 0 && val && len ? (*len < room ? *len : room) : 0;
	}
	return (int)finish(v, op, r, e, s, 2);
}

int __wrap_getsockopt(int fd, int level, int name, void *val, socklen_t *len)
{
	struct vfd *v = vget(fd);

	if (!v)
		return __real_getsockopt(fd, level, name, val, len);
	return get_common(v, OP_GETSOCKOPT, level, name, val, len);
}

int __wrap_getsockname(int fd, struct sockaddr *sa, socklen_t *len)
{
	struct vfd *v = vget(fd);

	if (!v)
		return __real_getsockname(fd, sa, len);
	return get_common(v, OP_GETSOCKNAME, 0, 0, sa, len);
}

int __wrap_getpeername(int fd, struct sockaddr *sa, socklen_t *len)
{
	struct vfd *v = vget(fd);

	if (!v)
		return __real_getpeername(fd, sa, len);
	return get_common(v, OP_GETPEERNAME, 0, 0, sa, len);
}

int __wrap_fcntl(int fd, int cmd, ...)
{
	struct vfd *v = vget(fd);
	long arg;
	long long r = -1;
	int e = 0;
	va_list ap;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	if (!v)
		return __real_fcntl(fd, cmd, arg);
	if (cmd != F_GETFL && cmd != F_SETFL && cmd != F_GETFD && cmd != F_SETFD)
		unsplittable("fcntl command on a socket of the other VM (signals, locks and "
			     "owners belong to one process)");
	if (runs_here(v))
		r = CALL(__real_fcntl(v->real, cmd, arg));
	return (int)finish(v, OP_FCNTL, r, e, NULL, 0);
}

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	struct vfd *v = vget(fd);
	void *arg;
	long long r = -1;
	int e = 0;
	va_list ap;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!v)
		return __real_ioctl(fd, req, arg);
	switch (req) {
	case SIOCINQ: case SIOCOUTQ: case SIOCOUTQNSD: case SIOCATMARK: case FIONBIO: {
		/* All of these read or write one int. */
		struct seg s = { arg, sizeof(int), sizeof(int) };

		if (runs_here(v))
			r = CALL(__real_ioctl(v->real, req, arg));
		return (int)finish(v, OP_IOCTL, r, e, &s, 1);
	}
	default:
		unsplittable("an ioctl this mirror does not know");
	}
}

int __wrap_poll(struct pollfd *pfd, nfds_t n, int ms)
{
	struct pollfd local[16];
	struct vfd *v = NULL;
	int owner = -1, reals = 0;
	struct seg s = { NULL, 0, 0 };
	long long r = -1;
	int e = 0;

	for (nfds_t i = 0; i < n; i++) {
		struct vfd *x = vget(pfd[i].fd);

		if (!x) {
			reals++;
			continue;
		}
		if (owner >= 0 && x->owner != owner)
			unsplittable("poll over sockets of both VMs at once");
		owner = x->owner;
		v = x;
	}
	if (!v)
		return __real_poll(pfd, n, ms);
	if (reals || n > 16)
		unsplittable("poll over a socket of one VM and a local descriptor");
	for (nfds_t i = 0; i < n; i++) {
		local[i] = pfd[i];
		local[i].fd = vget(pfd[i].fd)->real;
	}
	if (runs_here(v)) {
		r = CALL(__real_poll(local, n, ms));
		for (nfds_t i = 0; i < n; i++)
			pfd[i].revents = local[i].revents;
	}
	s.p = pfd;
	s.len = s.room = n * sizeof(*pfd);
	return (int)finish(v, OP_POLL, r, e, &s, 1);
}

/* The one owner of the virtual descriptors among fds[] (n), or -1 if none; skips if several. */
static int one_owner(const int *fds, size_t n, int *reals)
{
	int owner = -1;

	*reals = 0;
	for (size_t i = 0; i < n; i++) {
		struct vfd *x = vget(fds[i]);

		if (!x) {
			(*reals)++;
			continue;
		}
		if (owner >= 0 && x->owner != owner)
			unsplittable("waiting on sockets of both VMs at once");
		owner = x->owner;
	}
	return owner;
}

int __wrap_select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv)
{
	fd_set *sets[3] = { rd, wr, ex }, real[3];
	int fds[64], n = 0, reals, owner, top = 0;
	struct seg s[4];
	struct vfd probe;
	long long r = -1;
	int e = 0;

	if (!mirror_active() || nfds <= MIRROR_VFD_BASE)
		return __real_select(nfds, rd, wr, ex, tv);
	for (int fd = 0; fd < nfds && fd < FD_SETSIZE; fd++)
		for (int k = 0; k < 3; k++)
			if (sets[k] && FD_ISSET(fd, sets[k]) && n < 64 &&
			    (n == 0 || fds[n - 1] != fd))
				fds[n++] = fd;
	owner = one_owner(fds, (size_t)n, &reals);
	if (owner < 0)
		return __real_select(nfds, rd, wr, ex, tv);
	if (reals)
		unsplittable("select over a socket of one VM and a local descriptor");
	probe.owner = owner;
	if (runs_here(&probe)) {
		for (int k = 0; k < 3; k++) {
			FD_ZERO(&real[k]);
			for (int i = 0; i < n; i++) {
				int rfd = vget(fds[i])->real;

				if (sets[k] && FD_ISSET(fds[i], sets[k])) {
					FD_SET(rfd, &real[k]);
					top = rfd + 1 > top ? rfd + 1 : top;
				}
			}
		}
		r = CALL(__real_select(top, rd ? &real[0] : NULL, wr ? &real[1] : NULL,
				       ex ? &real[2] : NULL, tv));
		for (int k = 0; k < 3; k++) {
			if (!sets[k])
				continue;
			for (int i = 0; i < n; i++)
				if (!FD_ISSET(vget(fds[i])->real, &real[k]))
					FD_CLR(fds[i], sets[k]);
		}
	}
	for (int k = 0; k < 3; k++)
		s[k] = (struct seg){ sets[k], sets[k] ? sizeof(fd_set) : 0,
				     sets[k] ? sizeof(fd_set) : 0 };
	s[3] = (struct seg){ tv, tv ? sizeof(*tv) : 0, tv ? sizeof(*tv) : 0 };
	return (int)finish(&probe, OP_POLL, r, e, s, 4);
}

/*
 * epoll: an instance is a local descriptor on both sides; the sockets added
 * to it say which VM waits on it (all of them must live on one VM).
 */
#define EP_MAX 8
#define EP_MEMBERS 128
static struct {
	int ep, n;
	int member[EP_MEMBERS];
} eps[EP_MAX];

static int ep_find(int ep, int create)
{
	for (int i = 0; i < EP_MAX; i++)
		if (eps[i].n && eps[i].ep == ep)
			return i;
	if (!create)
		return -1;
	for (int i = 0; i < EP_MAX; i++)
		if (!eps[i].n) {
			eps[i].ep = ep;
			return i;
		}
	unsplittable("more epoll instances than the mirror follows");
}

/* A closed socket leaves every instance (its number may come back). */
static void ep_forget(int fd)
{
	for (int i = 0; i < EP_MAX; i++)
		for (int k = 0; k < eps[i].n; k++)
			if (eps[i].member[k] == fd)
				eps[i].member[k] = -1;
}

int __wrap_epoll_ctl(int ep, int op, int fd, struct epoll_event *ev)
{
	struct vfd *v = vget(fd);
	long long r = -1;
	int e = 0, i;

	if (!v)
		return __real_epoll_ctl(ep, op, fd, ev);
	i = ep_find(ep, 1);
	if (op == EPOLL_CTL_ADD && eps[i].n < EP_MEMBERS)
		eps[i].member[eps[i].n++] = fd;
	if (runs_here(v))
		r = CALL(__real_epoll_ctl(ep, op, v->real, ev));
	return (int)finish(v, OP_EPOLL_CTL, r, e, NULL, 0);
}

int __wrap_epoll_wait(int ep, struct epoll_event *out, int max, int ms)
{
	int i = mirror_active() ? ep_find(ep, 0) : -1, reals, owner;
	struct seg s;
	struct vfd probe;
	long long r = -1;
	int e = 0, live[EP_MEMBERS], n = 0;

	if (i < 0)
		return __real_epoll_wait(ep, out, max, ms);
	for (int k = 0; k < eps[i].n; k++)
		if (vget(eps[i].member[k]))
			live[n++] = eps[i].member[k];
	owner = one_owner(live, (size_t)n, &reals);
	if (owner < 0)
		return __real_epoll_wait(ep, out, max, ms);
	probe.owner = owner;
	if (runs_here(&probe))
		r = CALL(__real_epoll_wait(ep, out, max, ms));
	s = (struct seg){ out, r > 0 ? (size_t)r * sizeof(*out) : 0, (size_t)max * sizeof(*out) };
	return (int)finish(&probe, OP_POLL, r, e, &s, 1);
}

int __wrap_epoll_create1(int flags)
{
	int ep = __real_epoll_create1(flags), i;

	if (ep >= 0 && mirror_active() && (i = ep_find(ep, 0)) >= 0)
		eps[i].n = 0;	/* a descriptor number used again */
	return ep;
}

ssize_t __wrap_splice(int in, loff_t *oin, int out, loff_t *oout, size_t len, unsigned int fl)
{
	if (vget(in) || vget(out))
		unsplittable("splice between a local pipe and a socket (not mirrored)");
	return __real_splice(in, oin, out, oout, len, fl);
}

ssize_t __wrap_sendfile(int out, int in, off_t *off, size_t len)
{
	if (vget(in) || vget(out))
		unsplittable("sendfile between a local file and a socket (not mirrored)");
	return __real_sendfile(out, in, off, len);
}

/*
 * fork in a case: both sides fork; each child gets a control connection of
 * its own (the parent may make calls while the child does), so the two
 * children and the two parents stay paired.
 */
pid_t __wrap_fork(void)
{
	pid_t pid;

	if (!mirror_active() || chan < 0)
		return __real_fork();
	forks++;
	pid = __real_fork();
	if (pid != 0)
		return pid;
	__real_close(chan);
	chan = -1;
	if (me == SIDE_SERVER)
		chan = server_accept(HELLO_FORK, tap_case_number(), forks);
	else
		chan = client_connect(HELLO_FORK);
	seq = 0;
	forks = 0;
	return 0;
}

/* ---- hooks for diff.c and tap.c ---- */

int mirror_sd_find_fd(int fd, struct sd_sock *sd)
{
	struct vfd *v = vget(fd);
	struct seg s = { sd, sizeof(*sd), sizeof(*sd) };
	long long r = -ENOENT;
	int e = 0;

	if (!v)
		return sd_find_fd(fd, sd);
	if (runs_here(v))
		r = sd_find_fd(v->real, sd);
	return (int)finish(v, OP_SOCK_DIAG, r, e, &s, 1);
}

void mirror_exchange(const void *mine, void *theirs, size_t len)
{
	struct msg m = { .seq = seq, .op = OP_EXCHANGE, .ret = (int64_t)len };
	struct msg o;

	need_chan();
	put(&m, sizeof(m));
	put(mine, len);
	get(&o, sizeof(o));
	if (o.seq != seq || o.op != OP_EXCHANGE || o.ret != (int64_t)len)
		die("the VMs diverged: call %u is an exchange of %zu bytes here, call %u %s on the other",
		    seq, len, o.seq, op_name(o.op));
	get(theirs, len);
	seq++;
}

long long mirror_agree(long long v)
{
	long long theirs;

	mirror_exchange(&v, &theirs, sizeof(v));
	return me == SIDE_CLIENT ? v : theirs;
}

int mirror_tap_run(void)
{
	struct sockaddr_in sin;
	unsigned int served = 0, failed = 0;

	if (!mirror_active() || me != SIDE_SERVER)
		return -1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (ctl_addr(&sin)) {
		printf("Bail out! SMC_MIRROR_CTL is not ADDR:PORT\n");
		return 1;
	}
	lsock = __real_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lsock < 0 ||
	    __real_setsockopt(lsock, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int)) ||
	    __real_bind(lsock, (struct sockaddr *)&sin, sizeof(sin)) ||
	    __real_listen(lsock, 16)) {
		printf("Bail out! control listener on %s: %s\n", getenv("SMC_MIRROR_CTL"),
		       strerror(errno));
		return 1;
	}
	printf("# mirror server: VM 1's half of every case VM 0 starts\n");
	if (getenv("SMC_MIRROR_READY")) {
		FILE *fp = fopen(getenv("SMC_MIRROR_READY"), "w");

		if (fp)
			fclose(fp);
	}
	for (;;) {
		struct hello h;
		const char *d;
		int fd = __real_accept4(lsock, NULL, NULL, SOCK_CLOEXEC), rc;

		if (fd < 0) {
			printf("Bail out! accept: %s\n", strerror(errno));
			return 1;
		}
		if (io_full(fd, &h, sizeof(h), 0) || h.magic != HELLO_MAGIC) {
			__real_close(fd);
			continue;
		}
		h.desc[sizeof(h.desc) - 1] = '\0';
		if (h.kind == HELLO_BYE) {
			__real_close(fd);
			break;
		}
		d = tap_case_description(h.number);
		if (h.kind != HELLO_CASE || !d || strcmp(d, h.desc) != 0) {
			printf("# VM 0 asked for case %u \"%s\": not ours (\"%s\")\n", h.number,
			       h.desc, d ? d : "");
			io_full(fd, "n", 1, 1);
			__real_close(fd);
			continue;
		}
		__real_setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
		if (io_full(fd, "y", 1, 1)) {
			__real_close(fd);
			continue;
		}
		pending = fd;
		rc = tap_run_number(h.number);
		pending = -1;
		__real_close(fd);
		served++;
		failed += rc == 1;
	}
	printf("# mirror server: served %u cases, %u failed here\n", served, failed);
	return failed ? 1 : 0;
}

void mirror_tap_end(void)
{
	struct sockaddr_in sin;
	struct hello h;
	int fd;

	if (!mirror_active() || me != SIDE_CLIENT || ctl_addr(&sin))
		return;
	fd = __real_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	memset(&h, 0, sizeof(h));
	h.magic = HELLO_MAGIC;
	h.kind = HELLO_BYE;
	if (__real_connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0)
		io_full(fd, &h, sizeof(h), 1);
	__real_close(fd);
}
