// XSpaces written byte by byte, for the edges of the wire format libprotobuf accepts or refuses
// (xplane_wire.h): each is imported with both decoders, which must agree, and a few results
// are checked outright.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>

#include "xplane/xplane_decoder_compare.h"

namespace stepdoctor {
namespace {

using testing::ExpectDecodersAgree;

std::string V(uint64_t v) {
  std::string s;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    s.push_back(static_cast<char>(v ? b | 0x80 : b));
  } while (v);
  return s;
}
std::string T(uint32_t field, uint32_t wt) { return V(uint64_t{field} << 3 | wt); }
std::string I(uint32_t field, uint64_t v) { return T(field, 0) + V(v); }
std::string L(uint32_t field, const std::string& b) { return T(field, 2) + V(b.size()) + b; }
std::string D(uint32_t field, double d) {
  std::string s(8, '\0');
  std::memcpy(s.data(), &d, 8);
  return T(field, 1) + s;
}
std::string F32(uint32_t field) { return T(field, 5) + std::string(4, '\x01'); }
std::string Group(uint32_t field, const std::string& body) { return T(field, 3) + body + T(field, 4); }

std::string StatMeta(int64_t id, const std::string& name) {
  return L(5, I(1, id) + L(2, I(1, id) + L(2, name)));
}
std::string EventMeta(int64_t id, const std::string& name, const std::string& extra = "") {
  return L(4, I(1, id) + L(2, I(1, id) + L(2, name) + extra));
}
std::string Stat(int64_t id, int64_t v) { return L(4, I(1, id) + I(4, v)); }
std::string Event(int64_t meta, int64_t off_ps, int64_t dur_ps, const std::string& stats = "") {
  return L(4, I(1, meta) + I(2, off_ps) + I(3, dur_ps) + stats);
}
std::string Line(int64_t id, const std::string& name, int64_t ts, const std::string& events) {
  return L(3, I(1, id) + L(2, name) + I(3, ts) + events);
}
// A host plane with the metadata after the lines, as TensorFlow writes it.
std::string HostPlane(const std::string& lines, const std::string& more = "") {
  return L(1, I(1, 0) + L(2, "/host:CPU") + lines + EventMeta(1, "train_step") + EventMeta(2, "cuLaunchKernel") +
                  StatMeta(1, "step_num") + StatMeta(2, "correlation_id") + StatMeta(3, "group_id") + more);
}
std::string GoodLine() {
  return Line(1, "python", 1000, Event(1, 0, 5'000'000, Stat(1, 4)) + Event(2, 10'000, 2'000, Stat(2, 77)));
}

TEST(XPlaneWireEdges, AWellFormedPlaneReadsTheSame) {
  auto w = ExpectDecodersAgree(HostPlane(GoodLine()), "good");
  ASSERT_TRUE(w.status.ok());
  EXPECT_EQ(w.trace.EventCount(), 2u);
}

TEST(XPlaneWireEdges, EmptyInputsAndPlanes) {
  ExpectDecodersAgree("", "empty file");
  ExpectDecodersAgree(L(1, ""), "one empty plane");
  ExpectDecodersAgree(L(1, L(2, "/host:CPU")), "a plane without lines");
  ExpectDecodersAgree(L(1, L(2, "/host:CPU") + L(3, "")), "an empty line");
  ExpectDecodersAgree(L(1, L(2, "/host:CPU") + L(3, L(4, ""))), "an empty event");
  ExpectDecodersAgree(HostPlane(Line(1, "python", 0, L(4, L(4, "")))), "an empty stat");
  ExpectDecodersAgree(L(4, "host") + L(2, "an error") + L(3, "a warning") + HostPlane(GoodLine()), "space fields");
}

TEST(XPlaneWireEdges, UnknownFieldsAtEveryLevelAreSkipped) {
  const std::string junk = I(15, 3) + F32(16) + D(17, 1.0) + L(1000, "xyz") + I(536870911, 1) +
                           Group(18, I(1, 2) + L(2, "g") + Group(19, F32(3)));
  const std::string stat = L(4, junk + I(1, 1) + junk + I(4, 8));
  const std::string ev = L(4, junk + I(1, 1) + I(2, 0) + junk + I(3, 1000) + stat);
  auto w = ExpectDecodersAgree(L(1, junk) + HostPlane(Line(1, "python", 0, ev + L(12, junk)), junk) + junk.substr(0, 2),
                               "unknown fields");
  EXPECT_TRUE(w.status.ok());
}

TEST(XPlaneWireEdges, KnownNumbersWithAnotherWireTypeAreUnknownFields) {
  const std::string ev = L(4, D(1, 2.0) + I(1, 1) + L(2, "x") + F32(3) + I(4, 5) + L(3, "") + D(5, 1.0));
  ExpectDecodersAgree(HostPlane(Line(1, "python", 0, ev) + I(3, 9) + I(2, 1), I(4, 1) + I(5, 2)), "wire types");
  // A stat whose value comes with the wrong wire type: unset.
  ExpectDecodersAgree(HostPlane(Line(1, "python", 0, Event(1, 0, 1, L(4, I(1, 1) + L(4, "7") + I(2, 1))))),
                      "stat wire types");
}

TEST(XPlaneWireEdges, OneofsAndRepeatedScalarsKeepTheLastValue) {
  // offset then num_occurrences: aggregated; num_occurrences then offset: placed.
  const std::string agg = L(4, I(1, 1) + I(2, 5) + I(5, 3) + I(3, 10));
  const std::string placed = L(4, I(1, 1) + I(5, 3) + I(2, 5000) + I(3, 10));
  const std::string stats = L(4, I(1, 1) + I(4, 1) + L(5, "s") + I(3, 9)) + L(4, I(1, 3) + L(5, "a") + L(6, "b")) +
                            L(4, I(1, 3) + L(6, "b") + D(2, -0.0)) + L(4, I(1, 2) + D(2, 1e300));
  const std::string twice = L(4, I(1, 2) + I(1, 1) + I(2, 1) + I(2, 7000) + I(3, 1) + I(3, 9000) + stats);
  auto w = ExpectDecodersAgree(HostPlane(Line(1, "a", 0, agg + placed + twice) + Line(2, "b", 0, placed)), "oneofs");
  ASSERT_TRUE(w.status.ok());
  EXPECT_EQ(w.trace.EventCount(), 3u);
  ExpectDecodersAgree(HostPlane(L(3, I(1, 1) + L(2, "x") + L(2, "python") + I(3, 5) + I(3, 7) + L(11, "shown") +
                                     Event(1, 0, 1) + I(10, 4) + I(9, 3))),
                      "line scalars twice");
}

TEST(XPlaneWireEdges, MapEntriesAsLibprotobufMergesThem) {
  // Duplicate keys (the later entry wins), key after value, no key (0), a value given twice
  // (merged: the last name, both entries' stats), a stat metadata named twice.
  const std::string metas = EventMeta(1, "first") + EventMeta(1, "second") +
                            L(4, L(2, L(2, "keyless"))) + L(4, L(2, L(2, "late key") + L(5, I(1, 3) + I(4, 1))) +
                                                              L(2, L(4, "shown") + L(5, I(1, 1) + I(4, 2))) + I(1, 5)) +
                            StatMeta(1, "group_id") + StatMeta(3, "iter_num") + L(5, I(1, 9)) + L(5, "");
  const std::string evs = Event(1, 0, 1000) + Event(0, 1000, 1000) + Event(5, 2000, 1000) + Event(6, 3000, 1000);
  auto w = ExpectDecodersAgree(L(1, L(2, "/host:CPU") + Line(1, "python", 0, evs) + metas), "map entries");
  ASSERT_TRUE(w.status.ok());
  const Timeline& tl = w.trace.timelines.at(0);
  ASSERT_EQ(tl.ev.size(), 4u);
  EXPECT_EQ(w.trace.str(tl.ev.name[0]), "second");
  EXPECT_EQ(w.trace.str(tl.ev.name[1]), "keyless");
  EXPECT_EQ(w.trace.str(tl.ev.name[2]), "late key");
  EXPECT_EQ(w.trace.str(tl.ev.name[3]), "event metadata 6");
  EXPECT_EQ(tl.ev.args_n[2], 2u);
}

TEST(XPlaneWireEdges, ChildIdsPackedOrNot) {
  ExpectDecodersAgree(HostPlane(GoodLine(), EventMeta(7, "p", L(6, V(1) + V(300) + V(1ull << 63)))), "packed");
  ExpectDecodersAgree(HostPlane(GoodLine(), EventMeta(7, "u", I(6, 1) + I(6, 2))), "unpacked");
  ExpectDecodersAgree(HostPlane(GoodLine(), EventMeta(7, "bad", L(6, V(1) + "\x80"))), "packed, cut varint");
  ExpectDecodersAgree(HostPlane(GoodLine(), EventMeta(7, "f", D(6, 1.0))), "child_id as fixed64");
}

TEST(XPlaneWireEdges, ExtremeTimesAndDurations) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  for (int64_t ts : {int64_t{0}, int64_t{-1}, kMin, kMax, kMax - 150'000'000, int64_t{-4'000'000'000'000'000'000}}) {
    const std::string evs = Event(1, 0, 1000) + Event(1, -5000, 1000) + Event(1, kMax, 1) + Event(1, kMin, 1) +
                            Event(1, 0, -1) + Event(1, 0, kMax) + Event(1, kMax - 999, kMin);
    ExpectDecodersAgree(HostPlane(Line(1, "python", ts, evs)), "timestamp " + std::to_string(ts));
  }
}

