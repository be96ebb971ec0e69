/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: the factor on every bound it puts on a wait for the network.
 *
 * 1 for a real kernel. A debug kernel (KASAN, lockdep, kmemleak: make
 * check-debug) runs its guests several times slower, and a bound that
 * runs out there only because the kernel is slow tests nothing: a
 * handshake whose peer answers in time falls back, a link whose ACKs
 * come late goes down. make check-debug builds the module with
 * SMC_WAIT_SCALE=$(DEBUG_SCALE), the factor its selftests scale their
 * own limits by (SMC_TIMEOUT_SCALE), so both keep their proportions.
 * Applied to: the CLC wait (and the first-contact wait derived from it),
 * the SMC-R send slot and request wait, the LLC answer wait, the flush
 * wait, and the RC QP's ACK timeout. Not to intervals that are not
 * bounds (keepalive, linger, cork), which users set.
 */
#ifndef _SMC_WAIT_H
#define _SMC_WAIT_H

#ifndef SMC_WAIT_SCALE
#define SMC_WAIT_SCALE	1
#endif
#if SMC_WAIT_SCALE < 1 || (SMC_WAIT_SCALE & (SMC_WAIT_SCALE - 1))
#error "SMC_WAIT_SCALE: a power of two (the QP's ACK timeout is an exponent)"
#endif

#endif /* _SMC_WAIT_H */
