// SPDX-License-Identifier: GPL-2.0
#include "pnet.h"

#include <cctype>
#include <cerrno>

#include <linux/smc.h>

#include "smc_decode.h"
#include "smc_genl.h"

namespace smc {

namespace {

constexpr std::size_t pnetid_max = 16;

// The kernel writes "n/a" where an entry has no interface or device.
std::string unless_na(std::string s)
{
	return s == "n/a" ? std::string() : s;
}

} // namespace

Result<std::string> normalize_pnetid(const std::string &id)
{
	if (id.empty())
		return make_error(EINVAL, "the PNET ID is empty");
	if (id.size() > pnetid_max)
		return make_error(EINVAL, "the PNET ID '" + id + "' is longer than " +
				  std::to_string(pnetid_max) + " characters");
	std::string out;
	for (unsigned char c : id) {
		if (!std::isalnum(c))
			return make_error(EINVAL, "the PNET ID '" + id +
					  "' may hold only letters and digits");
		out.push_back(static_cast<char>(std::toupper(c)));
	}
	return out;
}

Result<std::vector<PnetEntry>> decode_pnet_entries(const std::vector<nl::GenlMessage> &msgs)
{
	AttrDecoder d;
	std::vector<PnetEntry> out;
	for (const auto &m : msgs) {
		auto a = d.top(m);
		auto name = a.str(SMC_PNETID_NAME);
		if (!name)
			continue;
		PnetEntry e;
		e.pnetid = *name;
		e.netdev = unless_na(a.str_or(SMC_PNETID_ETHNAME, ""));
		e.ibdev = unless_na(a.str_or(SMC_PNETID_IBNAME, ""));
		e.ibport = a.uint_or(SMC_PNETID_IBPORT, 0);
		out.push_back(std::move(e));
	}
	if (d.failed())
		return d.error("PNET table");
	return out;
}

Result<PnetTable> PnetTable::open(nl::TransportFactory &factory)
{
	auto f = nl::GenlFamily::open(factory, SMCR_GENL_FAMILY_NAME, SMCR_GENL_FAMILY_VERSION);
	if (!f)
		return explain_open_error(f.error(), SMCR_GENL_FAMILY_NAME);
	return PnetTable(std::move(*f));
}

Result<std::vector<PnetEntry>> PnetTable::list()
{
	auto r = family_.dump(SMC_PNETID_GET);
	if (!r)
		return explain_genl_error(r.error(), family_.name());
	return decode_pnet_entries(*r);
}

Result<std::vector<PnetEntry>> PnetTable::get(const std::string &pnetid)
{
	auto r = family_.execute(SMC_PNETID_GET, [&](nl::AttrWriter &w) {
		w.put_str(SMC_PNETID_NAME, pnetid);
	});
	if (!r)
		return explain_genl_error(r.error(), family_.name());
	return decode_pnet_entries(*r);
}

Result<void> PnetTable::add(const PnetEntry &entry)
{
	auto r = family_.execute(SMC_PNETID_ADD, [&](nl::AttrWriter &w) {
		w.put_str(SMC_PNETID_NAME, entry.pnetid);
		if (!entry.netdev.empty())
			w.put_str(SMC_PNETID_ETHNAME, entry.netdev);
		if (!entry.ibdev.empty()) {
			w.put_str(SMC_PNETID_IBNAME, entry.ibdev);
			w.put_u8(SMC_PNETID_IBPORT, static_cast<std::uint8_t>(entry.ibport));
		}
	});
	if (r)
		return {};
	Error e = r.error();
	switch (e.code) {
	case EEXIST:
		e.message = "the interface or device already belongs to a PNET ID (" + e.message + ")";
		return e;
	case EINVAL:
		e.message = "the kernel rejected the entry: unknown interface or device, or a bad "
			    "port? (" + e.message + ")";
		return e;
	case ENODEV:
		e.message = "no such interface or device (" + e.message + ")";
		return e;
	default:
		return explain_genl_error(e, family_.name());
	}
}

Result<void> PnetTable::remove(const std::string &pnetid)
{
	auto r = family_.execute(SMC_PNETID_DEL, [&](nl::AttrWriter &w) {
		w.put_str(SMC_PNETID_NAME, pnetid);
	});
	if (r)
		return {};
	Error e = r.error();
	if (e.code == ENOENT) {
		e.message = "PNET ID " + pnetid + " is not defined";
		return e;
	}
	return explain_genl_error(e, family_.name());
}

Result<void> PnetTable::flush()
{
	auto r = family_.execute(SMC_PNETID_FLUSH);
	// Some kernels answer ENOENT when the table was already empty.
	if (r || r.error().code == ENOENT)
		return {};
	return explain_genl_error(r.error(), family_.name());
}

} // namespace smc
