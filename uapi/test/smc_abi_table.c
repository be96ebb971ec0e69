// SPDX-License-Identifier: GPL-2.0
/*
 * Turns the lists of smc_abi_list.h into values, sizes and offsets as seen
 * through whichever <linux/smc.h> / <linux/smc_diag.h> this unit is built
 * against.  Built three ways (see CMakeLists.txt):
 *
 *   SMC_ABI_VIEW_FN=smc_abi_view_ours      C,   -I uapi/
 *   SMC_ABI_VIEW_FN=smc_abi_view_ours_cxx  C++, -I uapi/ (via the .cc)
 *   SMC_ABI_VIEW_FN=smc_abi_view_system    C,   system include path only,
 *                                          with SMC_ABI_SYSTEM defined
 *
 * The project's headers define both the in-tree (_UAPI_...) and the
 * installed include guard; the installed system headers only the latter.
 * That tells the two sides apart, and each side checks it got the right one.
 */
#include <stddef.h>

#include "smc_abi_table.h"

#ifdef SMC_ABI_SYSTEM
#include "smc_abi_config.h"	/* generated: what CMake found on the system */
#define SMC_ABI_USABLE	SMC_ABI_SYS_USABLE
#define SMC_ABI_HAS_6_6	SMC_ABI_SYS_HAS_6_6
#define SMC_ABI_HAS_6_8	SMC_ABI_SYS_HAS_6_8
#define SMC_ABI_HAS_6_12 SMC_ABI_SYS_HAS_6_12
#else
#define SMC_ABI_USABLE	1
#define SMC_ABI_HAS_6_6	1
#define SMC_ABI_HAS_6_8	1
#define SMC_ABI_HAS_6_12 1
#endif

#if SMC_ABI_USABLE
#include <linux/smc.h>
#include <linux/smc_diag.h>
#ifdef SMC_ABI_SYSTEM
#if defined(_UAPI_LINUX_SMC_H_) || defined(_UAPI_SMC_DIAG_H_)
#error "system-side table was built against the project's uapi headers"
#endif
#else
#if !defined(_UAPI_LINUX_SMC_H_) || !defined(_UAPI_SMC_DIAG_H_)
#error "project-side table was not built against uapi/linux/*.h"
#endif
#endif
#endif /* SMC_ABI_USABLE */

#include "smc_abi_list.h"

#ifdef SMC_ABI_SYSTEM
#define SMC_ABI_SIDE	"system"
#elif defined(__cplusplus)
#define SMC_ABI_SIDE	"ours (C++)"
#else
#define SMC_ABI_SIDE	"ours (C)"
#endif

#if SMC_ABI_USABLE

#define SMC_ABI_STR_(x)		#x
#define SMC_ABI_XSTR(x)		SMC_ABI_STR_(x)
#define SMC_ABI_COUNT(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Classify a member's type.  C has _Generic (array members decay to a
 * pointer to their element); C++ matches the declared type with a trait.
 */
#ifdef __cplusplus
#include <type_traits>

template <typename T> struct smc_abi_kind {
	static constexpr const char *name = "?";
};
#define SMC_ABI_KIND_OF(type, text)					\
	template <> struct smc_abi_kind<type> {				\
		static constexpr const char *name = text;		\
	};								\
	template <size_t N> struct smc_abi_kind<type[N]> {		\
		static constexpr const char *name = text "[]";		\
	};
SMC_ABI_KIND_OF(__u8, "u8")
SMC_ABI_KIND_OF(__u16, "u16")
SMC_ABI_KIND_OF(__u32, "u32")
SMC_ABI_KIND_OF(__u64, "u64")
SMC_ABI_KIND_OF(__s8, "s8")
SMC_ABI_KIND_OF(__s16, "s16")
SMC_ABI_KIND_OF(__s32, "s32")
SMC_ABI_KIND_OF(__s64, "s64")
SMC_ABI_KIND_OF(struct inet_diag_sockid, "struct inet_diag_sockid")
SMC_ABI_KIND_OF(struct smc_diag_cursor, "struct smc_diag_cursor")
SMC_ABI_KIND_OF(struct smc_diag_linkinfo, "struct smc_diag_linkinfo")

#define SMC_ABI_KIND(t, f)						\
	(smc_abi_kind<std::remove_cv_t<					\
		decltype(((struct t *)nullptr)->f)>>::name)
#define SMC_ABI_ALIGNOF(t)	alignof(t)
#else
#define SMC_ABI_KIND(t, f) _Generic(((struct t *)0)->f,			\
	__u8: "u8", __u16: "u16", __u32: "u32", __u64: "u64",		\
	__s8: "s8", __s16: "s16", __s32: "s32", __s64: "s64",		\
	__u8 *: "u8[]", __u16 *: "u16[]", __u32 *: "u32[]",		\
	__u64 *: "u64[]",						\
	struct inet_diag_sockid: "struct inet_diag_sockid",		\
	struct smc_diag_cursor: "struct smc_diag_cursor",		\
	struct smc_diag_linkinfo: "struct smc_diag_linkinfo",		\
	struct smc_diag_linkinfo *: "struct smc_diag_linkinfo[]",	\
	default: "?")
#define SMC_ABI_ALIGNOF(t)	_Alignof(t)
#endif

#define SMC_ABI_MEMBER_SIZE(t, f)	sizeof(((struct t *)0)->f)

/* ---- entries ---------------------------------------------------------- */

/*
 * Every emitter stringifies its arguments itself: a name handed on to a
 * further macro would arrive there already expanded ("1" instead of
 * "SMC_LIMIT_HS").
 */
#define SMC_ABI_INT_(str, val, exp, ver)	{ str, (long long)(val), exp, 1, ver },
#define SMC_ABI_NO_INT_(str, ver)		{ str, 0, "", 0, ver },

