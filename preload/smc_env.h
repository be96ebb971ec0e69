/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parsing of the preload library's environment variables. Pure functions with
 * no global state, so that the host unit tests can call them directly.
 */
#ifndef SMC_PRELOAD_ENV_H
#define SMC_PRELOAD_ENV_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Parse a buffer size for SMC_SNDBUF/SMC_RCVBUF: one or more decimal digits,
 * optionally followed by exactly one suffix k/K (x 1024) or m/M (x 1048576),
 * and nothing else (no sign, no blanks, no hex, no fraction). The result must
 * be at least 1 and at most INT_MAX (setsockopt() takes an int).
 *
 * Returns NULL and stores the value in *out on success; on failure returns a
 * short static English reason and leaves *out alone.
 */
const char *smc_parse_size(const char *text, int *out);

/* SMC_DEBUG: on when set to anything but the empty string or "0". */
int smc_parse_flag(const char *text);

/*
 * SMC_MODE: which SMC socket replaces a TCP one.
 *   smc   socket(AF_SMC, ..., SMCPROTO_SMC or SMCPROTO_SMC6) (the default)
 *   inet  socket(AF_INET or AF_INET6, ..., IPPROTO_SMC) (Linux 6.11's form)
 *   auto  inet where the kernel offers it, smc otherwise
 */
enum smc_mode { SMC_MODE_SMC, SMC_MODE_INET, SMC_MODE_AUTO };

/*
 * NULL or "" is the default (smc); returns NULL and stores the mode, or a
 * short static English reason for anything but the three names.
 */
const char *smc_parse_mode(const char *text, enum smc_mode *out);

#ifdef __cplusplus
}
#endif

#endif /* SMC_PRELOAD_ENV_H */
