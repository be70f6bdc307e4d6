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

std::string CoverageLine(const Coverage& c) {
  std::string device = c.device_activity == "captured" ? "device activity captured"
                       : c.device_activity == "missing" ? "device activity NOT captured"
                       : c.device_activity == "sampled" ? "utilisation samples only (no trace)"
                       : c.device_activity == "no_events" ? "no events recorded"
                       : c.device_activity == "analysis_pages" ? "TensorFlow profiler's analysis pages only (no trace)"
                       : c.device_activity == "memory_timeline" ? "a memory timeline only (no trace)"
                                                        : "CPU only (no accelerator seen)";
  std::string steps = c.steps == "markers" ? "steps from markers" : c.steps == "inferred" ? "steps inferred" : "no steps (whole window)";
  std::string out = "Coverage: " + c.framework + "; " + device + "; " + steps + "; confidence " + c.confidence;
  if (!c.applied.empty()) {
    out += "; already in use: ";
    for (size_t i = 0; i < c.applied.size(); ++i) out += (i ? ", " : "") + c.applied[i];
  }
  return out;
}

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
