// SPDX-License-Identifier: GPL-2.0
/*
 * tap.c: the TAP 13 harness of tap.h. The parent registers and runs cases;
 * each case runs in a forked child in its own process group. The child tells
 * the parent its outcome through its exit status, and a skip reason through a
 * pipe (the reason can be long, an exit status cannot carry it).
 */
#define _GNU_SOURCE
#include "tap.h"
#include "mirror.h"

#include <fnmatch.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Exit statuses of a case process. */
#define CASE_PASS 0
#define CASE_FAIL 1
#define CASE_SKIP 77

/* Extra time the parent gives a case after its own alarm, before SIGKILL. */
#define KILL_GRACE_MS 2000

struct registered {
	char *description;
	tap_case_fn fn;
	const void *arg;
	unsigned int timeout;
};

static struct registered *cases;
static unsigned int ncases, cases_cap;

/* State of the running case, in the child. */
static int case_failed;
static unsigned int case_number;
static int skip_fd = -1;

static void out_of_memory(void)
{
	fputs("Bail out! tap: out of memory\n", stdout);
	exit(1);
}

void tap_add(tap_case_fn fn, const void *arg, unsigned int timeout, const char *fmt, ...)
{
	const char *filter = getenv("TAP_CASES");
	va_list ap;
	char *desc;

	va_start(ap, fmt);
	if (vasprintf(&desc, fmt, ap) < 0)
		out_of_memory();
	va_end(ap);
	/* A newline or '#' would break the result line's syntax. */
	for (char *p = desc; *p; p++)
		if (*p == '\n' || *p == '#')
			*p = ' ';
	if (filter && *filter && fnmatch(filter, desc, 0) != 0) {
		free(desc);
		return;
	}
	if (ncases == cases_cap) {
		cases_cap = cases_cap ? 2 * cases_cap : 16;
		cases = realloc(cases, cases_cap * sizeof(*cases));
		if (!cases)
			out_of_memory();
	}
	cases[ncases++] = (struct registered){ desc, fn, arg, timeout };
}

void tap_add_table(const struct tap_case *table, unsigned int count)
{
	for (unsigned int i = 0; i < count; i++)
		tap_add(table[i].fn, table[i].arg, table[i].timeout, "%s",
			table[i].description);
}

const char *tap_errno_name(int err)
{
	static char unknown[32];
	const char *name;

	if (err == 0)
		return "0";
	name = strerrorname_np(err);
	if (name)
		return name;
	snprintf(unknown, sizeof(unknown), "errno %d", err);
	return unknown;
}

static void vdiag(const char *fmt, va_list ap)
{
	char *msg, *line, *next;

	if (vasprintf(&msg, fmt, ap) < 0)
		out_of_memory();
	/* Every line of a multi-line message must stay a diagnostic. */
	for (line = msg; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (next && !*next)
			next = NULL;
		printf("# %s\n", line);
	}
	fflush(stdout);
	free(msg);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(fmt, ap);
	va_end(ap);
}

void tap_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(fmt, ap);
	va_end(ap);
	case_failed = 1;
}

int tap_failed(void)
{
	return case_failed;
}

void tap_end(void)
{
	fflush(stdout);
	exit(case_failed ? CASE_FAIL : CASE_PASS);
}

void tap_abort(void)
{
	case_failed = 1;
	tap_end();
}

void tap_skip(const char *fmt, ...)
{
	va_list ap;
	char *reason;

	va_start(ap, fmt);
	if (vasprintf(&reason, fmt, ap) < 0)
		out_of_memory();
	va_end(ap);
	/* A skip after a failed check is still a failure. */
	if (case_failed)
		tap_diag("skip requested after a failure: %s", reason);
	else if (skip_fd >= 0 && write(skip_fd, reason, strlen(reason)) < 0)
		tap_diag("cannot pass the skip reason to the harness");
	fflush(stdout);
	exit(case_failed ? CASE_FAIL : CASE_SKIP);
}

int tap_check_failed_(const char *file, int line, const char *expr, int err)
{
	if (err)
		tap_fail("%s:%d: check failed: %s (errno %s: %s)", file, line, expr,
			 tap_errno_name(err), strerror(err));
	else
		tap_fail("%s:%d: check failed: %s", file, line, expr);
	return 0;
}

int tap_eq_failed_(const char *file, int line, const char *a_expr,
		   const char *b_expr, long long a, long long b)
{
	tap_fail("%s:%d: check failed: %s == %s (%lld != %lld)", file, line,
		 a_expr, b_expr, a, b);
	return 0;
}

int tap_sys_failed_(const char *file, int line, const char *expr, int err)
{
	tap_fail("%s:%d: %s failed: %s (%s)", file, line, expr, strerror(err),
		 tap_errno_name(err));
	return 0;
}

int tap_errno_mismatch_(const char *file, int line, const char *expr,
			long long ret, int err, int expected)
{
	if (ret != -1)
		tap_fail("%s:%d: %s returned %lld; expected failure with %s", file,
			 line, expr, ret, tap_errno_name(expected));
	else
		tap_fail("%s:%d: %s failed with %s (%s); expected %s", file, line,
			 expr, tap_errno_name(err), strerror(err),
			 tap_errno_name(expected));
	return 0;
}

double tap_timeout_scale(void)
{
	const char *s = getenv("SMC_TIMEOUT_SCALE");
	double v = s ? strtod(s, NULL) : 1.0;

	return v >= 1.0 ? v : 1.0;
}

unsigned int tap_scaled_seconds(unsigned int seconds)
{
	return (unsigned int)(seconds * tap_timeout_scale() + 0.5);
}

