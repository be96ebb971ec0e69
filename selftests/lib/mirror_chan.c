// SPDX-License-Identifier: GPL-2.0
/*
 * mirror_chan.c: the control connection of mirrored execution (mirror.h):
 * greeting a case or a fork, the answer of each call, the exchanges diff.c
 * makes, and VM 1's loop that serves the cases VM 0 starts.
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
#include <pthread.h>
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

int mr_me = -2;			/* -2: not read yet */
/* Per thread: a thread of a case has a control connection of its own. */
__thread int mr_chan = -1;
static int pending = -1;	/* server: the connection the next case takes */
static int lsock = -1;		/* server: the control listener */
static int flsock = -1;		/* server: the listener for forks and threads */
static __thread uint32_t seq;	/* calls so far on mr_chan */
static uint32_t forks;		/* forks so far in this case */

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
	if (mr_me == -2) {
		const char *m = getenv("SMC_MIRROR");

		if (m && strcmp(m, "client") == 0)
			mr_me = SIDE_CLIENT;
		else if (m && strcmp(m, "server") == 0)
			mr_me = SIDE_SERVER;
		else
			mr_me = -1;
	}
	return mr_me >= 0;
}

int mirror_side(void)
{
	return mirror_active() ? mr_me : 0;
}


void mr_die(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	tap_fail("mirror (VM %d): %s", mr_me, buf);
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
	if (io_full(mr_chan, (void *)buf, len, 1))
		mr_die("the control connection broke while sending (the other VM ended the case)");
}

static void get(void *buf, size_t len)
{
	if (io_full(mr_chan, buf, len, 0))
		mr_die("the control connection broke while receiving (the other VM ended the case: see its log)");
}

static void hello_fill(struct hello *h, uint32_t kind, uint32_t fork)
{
	const char *d = tap_case_description(tap_case_number());

	memset(h, 0, sizeof(*h));
	h->magic = HELLO_MAGIC;
	h->kind = kind;
	h->number = tap_case_number();
	h->fork = fork;
	snprintf(h->desc, sizeof(h->desc), "%s", d ? d : "");
}

/*
 * Client: a new control connection for this case, or for fork or thread
 * number "fork" of it (to the port after the case port), greeted.
 */
static int client_connect(uint32_t kind, uint32_t fork)
{
	struct sockaddr_in sin;
	struct hello h;
	int64_t tries;
	char ack = 0;
	int fd;

	if (ctl_addr(&sin))
		mr_die("SMC_MIRROR_CTL is not ADDR:PORT");
	if (kind != HELLO_CASE)
		sin.sin_port = htons((uint16_t)(ntohs(sin.sin_port) + 1));
	/* VM 1 may still be starting or finishing the previous case: retry. */
	for (tries = 0;; tries++) {
		fd = __real_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			mr_die("socket: %s", strerror(errno));
		if (__real_connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0)
			break;
		__real_close(fd);
		if (tries >= 300)
			mr_die("cannot reach VM 1's control listener: %s", strerror(errno));
		usleep(100000);
	}
	__real_setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	hello_fill(&h, kind, fork);
	if (io_full(fd, &h, sizeof(h), 1) || io_full(fd, &ack, 1, 0) || ack != 'y')
		mr_die("VM 1 refused case %u (fork %u): not the same program and arguments?",
		    h.number, h.fork);
	return fd;
}

/*
 * Server: the next connection on the fork listener whose hello is {kind,
 * number, fork}; others are from children VM 0 already ended.
 */
