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

/*
 * The "protocol" argument of socket(AF_INET or AF_INET6, SOCK_STREAM,
 * protocol) that makes an SMC socket looking like an inet one (Linux
 * 6.11's IPPROTO_SMC; <linux/in.h> has it from 6.11 on).
 */
#ifndef IPPROTO_SMC
#define IPPROTO_SMC	256
#endif

#endif /* _UAPI_SMC_AF_SMC_H */
