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
 * With a port filter (SMC_PORTS) socket() makes the TCP socket the program
 * asked for, and bind() and connect() decide: a TCP socket bound to a listed
 * port, or connected to one, is first replaced (dup3() onto the same fd) by
 * an SMC socket that carries the options the program set (see carried[]).
 * The port is only known there; replacing the socket before the call keeps
 * the program's view: the same fd, its flags, its options, its local address.
 *
 * Environment, read once on the first socket(), bind() or connect() call:
 *   SMC_DEBUG    anything but "" or "0": one line on stderr per decision
 *   SMC_SNDBUF   SO_SNDBUF for converted sockets, e.g. 65536, 64k, 1M
 *   SMC_RCVBUF   SO_RCVBUF for converted sockets
 *   SMC_MODE     smc (default), inet or auto (smc_env.h): auto takes
 *                IPPROTO_SMC and, once the kernel refused it as unknown,
 *                AF_SMC for the rest of the process's life (a refused
 *                IPPROTO_SMC costs the kernel two module load attempts)
 *   SMC_PORTS    convert only sockets bound or connected to these ports
 *   SMC_PROGRAMS convert only in processes whose program (the executable's
 *                file name, or argv[0]'s last component) is listed
 * A filter that cannot be parsed converts nothing: TCP always works.
 *
 * The library loads into arbitrary processes, so it is plain C, has no
 * constructors, allocates nothing and exports nothing but socket(), bind()
 * and connect().
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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
typedef int (*addr_fn)(int fd, const struct sockaddr *addr, socklen_t len);

struct config {
	socket_fn next_socket;	/* NULL: use the system call directly */
	addr_fn next_bind;	/* likewise */
	addr_fn next_connect;
	int debug;
	int sndbuf;		/* 0: leave the kernel's default */
	int rcvbuf;
	enum smc_mode mode;
	int convert;		/* 0: SMC_PROGRAMS leaves this program alone */
	struct smc_port_ranges ports;	/* count 0: every port, at socket() */
};

/* What compute_config() found wrong in the environment, for the log. */
struct config_errors {
	const char *snd, *rcv, *mode, *ports, *programs;
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

/*
 * The program's names: the executable's file name and argv[0]'s last
 * component (they differ for a program run through a link or an
 * interpreter). Either may be "".
 */
static void program_names(char *exe, size_t size, const char **invoked)
{
	ssize_t n = readlink("/proc/self/exe", exe, size - 1);
	const char *slash;

	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		memmove(exe, slash + 1, strlen(slash));
	*invoked = program_invocation_short_name ? program_invocation_short_name : "";
}

static int program_listed(const char *list)
{
	char exe[PATH_MAX];
	const char *invoked;

	program_names(exe, sizeof(exe), &invoked);
	return smc_program_listed(list, exe) || smc_program_listed(list, invoked);
}

/* Reads the environment and resolves the next functions; no side effects. */
static void compute_config(struct config *cfg, struct config_errors *errs)
{
	const char *text;

	memset(cfg, 0, sizeof(*cfg));
	memset(errs, 0, sizeof(*errs));
	errs->mode = smc_parse_mode(secure_getenv("SMC_MODE"), &cfg->mode);
	cfg->next_socket = (socket_fn)dlsym(RTLD_NEXT, "socket");
	cfg->next_bind = (addr_fn)dlsym(RTLD_NEXT, "bind");
	cfg->next_connect = (addr_fn)dlsym(RTLD_NEXT, "connect");
	/* secure_getenv(): a set-user-ID program does not take orders from us. */
	cfg->debug = smc_parse_flag(secure_getenv("SMC_DEBUG"));
	text = secure_getenv("SMC_SNDBUF");
	if (text && *text)
		errs->snd = smc_parse_size(text, &cfg->sndbuf);
	text = secure_getenv("SMC_RCVBUF");
	if (text && *text)
		errs->rcv = smc_parse_size(text, &cfg->rcvbuf);
	cfg->convert = 1;
	text = secure_getenv("SMC_PORTS");
	if (text && *text) {
		errs->ports = smc_parse_ports(text, &cfg->ports);
		if (errs->ports)
			cfg->convert = 0;
	}
	text = secure_getenv("SMC_PROGRAMS");
	if (text && *text) {
		errs->programs = smc_check_programs(text);
		if (errs->programs || !program_listed(text))
			cfg->convert = 0;
	}
}

static void get_config(struct config *cfg)
{
	struct config_errors errs;
	int expected = CONFIG_NONE;
	char exe[PATH_MAX];
	const char *invoked;

	if (atomic_load_explicit(&config_state, memory_order_acquire) == CONFIG_READY) {
		*cfg = published;
		return;
	}
	compute_config(cfg, &errs);
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
	if (!cfg->next_socket || !cfg->next_bind || !cfg->next_connect)
		debug_line("dlsym(RTLD_NEXT, ...) failed for socket, bind or connect; using the system calls");
	if (errs.snd)
		debug_line("SMC_SNDBUF='%s' is invalid (%s); ignored",
			   secure_getenv("SMC_SNDBUF"), errs.snd);
	else if (cfg->sndbuf)
		debug_line("SMC_SNDBUF=%d for converted sockets", cfg->sndbuf);
	if (errs.rcv)
		debug_line("SMC_RCVBUF='%s' is invalid (%s); ignored",
			   secure_getenv("SMC_RCVBUF"), errs.rcv);
	else if (cfg->rcvbuf)
		debug_line("SMC_RCVBUF=%d for converted sockets", cfg->rcvbuf);
	if (errs.mode)
		debug_line("SMC_MODE='%s' is invalid (%s); smc taken",
			   secure_getenv("SMC_MODE"), errs.mode);
	if (errs.ports)
		debug_line("SMC_PORTS='%s' is invalid (%s); no socket is converted",
			   secure_getenv("SMC_PORTS"), errs.ports);
	if (errs.programs) {
		debug_line("SMC_PROGRAMS='%s' is invalid (%s); no socket is converted",
			   secure_getenv("SMC_PROGRAMS"), errs.programs);
	} else if (secure_getenv("SMC_PROGRAMS") && *secure_getenv("SMC_PROGRAMS")) {
		program_names(exe, sizeof(exe), &invoked);
		debug_line("program '%s' (argv[0] '%s') is %s SMC_PROGRAMS='%s'", exe, invoked,
			   program_listed(secure_getenv("SMC_PROGRAMS")) ? "in" : "not in",
			   secure_getenv("SMC_PROGRAMS"));
	}
}

static int call_socket(const struct config *cfg, int domain, int type, int protocol)
{
	if (cfg->next_socket)
		return cfg->next_socket(domain, type, protocol);
	return (int)syscall(SYS_socket, domain, type, protocol);
}

static int call_bind(const struct config *cfg, int fd, const struct sockaddr *addr,
		     socklen_t len)
{
	if (cfg->next_bind)
		return cfg->next_bind(fd, addr, len);
	return (int)syscall(SYS_bind, fd, addr, len);
}

static int call_connect(const struct config *cfg, int fd, const struct sockaddr *addr,
			socklen_t len)
{
	if (cfg->next_connect)
		return cfg->next_connect(fd, addr, len);
	return (int)syscall(SYS_connect, fd, addr, len);
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

static int int_option(int fd, int level, int name)
{
	socklen_t len = sizeof(int);
	int value;

	if (getsockopt(fd, level, name, &value, &len) < 0)
		return -1;
	return value;
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

/*
 * The SMC socket that stands for a TCP socket of this domain, as the mode
 * says: IPPROTO_SMC (inet, auto) or AF_SMC (smc, auto after a refused
 * IPPROTO_SMC). -1 with errno when none could be made. *inet_errno is the
 * error of a refused IPPROTO_SMC that auto mode followed with AF_SMC (0 if
 * none); *proto is what the successful call used.
 */
static int new_smc_socket(const struct config *cfg, int domain, int smc_type,
			  int *inet_errno, int *proto)
{
	int fd;

	*inet_errno = 0;
	if (cfg->mode != SMC_MODE_SMC) {
		*proto = IPPROTO_SMC;
		fd = ipproto_smc_socket(cfg, domain, smc_type);
		if (fd >= 0 || cfg->mode == SMC_MODE_INET)
			return fd;
		*inet_errno = errno;
	}
	*proto = domain == AF_INET6 ? SMCPROTO_SMC6 : SMCPROTO_SMC;
	return call_socket(cfg, AF_SMC, smc_type, *proto);
}

/* "socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC)" and the like, for the log. */
static const char *smc_call_text(int domain, int smc_type, int proto, char *buf, size_t size)
{
	char dbuf[16], tbuf[64];

	snprintf(buf, size, "socket(%s, %s, %s)",
		 proto == IPPROTO_SMC ? domain_name(domain, dbuf, sizeof(dbuf)) : "AF_SMC",
		 type_name(smc_type, tbuf, sizeof(tbuf)),
		 proto == IPPROTO_SMC ? "IPPROTO_SMC" :
		 proto == SMCPROTO_SMC6 ? "SMCPROTO_SMC6" : "SMCPROTO_SMC");
	return buf;
}

__attribute__((visibility("default")))
int socket(int domain, int type, int protocol)
{
	char dbuf[16], tbuf[64], sbuf[128], err[128];
	const char *why = "";
	int saved_errno = errno;
	struct config cfg;
	int smc_type, proto, inet_errno, fd;

	get_config(&cfg);
	if (!wants_smc(domain, type, protocol) || !cfg.convert || cfg.ports.count) {
		fd = call_socket(&cfg, domain, type, protocol);
		if (cfg.debug)
			debug_line("socket(%s, %s, %d): %s = %d",
				   domain_name(domain, dbuf, sizeof(dbuf)),
				   type_name(type, tbuf, sizeof(tbuf)), protocol,
				   !wants_smc(domain, type, protocol) ? "not TCP, untouched" :
				   !cfg.convert ? "TCP, this program is not converted" :
				   "TCP until bind() or connect() names a port of SMC_PORTS",
				   fd);
		return fd;
	}

	smc_type = SOCK_STREAM | (type & (SOCK_NONBLOCK | SOCK_CLOEXEC));
	fd = new_smc_socket(&cfg, domain, smc_type, &inet_errno, &proto);
	if (inet_errno && cfg.debug)
		debug_line("socket(%s, %s, %d): IPPROTO_SMC failed (%s), trying AF_SMC",
			   domain_name(domain, dbuf, sizeof(dbuf)),
			   type_name(type, tbuf, sizeof(tbuf)), protocol,
			   error_text(inet_errno, err, sizeof(err)));
	if (fd >= 0) {
		if (cfg.debug)
			debug_line("socket(%s, %s, %d): converted to %s = %d",
				   domain_name(domain, dbuf, sizeof(dbuf)),
				   type_name(type, tbuf, sizeof(tbuf)), protocol,
				   smc_call_text(domain, smc_type, proto, sbuf, sizeof(sbuf)), fd);
		return converted(&cfg, fd, saved_errno);
	}
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

/*
 * The socket options a program may set between socket() and bind() or
 * connect() that the SMC socket must carry when it replaces the TCP one.
 * An option is carried when its value differs from a fresh TCP socket's of
 * the same family, that is when the program set it; if the SMC socket
 * refuses one (AF_SMC refuses SO_REUSEPORT), the TCP socket stays.
 */
struct carried_option {
	int family;		/* 0: both */
	int level, name;
	const char *text;
};

#define OPT(f, l, n) { f, l, n, #n }
static const struct carried_option carried[] = {
	OPT(0, SOL_SOCKET, SO_REUSEADDR),
	OPT(0, SOL_SOCKET, SO_REUSEPORT),
	OPT(0, SOL_SOCKET, SO_KEEPALIVE),
	OPT(0, SOL_SOCKET, SO_OOBINLINE),
	OPT(0, SOL_SOCKET, SO_LINGER),
	OPT(0, SOL_SOCKET, SO_PRIORITY),
	OPT(0, SOL_SOCKET, SO_RCVLOWAT),
	OPT(0, SOL_SOCKET, SO_RCVTIMEO),
	OPT(0, SOL_SOCKET, SO_SNDTIMEO),
	OPT(0, SOL_SOCKET, SO_MARK),
	OPT(0, SOL_SOCKET, SO_BINDTODEVICE),
	OPT(0, SOL_SOCKET, SO_SNDBUF),
	OPT(0, SOL_SOCKET, SO_RCVBUF),
	OPT(0, IPPROTO_TCP, TCP_NODELAY),
	OPT(0, IPPROTO_TCP, TCP_CORK),
	OPT(0, IPPROTO_TCP, TCP_MAXSEG),
	OPT(0, IPPROTO_TCP, TCP_KEEPIDLE),
	OPT(0, IPPROTO_TCP, TCP_KEEPINTVL),
	OPT(0, IPPROTO_TCP, TCP_KEEPCNT),
	OPT(0, IPPROTO_TCP, TCP_USER_TIMEOUT),
	OPT(0, IPPROTO_TCP, TCP_DEFER_ACCEPT),
	OPT(0, IPPROTO_TCP, TCP_WINDOW_CLAMP),
	OPT(0, IPPROTO_TCP, TCP_NOTSENT_LOWAT),
	OPT(0, IPPROTO_TCP, TCP_CONGESTION),
	OPT(AF_INET, IPPROTO_IP, IP_TOS),
	OPT(AF_INET, IPPROTO_IP, IP_TTL),
	OPT(AF_INET, IPPROTO_IP, IP_FREEBIND),
	OPT(AF_INET, IPPROTO_IP, IP_TRANSPARENT),
	OPT(AF_INET, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT),
	OPT(AF_INET6, IPPROTO_IPV6, IPV6_V6ONLY),
	OPT(AF_INET6, IPPROTO_IPV6, IPV6_TCLASS),
	OPT(AF_INET6, IPPROTO_IPV6, IPV6_UNICAST_HOPS),
};
#undef OPT

/* Large enough for every option above (IFNAMSIZ, TCP_CA_NAME_MAX, timeval). */
#define OPTION_MAX 32

/*
 * Carry one option from the program's socket to the SMC one; 0 if it needed
 * nothing or was carried, -1 if the SMC socket refused it.
 */
static int carry_option(const struct carried_option *opt, int from, int fresh, int to)
{
	unsigned char value[OPTION_MAX], dflt[OPTION_MAX];
	socklen_t len = sizeof(value), dlen = sizeof(dflt);
	int half;

	memset(value, 0, sizeof(value));
	memset(dflt, 0, sizeof(dflt));
	if (getsockopt(from, opt->level, opt->name, value, &len) < 0 ||
	    getsockopt(fresh, opt->level, opt->name, dflt, &dlen) < 0)
		return 0;	/* this kernel has no such option */
	if (len == dlen && !memcmp(value, dflt, len))
		return 0;
	if (opt->level == SOL_SOCKET && (opt->name == SO_SNDBUF || opt->name == SO_RCVBUF)) {
		/* The kernel reports twice the size the program set. */
		memcpy(&half, value, sizeof(half));
		half /= 2;
		return setsockopt(to, opt->level, opt->name, &half, sizeof(half)) < 0 ? -1 : 0;
	}
	if (opt->level == IPPROTO_TCP && opt->name == TCP_CONGESTION)
		len = (socklen_t)strnlen((const char *)value, len);
	return setsockopt(to, opt->level, opt->name, value, len) < 0 ? -1 : 0;
}

/*
 * Is fd a TCP socket nobody has connected or made a listener (it can still
 * be replaced)? Its family in *domain.
 */
static int replaceable_tcp(int fd, int *domain)
{
	struct tcp_info info;
	socklen_t len = sizeof(info);
	int type, protocol;

	*domain = int_option(fd, SOL_SOCKET, SO_DOMAIN);
	type = int_option(fd, SOL_SOCKET, SO_TYPE);
	protocol = int_option(fd, SOL_SOCKET, SO_PROTOCOL);
	if ((*domain != AF_INET && *domain != AF_INET6) || type != SOCK_STREAM ||
	    protocol != IPPROTO_TCP)
		return 0;
	memset(&info, 0, sizeof(info));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) < 0)
		return 0;
	return info.tcpi_state == TCP_CLOSE;
}

/* The port of an AF_INET or AF_INET6 address, -1 for anything else. */
static int port_of(const struct sockaddr *addr, socklen_t len)
{
	struct sockaddr_in6 in6;
	struct sockaddr_in in;

	if (!addr || len < sizeof(sa_family_t))
		return -1;
	if (addr->sa_family == AF_INET && len >= sizeof(in)) {
		memcpy(&in, addr, sizeof(in));
		return ntohs(in.sin_port);
	}
	if (addr->sa_family == AF_INET6 && len >= sizeof(in6)) {
		memcpy(&in6, addr, sizeof(in6));
		return ntohs(in6.sin6_port);
	}
	return -1;
}

/* Has bind() given the socket a local address or port? */
static int is_bound(const struct sockaddr_storage *local)
{
	static const struct in6_addr any6 = IN6ADDR_ANY_INIT;
	struct sockaddr_in6 in6;
	struct sockaddr_in in;

	if (local->ss_family == AF_INET) {
		memcpy(&in, local, sizeof(in));
		return in.sin_port || in.sin_addr.s_addr != htonl(INADDR_ANY);
	}
	if (local->ss_family == AF_INET6) {
		memcpy(&in6, local, sizeof(in6));
		return in6.sin6_port || memcmp(&in6.sin6_addr, &any6, sizeof(any6));
	}
	return 0;
}

/*
 * Replace the TCP socket fd by an SMC socket with its flags and options;
 * 0 done, -1 when fd stays as it was (said under SMC_DEBUG). call names
 * the caller for the log.
 */
static int replace_with_smc(const struct config *cfg, int fd, int domain,
			    const char *call, int port)
{
	int fl = fcntl(fd, F_GETFL), fdfl = fcntl(fd, F_GETFD);
	int smc_type = SOCK_STREAM | SOCK_CLOEXEC;
	const struct carried_option *refused = NULL;
	char sbuf[128], err[128];
	int nfd, fresh, inet_errno, proto;
	size_t i;

	if (fl >= 0 && (fl & O_NONBLOCK))
		smc_type |= SOCK_NONBLOCK;
	nfd = new_smc_socket(cfg, domain, smc_type, &inet_errno, &proto);
	if (nfd < 0) {
		if (cfg->debug)
			debug_line("fd %d: %s() to port %d: %s failed (%s), the TCP socket stays",
				   fd, call, port, cfg->mode == SMC_MODE_INET ? "IPPROTO_SMC" : "AF_SMC",
				   error_text(errno, err, sizeof(err)));
		return -1;
	}
	set_buffer(cfg, nfd, SO_SNDBUF, "SO_SNDBUF", cfg->sndbuf);
	set_buffer(cfg, nfd, SO_RCVBUF, "SO_RCVBUF", cfg->rcvbuf);
	fresh = call_socket(cfg, domain, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
	if (fresh < 0) {
		close(nfd);
		return -1;
	}
	for (i = 0; i < sizeof(carried) / sizeof(carried[0]) && !refused; i++) {
		if (carried[i].family && carried[i].family != domain)
			continue;
		if (carry_option(&carried[i], fd, fresh, nfd) < 0)
			refused = &carried[i];
	}
	close(fresh);
	if (refused) {
		if (cfg->debug)
			debug_line("fd %d: %s() to port %d: %s refused %s (%s), the TCP socket stays",
				   fd, call, port, smc_call_text(domain, smc_type, proto, sbuf, sizeof(sbuf)),
				   refused->text, error_text(errno, err, sizeof(err)));
		close(nfd);
		return -1;
	}
	if (dup3(nfd, fd, fdfl >= 0 && (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0) {
		close(nfd);
		return -1;
	}
	close(nfd);
	if (cfg->debug)
		debug_line("fd %d: %s() to port %d, listed in SMC_PORTS: replaced by %s", fd, call,
			   port, smc_call_text(domain, smc_type, proto, sbuf, sizeof(sbuf)));
	return 0;
}

/* Should fd, about to be bound or connected to port, become an SMC socket? */
static int port_decides(const struct config *cfg, int fd, int port, int *domain)
{
	return cfg->convert && cfg->ports.count && port > 0 &&
	       smc_port_listed(&cfg->ports, (unsigned int)port) && replaceable_tcp(fd, domain);
}

__attribute__((visibility("default")))
int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	int port = port_of(addr, len), saved_errno = errno, domain;
	struct config cfg;

	get_config(&cfg);
	if (port_decides(&cfg, fd, port, &domain))
		replace_with_smc(&cfg, fd, domain, "bind", port);
	errno = saved_errno;
	return call_bind(&cfg, fd, addr, len);
}

__attribute__((visibility("default")))
int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	int port = port_of(addr, len), saved_errno = errno, domain;
	struct sockaddr_storage local;
	socklen_t llen = sizeof(local);
	struct config cfg;
	int bound;

	get_config(&cfg);
	if (port_decides(&cfg, fd, port, &domain)) {
		/*
		 * A client that bound first (a source address, a port) gets
		 * the same local address on the SMC socket: the TCP socket is
		 * closed by dup3(), so its port is free again.
		 */
		memset(&local, 0, sizeof(local));
		bound = getsockname(fd, (struct sockaddr *)&local, &llen) == 0 && is_bound(&local);
		if (replace_with_smc(&cfg, fd, domain, "connect", port) == 0 && bound &&
		    call_bind(&cfg, fd, (struct sockaddr *)&local, llen) < 0) {
			if (cfg.debug)
				debug_line("fd %d: bind() of the SMC socket to the TCP socket's local address failed",
					   fd);
			return -1;
		}
	}
	errno = saved_errno;
	return call_connect(&cfg, fd, addr, len);
}
