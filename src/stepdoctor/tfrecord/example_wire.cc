#include "stepdoctor/tfrecord/example_wire.h"

#include <cstring>

namespace stepdoctor::tfrecord {
namespace {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// A cursor over a message's bytes; every read fails (returns false) rather than run past the end.
struct Cursor {
  const char* p;
  const char* end;
  bool done() const { return p >= end; }
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && p < end; shift += 7) {
      auto b = static_cast<unsigned char>(*p++);
      *v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  bool Tag(uint32_t* field, uint32_t* wire) {
    uint64_t t;
    if (!Varint(&t) || (t >> 3) == 0 || (t >> 3) > 0x1fffffff) return false;
    *field = uint32_t(t >> 3);
    *wire = uint32_t(t & 7);
    return true;
  }
  bool Bytes(std::string_view* out) {
    uint64_t n;
    if (!Varint(&n) || n > uint64_t(end - p)) return false;
    *out = std::string_view(p, n);
    p += n;
    return true;
  }
  // Skips a field of an unknown number (forward compatibility), by its wire type.
  bool Skip(uint32_t wire) {
    uint64_t v;
    std::string_view s;
    switch (wire) {
      case kVarint: return Varint(&v);
      case kFixed64: return end - p >= 8 ? (p += 8, true) : false;
      case kLen: return Bytes(&s);
      case kFixed32: return end - p >= 4 ? (p += 4, true) : false;
      default: return false;  // groups (3, 4) never appear in these messages
    }
  }
};

Cursor At(std::string_view s) { return {s.data(), s.data() + s.size()}; }

// Counts the values of a BytesList/FloatList/Int64List body; packed and unpacked both accepted.
bool DecodeList(std::string_view body, FeatureType type, FeatureSeen* f) {
  Cursor c = At(body);
  while (!c.done()) {
    uint32_t field, wire;
    if (!c.Tag(&field, &wire)) return false;
    if (field != 1) {
      if (!c.Skip(wire)) return false;
      continue;
    }
    std::string_view s;
    uint64_t v;
    if (type == FeatureType::kBytes) {
      if (wire != kLen || !c.Bytes(&s)) return false;
      ++f->values;
      f->bytes += s.size();
    } else if (type == FeatureType::kFloat) {
      if (wire == kFixed32) {
        if (!c.Skip(wire)) return false;
        ++f->values;
      } else if (wire == kLen) {
        if (!c.Bytes(&s) || s.size() % 4 != 0) return false;
        f->values += s.size() / 4;
      } else {
        return false;
      }
    } else {
      if (wire == kVarint) {
        if (!c.Varint(&v)) return false;
        ++f->values;
      } else if (wire == kLen) {
        if (!c.Bytes(&s)) return false;
        Cursor packed = At(s);
        while (!packed.done()) {
          if (!packed.Varint(&v)) return false;
          ++f->values;
        }
      } else {
        return false;
      }
    }
  }
  return true;
}

// A Feature body: at most one of the three lists (an empty Feature has type kNone).
bool DecodeFeature(std::string_view body, FeatureSeen* f) {
  Cursor c = At(body);
  while (!c.done()) {
    uint32_t field, wire;
    if (!c.Tag(&field, &wire)) return false;
    if (field < 1 || field > 3) {
      if (!c.Skip(wire)) return false;
      continue;
    }
    std::string_view list;
    if (wire != kLen || !c.Bytes(&list)) return false;
    f->type = field == 1 ? FeatureType::kBytes : field == 2 ? FeatureType::kFloat : FeatureType::kInt64;
    f->values = f->bytes = 0;  // the last one of a oneof wins
    if (!DecodeList(list, f->type, f)) return false;
  }
  return true;
}

// A map entry {key = 1, value = 2}.
bool DecodeEntry(std::string_view entry, std::string_view* key, std::string_view* value) {
  Cursor c = At(entry);
  *key = {};
  *value = {};
  while (!c.done()) {
    uint32_t field, wire;
    if (!c.Tag(&field, &wire)) return false;
    if ((field == 1 || field == 2) && wire != kLen) return false;
    if (field == 1) {
      if (!c.Bytes(key)) return false;
    } else if (field == 2) {
      if (!c.Bytes(value)) return false;
    } else if (!c.Skip(wire)) {
      return false;
    }
  }
  return true;
}

// A Features body (or FeatureLists body when `lists`), appending one FeatureSeen per entry.
bool DecodeFeatures(std::string_view body, bool lists, std::vector<FeatureSeen>* out) {
  Cursor c = At(body);
  while (!c.done()) {
    uint32_t field, wire;
    if (!c.Tag(&field, &wire)) return false;
    if (field != 1) {
      if (!c.Skip(wire)) return false;
      continue;
    }
    std::string_view entry, key, value;
    if (wire != kLen || !c.Bytes(&entry) || !DecodeEntry(entry, &key, &value)) return false;
    FeatureSeen f;
    f.key = key;
    if (!lists) {
      if (!DecodeFeature(value, &f)) return false;
    } else {
      // FeatureList { repeated Feature feature = 1 }: the type of its steps, values = steps.
      f.sequence = true;
      Cursor l = At(value);
      while (!l.done()) {
        uint32_t lf, lw;
        std::string_view step;
        if (!l.Tag(&lf, &lw)) return false;
        if (lf != 1) {
          if (!l.Skip(lw)) return false;
          continue;
        }
        FeatureSeen s;
        if (lw != kLen || !l.Bytes(&step) || !DecodeFeature(step, &s)) return false;
        if (s.type != FeatureType::kNone) f.type = s.type;
        f.bytes += s.bytes;
        ++f.values;
      }
    }
    out->push_back(f);
  }
  return true;
}

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(char(v | 0x80));
    v >>= 7;
  }
  out->push_back(char(v));
}

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

