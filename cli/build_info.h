// What this binary was built from. The revision lives in one small generated file
// (build_info.cc, written at configure time from build_info.cc.in), so a new commit recompiles
// that file and relinks, not the library.
#pragma once

namespace stepdoctor::cli {

// `git describe --always --dirty` of the source tree when it was configured, or "unknown"
// (no git, or a source tree without .git, e.g. an unpacked release).
const char* GitRevision();

}  // namespace stepdoctor::cli
