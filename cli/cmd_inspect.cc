// stepdoctor inspect PATH...: what was read, before any analysis.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "stepdoctor/importers/import_paths.h"

namespace stepdoctor::cli {

std::function<int()> SetupInspect(CLI::App& sub) {
  auto paths = std::make_shared<std::vector<std::string>>();
  sub.add_option("paths", *paths, "trace files or folders")->required();
  return [paths]() -> int {
    auto r = ImportForCommand(*paths, "");
    if (!r) return kExitBadInput;
    const Trace& t = r->trace;
    std::printf("format: %s\nevents: %zu\nworkers: %zu\n", t.format.c_str(), t.EventCount(), t.workers.size());
    for (const auto& f : r->files)
      std::printf("file: %s (%s)%s%s\n", f.path.c_str(), InputFormatName(f.format), f.error.empty() ? "" : ": ",
                  f.error.c_str());
    for (size_t w = 0; w < t.workers.size(); ++w) {
      const Worker& wk = t.workers[w];
      std::printf("worker %zu: %s rank %d/%d %s\n", w, wk.hostname.c_str(), wk.rank, wk.world_size, wk.backend.c_str());
    }
    for (const auto& tl : t.timelines) {
      if (tl.ev.size() == 0) continue;
      const char* kind = tl.kind == TimelineKind::kDeviceStream ? "stream" : tl.kind == TimelineKind::kDerived ? "derived" : "thread";
      std::printf("  [w%u %s] %-40s %8zu events (%s)\n", tl.worker.v, t.device(tl.device).name.c_str(), tl.name.c_str(),
                  tl.ev.size(), kind);
    }
    for (const auto& c : t.counters) std::printf("  counter %s: %zu samples\n", c.name.c_str(), c.ts_ns.size());
    for (const auto& s : t.scalars) std::printf("  scalar %s/%s: %zu values\n", s.run.c_str(), s.tag.c_str(), s.value.size());
    for (const auto& [issue, note] : t.diagnostics.notes()) std::printf("note: %s\n", note.c_str());
    for (int i = 0; i < int(ImportIssue::kCount_); ++i)
      if (auto n = t.diagnostics.count(ImportIssue(i)))
        std::printf("problem: %llu %s\n", static_cast<unsigned long long>(n),
                    std::string(GetImportIssueInfo(ImportIssue(i)).description).c_str());
    return kExitOk;
  };
}

}  // namespace stepdoctor::cli
