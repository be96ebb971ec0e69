// SPDX-License-Identifier: GPL-2.0
#include "rdma_sysfs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "text.h"

namespace smc {

namespace fs = std::filesystem;

namespace {

// The file's content without the trailing newline; "" when it cannot be read
// (sysfs answers EINVAL for the type of an unused GID entry, for example).
std::string read_attr(const fs::path &p)
{
	std::ifstream in(p);
	if (!in)
		return {};
	std::ostringstream s;
	s << in.rdbuf();
	if (!in && !in.eof())
		return {};
	std::string v = s.str();
	while (!v.empty() && (v.back() == '\n' || v.back() == '\r'))
		v.pop_back();
	return trim(v);
}

std::vector<std::string> sorted_entries(const fs::path &dir)
{
	std::vector<std::string> out;
	std::error_code ec;
	for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
		out.push_back(it->path().filename().string());
	return out;
}

// Numeric names in numeric order ("2" before "10"); others skipped.
std::vector<unsigned> numbered_entries(const fs::path &dir)
{
	std::vector<unsigned> out;
	for (const auto &name : sorted_entries(dir)) {
		if (name.empty() || name.size() > 6 ||
		    !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
			continue;
		out.push_back(static_cast<unsigned>(std::stoul(name)));
	}
	std::sort(out.begin(), out.end());
	return out;
}

bool zero_gid(const std::string &gid)
{
	return std::all_of(gid.begin(), gid.end(), [](char c) { return c == '0' || c == ':'; });
}

RdmaPort read_port(const fs::path &dir, unsigned number)
{
	RdmaPort p;
	p.number = number;
	p.state = sysfs_enum_name(read_attr(dir / "state"));
	p.phys_state = sysfs_enum_name(read_attr(dir / "phys_state"));
	p.link_layer = read_attr(dir / "link_layer");
	for (unsigned i : numbered_entries(dir / "gids")) {
		std::string gid = read_attr(dir / "gids" / std::to_string(i));
		if (gid.empty() || zero_gid(gid))
			continue;
		RdmaGid g;
		g.index = i;
		g.gid = gid;
		g.type = read_attr(dir / "gid_attrs" / "types" / std::to_string(i));
		g.netdev = read_attr(dir / "gid_attrs" / "ndevs" / std::to_string(i));
		if (p.netdev.empty())
			p.netdev = g.netdev;
		p.gids.push_back(std::move(g));
	}
	return p;
}

// A device on a bus names its driver through device/driver. Software
// devices have no bus device: rdma_rxe gives its devices a "parent" file
// (the interface it runs over), siw makes iWARP (RNIC) devices.
std::string driver_of(const fs::path &dev, const RdmaDevice &d)
{
	std::error_code ec;
	fs::path link = fs::read_symlink(dev / "device" / "driver", ec);
	if (!ec)
		return link.filename().string();
	if (!d.bus_id.empty())
		return {};
	if (!d.parent.empty() && d.node_type == "CA")
		return "rdma_rxe";
	if (d.node_type == "RNIC")
		return "siw";
	return {};
}

} // namespace

std::string sysfs_enum_name(const std::string &value)
{
	auto colon = value.find(':');
	if (colon == std::string::npos)
		return trim(value);
	std::string number = trim(value.substr(0, colon));
	if (number.empty() || !std::all_of(number.begin(), number.end(),
					   [](char c) { return c >= '0' && c <= '9'; }))
		return trim(value);
	return trim(value.substr(colon + 1));
}

std::vector<std::string> RdmaPort::gid_types() const
{
	std::vector<std::string> out;
	for (const auto &g : gids)
		if (!g.type.empty() && std::find(out.begin(), out.end(), g.type) == out.end())
			out.push_back(g.type);
	return out;
}

std::vector<RdmaDevice> scan_rdma_devices(const std::string &sysfs_root)
{
	fs::path cls = fs::path(sysfs_root) / "class" / "infiniband";
	std::vector<RdmaDevice> out;
	auto names = sorted_entries(cls);
	std::sort(names.begin(), names.end());
	for (const auto &name : names) {
		fs::path dev = cls / name;
		RdmaDevice d;
		d.name = name;
		d.node_type = sysfs_enum_name(read_attr(dev / "node_type"));
		d.fw_ver = read_attr(dev / "fw_ver");
		d.parent = read_attr(dev / "parent");
		std::error_code ec;
		fs::path bus = fs::read_symlink(dev / "device", ec);
		if (!ec)
			d.bus_id = bus.filename().string();
		d.driver = driver_of(dev, d);
		for (unsigned n : numbered_entries(dev / "ports"))
			d.ports.push_back(read_port(dev / "ports" / std::to_string(n), n));
		out.push_back(std::move(d));
	}
	return out;
}

} // namespace smc
