// SPDX-License-Identifier: GPL-2.0
/*
 * libsmc-preload.so: make an unmodified TCP program use SMC.
 *
 * Loaded with LD_PRELOAD (see smc_run), it interposes socket(): an
 * AF_INET/AF_INET6 SOCK_STREAM socket with protocol 0 or IPPROTO_TCP is
 * created as socket(AF_SMC, SOCK_STREAM | the caller's SOCK_NONBLOCK and
 * SOCK_CLOEXEC flags, SMCPROTO_SMC or SMCPROTO_SMC6) instead, or, as
 * SMC_MODE says, as socket(the same family, the same type and flags,
 * IPPROTO_SMC). Everything else goes to the next socket() unchanged. When
 * the SMC socket cannot be made (module not loaded, LSM, seccomp ...) the
 * original socket is created, so the program keeps working over TCP.
 *
 * Environment, read once on the first socket() call:
 *   SMC_DEBUG   anything but "" or "0": one line on stderr per decision
 *   SMC_SNDBUF  SO_SNDBUF for converted sockets, e.g. 65536, 64k, 1M
 *   SMC_RCVBUF  SO_RCVBUF for converted sockets
 *   SMC_MODE    smc (default), inet or auto (smc_env.h): auto takes
 *               IPPROTO_SMC and, once the kernel refused it as unknown,
 *               AF_SMC for the rest of the process's life (a refused
 *               IPPROTO_SMC costs the kernel two module load attempts)
 *
 * The library loads into arbitrary processes, so it is plain C, has no
 * constructors, allocates nothing and exports nothing but socket().
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <smc/af_smc.h>

#include "smc_env.h"

#define LOG_PREFIX "smc-preload: "

typedef int (*socket_fn)(int domain, int type, int protocol);

struct config {
	socket_fn next_socket;	/* NULL: use the system call directly */
	int debug;
	int sndbuf;		/* 0: leave the kernel's default */
	int rcvbuf;
	enum smc_mode mode;
};

/* auto mode: the kernel answered IPPROTO_SMC as a protocol it does not know. */
static atomic_int inet_unknown;

/*
 * The configuration is computed by whichever thread calls socket() first and
 * published lock-free: a thread that finds it unpublished computes its own
 * copy (dlsym() and getenv() give every thread the same answer) and the one
 * thread that wins the compare-and-swap stores it for everybody else. Nobody
 * ever waits, so there is no deadlock with signal handlers or fork() in a
 * multi-threaded program, unlike with a lock or pthread_once().
 */
enum { CONFIG_NONE, CONFIG_WRITING, CONFIG_READY };
static struct config published;
static atomic_int config_state = CONFIG_NONE;

static void write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/* One line per call, with a single write() so threads do not interleave. */
__attribute__((format(printf, 1, 2)))
static void debug_line(const char *fmt, ...)
{
	char line[512];
	int saved_errno = errno;
	size_t len;
	va_list ap;
	int n;

	n = snprintf(line, sizeof(line), LOG_PREFIX "[%d] ", (int)getpid());
	if (n < 0)
		goto out;
	len = (size_t)n;
	va_start(ap, fmt);
	n = vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	va_end(ap);
	if (n < 0)
		goto out;
	len += (size_t)n;
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	line[len++] = '\n';
	write_all(STDERR_FILENO, line, len);
out:
	errno = saved_errno;
}

static const char *error_text(int err, char *buf, size_t size)
{
#if defined(__GLIBC__)
	return strerror_r(err, buf, size);	/* the GNU variant */
#else
	if (strerror_r(err, buf, size))
		snprintf(buf, size, "error %d", err);
	return buf;
#endif
}

/* Reads the environment and resolves the next socket(); no side effects. */
static void compute_config(struct config *cfg, const char **snd_err,
			   const char **rcv_err, const char **mode_err)
{
	const char *text;

	memset(cfg, 0, sizeof(*cfg));
	*snd_err = *rcv_err = NULL;
	*mode_err = smc_parse_mode(secure_getenv("SMC_MODE"), &cfg->mode);
	cfg->next_socket = (socket_fn)dlsym(RTLD_NEXT, "socket");
	/* secure_getenv(): a set-user-ID program does not take orders from us. */
	cfg->debug = smc_parse_flag(secure_getenv("SMC_DEBUG"));
	text = secure_getenv("SMC_SNDBUF");
	if (text && *text)
		*snd_err = smc_parse_size(text, &cfg->sndbuf);
	text = secure_getenv("SMC_RCVBUF");
	if (text && *text)
		*rcv_err = smc_parse_size(text, &cfg->rcvbuf);
}

