// Result type for the library API: a value, or an error code with a message.
// No exceptions cross the library boundary (STYLE.md, "Errors and bad input").
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace stepdoctor {

enum class ErrorCode {
  kOk = 0,
  kNotFound,        // the path does not exist
  kIoError,         // the file exists but could not be read
  kUnknownFormat,   // the first bytes match no format we read
  kCorruptInput,    // the format was recognised but the bytes cannot be decoded at all
  kEmptyInput,      // the input holds nothing we can analyse
  kInvalidArgument, // a caller passed something meaningless (bad flag value, bad expression)
  kInternal,        // a bug: an invariant did not hold
};

const char* ErrorCodeName(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;  // one line, names the file where there is one
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : error_{code, std::move(message)} {}
  static Status Ok() { return {}; }
  bool ok() const { return error_.code == ErrorCode::kOk; }
  ErrorCode code() const { return error_.code; }
  const std::string& message() const { return error_.message; }

 private:
  Error error_{ErrorCode::kOk, {}};
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(ErrorCode code, std::string message) : v_(Error{code, std::move(message)}) {}
  Result(Status status) : v_(Error{status.code(), status.message()}) {}  // REQUIRED: !status.ok()

  bool ok() const { return std::holds_alternative<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &std::get<T>(v_); }
  const T* operator->() const { return &std::get<T>(v_); }
  T& operator*() & { return value(); }
  ErrorCode code() const { return ok() ? ErrorCode::kOk : std::get<Error>(v_).code; }
  const std::string& message() const {
    static const std::string kEmpty;
    return ok() ? kEmpty : std::get<Error>(v_).message;
  }
  Status status() const { return ok() ? Status() : Status(code(), message()); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace stepdoctor
