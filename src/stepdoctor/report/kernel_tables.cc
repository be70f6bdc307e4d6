#include "stepdoctor/report/kernel_tables.h"

#include <fmt/format.h>

namespace stepdoctor {

std::string QueuedDelayText(const KernelTables& k) {
  if (k.delays == 0 || k.median_delay_us <= 0 || k.median_queued_us < kQueuedDelayShare * k.median_delay_us) return {};
  return fmt::format(", {:.1f} us of it waiting behind earlier work on its stream (a queue, not launch overhead)",
                     k.median_queued_us);
}

std::string UnenclosedText(const KernelTables& k) {
  if (k.device_ms <= 0 || 100.0 * k.unenclosed_ms / k.device_ms < kUnenclosedNotePct) return {};
  return fmt::format("{:.1f} ms of the {:.1f} ms of launched device time ({:.1f}%) was launched by calls no operator "
                     "encloses (custom extension or Triton kernels launched from Python): no row above holds it",
                     k.unenclosed_ms, k.device_ms, 100.0 * k.unenclosed_ms / k.device_ms);
}

}  // namespace stepdoctor