// The tag of a length-delimited field (all fields these messages write are).
void PutTag(uint32_t field, std::string* out) { PutVarint((uint64_t(field) << 3) | kLen, out); }

}  // namespace

const char* FeatureTypeName(FeatureType t) {
  switch (t) {
    case FeatureType::kNone: return "none";
    case FeatureType::kBytes: return "bytes";
    case FeatureType::kFloat: return "float";
    case FeatureType::kInt64: return "int64";
  }
  return "none";
}

ExampleKind DecodeExample(std::string_view record, std::vector<FeatureSeen>* features) {
  features->clear();
  Cursor c = At(record);
  bool has_lists = false;
  while (!c.done()) {
    uint32_t field, wire;
    std::string_view body;
    if (!c.Tag(&field, &wire)) return ExampleKind::kNotExample;
    if (field == 1 || field == 2) {
      if (wire != kLen || !c.Bytes(&body) || !DecodeFeatures(body, field == 2, features))
        return ExampleKind::kNotExample;
      has_lists |= field == 2;
    } else {
      // An Example has no other field: unknown ones mean some other message.
      return ExampleKind::kNotExample;
    }
  }
  return has_lists ? ExampleKind::kSequenceExample : ExampleKind::kExample;
}

namespace {

// The Feature body for `key` in an Example's Features, or false.
bool FindFeature(std::string_view record, std::string_view key, std::string_view* feature) {
  Cursor c = At(record);
  while (!c.done()) {
    uint32_t field, wire;
    std::string_view body;
    if (!c.Tag(&field, &wire) || wire != kLen || !c.Bytes(&body)) return false;
    if (field != 1) continue;
    Cursor f = At(body);
    while (!f.done()) {
      uint32_t ff, fw;
      std::string_view entry, k, v;
      if (!f.Tag(&ff, &fw) || fw != kLen || !f.Bytes(&entry)) return false;
      if (ff == 1 && DecodeEntry(entry, &k, &v) && k == key) {
        *feature = v;
        return true;
      }
    }
  }
  return false;
}

// The first value of the list at field `list_field` of a Feature body.
bool FirstListValue(std::string_view feature, uint32_t list_field, Cursor* value_at, uint32_t* wire_out) {
  Cursor c = At(feature);
  while (!c.done()) {
    uint32_t field, wire;
    std::string_view list;
    if (!c.Tag(&field, &wire) || wire != kLen || !c.Bytes(&list)) return false;
    if (field != list_field) continue;
    Cursor l = At(list);
    uint32_t lf, lw;
    if (l.done() || !l.Tag(&lf, &lw) || lf != 1) return false;
    *value_at = l;
    *wire_out = lw;
    return true;
  }
  return false;
}

}  // namespace