static void get_config(struct config *cfg)
{
	const char *snd_err, *rcv_err, *mode_err;
	int expected = CONFIG_NONE;

	if (atomic_load_explicit(&config_state, memory_order_acquire) == CONFIG_READY) {
		*cfg = published;
		return;
	}
	compute_config(cfg, &snd_err, &rcv_err, &mode_err);
	if (!atomic_compare_exchange_strong_explicit(&config_state, &expected,
						     CONFIG_WRITING,
						     memory_order_acq_rel,
						     memory_order_acquire))
		return;	/* another thread publishes the same values */
	published = *cfg;
	atomic_store_explicit(&config_state, CONFIG_READY, memory_order_release);

	/* Only the publishing thread reports, so each problem is told once. */
	if (!cfg->debug)
		return;
	if (!cfg->next_socket)
		debug_line("dlsym(RTLD_NEXT, \"socket\") failed; using the system call");
	if (snd_err)
		debug_line("SMC_SNDBUF='%s' is invalid (%s); ignored",
			   secure_getenv("SMC_SNDBUF"), snd_err);
	else if (cfg->sndbuf)
		debug_line("SMC_SNDBUF=%d for converted sockets", cfg->sndbuf);
	if (rcv_err)
		debug_line("SMC_RCVBUF='%s' is invalid (%s); ignored",
			   secure_getenv("SMC_RCVBUF"), rcv_err);
	else if (cfg->rcvbuf)
		debug_line("SMC_RCVBUF=%d for converted sockets", cfg->rcvbuf);
	if (mode_err)
		debug_line("SMC_MODE='%s' is invalid (%s); smc taken",
			   secure_getenv("SMC_MODE"), mode_err);
}

static int call_socket(const struct config *cfg, int domain, int type, int protocol)
{
	if (cfg->next_socket)
		return cfg->next_socket(domain, type, protocol);
	return (int)syscall(SYS_socket, domain, type, protocol);
}

static const char *domain_name(int domain, char *buf, size_t size)
{
	switch (domain) {
	case AF_UNIX: return "AF_UNIX";
	case AF_INET: return "AF_INET";
	case AF_INET6: return "AF_INET6";
	case AF_NETLINK: return "AF_NETLINK";
	case AF_PACKET: return "AF_PACKET";
	case AF_SMC: return "AF_SMC";
	}
	snprintf(buf, size, "%d", domain);
	return buf;
}

static const char *type_name(int type, char *buf, size_t size)
{
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	const char *name = NULL;

	switch (base) {
	case SOCK_STREAM: name = "SOCK_STREAM"; break;
	case SOCK_DGRAM: name = "SOCK_DGRAM"; break;
	case SOCK_RAW: name = "SOCK_RAW"; break;
	case SOCK_SEQPACKET: name = "SOCK_SEQPACKET"; break;
	}
	if (name)
		snprintf(buf, size, "%s%s%s", name,
			 type & SOCK_NONBLOCK ? "|SOCK_NONBLOCK" : "",
			 type & SOCK_CLOEXEC ? "|SOCK_CLOEXEC" : "");
	else
		snprintf(buf, size, "%#x", (unsigned int)type);
	return buf;
}

static void set_buffer(const struct config *cfg, int fd, int option,
		       const char *option_name, int size)
{
	char err[128];

	if (!size)
		return;
	if (setsockopt(fd, SOL_SOCKET, option, &size, sizeof(size)) == 0) {
		if (cfg->debug)
			debug_line("fd %d: %s %d set", fd, option_name, size);
	} else if (cfg->debug) {
		debug_line("fd %d: setsockopt(%s, %d) failed: %s", fd, option_name,
			   size, error_text(errno, err, sizeof(err)));
	}
}

static int wants_smc(int domain, int type, int protocol)
{
	if (domain != AF_INET && domain != AF_INET6)
		return 0;
	if ((type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC)) != SOCK_STREAM)
		return 0;
	return protocol == 0 || protocol == IPPROTO_TCP;
}

