// consumer TRACE...: import, analyse and print the text report's first line (the verdict)
// through the installed library's API.
#include <stepdoctor/analysis/analyze.h>
#include <stepdoctor/importers/import_paths.h>
#include <stepdoctor/render/render.h>

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  std::vector<std::string> paths(argv + 1, argv + argc);
  auto imported = stepdoctor::ImportPaths(paths);
  if (!imported.ok()) {
    std::fprintf(stderr, "consumer: %s\n", imported.message().c_str());
    return 2;
  }
  stepdoctor::Report report = stepdoctor::AnalyzeTrace(imported->trace);
  std::string text = stepdoctor::RenderText(report, stepdoctor::RenderOptions{});
  std::printf("%s\n", text.substr(0, text.find('\n')).c_str());
  return 0;
}