unsigned long tap_volume(unsigned long n)
{
	const char *s = getenv("SMC_VOLUME_DIV");
	double d = s ? strtod(s, NULL) : 1.0;
	unsigned long v;

	if (!(d >= 1.0))
		d = 1.0;
	v = (unsigned long)(n / d);
	return v || !n ? v : 1;	/* 0 stays 0 ("none") */
}

int64_t tap_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Wait until the child has exited, without reaping it (so its PID, which is
 * also its process group ID, cannot be reused while we kill the group).
 * Returns 0 once it exited, -1 when the deadline passed first.
 */
static int wait_exited(pid_t pid, int64_t deadline)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	siginfo_t si;

	for (;;) {
		int64_t left = deadline - tap_now_ms();

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == pid)
			break;
		if (left <= 0) {
			if (pidfd >= 0)
				close(pidfd);
			return -1;
		}
		if (pidfd >= 0) {
			struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

			poll(&pfd, 1, left > 1000 ? 1000 : (int)left);
		} else {
			/* Kernels before 5.3 have no pidfd: poll by time. */
			usleep(10000);
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return 0;
}

static void run_child(const struct registered *c, unsigned int seconds, int pipe_w)
{
	setpgid(0, 0);
	skip_fd = pipe_w;
	case_failed = 0;
	case_number = (unsigned int)(c - cases) + 1;
	/* Our stray stderr output lands in order with the TAP stream. */
	dup2(STDOUT_FILENO, STDERR_FILENO);
	signal(SIGALRM, SIG_DFL);
	alarm(seconds);
	c->fn(c->arg);
	tap_end();
}

/* Run one case; returns 0 passed, 1 failed, 2 skipped. */
static int run_case(unsigned int number, const struct registered *c)
{
	unsigned int seconds = tap_scaled_seconds(c->timeout ? c->timeout :
						  TAP_DEFAULT_TIMEOUT);
	char reason[1024] = "";
	int pipefd[2], status = 0, timed_out = 0, result;
	int64_t began = tap_now_ms(), took;
	ssize_t n;
	pid_t pid;

	if (pipe(pipefd)) {
		printf("# cannot create a pipe: %s\nnot ok %u %s\n", strerror(errno),
		       number, c->description);
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("# cannot fork: %s\nnot ok %u %s\n", strerror(errno), number,
		       c->description);
		close(pipefd[0]);
		close(pipefd[1]);
		return 1;
	}
	if (pid == 0) {
		close(pipefd[0]);
		run_child(c, seconds, pipefd[1]);
	}
	/* Both sides set the group, so it exists whichever runs first. */
	setpgid(pid, pid);
	close(pipefd[1]);

	if (wait_exited(pid, tap_now_ms() + (int64_t)seconds * 1000 + KILL_GRACE_MS)) {
		timed_out = 1;
		kill(-pid, SIGKILL);
	}
	/* Whatever the case left running (servers, helpers) goes too. */
	kill(-pid, SIGKILL);
	waitpid(pid, &status, 0);
	n = read(pipefd[0], reason, sizeof(reason) - 1);
	reason[n > 0 ? n : 0] = '\0';
	close(pipefd[0]);
	for (char *p = reason; *p; p++)
		if (*p == '\n')
			*p = ' ';

	/* As tap.sh does: a slow case shows in any log. */
	took = tap_now_ms() - began;
	if (took >= 2000)
		printf("# case took %lld.%02lld s\n", (long long)(took / 1000),
		       (long long)(took % 1000 / 10));
	if (timed_out || (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)) {
		printf("# timed out after %u s\n", seconds);
		result = 1;
	} else if (WIFSIGNALED(status)) {
		printf("# case process killed by signal %d (%s)\n", WTERMSIG(status),
		       strsignal(WTERMSIG(status)));
		result = 1;
	} else if (WEXITSTATUS(status) == CASE_SKIP && reason[0]) {
		result = 2;
	} else if (WEXITSTATUS(status) == CASE_SKIP) {
		printf("# case skipped without a reason\n");
		result = 1;
	} else if (WEXITSTATUS(status) != CASE_PASS) {
		if (WEXITSTATUS(status) != CASE_FAIL)
			printf("# case process exited with status %d\n",
			       WEXITSTATUS(status));
		result = 1;
	} else {
		result = 0;
	}
	if (result == 2)
		printf("ok %u %s # SKIP %s\n", number, c->description, reason);
	else
		printf("%s %u %s\n", result ? "not ok" : "ok", number, c->description);
	fflush(stdout);
	return result;
}

unsigned int tap_case_number(void)
{
	return case_number;
}

const char *tap_case_description(unsigned int number)
{
	return number >= 1 && number <= ncases ? cases[number - 1].description : NULL;
}

int tap_run_number(unsigned int number)
{
	if (number < 1 || number > ncases)
		return 1;
	return run_case(number, &cases[number - 1]);
}

int tap_run(void)
{
	unsigned int failed = 0;

	if (mirror_tap_run) {
		int rc = mirror_tap_run();

		if (rc >= 0)
			return rc;
	}

	/* Line buffering keeps our lines whole when children write too. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A case that writes to a dead peer must see EPIPE, not die. */
	signal(SIGPIPE, SIG_IGN);
	if (ncases == 0) {
		printf("TAP version 13\n1..0 # SKIP no case matches TAP_CASES\n");
		return 0;
	}
	printf("TAP version 13\n1..%u\n", ncases);
	for (unsigned int i = 0; i < ncases; i++)
		if (run_case(i + 1, &cases[i]) == 1)
			failed++;
	if (mirror_tap_end)
		mirror_tap_end();
	fflush(stdout);
	return failed ? 1 : 0;
}