static int server_accept(uint32_t kind, uint32_t number, uint32_t fork)
{
	for (;;) {
		struct hello h;
		int fd = __real_accept4(flsock, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			mr_die("accept on the control listener: %s", strerror(errno));
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
void mr_need_chan(void)
{
	if (mr_chan >= 0)
		return;
	if (mr_me == SIDE_SERVER) {
		if (pending < 0)
			mr_die("no control connection in this case");
		mr_chan = pending;
		pending = -1;
	} else {
		mr_chan = client_connect(HELLO_CASE, 0);
	}
	seq = 0;
}

static const char *op_name(uint32_t op)
{
	static const char *names[] = { "?", "socket", "bind", "listen", "connect", "accept",
		"send", "recv", "sendmsg", "recvmsg", "readv", "close", "shutdown",
		"setsockopt", "getsockopt", "getsockname", "getpeername", "fcntl", "ioctl",
		"poll", "sock_diag", "exchange", "epoll_ctl", "sendfile" };

	return op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}/*
 * The answer of one call: the side "from" sends {ret, err, sig, segments},
 * the other receives them into its own *ret, *err, *sig and segments (the
 * same buffers of the same call, as both run the same code).
 */
/*
 * Before call "seq": the side that answers it waits until the other side
 * has come to it too. The owner never runs ahead: what the other side
 * observes before a call (a thread still blocked in accept after 200 ms,
 * a timer) happened before the owner's real call, as in one process.
 */
void mr_turn(int from)
{
	uint32_t there;

	mr_need_chan();
	if (from == mr_me) {
		get(&there, sizeof(there));
		if (there != seq)
			mr_die("the VMs diverged: call %u here, call %u on the other VM", seq, there);
	} else {
		put(&seq, sizeof(seq));
	}
}

void mr_sync(int from, uint32_t op, long long *ret, int *err, int *sig,
			struct seg *segs, unsigned int nseg)
{
	struct msg m;

	mr_need_chan();
	memset(&m, 0, sizeof(m));
	if (from == mr_me) {
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
			mr_die("the VMs diverged: call %u is %s here, call %u %s on VM %d",
			    seq, op_name(op), m.seq, op_name(m.op), from);
		for (unsigned int i = 0; i < nseg; i++) {
			if (m.seglen[i] > segs[i].room)
				mr_die("%s: %u bytes from VM %d for %zu of room", op_name(op),
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


/*
 * fork in a case: both sides fork; each child gets a control connection of
 * its own (the parent may make calls while the child does), so the two
 * children and the two parents stay paired.
 */
pid_t __wrap_fork(void)
{
	pid_t pid;

	if (!mirror_active() || mr_chan < 0)
		return __real_fork();
	forks++;
	pid = __real_fork();
	if (pid != 0)
		return pid;
	__real_close(mr_chan);
	mr_chan = -1;
	if (mr_me == SIDE_SERVER)
		mr_chan = server_accept(HELLO_FORK, tap_case_number(), forks);
	else
		mr_chan = client_connect(HELLO_FORK, forks);
	seq = 0;
	forks = 0;
	return 0;
}

/*
 * A thread of a case (a call that blocks in one thread while another makes
 * calls): both sides start it; it greets the other side's thread of the
 * same number over a control connection of its own before it runs.
 */
struct tramp {
	void *(*fn)(void *);
	void *arg;
	uint32_t number;
};

static void *tramp_run(void *p)
{
	struct tramp t = *(struct tramp *)p;

	free(p);
	mr_chan = -1;
	if (mr_me == SIDE_SERVER)
		mr_chan = server_accept(HELLO_FORK, tap_case_number(), t.number);
	else
		mr_chan = client_connect(HELLO_FORK, t.number);
	seq = 0;
	return t.fn(t.arg);
}

int __wrap_pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
			  void *arg)
{
	struct tramp *t;

	if (!mirror_active() || mr_chan < 0)
		return __real_pthread_create(th, attr, fn, arg);
	t = malloc(sizeof(*t));
	if (!t)
		return ENOMEM;
	*t = (struct tramp){ fn, arg, ++forks };
	return __real_pthread_create(th, attr, tramp_run, t);
}
void mirror_exchange(const void *mine, void *theirs, size_t len)
{
	struct msg m = { .seq = seq, .op = OP_EXCHANGE, .ret = (int64_t)len };
	struct msg o;

	mr_need_chan();
	put(&m, sizeof(m));
	put(mine, len);
	get(&o, sizeof(o));
	if (o.seq != seq || o.op != OP_EXCHANGE || o.ret != (int64_t)len)
		mr_die("the VMs diverged: call %u is an exchange of %zu bytes here, call %u %s on the other",
		    seq, len, o.seq, op_name(o.op));
	get(theirs, len);
	seq++;
}

long long mirror_agree(long long v)
{
	long long theirs;

	mirror_exchange(&v, &theirs, sizeof(v));
	return mr_me == SIDE_CLIENT ? v : theirs;
}

int mirror_tap_run(void)
{
	struct sockaddr_in sin;
	unsigned int served = 0, failed = 0;

	if (!mirror_active() || mr_me != SIDE_SERVER)
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
	sin.sin_port = htons((uint16_t)(ntohs(sin.sin_port) + 1));
	flsock = __real_socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (flsock < 0 ||
	    __real_setsockopt(flsock, SOL_SOCKET, SO_REUSEADDR, &(int){ 1 }, sizeof(int)) ||
	    __real_bind(flsock, (struct sockaddr *)&sin, sizeof(sin)) ||
	    __real_listen(flsock, 16)) {
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

	if (!mirror_active() || mr_me != SIDE_CLIENT || ctl_addr(&sin))
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
