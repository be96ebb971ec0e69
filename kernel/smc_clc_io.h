/* SPDX-License-Identifier: GPL-2.0 */
/* af_smc: CLC messages on the clcsock (smc_clc_io.c). */
#ifndef _SMC_CLC_IO_H
#define _SMC_CLC_IO_H

#include "smc_wait.h"
#include "wire/smc_clc.h"
#include "wire/smc_decline.h"

struct smc_sock;

/*
 * How long we wait for each CLC message the peer owes us. Linux uses the
 * same two seconds, so neither side gives up before the other.
 */
#define SMC_CLC_WAIT_TIME	(2 * HZ * SMC_WAIT_SCALE)

extern u8 smc_clc_local_peer_id[SMC_CLC_PEER_ID_LEN];

void smc_clc_io_init(void);
/* Encode and send msg on the clcsock without waiting; 0 or -errno. */
int smc_clc_send(struct smc_sock *smc, const struct smc_clc_msg *msg);
/* A Decline with our peer ID and the given code, v1 or v2 format. */
int smc_clc_send_decline(struct smc_sock *smc, u32 code, u8 version);
/*
 * Receive and decode one CLC message within timeo jiffies. 0, or -EPROTO
 * for bytes that are not a valid CLC message, -ETIMEDOUT, -ECONNRESET
 * (the peer closed the stream), -ECONNABORTED (we are closing), -ENOMEM,
 * or the clcsock's error.
 */
int smc_clc_recv(struct smc_sock *smc, struct smc_clc_msg *msg, long timeo);

#endif
