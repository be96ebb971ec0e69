// SPDX-License-Identifier: GPL-2.0
//
// Netlink plumbing: attributes, messages, the request/reply channel, and
// recording and replaying conversations.
#include <cerrno>

#include <gtest/gtest.h>
#include <linux/netlink.h>

#include "fixture.h"
#include "genl.h"
#include "nl_channel.h"
#include "nl_record.h"

namespace smc {
namespace {

using namespace smc::test;

Bytes attrs(const Fill &fill)
{
	Bytes b;
	nl::AttrWriter w(b);
	fill(w);
	return b;
}

TEST(Attr, IntegersOfEveryWidthAndStrings)
{
	Bytes b = attrs([](nl::AttrWriter &w) {
		w.put_u8(1, 7);
		w.put_u16(2, 700);
		w.put_u32(3, 70000);
		w.put_u64(4, 7000000000ULL);
		w.put(5, Bytes{1, 2, 3});		// 3 bytes: no integer
		w.put_str(6, "eth0");
		w.put(7, Bytes{'a', 'b'});		// string without NUL
		w.put(8, Bytes{});			// flag
	});
	auto s = nl::AttrSet::parse(b);
	ASSERT_TRUE(s.well_formed());
	EXPECT_EQ(s.all().size(), 8u);
	EXPECT_EQ(s.uint(1), 7u);
	EXPECT_EQ(s.uint(2), 700u);
	EXPECT_EQ(s.uint(3), 70000u);
	EXPECT_EQ(s.uint(4), 7000000000ULL);
	EXPECT_EQ(s.uint(5), std::nullopt);
	EXPECT_EQ(s.uint(99), std::nullopt);
	EXPECT_EQ(s.uint_or(99, 5), 5u);
	EXPECT_EQ(s.str(6), "eth0");
	EXPECT_EQ(s.str(7), "ab");
	EXPECT_EQ(s.str(99), std::nullopt);
	EXPECT_TRUE(s.has(8));
}

TEST(Attr, NestsAndTypeFlags)
{
	Bytes b = attrs([](nl::AttrWriter &w) {
		nest(w, 2, [](nl::AttrWriter &in) {
			in.put_u32(1, 5);
			nest(in, 3, [](nl::AttrWriter &deep) { deep.put_str(1, "x"); });
		});
	});
	auto s = nl::AttrSet::parse(b);
	EXPECT_EQ(s.all()[0].type, 2);	// NLA_F_NESTED masked off
	auto n = s.nested(2);
	EXPECT_EQ(n.uint(1), 5u);
	EXPECT_EQ(n.nested(3).str(1), "x");
	EXPECT_TRUE(s.nested(9).empty());
}

TEST(Attr, MalformedStreamsStopSafely)
{
	Bytes good = attrs([](nl::AttrWriter &w) { w.put_u32(1, 1); });
	Bytes b = good;
	b.insert(b.end(), {0xff, 0x00, 0x02, 0x00, 0, 0});	// length 255 > what is left
	auto s = nl::AttrSet::parse(b);
	EXPECT_FALSE(s.well_formed());
	EXPECT_EQ(s.uint(1), 1u);

	Bytes tiny = {2, 0};				// shorter than a header
	EXPECT_FALSE(nl::AttrSet::parse(tiny).well_formed());
	Bytes zero = {0, 0, 1, 0};			// length below the header size
	EXPECT_FALSE(nl::AttrSet::parse(zero).well_formed());
	EXPECT_TRUE(nl::AttrSet::parse(Bytes{}).well_formed());

	// The last attribute may come without its padding.
	Bytes unpadded = attrs([](nl::AttrWriter &w) { w.put(1, Bytes{9}); });
	unpadded.resize(5);
	auto u = nl::AttrSet::parse(unpadded);
	EXPECT_TRUE(u.well_formed());
	EXPECT_EQ(u.uint(1), 9u);
}

TEST(Message, SplitsDatagramsAndRejectsTruncation)
{
	Bytes d = nl::join({genl_msg(gen_family, 1, 5, {}), done_msg(5)});
	auto msgs = nl::split_datagram(d);
	ASSERT_TRUE(msgs);
	ASSERT_EQ(msgs->size(), 2u);
	EXPECT_EQ((*msgs)[0].type, gen_family);
	EXPECT_EQ((*msgs)[0].seq, 5u);
	EXPECT_EQ((*msgs)[1].type, NLMSG_DONE);

	for (std::size_t cut = 1; cut < d.size(); ++cut) {
		Bytes t(d.begin(), d.begin() + static_cast<long>(cut));
		auto r = nl::split_datagram(t);
		bool at_boundary = cut == (*msgs)[0].payload.size() + sizeof(nlmsghdr);
		EXPECT_EQ(r.ok(), at_boundary) << "cut at " << cut;
		if (!r) {
			EXPECT_EQ(r.error().code, EBADMSG);
		}
	}
}

// A transport that answers from a list and records what was sent.
class Scripted : public nl::Transport {
public:
	std::vector<Bytes> sent;
	std::vector<Result<Bytes>> replies;
	std::size_t next = 0;
	Result<void> send(ByteView r) override
	{
		sent.emplace_back(r.begin(), r.end());
		return {};
	}
	Result<Bytes> receive() override
	{
		if (next >= replies.size())
			return make_error(EIO, "no more");
		return replies[next++];
	}
	Result<std::uint16_t> resolve_family(std::string_view) override { return gen_family; }
};

TEST(Channel, DumpCollectsUntilDone)
{
	Scripted t;
	t.replies = {nl::join({genl_msg(gen_family, 1, 1, {}), genl_msg(gen_family, 1, 1, {})}),
		     nl::join({genl_msg(gen_family, 1, 1, {}), done_msg(1)})};
	nl::Channel ch(t);
	auto r = ch.dump(nl::genl_message(gen_family, 1, 1, 0));
	ASSERT_TRUE(r) << r.error().message;
	EXPECT_EQ(r->size(), 3u);
	ASSERT_EQ(t.sent.size(), 1u);
	auto hdr = load<nlmsghdr>(t.sent[0]);
	EXPECT_EQ(hdr.nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
	EXPECT_EQ(hdr.nlmsg_seq, 1u);
	EXPECT_EQ(hdr.nlmsg_len, t.sent[0].size());
}

// A data message of a dump the kernel marks interrupted (NLM_F_DUMP_INTR).
static Bytes interrupted_msg(std::uint32_t seq)
{
	Bytes m = genl_msg(gen_family, 1, seq, {});
	m[6] |= NLM_F_DUMP_INTR & 0xff;
	m[7] |= NLM_F_DUMP_INTR >> 8;
	return m;
}

TEST(Channel, InterruptedDumpIsAskedForAgain)
{
	Scripted t;
	t.replies = {nl::join({interrupted_msg(1), interrupted_msg(1)}), done_msg(1),
		     nl::join({genl_msg(gen_family, 1, 2, {}), done_msg(2)})};
	nl::Channel ch(t);
	auto r = ch.dump(nl::genl_message(gen_family, 1, 1, 0));
	ASSERT_TRUE(r) << r.error().message;
	EXPECT_EQ(r->size(), 1u);		// only the clean second dump's message
	ASSERT_EQ(t.sent.size(), 2u);
	EXPECT_EQ(load<nlmsghdr>(t.sent[1]).nlmsg_seq, 2u);
	EXPECT_EQ(t.next, t.replies.size());	// the first dump was read to its DONE
}

TEST(Channel, ErrorsBecomeValues)
{
	auto dump = [](std::vector<Result<Bytes>> replies) {
		Scripted t;
		t.replies = std::move(replies);
		nl::Channel ch(t);
		return ch.dump(nl::genl_message(gen_family, 1, 1, 0));
	};
	auto e = dump({error_msg(1, EPERM)});
	ASSERT_FALSE(e);
	EXPECT_EQ(e.error().code, EPERM);
	EXPECT_EQ(e.error().message, "Operation not permitted");

	e = dump({error_msg(1, EINVAL, "bad attribute")});
	EXPECT_EQ(e.error().message, "Invalid argument (bad attribute)");

	e = dump({done_msg(1, -ENOMEM)});
	EXPECT_EQ(e.error().code, ENOMEM);

	e = dump({genl_msg(gen_family, 1, 7, {})});
	EXPECT_EQ(e.error().code, EPROTO);
	EXPECT_EQ(e.error().message, "unexpected netlink reply (sequence 7, expected 1)");

	Bytes cut = genl_msg(gen_family, 1, 1, [](nl::AttrWriter &w) { w.put_u64(1, 1); });
	cut.resize(cut.size() - 4);
	e = dump({cut});
	EXPECT_EQ(e.error().code, EBADMSG);

	e = dump({make_error(EIO, "boom")});
	EXPECT_EQ(e.error().message, "boom");

	e = dump({Bytes{}});
	EXPECT_EQ(e.error().code, EPIPE);

	// Interrupted every time: given up after kDumpAttempts, each read to its DONE.
	std::vector<Result<Bytes>> always;
	for (std::uint32_t seq = 1; seq <= nl::Channel::kDumpAttempts; seq++)
		always.push_back(nl::join({interrupted_msg(seq), done_msg(seq)}));
	e = dump(always);
	EXPECT_EQ(e.error().code, EAGAIN);

	nl::MessageBuilder shorterr(NLMSG_ERROR, 0);
	shorterr.raw(Bytes{});
	e = dump({shorterr.finish(1)});
	EXPECT_EQ(e.error().code, EBADMSG);
}

TEST(Channel, ExecuteWaitsForTheAckEvenAfterDone)
{
	Scripted t;
	t.replies = {nl::join({genl_msg(gen_family, 1, 1, {}), done_msg(1)}), error_msg(1, 0)};
	nl::Channel ch(t);
	auto r = ch.execute(nl::genl_message(gen_family, 1, 1, 0));
	ASSERT_TRUE(r) << r.error().message;
	EXPECT_EQ(r->size(), 1u);
	EXPECT_EQ(t.next, 2u);
	auto hdr = load<nlmsghdr>(t.sent[0]);
	EXPECT_EQ(hdr.nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
}

TEST(Record, RoundTripAndReplay)
{
	std::string text =
		"# comment\n"
		"open generic\n"
		"family SMC_GEN_NETLINK 30\n"
		"family SMC_PNETID -\n"
		"send\n"
		"recv " + nl::to_hex(nl::join({genl_msg(gen_family, 1, 1, {}), done_msg(1)})) + "\n";
	auto rec = nl::Recording::parse(text);
	ASSERT_TRUE(rec) << rec.error().message;
	auto again = nl::Recording::parse(rec->to_text());
	ASSERT_TRUE(again);
	EXPECT_EQ(again->to_text(), rec->to_text());

	nl::ReplayFactory f(*rec);
	EXPECT_FALSE(f.open(nl::Protocol::sock_diag)) ;	// wrong protocol
	nl::ReplayFactory f2(*rec);
	auto pnet = nl::GenlFamily::open(f2, "SMC_PNETID", 1);
	ASSERT_FALSE(pnet);
	EXPECT_EQ(pnet.error().code, ENOENT);
	nl::ReplayFactory f3(*rec);
	auto gen = nl::GenlFamily::open(f3, "SMC_GEN_NETLINK", 1);
	ASSERT_TRUE(gen);
	EXPECT_EQ(gen->id(), gen_family);
	auto d = gen->dump(1);
	ASSERT_TRUE(d) << d.error().message;
	EXPECT_EQ(d->size(), 1u);
	auto more = gen->dump(1);
	EXPECT_FALSE(more);
	EXPECT_EQ(f3.sessions_left(), 0u);
}

TEST(Record, ReplayChecksRecordedRequests)
{
	nl::Session s = genl_session({{error_msg(1, 0)}});
	s.exchanges[0].request = nl::genl_message(gen_family, 10, 1, 0).finish(99);
	nl::Recording rec;
	rec.sessions = {s, s};
	nl::ReplayFactory f(rec);
	auto gen = nl::GenlFamily::open(f, "SMC_GEN_NETLINK", 1);
	ASSERT_TRUE(gen);
	auto bad = gen->execute(11);
	ASSERT_FALSE(bad);
	EXPECT_NE(bad.error().message.find("differs from the recording"), std::string::npos);
	// Same command, flags set as execute() sets them: sequence number ignored.
	s.exchanges[0].request = [] {
		auto b = nl::genl_message(gen_family, 10, 1, NLM_F_REQUEST | NLM_F_ACK);
		return b.finish(77);
	}();
	rec.sessions = {s};
	nl::ReplayFactory f2(rec);
	auto gen2 = nl::GenlFamily::open(f2, "SMC_GEN_NETLINK", 1);
	ASSERT_TRUE(gen2);
	EXPECT_TRUE(gen2->execute(10));
}

TEST(Record, ParseErrors)
{
	EXPECT_FALSE(nl::Recording::parse("send 00\n"));
	EXPECT_FALSE(nl::Recording::parse("open tcp\n"));
	EXPECT_FALSE(nl::Recording::parse("open generic\nrecv 00\n"));
	EXPECT_FALSE(nl::Recording::parse("open generic\nsend 0g\n"));
	EXPECT_FALSE(nl::Recording::parse("open generic\nfamily X 1x\n"));
	EXPECT_FALSE(nl::Recording::parse("open generic\nfamily X\n"));
	EXPECT_FALSE(nl::Recording::parse("open generic\nbogus\n"));
	EXPECT_TRUE(nl::Recording::parse("\n# only comments\n"));
}

} // namespace
} // namespace smc