TEST(XPlaneWireEdges, VarintsTagsAndLengthsAtTheirLimits) {
  const std::string line = GoodLine();
  // Non-canonical and 10-byte varints (the bits past 64 dropped); 11 bytes is refused.
  ExpectDecodersAgree(HostPlane(line + L(3, T(1, 0) + "\x80\x80\x00" + T(3, 0) + std::string(9, '\xff') + "\x7f" +
                                            L(4, I(1, 1) + T(3, 0) + std::string(9, '\x81') + "\x01"))),
                      "long varints");
  ExpectDecodersAgree(HostPlane(line + L(3, T(3, 0) + std::string(10, '\xff') + "\x01")), "11-byte varint");
  // Tags of 5 bytes (kept mod 2^32) and 6; field number 0; end-group alone; wire types 6, 7.
  ExpectDecodersAgree(HostPlane(line + L(3, std::string("\x88\x80\x80\x80\x10", 5) + V(1))), "5-byte tag");
  ExpectDecodersAgree(HostPlane(line + L(3, std::string("\x88\x80\x80\x80\x80\x00", 6) + V(1))), "6-byte tag");
  ExpectDecodersAgree(HostPlane(line + L(3, std::string("\x88\x80\x80\x80\x0f", 5) + V(1))), "5-byte tag, high bits");
  for (const std::string& bad : {I(0, 1), L(0, "x"), T(9, 4), T(9, 6) + V(1), T(9, 7) + V(1)}) {
    ExpectDecodersAgree(HostPlane(line + L(3, bad)), "bad tag in a line");
    ExpectDecodersAgree(HostPlane(line, bad), "bad tag in a plane");
    ExpectDecodersAgree(HostPlane(Line(1, "python", 0, L(4, L(4, I(1, 1) + bad)))), "bad tag in a stat");
  }
  // Lengths: 5 bytes (the last below 8) is read; 5th byte >= 8 or past the message refused.
  ExpectDecodersAgree(HostPlane(line + T(3, 2) + std::string("\x80\x80\x80\x80\x00", 5)), "5-byte length");
  ExpectDecodersAgree(HostPlane(line + T(3, 2) + std::string("\x80\x80\x80\x80\x08", 5)), "2 GiB length");
  ExpectDecodersAgree(HostPlane(line + T(3, 2) + V(1000) + "short"), "length past the plane");
  ExpectDecodersAgree(HostPlane(Line(1, "python", 0, T(4, 2) + V(3) + I(1, 1) + I(3, 1000))), "event past its line");
  ExpectDecodersAgree(HostPlane(line + T(9, 1) + "1234"), "cut fixed64");
}

