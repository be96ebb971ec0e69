// SPDX-License-Identifier: GPL-2.0
/*
 * mirror.c: mirrored execution across two VMs (mirror.h): the table of
 * virtual descriptors and the wrapped socket calls.
 *
 * Linked into the differential programs with --wrap=CALL for every call
 * defined here as __wrap_CALL (selftests/CMakeLists.txt).
 */
#define _GNU_SOURCE
#include "mirror.h"
#include "mirror_int.h"

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

/*
 * The table is the same on both sides because both make the same calls in
 * the same order. It takes no lock: a case's threads (pthread_create) make
 * their calls while the other threads wait on a timer or a join, as in
 * accept's blocked-accept case; cases whose threads create sockets at the
 * same moment are not supported.
 */
#define VFD_MAX 256
static struct vfd {
	int used;
	int owner;	/* SIDE_* */
	int real;	/* this side's socket, or -1 */
} vt[VFD_MAX];
/* ---- the table ---- */

static struct vfd *vget(int fd)
{
	if (mr_me < 0 || fd < MIRROR_VFD_BASE || fd >= MIRROR_VFD_BASE + VFD_MAX)
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
	mr_die("more than %d mirrored sockets", VFD_MAX);
}

/*
 * Whether this side makes the real call of the call about to be made, and
 * whose answer counts. Called exactly once per call, just before it: this
 * is where both sides meet (mr_turn()), so the owner makes its real call
 * only once the other side has come to the same call.
 */
static int runs_here(const struct vfd *v)
{
	int here = v->owner == SIDE_BOTH || v->owner == mr_me;

	mr_turn(v->owner == SIDE_BOTH ? SIDE_SERVER : v->owner);
	return here;
}

static int authority(const struct vfd *v)
{
	return v->owner == SIDE_BOTH ? SIDE_SERVER : v->owner;
}
/* The common tail of a call on a virtual descriptor: sync, set errno. */
static long long finish(const struct vfd *v, uint32_t op, long long ret, int err,
			struct seg *segs, unsigned int nseg)
{
	mr_sync(authority(v), op, &ret, &err, NULL, segs, nseg);
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
		mr_sync(authority(v), op, &r_, &e, &s_, NULL, 0);         \
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
	mr_sync(SIDE_SERVER, OP_SOCKET, &r, &e, NULL, NULL, 0);
	if (r < 0) {
		if (fd >= 0)
			__real_close(fd);
		errno = e;
		return -1;
	}
	if (fd < 0)
		mr_die("socket(%d, %d, %d) works on VM 1, not here: %s", domain, type, protocol,
		    strerror(errno));
	return vfd_new(SIDE_BOTH, fd);
}

/*
 * VM 0's copy of a socket binds VM 0's address where VM 1's binds its own
 * ($SMC_TEST_LOCAL4/6, "this host" in lib/family.c, is VM 1's).
 */
static const struct sockaddr *local_addr(const struct sockaddr *sa, socklen_t len,
					 struct sockaddr_storage *tmp)
{
	int v6 = sa && sa->sa_family == AF_INET6;
	const char *srv = getenv(v6 ? "SMC_TEST_LOCAL6" : "SMC_TEST_LOCAL4");
	const char *cli = getenv(v6 ? "SMC_MIRROR_CLIENT6" : "SMC_MIRROR_CLIENT4");
	unsigned char s[16], c[16];
	void *a;

	if (mr_me != SIDE_CLIENT || !sa || !srv || !cli || len > sizeof(*tmp) ||
	    (sa->sa_family != AF_INET && !v6) ||
	    len < (v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in)) ||
	    inet_pton(sa->sa_family, srv, s) != 1 || inet_pton(sa->sa_family, cli, c) != 1)
		return sa;
	memcpy(tmp, sa, len);
	a = v6 ? (void *)&((struct sockaddr_in6 *)tmp)->sin6_addr
	       : (void *)&((struct sockaddr_in *)tmp)->sin_addr;
	if (memcmp(a, s, v6 ? 16 : 4) != 0)
		return sa;
	memcpy(a, c, v6 ? 16 : 4);
	return (const struct sockaddr *)tmp;
}

int __wrap_bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct vfd *v = vget(fd);
	struct sockaddr_storage tmp;
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
	if (owner != mr_me && v->real >= 0) {
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
		if (r >= 0 && mr_me != from)
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
		mr_die("out of memory");
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
		if (authority(v) != mr_me && all[0].len)
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
		mr_die("out of memory");
	{
		struct seg s = { flat, 0, room };

		if (runs_here(v)) {
			r = CALL(__real_readv(v->real, iov, n));
			s.len = r > 0 ? gather(iov, (size_t)n, flat, (size_t)r) : 0;
		}
		r = finish(v, OP_READV, r, e, &s, 1);
		e = errno;
		if (authority(v) != mr_me && s.len)
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
	if (runs_here(v) && v->real >= 0)
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

/*
 * sendfile from a local file: the case made the same file on both VMs, so
 * the socket's owner sends from its copy; the offset (or the other copy's
 * file position) moves alike on both.
 */
ssize_t __wrap_sendfile(int out, int in, off_t *off, size_t len)
{
	struct vfd *v = vget(out), *vin = vget(in);
	struct seg s = { off, off ? sizeof(*off) : 0, off ? sizeof(*off) : 0 };
	struct pipe_guard g;
	long long r = -1;
	int e = 0, sig = 0;

	if (!v && !vin)
		return __real_sendfile(out, in, off, len);
	if (v && vin)
		unsplittable("sendfile between two sockets (not mirrored)");
	if (vin) {
		/* Into a local file: fails on a socket; data would reach one VM only. */
		if (runs_here(vin))
			r = CALL(__real_sendfile(out, vin->real, off, len));
		r = finish(vin, OP_SENDFILE, r, e, &s, 1);
		if (r > 0)
			mr_die("sendfile from a socket wrote %lld bytes into one VM's file", r);
		return r;
	}
	sigpipe_block(&g);
	if (runs_here(v)) {
		r = CALL(__real_sendfile(v->real, in, off, len));
		sig = sigpipe_taken();
	}
	mr_sync(authority(v), OP_SENDFILE, &r, &e, &sig, &s, 1);
	if (authority(v) != mr_me && !off && r > 0)
		lseek(in, (off_t)r, SEEK_CUR);
	sigpipe_replay(&g, sig);
	errno = e;
	return r;
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
