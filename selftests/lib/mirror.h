/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mirror.h: mirrored execution of a differential program across two VMs.
 *
 * The same program runs on VM 0 (SMC_MIRROR=client) and on VM 1
 * (SMC_MIRROR=server). VM 0 runs its cases as usual; VM 1 serves: for each
 * case VM 0 starts, it runs the same case. Both processes make the same
 * socket calls in lockstep. Each stream socket the case creates is a
 * virtual descriptor (a number from MIRROR_VFD_BASE up, the same on both
 * sides) whose real socket lives on one VM, its owner: a listener and the
 * sockets it accepts on VM 1, a socket that connects on VM 0. Before its
 * role is known (socket() up to listen() or connect()) a socket exists on
 * both VMs and every call runs on both; VM 1's answer counts. The owner
 * makes each real call and sends (return value, errno, what the call wrote
 * to memory, a SIGPIPE it raised) over a TCP control connection; the other
 * side returns the same. Both processes thus take the same path and record
 * the same observations, which diff_run() compares at the end of each case.
 *
 * The calls are intercepted with the linker's --wrap (CMakeLists.txt); with
 * SMC_MIRROR unset every wrapper passes straight through, so the same
 * program still runs in one VM. What cannot be split across two machines
 * honestly skips the case, saying why (see selftests/README.md,
 * "Differential cases across two VMs").
 *
 * Environment: SMC_MIRROR=client|server, SMC_MIRROR_CTL=ADDR:PORT (VM 1's
 * control listener), SMC_MIRROR_CLIENT4 (VM 0's own address, which its copy
 * of a not yet connected socket binds where VM 1's binds $SMC_TEST_LOCAL4).
 *
 * The hooks are weak so that the library (diff.c, tap.c) links without
 * mirror.c; programs built without it never mirror.
 */
#ifndef SMC_SELFTESTS_MIRROR_H
#define SMC_SELFTESTS_MIRROR_H

#include <stddef.h>

#define MIRROR_VFD_BASE 900

struct sd_sock;

/* 1 when this process mirrors (SMC_MIRROR set). */
int mirror_active(void) __attribute__((weak));
/* 0 on VM 0 (client), 1 on VM 1 (server). */
int mirror_side(void) __attribute__((weak));
/* sd_find_fd() on the side that owns fd. */
int mirror_sd_find_fd(int fd, struct sd_sock *s) __attribute__((weak));
/* Send mine, receive the peer's (len bytes each way). */
void mirror_exchange(const void *mine, void *theirs, size_t len) __attribute__((weak));
/*
 * VM 0's value of v, on both sides: for decisions made on a local clock
 * (diff_now_ms() returns VM 0's clock on both, so loops that run until a
 * time run the same number of rounds).
 */
long long mirror_agree(long long v) __attribute__((weak));
/* tap_run() on VM 1: serve VM 0's cases; -1 when not the server. */
int mirror_tap_run(void) __attribute__((weak));
/* tap_run() on VM 0 is over: let VM 1 end. */
void mirror_tap_end(void) __attribute__((weak));

#define MIRROR_ON() (mirror_active && mirror_active())

#endif