#define SMC_ABI_I(name)							\
	SMC_ABI_INT_(#name, name, SMC_ABI_XSTR(name), "6.1")
#define SMC_ABI_B(name, a, b, c, d)					\
	SMC_ABI_INT_(#name, name, SMC_ABI_XSTR(name), "6.1")
#define SMC_ABI_S(name)			{ #name, name },

#if SMC_ABI_HAS_6_6
#define SMC_ABI_P_6_6(name, v)						\
	SMC_ABI_INT_(#name, name, SMC_ABI_XSTR(name), "6.6")
#else
#define SMC_ABI_P_6_6(name, v)		SMC_ABI_NO_INT_(#name, "6.6")
#endif
#if SMC_ABI_HAS_6_8
#define SMC_ABI_P_6_8(name, v)						\
	SMC_ABI_INT_(#name, name, SMC_ABI_XSTR(name), "6.8")
#else
#define SMC_ABI_P_6_8(name, v)		SMC_ABI_NO_INT_(#name, "6.8")
#endif
#if SMC_ABI_HAS_6_12
#define SMC_ABI_P_6_12(name, v)						\
	SMC_ABI_INT_(#name, name, SMC_ABI_XSTR(name), "6.12")
#else
#define SMC_ABI_P_6_12(name, v)		SMC_ABI_NO_INT_(#name, "6.12")
#endif

#define SMC_ABI_T(t, a, b, c)						\
	{ #t, sizeof(struct t), SMC_ABI_ALIGNOF(struct t) },

#define SMC_ABI_FIELD_(ts, fs, t, f, ver)				\
	{ ts, fs, offsetof(struct t, f), SMC_ABI_MEMBER_SIZE(t, f),	\
	  SMC_ABI_KIND(t, f), 1, ver },
#define SMC_ABI_NO_FIELD_(ts, fs, ver)	{ ts, fs, 0, 0, "", 0, ver },

#define SMC_ABI_F(t, f)							\
	SMC_ABI_FIELD_(#t, #f, t, f, "6.1")
#if SMC_ABI_HAS_6_6
#define SMC_ABI_L_6_6(t, f, o, s, k)					\
	SMC_ABI_FIELD_(#t, #f, t, f, "6.6")
#else
#define SMC_ABI_L_6_6(t, f, o, s, k)	SMC_ABI_NO_FIELD_(#t, #f, "6.6")
#endif
#if SMC_ABI_HAS_6_8
#define SMC_ABI_L_6_8(t, f, o, s, k)					\
	SMC_ABI_FIELD_(#t, #f, t, f, "6.8")
#else
#define SMC_ABI_L_6_8(t, f, o, s, k)	SMC_ABI_NO_FIELD_(#t, #f, "6.8")
#endif
#if SMC_ABI_HAS_6_12
#define SMC_ABI_L_6_12(t, f, o, s, k)					\
	SMC_ABI_FIELD_(#t, #f, t, f, "6.12")
#else
#define SMC_ABI_L_6_12(t, f, o, s, k)	SMC_ABI_NO_FIELD_(#t, #f, "6.12")
#endif

/* ---- tables ----------------------------------------------------------- */

static const struct smc_abi_int smc_abi_ints[] = {
	SMC_ABI_INTS_V6_1(SMC_ABI_I)
};

static const struct smc_abi_int smc_abi_bounds[] = {
	SMC_ABI_BOUNDS(SMC_ABI_B)
};

static const struct smc_abi_int smc_abi_later_ints[] = {
	SMC_ABI_INTS_V6_6(SMC_ABI_P_6_6)
	SMC_ABI_INTS_V6_8(SMC_ABI_P_6_8)
	SMC_ABI_INTS_V6_12(SMC_ABI_P_6_12)
};

static const struct smc_abi_str smc_abi_strs[] = {
	SMC_ABI_STRS(SMC_ABI_S)
};

static const struct smc_abi_type smc_abi_types[] = {
	SMC_ABI_TYPES(SMC_ABI_T)
};

static const struct smc_abi_field smc_abi_fields[] = {
	SMC_ABI_FIELDS_V6_1(SMC_ABI_F)
};

static const struct smc_abi_field smc_abi_later_fields[] = {
	SMC_ABI_FIELDS_V6_6(SMC_ABI_L_6_6)
	SMC_ABI_FIELDS_V6_8(SMC_ABI_L_6_8)
	SMC_ABI_FIELDS_V6_12(SMC_ABI_L_6_12)
};

static const struct smc_abi_view smc_abi_this_view = {
	SMC_ABI_SIDE, 1, "",
	SMC_ABI_HAS_6_6, SMC_ABI_HAS_6_8, SMC_ABI_HAS_6_12,
	smc_abi_ints, SMC_ABI_COUNT(smc_abi_ints),
	smc_abi_bounds, SMC_ABI_COUNT(smc_abi_bounds),
	smc_abi_later_ints, SMC_ABI_COUNT(smc_abi_later_ints),
	smc_abi_strs, SMC_ABI_COUNT(smc_abi_strs),
	smc_abi_types, SMC_ABI_COUNT(smc_abi_types),
	smc_abi_fields, SMC_ABI_COUNT(smc_abi_fields),
	smc_abi_later_fields, SMC_ABI_COUNT(smc_abi_later_fields),
};

#else /* !SMC_ABI_USABLE */

static const struct smc_abi_view smc_abi_this_view = {
	SMC_ABI_SIDE, 0, SMC_ABI_SYS_WHY,
	0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

#endif /* SMC_ABI_USABLE */

const struct smc_abi_view *SMC_ABI_VIEW_FN(void)
{
	return &smc_abi_this_view;
}
