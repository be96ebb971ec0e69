/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SMC decline / fallback reason codes: the 32-bit "peer diagnosis" of a CLC
 * decline and the fallback reason Linux reports through sock_diag and
 * netlink. The values are the ones Linux 6.1 uses (net/smc/smc_clc.h), so
 * tools can show codes from either implementation. The high byte is a class:
 * 01 resources, 02 timeout, 03 configuration, 04 synchronization,
 * 05 peer decline, 09 internal.
 */
#ifndef SMC_DECLINE_H
#define SMC_DECLINE_H

#include "smc_wire_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMC_CLC_DECL_MEM	0x01010000 /* insufficient memory resources */
/*
 * af_smc's own, not Linux's: the server has as many handshakes in flight
 * as it allows for the listener or the client's address and declines.
 */
#define SMC_CLC_DECL_HSLIMIT	0x01020000 /* too many handshakes in flight */
#define SMC_CLC_DECL_TIMEOUT_CL	0x02010000 /* timeout waiting for CONFIRM LINK */
#define SMC_CLC_DECL_TIMEOUT_AL	0x02020000 /* timeout waiting for ADD LINK */
#define SMC_CLC_DECL_CNFERR	0x03000000 /* configuration error */
#define SMC_CLC_DECL_PEERNOSMC	0x03010000 /* peer did not indicate SMC */
#define SMC_CLC_DECL_IPSEC	0x03020000 /* IPsec in use */
#define SMC_CLC_DECL_NOSMCDEV	0x03030000 /* no SMC device found (R or D) */
#define SMC_CLC_DECL_NOSMCDDEV	0x03030001 /* no SMC-D device found */
#define SMC_CLC_DECL_NOSMCRDEV	0x03030002 /* no SMC-R device found */
#define SMC_CLC_DECL_NOISM2SUPP	0x03030003 /* hardware lacks ISMv2 support */
#define SMC_CLC_DECL_NOV2EXT	0x03030004 /* peer sent no CLC v2 extension */
#define SMC_CLC_DECL_NOV2DEXT	0x03030005 /* peer sent no SMC-Dv2 extension */
#define SMC_CLC_DECL_NOSEID	0x03030006 /* peer sent no SEID */
#define SMC_CLC_DECL_NOSMCD2DEV	0x03030007 /* no SMC-Dv2 device found */
#define SMC_CLC_DECL_NOUEID	0x03030008 /* peer sent no UEID */
#define SMC_CLC_DECL_RELEASEERR	0x03030009 /* v2.1: release negotiation failed */
#define SMC_CLC_DECL_MAXCONNERR	0x0303000a /* v2.1: max_conns negotiation failed */
#define SMC_CLC_DECL_MAXLINKERR	0x0303000b /* v2.1: max_links negotiation failed */
#define SMC_CLC_DECL_MODEUNSUPP	0x03040000 /* SMC modes do not match (R or D) */
#define SMC_CLC_DECL_RMBE_EC	0x03050000 /* peer has eyecatcher in RMBE */
#define SMC_CLC_DECL_OPTUNSUPP	0x03060000 /* socket option (fastopen) unsupported */
#define SMC_CLC_DECL_DIFFPREFIX	0x03070000 /* IP prefix / subnet mismatch */
#define SMC_CLC_DECL_GETVLANERR	0x03080000 /* cannot get VLAN id of IP device */
#define SMC_CLC_DECL_ISMVLANERR	0x03090000 /* cannot register VLAN id on ISM */
#define SMC_CLC_DECL_NOACTLINK	0x030a0000 /* no active SMC-R link in group */
#define SMC_CLC_DECL_NOSRVLINK	0x030b0000 /* SMC-R link from server not found */
#define SMC_CLC_DECL_VERSMISMAT	0x030c0000 /* SMC version mismatch */
#define SMC_CLC_DECL_MAX_DMB	0x030d0000 /* SMC-D DMB limit exceeded */
#define SMC_CLC_DECL_NOROUTE	0x030e0000 /* SMC-Rv2: no route to peer */
#define SMC_CLC_DECL_NOINDIRECT	0x030f0000 /* SMC-Rv2: direct/indirect mismatch */
/*
 * af_smc's own, not Linux's: the network namespace's handshake policy
 * keeps this connection on TCP (a server that learns it from the
 * client's address declines; smc_policy.h).
 */
#define SMC_CLC_DECL_POLICY	0x03800000 /* excluded by the handshake policy */
#define SMC_CLC_DECL_SYNCERR	0x04000000 /* synchronization error */
#define SMC_CLC_DECL_PEERDECL	0x05000000 /* peer declined during handshake */
#define SMC_CLC_DECL_INTERR	0x09990000 /* internal error */
#define SMC_CLC_DECL_ERR_RTOK	0x09990001 /* rtoken handling failed */
#define SMC_CLC_DECL_ERR_RDYLNK	0x09990002 /* IB ready-link failed */
#define SMC_CLC_DECL_ERR_REGBUF	0x09990003 /* registering RDMA buffers failed */

/* Class (high byte) of a code. */
#define SMC_CLC_DECL_CLASS(code)	((uint32_t)(code) >> 24)

struct smc_clc_decline_info {
	uint32_t code;
	const char *name;	/* the suffix of the macro above, e.g. "PEERNOSMC" */
	const char *text;	/* one line of English */
	bool linux61;		/* defined by Linux 6.1 (false: SMC v2.1 codes, HSLIMIT, POLICY) */
};

/*
 * Text for a code (never NULL). Unknown codes get a text naming their class,
 * e.g. "unrecognized configuration error".
 */
const char *smc_clc_decline_text(uint32_t code);

/* The table entry for a code, or NULL if the code is not known. */
const struct smc_clc_decline_info *smc_clc_decline_lookup(uint32_t code);

/* The whole table, ordered by code, for listing; *count gets its size. */
const struct smc_clc_decline_info *smc_clc_decline_table(size_t *count);

#ifdef __cplusplus
}
#endif

#endif /* SMC_DECLINE_H */
