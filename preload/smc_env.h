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

/*
 * SMC_PORTS: the ports whose sockets are converted, as a comma-separated list
 * of ports and ranges, e.g. "80,443,8000-8099": decimal digits only, 1 to
 * 65535, a range's first port not above its last, no blanks, no empty items,
 * at most SMC_MAX_PORT_RANGES items. The list lives in a fixed array because
 * the library allocates nothing.
 */
#define SMC_MAX_PORT_RANGES 16

struct smc_port_ranges {
	unsigned int count;	/* 0: no filter, every port */
	struct {
		unsigned short low, high;
	} range[SMC_MAX_PORT_RANGES];
};

/* NULL and the ranges in *out, or a short static English reason (*out untouched). */
const char *smc_parse_ports(const char *text, struct smc_port_ranges *out);

/* Is port in one of the ranges? */
int smc_port_listed(const struct smc_port_ranges *ports, unsigned int port);

/*
 * SMC_PROGRAMS: the programs whose sockets are converted, as a
 * comma-separated list of names, e.g. "nginx,redis-server": no '/', no blanks,
 * no empty items, each at most SMC_MAX_PROGRAM_NAME bytes. NULL if the list
 * is valid, else a short static English reason.
 */
#define SMC_MAX_PROGRAM_NAME 255
const char *smc_check_programs(const char *text);

/* Is name one of the names of a valid list? */
int smc_program_listed(const char *list, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* SMC_PRELOAD_ENV_H */
