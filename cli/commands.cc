#include "commands.h"

#include <cstdio>
#include <iostream>

#include "stepdoctor/importers/import_paths.h"

namespace stepdoctor::cli {

void PrintError(const std::string& message) { std::fprintf(stderr, "stepdoctor: %s\n", message.c_str()); }

namespace {

std::function<int()> SetupInspect(CLI::App& sub) {
  auto paths = std::make_shared<std::vector<std::string>>();
  sub.add_option("paths", *paths, "trace files or folders")->required();
  return [paths]() -> int {
    auto r = ImportPaths(*paths);
    if (!r.ok()) {
      PrintError(r.message());
      return kExitBadInput;
    }
    const Trace& t = r->trace;
    std::printf("format: %s\nevents: %zu\nworkers: %zu\n", t.format.c_str(), t.EventCount(), t.workers.size());
    for (const auto& tl : t.timelines) {
      if (tl.ev.size() == 0) continue;
      std::printf("  [w%u %s] %-40s %8zu events (%s)\n", tl.worker.v, t.device(tl.device).name.c_str(), tl.name.c_str(),
                  tl.ev.size(), tl.kind == TimelineKind::kDeviceStream ? "stream" : tl.kind == TimelineKind::kDerived ? "derived" : "thread");
    }
    for (const auto& [issue, note] : t.diagnostics.notes()) std::printf("note: %s\n", note.c_str());
    for (int i = 0; i < int(ImportIssue::kCount_); ++i)
      if (auto n = t.diagnostics.count(ImportIssue(i))) std::printf("diag: %llu %s\n", (unsigned long long)n, std::string(GetImportIssueInfo(ImportIssue(i)).description).c_str());
    return kExitOk;
  };
}

}  // namespace

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"inspect", "list what stepdoctor read from the inputs: workers, devices, timelines, problems", &SetupInspect},
  };
  return kCommands;
}

}  // namespace stepdoctor::cli
