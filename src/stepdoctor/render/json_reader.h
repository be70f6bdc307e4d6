// Reading what JsonWriter wrote, for the readers of the JSON report (render/json_read,
// render/kernel_views_json_read): simdjson's DOM (a report is small), each value read with its key
// path, which an error names ("findings[2].severity: expected a string"). Paths are spelled out
// only when an error names them.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stepdoctor/core/result.h"

// Returns the Status of `expr` from the enclosing function unless it is ok.
#define SD_JSON_TRY(expr)                                           \
  do {                                                              \
    if (::stepdoctor::Status sd_st = (expr); !sd_st.ok()) return sd_st; \
  } while (0)

namespace stepdoctor::json_read {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// Where a value lies in the report: "findings[2].severity". Parents outlive their children
// (each lives in the frame that reads it).
struct Path {
  const Path* parent = nullptr;
  std::string_view key;  // empty with an index (or at the root)
  size_t index = 0;
  bool is_index = false;

  Path Key(std::string_view k) const { return Path{this, k, 0, false}; }
  Path Index(size_t i) const { return Path{this, {}, i, true}; }
  std::string Str() const;  // "" at the root
};

// "<path>: <what>", ErrorCode::kCorruptInput.
Status Bad(const Path& p, std::string_view what);

// One value of the type the field holds, or an error naming `p`. A double reads null as NaN
// (RenderJson writes a number that is not finite as null); an optional one reads null as absent.
Status Read(element e, const Path& p, std::string* out);
Status Read(element e, const Path& p, bool* out);
Status Read(element e, const Path& p, double* out);
Status Read(element e, const Path& p, std::optional<double>* out);
Status Read(element e, const Path& p, int64_t* out);
Status Read(element e, const Path& p, std::optional<int64_t>* out);
Status Read(element e, const Path& p, int* out);

template <class T>
Status Read(element e, const Path& p, std::vector<T>* out) {
  array a;
  if (e.get_array().get(a)) return Bad(p, "expected an array");
  out->clear();
  out->reserve(a.size());
  size_t i = 0;
  for (element item : a) {
    T v{};
    SD_JSON_TRY(Read(item, p.Index(i++), &v));
    out->push_back(std::move(v));
  }
  return {};
}

// One JSON object being read. REQUIRED: `path` outlives it (it is kept by reference).
class Obj {
 public:
  Obj(object o, const Path& path) : o_(o), path_(path) {}
  const Path& path() const { return path_; }

  bool Has(std::string_view key) const {
    element e;
    return !o_[key].get(e);
  }
  Status Get(std::string_view key, element* out) const {
    if (o_[key].get(*out)) return Bad(path_.Key(key), "missing");
    return {};
  }
  template <class T>
  Status Field(std::string_view key, T* out) const {
    element e;
    SD_JSON_TRY(Get(key, &e));
    return Read(e, path_.Key(key), out);
  }
  // The object under `key`, handed to read(const Obj&).
  template <class F>
  Status Nested(std::string_view key, F&& read) const {
    element e;
    SD_JSON_TRY(Get(key, &e));
    return AsObject(e, path_.Key(key), read);
  }
  // As Nested, for a key that may be null (and, where `may_lack`, missing): *present says
  // whether there was an object.
  template <class F>
  Status NullOr(std::string_view key, bool may_lack, bool* present, F&& read) const {
    *present = false;
    element e;
    if (may_lack && !Has(key)) return {};
    SD_JSON_TRY(Get(key, &e));
    if (e.is_null()) return {};
    *present = true;
    return AsObject(e, path_.Key(key), read);
  }
  // The array of objects under `key`, each read by read(const Obj&, T*).
  template <class T, class F>
  Status Objects(std::string_view key, std::vector<T>* out, F&& read) const {
    element e;
    SD_JSON_TRY(Get(key, &e));
    const Path p = path_.Key(key);
    array a;
    if (e.get_array().get(a)) return Bad(p, "expected an array");
    out->clear();
    size_t i = 0;
    for (element item : a) {
      T v{};
      SD_JSON_TRY(AsObject(item, p.Index(i++), [&](const Obj& o) { return read(o, &v); }));
      out->push_back(std::move(v));
    }
    return {};
  }
  // An object of name -> number, in its order (a name given twice is kept twice).
  Status NamedNumbers(std::string_view key, std::vector<std::pair<std::string, double>>* out) const {
    element e;
    SD_JSON_TRY(Get(key, &e));
    const Path p = path_.Key(key);
    object o;
    if (e.get_object().get(o)) return Bad(p, "expected an object");
    out->clear();
    for (simdjson::dom::key_value_pair kv : o) {
      double v = 0;
      SD_JSON_TRY(Read(kv.value, p.Key(kv.key), &v));
      out->emplace_back(std::string(kv.key), v);
    }
    return {};
  }

 private:
  template <class F>
  static Status AsObject(element e, const Path& p, F&& read) {
    object o;
    if (e.get_object().get(o)) return Bad(p, "expected an object");
    return read(Obj(o, p));
  }

  object o_;
  const Path& path_;
};

// Parses `json` into *root, which lives as long as `parser`; an error says why it is not JSON.
Status Parse(simdjson::dom::parser& parser, std::string_view json, element* root);

}  // namespace stepdoctor::json_read