bool FindBytesFeature(std::string_view record, std::string_view key, std::string* value) {
  std::string_view feature, s;
  Cursor c{nullptr, nullptr};
  uint32_t wire;
  if (!FindFeature(record, key, &feature) || !FirstListValue(feature, 1, &c, &wire) || wire != kLen ||
      !c.Bytes(&s))
    return false;
  value->assign(s);
  return true;
}

bool FindInt64Feature(std::string_view record, std::string_view key, int64_t* value) {
  std::string_view feature, packed;
  Cursor c{nullptr, nullptr};
  uint32_t wire;
  uint64_t v;
  if (!FindFeature(record, key, &feature) || !FirstListValue(feature, 3, &c, &wire)) return false;
  if (wire == kLen) {
    if (!c.Bytes(&packed)) return false;
    c = At(packed);
  } else if (wire != kVarint) {
    return false;
  }
  if (!c.Varint(&v)) return false;
  *value = static_cast<int64_t>(v);
  return true;
}

ExampleBuilder& ExampleBuilder::Bytes(std::string_view key, std::string_view value) {
  entries_.push_back({key, 1, value, {}});
  return *this;
}

ExampleBuilder& ExampleBuilder::Int64(std::string_view key, int64_t value) {
  std::string packed;
  PutVarint(static_cast<uint64_t>(value), &packed);  // int64: negatives take ten bytes
  entries_.push_back({key, 3, {}, std::move(packed)});
  return *this;
}

ExampleBuilder& ExampleBuilder::Floats(std::string_view key, const std::vector<float>& values) {
  std::string packed(values.size() * 4, '\0');
  if (!values.empty()) std::memcpy(packed.data(), values.data(), packed.size());  // little-endian hosts
  entries_.push_back({key, 2, {}, std::move(packed)});
  return *this;
}

std::string ExampleBuilder::Take() {
  // Sizes inside out: list body (value = 1), Feature (list), map entry (key = 1, value = 2).
  struct Sizes {
    size_t list, feature, entry;
  };
  std::vector<Sizes> sizes;
  size_t features = 0;
  for (const Entry& e : entries_) {
    size_t value = e.list_field == 1 ? e.bytes.size() : e.packed.size();
    Sizes z;
    z.list = 1 + VarintSize(value) + value;
    z.feature = 1 + VarintSize(z.list) + z.list;
    z.entry = 1 + VarintSize(e.key.size()) + e.key.size() + 1 + VarintSize(z.feature) + z.feature;
    features += 1 + VarintSize(z.entry) + z.entry;
    sizes.push_back(z);
  }
  std::string out;
  out.reserve(1 + VarintSize(features) + features);
  PutTag(1, &out);  // Example.features = 1
  PutVarint(features, &out);
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    PutTag(1, &out);  // Features.feature (map entry) = 1
    PutVarint(sizes[i].entry, &out);
    PutTag(1, &out);  // key
    PutVarint(e.key.size(), &out);
    out.append(e.key);
    PutTag(2, &out);  // value: Feature
    PutVarint(sizes[i].feature, &out);
    PutTag(e.list_field, &out);
    PutVarint(sizes[i].list, &out);
    PutTag(1, &out);  // the list's value = 1 (packed for numbers)
    std::string_view value = e.list_field == 1 ? e.bytes : std::string_view(e.packed);
    PutVarint(value.size(), &out);
    out.append(value);
  }
  entries_.clear();
  return out;
}

}  // namespace stepdoctor::tfrecord
