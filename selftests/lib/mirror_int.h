/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mirror_int.h: what lib/mirror.c (the wrapped calls) and lib/mirror_chan.c
 * (the control connection) share. See mirror.h.
 */
#ifndef SMC_SELFTESTS_MIRROR_INT_H
#define SMC_SELFTESTS_MIRROR_INT_H

#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

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
int __real_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

enum { SIDE_CLIENT = 0, SIDE_SERVER = 1, SIDE_BOTH = 2 };

extern int mr_me;		/* SIDE_CLIENT or SIDE_SERVER; -1: not mirroring */
extern __thread int mr_chan;	/* this thread's control connection, or -1 */

enum { OP_SOCKET = 1, OP_BIND, OP_LISTEN, OP_CONNECT, OP_ACCEPT, OP_SEND, OP_RECV,
       OP_SENDMSG, OP_RECVMSG, OP_READV, OP_CLOSE, OP_SHUTDOWN, OP_SETSOCKOPT,
       OP_GETSOCKOPT, OP_GETSOCKNAME, OP_GETPEERNAME, OP_FCNTL, OP_IOCTL, OP_POLL,
       OP_SOCK_DIAG, OP_EXCHANGE, OP_EPOLL_CTL, OP_SENDFILE };
struct seg {
	void *p;
	size_t len;	/* the sender's bytes to send; the receiver's bytes received */
	size_t room;	/* the size of the buffer at p */
};

void mr_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* The control connection of this case; made at its first mirrored call. */
void mr_need_chan(void);
/* Meet the other side before a call whose answer "from" gives. */
void mr_turn(int from);
void mr_sync(int from, uint32_t op, long long *ret, int *err, int *sig,
	     struct seg *segs, unsigned int nseg);

#endif
