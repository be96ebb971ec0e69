/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h: a small TAP 13 harness for the smc-linux selftest programs.
 *
 * A program registers its cases (tap_add() or a table with tap_add_table())
 * and calls tap_run(), which prints "TAP version 13" and the plan "1..N", then
 * runs every case in its own forked process and process group, with a time
 * limit, and prints one result line per case:
 *
 *	ok N description
 *	not ok N description
 *	ok N description # SKIP reason
 *
 * A case passes when its function returns without a failed check. Failures
 * and other messages are diagnostics ("# ..." lines); a case that took 2 s
 * or more says so before its result ("# case took 12.34 s"), as tap.sh's
 * do. tap_run() returns the exit status: 0 when every case passed or was
 * skipped, 1 otherwise.
 *
 * Why a process per case: a case that crashes, hangs or leaks descriptors or
 * child processes cannot disturb the next one, and the parent can always
 * report it (SIGKILL of the whole process group after the time limit).
 *
 * Environment:
 *	SMC_TIMEOUT_SCALE	multiply every time limit (e.g. 3 under slow emulation)
 *	SMC_VOLUME_DIV		divide a case's volume (bytes, connections, rounds)
 *	TAP_CASES		shell pattern; only cases whose description matches run
 */
#ifndef SMC_SELFTESTS_TAP_H
#define SMC_SELFTESTS_TAP_H

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>

#define TAP_DEFAULT_TIMEOUT 60 /* seconds, when a case gives 0 */

typedef void (*tap_case_fn)(const void *arg);

struct tap_case {
	const char *description;
	tap_case_fn fn;
	const void *arg;
	unsigned int timeout; /* seconds; 0 means TAP_DEFAULT_TIMEOUT */
};

/* Register one case; the description is formatted like printf. */
void tap_add(tap_case_fn fn, const void *arg, unsigned int timeout,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void tap_add_table(const struct tap_case *cases, unsigned int count);

/* Run every registered case; returns the exit status for main(). */
int tap_run(void);
/*
 * For lib/mirror.c: the number (from 1) of the case this child runs, the
 * description of case "number" (NULL if none), and running one case as
 * tap_run() would (0 passed, 1 failed, 2 skipped).
 */
unsigned int tap_case_number(void);
const char *tap_case_description(unsigned int number);
int tap_run_number(unsigned int number);

/* ---- Inside a case (the forked child) ---- */

/* A "# " diagnostic line on stdout. */
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Mark the case failed with a diagnostic; the case goes on. */
void tap_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* End the case now: failed if any check failed so far, passed otherwise. */
void tap_end(void) __attribute__((noreturn));
/* End the case now as failed. */
void tap_abort(void) __attribute__((noreturn));
/* End the case now as skipped; a reason is mandatory. */
void tap_skip(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Whether a check of this case has failed so far. */
int tap_failed(void);

/*
 * SMC_TIMEOUT_SCALE, at least 1: the factor every time limit of a run gets
 * (make check-debug sets it; a debug build of af_smc stretches its own
 * waits for the network by the same factor, kernel/smc_wait.h). A program's
 * own limits (an alarm, a poll bound, a deadline) take it from here, so a
 * slow kernel slows the test instead of failing it.
 */
double tap_timeout_scale(void);
/* CLOCK_MONOTONIC in ms: for a case's own deadlines and timings. */
int64_t tap_now_ms(void);
/* seconds times tap_timeout_scale(), rounded; 0 stays 0 ("no limit"). */
unsigned int tap_scaled_seconds(unsigned int seconds);
/*
 * n divided by SMC_VOLUME_DIV (at least 1), rounded down but never below 1
 * (0 stays 0): the bytes, connections or rounds a case moves. make
 * check-debug divides them by its scale (selftests/README.md, the item
 * "Volumes").
 */
unsigned long tap_volume(unsigned long n);

/* "ECONNREFUSED" for ECONNREFUSED, "0" for 0, "errno 1234" when unknown. */
const char *tap_errno_name(int err);

/* Helpers behind the macros; they print file:line and what went wrong. */
int tap_check_failed_(const char *file, int line, const char *expr, int err);
int tap_eq_failed_(const char *file, int line, const char *a_expr,
		   const char *b_expr, long long a, long long b);
int tap_sys_failed_(const char *file, int line, const char *expr, int err);
int tap_errno_mismatch_(const char *file, int line, const char *expr,
			long long ret, int err, int expected);

/*
 * EXPECT_* record a failure and let the case go on; ASSERT_* end the case.
 * All of them print the source position, the expression and, where a system
 * call is involved, the errno name and message. Each evaluates its operands
 * exactly once and yields whether the check held (EXPECT_SYS: the value).
 */
#define EXPECT(expr)                                                          \
	({                                                                    \
		int ok_ = !!(expr);                                           \
		if (!ok_)                                                     \
			tap_check_failed_(__FILE__, __LINE__, #expr, errno);  \
		ok_;                                                          \
	})
#define ASSERT(expr)                                                          \
	do {                                                                  \
		if (!EXPECT(expr))                                            \
			tap_abort();                                          \
	} while (0)

#define EXPECT_EQ(a, b)                                                       \
	({                                                                    \
		long long a_ = (long long)(a), b_ = (long long)(b);           \
		if (a_ != b_)                                                 \
			tap_eq_failed_(__FILE__, __LINE__, #a, #b, a_, b_);   \
		a_ == b_;                                                     \
	})
#define ASSERT_EQ(a, b)                                                       \
	do {                                                                  \
		if (!EXPECT_EQ(a, b))                                         \
			tap_abort();                                          \
	} while (0)

/* A system call that returns -1 and sets errno on failure. */
#define EXPECT_SYS(call)                                                      \
	({                                                                    \
		long long r_ = (long long)(call);                             \
		if (r_ == -1)                                                 \
			tap_sys_failed_(__FILE__, __LINE__, #call, errno);    \
		r_;                                                           \
	})
#define ASSERT_SYS(call)                                                      \
	({                                                                    \
		long long rs_ = EXPECT_SYS(call);                             \
		if (rs_ == -1)                                                \
			tap_abort();                                          \
		rs_;                                                          \
	})

/* A system call that must fail with errno "expected". */
#define EXPECT_ERRNO(call, expected)                                          \
	({                                                                    \
		errno = 0;                                                    \
		long long r_ = (long long)(call);                             \
		int e_ = errno, ok_ = (r_ == -1 && e_ == (expected));         \
		if (!ok_)                                                     \
			tap_errno_mismatch_(__FILE__, __LINE__, #call, r_, e_,\
					    (expected));                      \
		ok_;                                                          \
	})
#define ASSERT_ERRNO(call, expected)                                          \
	do {                                                                  \
		if (!EXPECT_ERRNO(call, expected))                            \
			tap_abort();                                          \
	} while (0)

#endif
