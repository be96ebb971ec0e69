/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one translation unit saw of <linux/smc.h> and <linux/smc_diag.h>.
 *
 * smc_abi_table.c is compiled three times: as C against the project's
 * uapi/ headers, as C++ against them, and as C against the system's
 * headers.  Each build exports one function returning a view; the test
 * compares the views.  Nothing here depends on either header.
 */
#ifndef SMC_ABI_TABLE_H
#define SMC_ABI_TABLE_H

#ifdef __cplusplus
extern "C" {
#endif

/* An integer constant (enumerator or #define). */
struct smc_abi_int {
	const char *name;
	long long value;
	const char *expansion;	/* preprocessor expansion of the name:
				 * the name itself for an enumerator */
	int present;		/* 0: this side's headers predate it */
	const char *since;	/* kernel release that added it */
};

struct smc_abi_str {
	const char *name;
	const char *value;
};

struct smc_abi_type {
	const char *name;	/* struct tag */
	unsigned long size;
	unsigned long align;
};

struct smc_abi_field {
	const char *type;	/* struct tag */
	const char *field;
	unsigned long offset;
	unsigned long size;
	const char *kind;	/* see smc_abi_list.h */
	int present;
	const char *since;
};

struct smc_abi_view {
	const char *side;	/* "ours (C)", "ours (C++)", "system" */
	int available;		/* 0: no usable headers; see why */
	const char *why;
	/* which groups of post-6.1 names this side's headers carry */
	int has_6_6, has_6_8, has_6_12;

	const struct smc_abi_int *ints;		/* SMC_ABI_INTS_V6_1 */
	unsigned long n_ints;
	const struct smc_abi_int *bounds;	/* SMC_ABI_BOUNDS */
	unsigned long n_bounds;
	const struct smc_abi_int *later_ints;	/* SMC_ABI_INTS_V6_{6,8,12} */
	unsigned long n_later_ints;
	const struct smc_abi_str *strs;
	unsigned long n_strs;
	const struct smc_abi_type *types;
	unsigned long n_types;
	const struct smc_abi_field *fields;	/* SMC_ABI_FIELDS_V6_1 */
	unsigned long n_fields;
	const struct smc_abi_field *later_fields;
	unsigned long n_later_fields;
};

const struct smc_abi_view *smc_abi_view_ours(void);
const struct smc_abi_view *smc_abi_view_ours_cxx(void);
const struct smc_abi_view *smc_abi_view_system(void);

#ifdef __cplusplus
}
#endif

#endif /* SMC_ABI_TABLE_H */
