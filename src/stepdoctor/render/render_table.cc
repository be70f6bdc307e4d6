// The table of output formats.
#include "stepdoctor/render/render.h"

namespace stepdoctor {
namespace {

struct Entry {
  const char* name;
  Renderer fn;
};

const Entry kRenderers[] = {
    {"text", &RenderText},
    {"json", &RenderJson},
    {"md", &RenderMarkdown},
    {"html", &RenderHtml},
};

}  // namespace

Renderer FindRenderer(const std::string& format) {
  for (const auto& e : kRenderers)
    if (format == e.name) return e.fn;
  return nullptr;
}

std::vector<std::string> RendererNames() {
  std::vector<std::string> out;
  for (const auto& e : kRenderers) out.push_back(e.name);
  return out;
}

}  // namespace stepdoctor
