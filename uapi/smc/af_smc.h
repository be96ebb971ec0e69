/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Socket-level constants of AF_SMC that Linux does not export in a uapi header
 * (glibc's <sys/socket.h> has AF_SMC; the protocol numbers live only in the
 * kernel's private net/smc/smc.h and in af_smc(7)).
 */
#ifndef _UAPI_SMC_AF_SMC_H
#define _UAPI_SMC_AF_SMC_H

#ifndef AF_SMC
#define AF_SMC 43
#endif
#ifndef PF_SMC
#define PF_SMC AF_SMC
#endif

/* The "protocol" argument of socket(AF_SMC, SOCK_STREAM, protocol). */
#define SMCPROTO_SMC	0	/* address format of AF_INET */
#define SMCPROTO_SMC6	1	/* address format of AF_INET6 */

#endif /* _UAPI_SMC_AF_SMC_H */
