// Chrome-trace JSON (Kineto, PyTorch legacy, TensorFlow, Horovod, SageMaker) -> Trace.
#pragma once

#include <functional>

#include "stepdoctor/core/result.h"
#include "stepdoctor/importers/chrome/chrome_json_tokenizer.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct ChromeImportStats {
  uint64_t bytes = 0;   // uncompressed JSON bytes read
  uint64_t events = 0;  // events kept
};

// Adds one worker holding the file's events to `trace` and finalizes it. Fails (with the
// source's name in the message) only when the input is not a Chrome trace at all or holds
// no events; a truncated or partly malformed file imports what is readable and says so in
// trace.diagnostics.
// `progress`, when set, is called after each batch of events with (bytes consumed from the
// source, its total size or 0).
Status ImportChromeJson(ByteSource& src, Trace& trace, ChromeImportStats* stats = nullptr,
                        const chrome::TokenizerOptions& opts = {},
                        const std::function<void(uint64_t, uint64_t)>& progress = nullptr);

}  // namespace stepdoctor