TEST(XPlaneWireEdges, GroupsNestToTheRecursionLimit) {
  const std::string line = GoodLine();
  for (int depth : {1, 95, 96, 97, 98, 99, 100, 101}) {
    std::string g;
    for (int i = 0; i < depth; ++i) g = Group(20 + i % 3, g);
    ExpectDecodersAgree(HostPlane(line, g), "plane group depth " + std::to_string(depth));
    ExpectDecodersAgree(HostPlane(Line(1, "python", 0, L(4, I(1, 1) + I(3, 1000) + L(4, I(1, 1) + g)))),
                        "stat group depth " + std::to_string(depth));
  }
  ExpectDecodersAgree(HostPlane(line, T(20, 3) + I(1, 1) + T(21, 4)), "group ends with another number");
  ExpectDecodersAgree(HostPlane(line, T(20, 3) + I(1, 1)), "group never ends");
  ExpectDecodersAgree(HostPlane(line, T(20, 3) + V(0) + T(20, 4)), "group holds tag 0");
}

TEST(XPlaneWireEdges, ABadPlaneIsNotedAndTheOthersRead) {
  const std::string bad = L(1, L(2, "/host:CPU") + Line(1, "python", 0, Event(1, 0, 1)) + T(3, 2) + V(50) + "x");
  auto w = ExpectDecodersAgree(bad + HostPlane(GoodLine()) + bad, "a bad plane between");
  ASSERT_TRUE(w.status.ok());
  EXPECT_EQ(w.trace.EventCount(), 2u);
  EXPECT_EQ(w.trace.diagnostics.count(ImportIssue::kCorruptRecord), 2u);
  auto only_bad = ExpectDecodersAgree(bad, "only a bad plane");
  EXPECT_FALSE(only_bad.status.ok());
}

