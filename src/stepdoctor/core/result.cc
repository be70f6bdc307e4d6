#include "stepdoctor/core/result.h"

namespace stepdoctor {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kIoError: return "read error";
    case ErrorCode::kUnknownFormat: return "unknown format";
    case ErrorCode::kCorruptInput: return "corrupt input";
    case ErrorCode::kEmptyInput: return "empty input";
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kInternal: return "internal error";
  }
  return "?";
}

}  // namespace stepdoctor
