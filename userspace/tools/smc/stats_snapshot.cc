// SPDX-License-Identifier: GPL-2.0
#include "stats_snapshot.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text.h"

namespace smc {

namespace {

constexpr const char *magic = "smc-linux stats snapshot 1";
constexpr off_t max_size = 1 << 20;

const char *file_name(Tech t) { return t == Tech::smcd ? "stats-smcd" : "stats-smcr"; }

Error sys_error(const std::string &what)
{
	int e = errno;
	return make_error(e, what + ": " + std::strerror(e));
}

// Closes an fd when it goes out of scope.
struct Fd {
	int fd = -1;
	explicit Fd(int f) : fd(f) {}
	~Fd()
	{
		if (fd >= 0)
			::close(fd);
	}
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
};

bool parse_u64(const std::string &s, std::uint64_t &v)
{
	auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
	return ec == std::errc() && end == s.data() + s.size();
}

} // namespace

std::string serialize_snapshot(const Stats &s, Tech tech)
{
	std::ostringstream out;
	out << magic << '\n' << "tech " << (tech == Tech::smcd ? "smcd" : "smcr") << '\n';
	auto line = [&](const std::string &name, const std::uint64_t &v) { out << name << ' ' << v << '\n'; };
	for_each_counter(s.tech(tech), line);
	for_each_global_counter(s, line);
	if (tech == Tech::smcr && s.links)
		for_each_link_counter(*s.links, line);
	for (const auto &r : s.srv_reasons)
		out << "srv_reason " << hex0x(r.code, 8) << ' ' << r.count << '\n';
	for (const auto &r : s.clnt_reasons)
		out << "clnt_reason " << hex0x(r.code, 8) << ' ' << r.count << '\n';
	return out.str();
}

Result<Stats> parse_snapshot(const std::string &text, Tech tech)
{
	auto bad = [](const std::string &why) { return make_error(EBADMSG, "damaged statistics snapshot: " + why); };
	std::istringstream in(text);
	std::string line;
	if (!std::getline(in, line) || line != magic)
		return bad("unknown format");
	if (!std::getline(in, line) || line != std::string("tech ") + (tech == Tech::smcd ? "smcd" : "smcr"))
		return bad("not for " + std::string(tech_name(tech)));

	std::map<std::string, std::uint64_t> values;
	Stats s;
	while (std::getline(in, line)) {
		std::istringstream words(line);
		std::string key, a, b;
		words >> key >> a >> b;
		if (key.empty())
			continue;
		if (key == "srv_reason" || key == "clnt_reason") {
			std::uint64_t code = 0, count = 0;
			if (a.rfind("0x", 0) != 0 || b.empty())
				return bad("bad line '" + line + "'");
			auto [end, ec] = std::from_chars(a.data() + 2, a.data() + a.size(), code, 16);
			if (ec != std::errc() || end != a.data() + a.size() || code > 0xffffffff ||
			    !parse_u64(b, count))
				return bad("bad line '" + line + "'");
			FallbackReason r{static_cast<std::uint32_t>(code), count};
			(key == "srv_reason" ? s.srv_reasons : s.clnt_reasons).push_back(r);
			continue;
		}
		std::uint64_t v = 0;
		if (!b.empty() || !parse_u64(a, v))
			return bad("bad line '" + line + "'");
		values[key] = v;
	}
	// Counters the file lacks (an older format) stay 0; unknown ones are ignored.
	auto take = [&](const std::string &name, std::uint64_t &v) {
		if (auto it = values.find(name); it != values.end())
			v = it->second;
	};
	for_each_counter(s.tech(tech), take);
	for_each_global_counter(s, take);
	if (tech == Tech::smcr) {
		LinkStats l;
		bool any = false;
		for_each_link_counter(l, [&](const std::string &name, std::uint64_t &v) {
			if (values.count(name))
				any = true;
			take(name, v);
		});
		if (any)
			s.links = l;
	}
	return s;
}

std::optional<Stats> subtract_snapshot(const Stats &now, const Stats &snap, Tech tech)
{
	Stats out = now;
	bool backwards = false;
	// Pair up the counters of out and snap in their fixed order.
	std::vector<std::uint64_t> old;
	auto collect = [&](const std::string &, const std::uint64_t &v) { old.push_back(v); };
	for_each_counter(snap.tech(tech), collect);
	for_each_global_counter(snap, collect);
	// SMC-R's failover counters, when the kernel has them; a snapshot
	// without them (an older one) has them at 0.
	bool links = tech == Tech::smcr && out.links;
	const LinkStats snap_links = snap.links.value_or(LinkStats{});
	if (links)
		for_each_link_counter(snap_links, collect);
	std::size_t i = 0;
	auto sub = [&](const std::string &, std::uint64_t &v) {
		if (v < old[i])
			backwards = true;
		else
			v -= old[i];
		++i;
	};
	for_each_counter(out.tech(tech), sub);
	for_each_global_counter(out, sub);
	if (links)
		for_each_link_counter(*out.links, sub);

	auto sub_reasons = [&](std::vector<FallbackReason> &cur, const std::vector<FallbackReason> &was) {
		// Reason codes are never dropped while the module stays loaded.
		for (const auto &w : was) {
			bool found = false;
			for (auto &c : cur) {
				if (c.code != w.code)
					continue;
				found = true;
				if (c.count < w.count)
					backwards = true;
				else
					c.count -= w.count;
			}
			if (!found && w.count)
				backwards = true;
		}
		std::erase_if(cur, [](const FallbackReason &r) { return r.count == 0; });
	};
	sub_reasons(out.srv_reasons, snap.srv_reasons);
	sub_reasons(out.clnt_reasons, snap.clnt_reasons);
	if (backwards)
		return std::nullopt;
	return out;
}

std::string SnapshotStore::path(Tech tech) const
{
	return dir_ + "/" + file_name(tech);
}

Result<int> SnapshotStore::open_dir(bool create) const
{
	if (create && ::mkdir(dir_.c_str(), 0700) < 0 && errno != EEXIST)
		return sys_error("cannot create " + dir_);
	int fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return sys_error("cannot open " + dir_);
	struct stat st{};
	if (::fstat(fd, &st) < 0) {
		auto e = sys_error("cannot examine " + dir_);
		::close(fd);
		return e;
	}
	// Anything else could be someone else's trap (a directory made in
	// /tmp by another user, or opened up to others).
	if (!S_ISDIR(st.st_mode) || st.st_uid != uid_ || (st.st_mode & 077)) {
		::close(fd);
		return make_error(EPERM, "refusing to use " + dir_ +
				  ": it must be a directory of your own that only you can access");
	}
	return fd;
}

Result<std::optional<Stats>> SnapshotStore::load(Tech tech) const
{
	auto dirfd = open_dir(false);
	if (!dirfd) {
		if (dirfd.error().code == ENOENT)
			return std::optional<Stats>();
		return dirfd.error();
	}
	Fd dir(*dirfd);
	Fd f(::openat(dir.fd, file_name(tech), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
	if (f.fd < 0) {
		if (errno == ENOENT)
			return std::optional<Stats>();
		return sys_error("cannot open " + path(tech));
	}
	struct stat st{};
	if (::fstat(f.fd, &st) < 0)
		return sys_error("cannot examine " + path(tech));
	if (!S_ISREG(st.st_mode) || st.st_uid != uid_ || st.st_size > max_size)
		return make_error(EPERM, "refusing to read " + path(tech) + ": not a regular file of yours");
	std::string text;
	char buf[4096];
	for (;;) {
		ssize_t n = ::read(f.fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sys_error("cannot read " + path(tech));
		if (n == 0)
			break;
		text.append(buf, static_cast<std::size_t>(n));
		if (text.size() > static_cast<std::size_t>(max_size))
			return make_error(EBADMSG, path(tech) + " is too large");
	}
	auto s = parse_snapshot(text, tech);
	if (!s)
		return with_context(s.error(), path(tech));
	return std::optional<Stats>(std::move(*s));
}

Result<void> SnapshotStore::save(Tech tech, const Stats &s) const
{
	auto dirfd = open_dir(true);
	if (!dirfd)
		return dirfd.error();
	Fd dir(*dirfd);
	std::string tmp = std::string(file_name(tech)) + ".new." + std::to_string(::getpid());
	Fd f(::openat(dir.fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
	if (f.fd < 0)
		return sys_error("cannot create " + dir_ + "/" + tmp);
	std::string text = serialize_snapshot(s, tech);
	std::size_t done = 0;
	while (done < text.size()) {
		ssize_t n = ::write(f.fd, text.data() + done, text.size() - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			auto e = sys_error("cannot write " + dir_ + "/" + tmp);
			::unlinkat(dir.fd, tmp.c_str(), 0);
			return e;
		}
		done += static_cast<std::size_t>(n);
	}
	if (::fsync(f.fd) < 0 || ::renameat(dir.fd, tmp.c_str(), dir.fd, file_name(tech)) < 0) {
		auto e = sys_error("cannot replace " + path(tech));
		::unlinkat(dir.fd, tmp.c_str(), 0);
		return e;
	}
	return {};
}

Result<void> SnapshotStore::remove(Tech tech) const
{
	auto dirfd = open_dir(false);
	if (!dirfd)
		return dirfd.error().code == ENOENT ? Result<void>() : Result<void>(dirfd.error());
	Fd dir(*dirfd);
	if (::unlinkat(dir.fd, file_name(tech), 0) < 0 && errno != ENOENT)
		return sys_error("cannot remove " + path(tech));
	return {};
}

} // namespace smc
