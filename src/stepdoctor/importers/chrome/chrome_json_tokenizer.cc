#include "stepdoctor/importers/chrome/chrome_json_tokenizer.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "stepdoctor/importers/chrome/json_value_scan.h"

namespace stepdoctor::chrome {
namespace {

constexpr size_t kFront = 1;             // one writable byte before the data, for the '['
constexpr size_t kPad = 128;             // readable bytes after the data (simdjson wants 64)

// A sliding read window over the source: [lo, hi) holds bytes not yet consumed. Where the
// source's bytes already lie in memory (a mapped file, an inflated .gz) the window is that
// block, read in place: nothing is copied, and the pages behind lo are handed back as it goes.
class Window {
 public:
  Window(ByteSource& src, size_t cap, size_t max_cap) : src_(src), cap_(cap), max_cap_(max_cap) {
    size_t len = 0;
    if (char* block = src.TakeContiguous(0, &len)) {
      external_ = block;
      lo = 0;
      hi = len;
      bytes = len;
      eof = true;  // all of it is there already
    } else {
      buf_.assign(kFront + cap + kPad, ' ');
    }
  }

  char* data() { return external_ ? external_ : buf_.data(); }
  bool in_place() const { return external_ != nullptr; }
  size_t lo = kFront, hi = kFront;
  bool eof = false;
  bool too_large = false;  // the window is full of one value and may not grow further
  uint64_t bytes = 0;

  // Offset in the whole input of window position p.
  uint64_t Offset(size_t p) const { return bytes - (hi - p); }
  // A value [p, e) longer than the window may grow to: where the bytes are read in place the
  // window never fills, so the same cap is applied here.
  bool TooLarge(size_t p, size_t e) const { return external_ && e - p > max_cap_; }
  // In place: the bytes before p will not be looked at again.
  void Release(size_t p) {
    if (external_) src_.ReleaseBefore(p);
  }

  // Makes room and reads more. Returns false at end of input (or when a value is too large).
  Result<bool> Fill() {
    if (eof) return false;
    if (lo > kFront) {
      std::memmove(buf_.data() + kFront, buf_.data() + lo, hi - lo);
      hi -= lo - kFront;
      lo = kFront;
    }
    if (hi == kFront + cap_) {
      if (cap_ >= max_cap_) {
        too_large = true;
        return false;
      }
      cap_ = std::min(cap_ * 2, max_cap_);
      buf_.resize(kFront + cap_ + kPad, ' ');
    }
    while (true) {
      auto r = src_.Read(buf_.data() + hi, kFront + cap_ - hi);
      if (!r.ok()) return Result<bool>(r.status());
      if (*r == 0) {
        eof = true;
        return false;
      }
      hi += *r;
      bytes += *r;
      // Keep the padding deterministic (spaces), whatever an earlier, longer fill left there.
      std::memset(buf_.data() + hi, ' ', std::min(kPad, buf_.size() - hi));
      return true;
    }
  }

 private:
  ByteSource& src_;
  size_t cap_, max_cap_;
  std::vector<char> buf_;
  char* external_ = nullptr;  // the source's own block, when read in place
};

static_assert(kContiguousPadding >= kPad);

enum class State { kStart, kObjectKey, kSkipValue, kInArray, kDone };
enum class Step { kProgress, kNeedMore, kStop, kNotJson };

class Tokenizer {
 public:
  Tokenizer(ByteSource& src, TokenizerSink& sink, TokenizerStats& stats, const TokenizerOptions& o)
      : w_(src, o.window_bytes, o.max_value_bytes), sink_(sink), stats_(stats), opts_(o) {}

  Status Run() {
    for (;;) {
      Step s = Advance();
      if (s == Step::kProgress) continue;
      if (s == Step::kNotJson) return Status(ErrorCode::kUnknownFormat, "not a JSON document");
      if (s == Step::kStop) break;
      // kNeedMore
      auto more = w_.Fill();
      if (!more.ok()) return more.status();
      if (!*more) {
        if (w_.too_large) {
          stats_.value_too_large = true;
        } else if (state_ != State::kDone) {
          // Only whitespace at the very start means an empty file; anything else is a cut.
          if (state_ == State::kStart && !started_) return Status(ErrorCode::kEmptyInput, "the file is empty");
          stats_.truncated = true;
          stats_.ended_between_events = state_ == State::kInArray && !SkipSpace(true);
        }
        break;
      }
    }
    stats_.bytes = w_.bytes;
    w_.Release(w_.hi);  // all read: the source counts every byte consumed
    return Status::Ok();
  }

 private:
  char* d() { return w_.data(); }

  // Skips whitespace (and commas where allowed) from lo; returns false when the window ran out.
  bool SkipSpace(bool commas) {
    char* b = d();
    size_t p = w_.lo;
    while (p < w_.hi && (IsJsonSpace(b[p]) || (commas && b[p] == ','))) ++p;
    w_.lo = p;
    return p < w_.hi;
  }

  Step Advance() {
    switch (state_) {
      case State::kStart: return Start();
      case State::kObjectKey: return ObjectKey();
      case State::kSkipValue: return SkipValue();
      case State::kInArray: return InArray();
      case State::kDone: return Done();
    }
    return Step::kStop;
  }