// A plane whose last line is bad after others were read: what its good lines added (events,
// memory samples on a series an earlier plane began, a device's stats) is not kept.
TEST(XPlaneWireEdges, APlaneBadInItsLastLineAddsNothing) {
  const std::string mem_meta = EventMeta(3, "MemoryAllocation") + StatMeta(4, "bytes_allocated") +
                               StatMeta(5, "allocator_name");
  const std::string mem_ev = Event(3, 0, 0, Stat(4, 4096) + L(4, I(1, 5) + L(5, "GPU_0_bfc")));
  const std::string good = L(1, L(2, "/host:CPU") + Line(1, "python", 0, mem_ev + Event(1, 10, 10)) + mem_meta +
                                    EventMeta(1, "train_step") + StatMeta(1, "step_num"));
  const std::string bad_line = L(3, I(1, 2) + L(2, "python2") + Event(1, 0, 10) + T(0, 0));
  const std::string bad = L(1, L(2, "/host:CPU") + Line(1, "python", 50, mem_ev + mem_ev) + bad_line + mem_meta +
                                   EventMeta(1, "train_step") + StatMeta(1, "step_num"));
  const std::string gpu_bad = L(1, L(2, "/device:GPU:3") + L(6, I(1, 10) + I(3, 108)) + StatMeta(10, "core_count") +
                                       Line(1, "Stream #1(Compute)", 0, Event(1, 0, 10)) + EventMeta(1, "k") +
                                       L(3, Event(1, 0, 10) + T(9, 7)));
  auto w = ExpectDecodersAgree(good + bad + gpu_bad + good, "bad last lines");
  ASSERT_TRUE(w.status.ok());
  EXPECT_EQ(w.trace.diagnostics.count(ImportIssue::kCorruptRecord), 2u);
  ASSERT_EQ(w.trace.counters.size(), 1u);
  EXPECT_EQ(w.trace.counters[0].ts_ns.size(), 2u);  // one per good plane
  for (const Device& d : w.trace.devices) EXPECT_EQ(d.sm_count, 0);
}

TEST(XPlaneWireEdges, SparseAndNegativeMetadataIds) {
  constexpr int64_t kBig = int64_t{1} << 40;
  const std::string evs = Event(kBig, 0, 1000, Stat(-3, 5) + Stat(70000, 6)) + Event(-1, 10, 1000) + Event(65535, 20, 1);
  ExpectDecodersAgree(L(1, L(2, "/host:CPU") + Line(1, "python", 0, evs) + EventMeta(kBig, "big") +
                               EventMeta(-1, "negative") + EventMeta(65535, "edge") + StatMeta(-3, "step_num") +
                               StatMeta(70000, "group_id")),
                      "sparse ids");
}

TEST(XPlaneWireEdges, PlaneStatsAndRefs) {
  const std::string stats = L(6, I(1, 10) + I(3, 108)) + L(6, I(1, 11) + L(5, "AMD")) + L(6, I(1, 12) + D(2, 8e9)) +
                            L(6, I(1, 13) + L(6, "bytes")) + L(6, I(1, 99) + I(4, 1));
  const std::string meta = StatMeta(10, "core_count") + StatMeta(11, "device_vendor") + StatMeta(12, "memory_size") +
                           StatMeta(13, "device_type_string") + StatMeta(20, "tf_op") + StatMeta(21, "Conv2D");
  const std::string ev = Event(1, 0, 1000, L(4, I(1, 20) + I(7, 21)) + L(4, I(1, 20) + I(7, 555)));
  auto w = ExpectDecodersAgree(L(1, L(2, "/device:GPU:1") + Line(1, "Stream #1(Compute)", 0, ev) + stats + meta +
                                        EventMeta(1, "k")),
                               "plane stats");
  ASSERT_TRUE(w.status.ok());
  ASSERT_FALSE(w.trace.devices.empty());
  EXPECT_EQ(w.trace.devices.back().vendor, "amd");
  EXPECT_EQ(w.trace.devices.back().sm_count, 108);
}

}  // namespace
}  // namespace stepdoctor