/* The converted socket is ready: its buffer sizes, and errno as it was. */
static int converted(const struct config *cfg, int fd, int saved_errno)
{
	set_buffer(cfg, fd, SO_SNDBUF, "SO_SNDBUF", cfg->sndbuf);
	set_buffer(cfg, fd, SO_RCVBUF, "SO_RCVBUF", cfg->rcvbuf);
	errno = saved_errno;
	return fd;
}

/*
 * socket(domain, type, IPPROTO_SMC) for modes inet and auto; -1 with errno
 * when it failed. In auto mode a kernel that does not know the protocol
 * (EPROTONOSUPPORT) is not asked again.
 */
static int ipproto_smc_socket(const struct config *cfg, int domain, int type)
{
	int fd;

	if (cfg->mode == SMC_MODE_AUTO && atomic_load(&inet_unknown)) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	fd = call_socket(cfg, domain, type, IPPROTO_SMC);
	if (fd < 0 && errno == EPROTONOSUPPORT && cfg->mode == SMC_MODE_AUTO)
		atomic_store(&inet_unknown, 1);
	return fd;
}

__attribute__((visibility("default")))
int socket(int domain, int type, int protocol)
{
	char dbuf[16], tbuf[64], sbuf[64], err[128];
	const char *why = "";
	int saved_errno = errno;
	struct config cfg;
	int smc_type, smc_proto, fd;

	get_config(&cfg);
	if (!wants_smc(domain, type, protocol)) {
		fd = call_socket(&cfg, domain, type, protocol);
		if (cfg.debug)
			debug_line("socket(%s, %s, %d): not TCP, untouched = %d",
				   domain_name(domain, dbuf, sizeof(dbuf)),
				   type_name(type, tbuf, sizeof(tbuf)), protocol, fd);
		return fd;
	}

	smc_type = SOCK_STREAM | (type & (SOCK_NONBLOCK | SOCK_CLOEXEC));
	if (cfg.mode != SMC_MODE_SMC) {
		fd = ipproto_smc_socket(&cfg, domain, smc_type);
		if (fd >= 0) {
			if (cfg.debug)
				debug_line("socket(%s, %s, %d): converted to socket(%s, %s, IPPROTO_SMC) = %d",
					   domain_name(domain, dbuf, sizeof(dbuf)),
					   type_name(type, tbuf, sizeof(tbuf)), protocol,
					   domain_name(domain, dbuf, sizeof(dbuf)),
					   type_name(smc_type, sbuf, sizeof(sbuf)), fd);
			return converted(&cfg, fd, saved_errno);
		}
		/* inet: the fallback's line below says why. */
		if (cfg.mode == SMC_MODE_INET)
			goto original;
		if (cfg.debug)
			debug_line("socket(%s, %s, %d): IPPROTO_SMC failed (%s), trying AF_SMC",
				   domain_name(domain, dbuf, sizeof(dbuf)),
				   type_name(type, tbuf, sizeof(tbuf)), protocol,
				   error_text(errno, err, sizeof(err)));
	}
	smc_proto = domain == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC;
	fd = call_socket(&cfg, AF_SMC, smc_type, smc_proto);
	if (fd >= 0) {
		if (cfg.debug)
			debug_line("socket(%s, %s, %d): converted to socket(AF_SMC, %s, %s) = %d",
				   domain_name(domain, dbuf, sizeof(dbuf)),
				   type_name(type, tbuf, sizeof(tbuf)), protocol,
				   type_name(smc_type, sbuf, sizeof(sbuf)),
				   smc_proto == SMCPROTO_SMC6 ? "SMCPROTO_SMC6" : "SMCPROTO_SMC",
				   fd);
		return converted(&cfg, fd, saved_errno);
	}
original:
	/*
	 * Whatever the reason, the original call decides: if it fails too (say
	 * EMFILE) the program sees the errno it would have seen without us.
	 */
	if (cfg.debug)
		why = error_text(errno, err, sizeof(err));
	fd = call_socket(&cfg, domain, type, protocol);
	if (cfg.debug)
		debug_line("socket(%s, %s, %d): %s failed (%s), fallback to the original socket = %d",
			   domain_name(domain, dbuf, sizeof(dbuf)),
			   type_name(type, tbuf, sizeof(tbuf)), protocol,
			   cfg.mode == SMC_MODE_INET ? "IPPROTO_SMC" : "AF_SMC", why, fd);
	if (fd >= 0)
		errno = saved_errno;
	return fd;
}
