// SPDX-License-Identifier: GPL-2.0
// Helpers shared by the CLC wire tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "clc_samples.h"
#include "smc_clc.h"

namespace smc_wire_test {

using Bytes = std::vector<uint8_t>;

inline smc_clc_msg Sample(size_t i)
{
	smc_clc_msg m;
	EXPECT_NE(smc_clc_sample(i, &m), nullptr);
	return m;
}

inline std::string SampleName(size_t i)
{
	smc_clc_msg m;
	const char *n = smc_clc_sample(i, &m);
	return n ? n : "none";
}

inline Bytes Encode(const smc_clc_msg &m)
{
	size_t need = 0;
	EXPECT_EQ(smc_clc_encode(&m, nullptr, 0, &need), SMC_CLC_ERR_NOSPACE);
	Bytes out(need);
	size_t len = 0;
	EXPECT_EQ(smc_clc_encode(&m, out.data(), out.size(), &len), SMC_CLC_OK);
	EXPECT_EQ(len, need);
	return out;
}

inline smc_clc_err Decode(const Bytes &b, smc_clc_msg *m)
{
	// copy into an exactly sized heap block so ASan sees any over-read
	std::unique_ptr<uint8_t[]> p(new uint8_t[b.size() ? b.size() : 1]);
	if (!b.empty())
		std::memcpy(p.get(), b.data(), b.size());
	return smc_clc_decode(p.get(), b.size(), m);
}

inline smc_clc_err Decode(const Bytes &b)
{
	smc_clc_msg m;
	return Decode(b, &m);
}

inline bool SameMsg(const smc_clc_msg &a, const smc_clc_msg &b)
{
	return std::memcmp(&a, &b, sizeof(a)) == 0;
}

inline void PutBe16(Bytes &b, size_t off, uint16_t v)
{
	b.at(off) = uint8_t(v >> 8);
	b.at(off + 1) = uint8_t(v);
}

inline uint16_t GetBe16(const Bytes &b, size_t off)
{
	return uint16_t(b.at(off) << 8 | b.at(off + 1));
}

// Rewrite the header length and move a valid trailer to the new end.
inline Bytes Relength(Bytes b, size_t len)
{
	Bytes trl(b.end() - 4, b.end());
	b.resize(len, 0);
	PutBe16(b, 5, uint16_t(len));
	std::memcpy(&b[len - 4], trl.data(), 4);
	return b;
}

// All sample indices, for value-parameterized suites.
inline std::vector<size_t> AllSamples()
{
	std::vector<size_t> v;
	for (size_t i = 0; i < smc_clc_sample_count(); i++)
		v.push_back(i);
	return v;
}

struct SampleNamer {
	std::string operator()(const testing::TestParamInfo<size_t> &info) const
	{
		return SampleName(info.param);
	}
};

} // namespace smc_wire_test
