#include "stepdoctor/report/tune_report.h"

namespace stepdoctor {

const char* TuneVerdictName(TuneVerdict v) {
  switch (v) {
    case TuneVerdict::kKept: return "kept";
    case TuneVerdict::kFaster: return "faster";
    case TuneVerdict::kNotConfirmed: return "not_confirmed";
    case TuneVerdict::kWithinNoise: return "within_noise";
    case TuneVerdict::kSlower: return "slower";
    case TuneVerdict::kFailed: return "failed";
    case TuneVerdict::kDiverged: return "diverged";
    case TuneVerdict::kSkipped: return "skipped";
    case TuneVerdict::kPlanned: return "planned";
  }
  return "unknown";
}

}  // namespace stepdoctor