  Step Start() {
    static constexpr char kBom[] = "\xEF\xBB\xBF";
    const size_t n = w_.hi - w_.lo;
    // A read that ends inside the BOM (a source handing out a byte or two at a time): wait for
    // the rest rather than take its first byte for the start of something that is not JSON.
    if (n < 3 && !w_.eof && std::memcmp(d() + w_.lo, kBom, n) == 0) return Step::kNeedMore;
    if (n >= 3 && std::memcmp(d() + w_.lo, kBom, 3) == 0) w_.lo += 3;
    if (!SkipSpace(false)) return Step::kNeedMore;
    started_ = true;
    char c = d()[w_.lo];
    if (c == '[') {
      stats_.bare_array = true;
      array_is_top_ = true;
      ++w_.lo;
      state_ = State::kInArray;
      return Step::kProgress;
    }
    if (c == '{') {
      ++w_.lo;
      state_ = State::kObjectKey;
      return Step::kProgress;
    }
    return Step::kNotJson;
  }

  Step ObjectKey() {
    if (!SkipSpace(true)) return Step::kNeedMore;
    char* b = d();
    size_t p = w_.lo;
    if (b[p] == '}') {
      w_.lo = p + 1;
      state_ = State::kDone;
      return Step::kProgress;
    }
    if (b[p] != '"') return Corrupt(p);
    size_t key_end = ScanValueEnd(b, p, w_.hi, w_.eof);
    if (key_end == kIncomplete) return Step::kNeedMore;
    std::string_view key(b + p + 1, key_end - p - 2);
    size_t q = key_end;
    while (q < w_.hi && IsJsonSpace(b[q])) ++q;
    if (q >= w_.hi) return Step::kNeedMore;
    if (b[q] != ':') return Corrupt(q);
    ++q;
    while (q < w_.hi && IsJsonSpace(b[q])) ++q;
    if (q >= w_.hi) return Step::kNeedMore;
    if (key == "traceEvents" && b[q] == '[') {
      stats_.saw_trace_events = true;
      array_is_top_ = false;
      w_.lo = q + 1;
      state_ = State::kInArray;
      return Step::kProgress;
    }
    if (!sink_.WantsTopLevelField(key) && (b[q] == '{' || b[q] == '[' || b[q] == '"')) {
      // Key order is free in JSON: traceEvents may follow a value of any size. Scan past it in
      // pieces instead of holding it.
      skip_ = ValueScanState();
      w_.lo = q;
      state_ = State::kSkipValue;
      return Step::kProgress;
    }
    size_t v_end = ScanValueEnd(b, q, w_.hi, w_.eof);
    if (v_end == kIncomplete) return Step::kNeedMore;
    if (v_end == q) return Corrupt(q);  // a structural byte where the value should be
    if (w_.TooLarge(p, v_end)) return TooLarge();
    if (sink_.WantsTopLevelField(key)) sink_.OnTopLevelField(key, std::string_view(b + q, v_end - q));
    w_.lo = v_end;
    return Step::kProgress;
  }

  Step SkipValue() {
    size_t e = ScanValueResume(d(), w_.lo, w_.hi, &skip_);
    if (e == kIncomplete) {
      w_.lo = w_.hi;  // everything read so far is scanned: the window need not grow
      return Step::kNeedMore;
    }
    w_.lo = e;
    state_ = State::kObjectKey;
    return Step::kProgress;
  }

  Step InArray() {
    if (!SkipSpace(true)) return Step::kNeedMore;
    char* b = d();
    if (b[w_.lo] == ']') {
      ++w_.lo;
      state_ = array_is_top_ ? State::kDone : State::kObjectKey;
      return Step::kProgress;
    }
    const size_t start = w_.lo;
    size_t p = start, last_end = start, count = 0;
    while (p < w_.hi) {
      if (b[p] == ']') break;
      size_t e = ScanValueEnd(b, p, w_.hi, w_.eof);
      if (e == kIncomplete) break;
      if (e == p) {
        // A structural byte where a value should start ("[}"): the array is broken here.
        if (count == 0) return Corrupt(p);
        break;
      }
      if (w_.TooLarge(p, e)) {
        if (count == 0) return TooLarge();
        break;
      }
      last_end = e;
      ++count;
      p = e;
      while (p < w_.hi && (IsJsonSpace(b[p]) || b[p] == ',')) ++p;
      if (p - start >= opts_.batch_bytes) break;
    }
    if (count == 0) return Step::kNeedMore;
    // Turn the run of events into an array in place: the byte before `start` and the one at
    // `last_end` are separators (or the front pad), so they can be borrowed and restored.
    char before = b[start - 1], after = b[last_end];
    b[start - 1] = '[';
    b[last_end] = ']';
    sink_.OnEventBatch(b + start - 1, last_end - start + 2, count);
    b[start - 1] = before;
    b[last_end] = after;
    stats_.events += count;
    w_.lo = p;
    w_.Release(start - 1);
    return Step::kProgress;
  }

  Step Done() {
    if (!SkipSpace(false)) return Step::kNeedMore;
    stats_.trailing_garbage = true;
    return Step::kStop;
  }

  Step TooLarge() {
    stats_.value_too_large = true;
    return Step::kStop;
  }

  Step Corrupt(size_t at) {
    // Structure we cannot follow after a valid start: keep what was read, say where it broke.
    stats_.broken = true;
    stats_.broken_at = w_.Offset(at);
    return Step::kStop;
  }

  Window w_;
  TokenizerSink& sink_;
  TokenizerStats& stats_;
  const TokenizerOptions& opts_;
  State state_ = State::kStart;
  ValueScanState skip_;  // progress through a top-level value being skipped
  bool array_is_top_ = false;
  bool started_ = false;
};

}  // namespace

Status TokenizeChromeJson(ByteSource& src, TokenizerSink& sink, TokenizerStats* stats,
                          const TokenizerOptions& opts) {
  TokenizerStats local;
  TokenizerStats& st = stats ? *stats : local;
  Tokenizer t(src, sink, st, opts);
  return t.Run();
}

}  // namespace stepdoctor::chrome
