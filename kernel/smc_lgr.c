// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: what SMC-D and SMC-R link groups share (smc_lgr.h).
 */
#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/string.h>

#include "smc_lgr.h"

unsigned int smc_lgr_linger = 10;
module_param_named(lgr_linger, smc_lgr_linger, uint, 0644);
MODULE_PARM_DESC(lgr_linger, "seconds a link group without connections stays (SMC-D: with its DMB pool; SMC-R: with its link and buffers) before it is freed (default 10)");

void smc_lgr_peer_set(struct smc_lgr_peer *p, u8 os, u8 release,
		      const u8 *host, const u8 *eid)
{
	int i;

	p->known = true;
	p->smc_version = 2;
	p->os = os;
	p->release = release;
	for (i = 0; i < 32; i++) {
		p->host[i] = isprint(host[i]) ? host[i] : '?';
		p->neg_eid[i] = isprint(eid[i]) ? eid[i] : '?';
	}
	p->host[32] = 0;
	p->neg_eid[32] = 0;
	strim(p->host);
	strim(p->neg_eid);
}
