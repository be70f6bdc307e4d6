#include "stepdoctor/render/tune_render.h"

#include <fmt/format.h>

#include "stepdoctor/render/html_util.h"
#include "stepdoctor/render/json_writer.h"
#include "stepdoctor/render/render.h"

namespace stepdoctor {
namespace {

using render::HtmlEscape;
using render::MdCode;
using render::MdText;

std::string Tp(double v) { return fmt::format("{:.4g}", v); }

std::string Change(const TuneTrial& t) {
  if (!t.measured) return "-";
  return fmt::format("{:+.1f}% ({:+.1f}..{:+.1f}%)", t.change_pct, t.change_low_pct, t.change_high_pct);
}

std::string TrialVerdict(const TuneTrial& t) {
  std::string v = TuneVerdictName(t.verdict);
  for (char& c : v) c = c == '_' ? ' ' : c;
  return v;
}

std::string OnTopOf(const TuneTrial& t) {
  std::string s;
  for (const auto& k : t.on_top_of) s += (s.empty() ? "" : " ") + k;
  return s.empty() ? "baseline" : s;
}

std::string Runs(const std::vector<double>& runs) {
  std::string s;
  for (double v : runs) s += (s.empty() ? "" : ", ") + Tp(v);
  return s;
}

std::string Header(const TuneReport& r) {
  std::string cmd;
  for (const auto& a : r.command) cmd += (cmd.empty() ? "" : " ") + a;
  return cmd;
}

std::string BaselineLine(const TuneReport& r) {
  return fmt::format("{} {} (median of {} runs: {}); noise +/-{:.1f}% ({:.0f}% interval from the runs' range)",
                     Tp(r.baseline.throughput), r.unit, r.baseline.runs.size(), Runs(r.baseline.runs), r.noise_pct,
                     r.confidence_pct);
}

std::string BestLine(const TuneReport& r) {
  const TuneBest& b = r.best;
  std::string what;
  for (const auto& s : b.settings) what += (what.empty() ? "" : " ") + s;
  if (what.empty()) return "the baseline: no change beat the noise";
  return fmt::format("{}: {} {} ({}), {:.2f}x the baseline", what, Tp(b.m.throughput), r.unit,
                     b.remeasured ? fmt::format("re-measured, {} runs: {}", b.m.runs.size(), Runs(b.m.runs))
                                  : "from its trial, not re-measured",
                     b.speedup);
}

void Measurement(JsonWriter& j, const char* key, const TuneMeasurement& m) {
  j.Key(key).BeginObject();
  j.Key("throughput").Number(m.throughput, 4);
  j.Key("low").Number(m.low, 4);
  j.Key("high").Number(m.high, 4);
  j.Key("runs").BeginArray();
  for (double v : m.runs) j.Number(v, 4);
  j.EndArray();
  j.EndObject();
}

// "run 1 (the baseline), sampled every 0.25 s, with 2 trace files": what the diagnosis read.
std::string ProfileLine(const TuneProfile& p) {
  const size_t traces = p.inputs.empty() ? 0 : p.inputs.size() - 1;
  std::string s = fmt::format("run {} (the baseline), sampled every {:.2g} s", p.run, p.interval_s);
  if (traces) s += fmt::format(", with {} trace file{} it wrote", traces, traces == 1 ? "" : "s");
  return s;
}

std::string ProfileNote(const TuneProfile& p) {
  if (!p.diagnosis && p.note.empty()) return "no diagnosis";
  return p.note;
}

}  // namespace

std::string RenderTuneText(const TuneReport& r) {
  std::string out = fmt::format("tune: {}\nthroughput: {}\n", Header(r), r.metric);
  for (const auto& k : r.knobs) out += "knob " + k + "\n";
  if (r.dry_run) {
    out += fmt::format("\nplan: {} baseline runs, then each value below from the best setting so far, a second run "
                       "of each knob's fastest value, {} re-measurements of the best; at most {} runs of {:.1f} s "
                       "each, {:.0f} s of the {:.0f} s budget if every run takes its limit\n",
                       r.repeats, r.repeats, r.runs_planned, r.run_limit_s, r.used_s, r.budget_s);
  } else {
    out += "baseline: " + BaselineLine(r) + "\n";
    out += fmt::format("budget: {:.1f} s of {:.0f} s used, {} runs (each stopped after {:.1f} s)\n", r.used_s,
                       r.budget_s, r.runs_done, r.run_limit_s);
  }
  out += fmt::format("\n  {:<28} {:<24} {:>12} {:>26}  {}\n", "setting", "on top of", r.unit, "change vs baseline",
                     "verdict");
  for (const auto& t : r.trials) {
    out += fmt::format("  {:<28} {:<24} {:>12} {:>26}  {}\n", t.setting, OnTopOf(t), t.measured ? Tp(t.m.throughput) : "-",
                       Change(t), TrialVerdict(t));
    if (!t.why.empty()) out += "      " + t.why + "\n";
  }
  if (r.have_best) {
    out += "\nbest: " + BestLine(r) + "\n";
    out += "use: " + r.best.command_line + "\n";
  }
  if (!r.notes.empty()) out += "\n";
  for (const auto& n : r.notes) out += "note: " + n + "\n";
  if (r.profile.asked && !r.dry_run) {
    out += "\nDiagnosis of " + ProfileLine(r.profile) + ":\n";
    if (!ProfileNote(r.profile).empty()) out += "note: " + ProfileNote(r.profile) + "\n";
    if (r.profile.diagnosis) out += "\n" + RenderText(*r.profile.diagnosis, RenderOptions{});
  }
  return out;
}

std::string RenderTuneJson(const TuneReport& r) {
  JsonWriter j;
  j.BeginObject();
  j.Key("command").StringArray(r.command);
  j.Key("metric").String(r.metric);
  j.Key("unit").String(r.unit);
  j.Key("knobs").StringArray(r.knobs);
  j.Key("dry_run").Bool(r.dry_run);
  j.Key("repeats").Int(r.repeats);
  j.Key("budget_s").Number(r.budget_s, 1);
  j.Key("used_s").Number(r.used_s, 1);
  j.Key("run_limit_s").Number(r.run_limit_s, 2);
  j.Key("runs_done").Int(r.runs_done);
  j.Key("runs_planned").Int(r.runs_planned);
  j.Key("noise_pct").Number(r.noise_pct, 2);
  j.Key("confidence_pct").Number(r.confidence_pct, 2);
  if (r.dry_run) j.Key("baseline").Null();
  else Measurement(j, "baseline", r.baseline);
  j.Key("trials").BeginArray();
  for (const auto& t : r.trials) {
    j.BeginObject();
    j.Key("setting").String(t.setting);
    j.Key("knob").String(t.knob);
    j.Key("value").String(t.value);
    j.Key("on_top_of").StringArray(t.on_top_of);
    j.Key("verdict").String(TuneVerdictName(t.verdict));
    j.Key("why").String(t.why);
    j.Key("runs").Int(t.runs);
    if (t.measured) {
      j.Key("throughput").Number(t.m.throughput, 4);
      j.Key("low").Number(t.m.low, 4);
      j.Key("high").Number(t.m.high, 4);
      j.Key("change_pct").Number(t.change_pct, 2);
      j.Key("change_low_pct").Number(t.change_low_pct, 2);
      j.Key("change_high_pct").Number(t.change_high_pct, 2);
    } else {
      for (const char* k : {"throughput", "low", "high", "change_pct", "change_low_pct", "change_high_pct"})
        j.Key(k).Null();
    }
    j.EndObject();
  }
  j.EndArray();
  j.Key("best");
  if (r.have_best) {
    const TuneBest& b = r.best;
    j.BeginObject();
    j.Key("settings").StringArray(b.settings);
    j.Key("env").BeginObject();
    for (const auto& [k, v] : b.env) j.Key(k).String(v);
    j.EndObject();
    j.Key("argv").StringArray(b.argv);
    j.Key("affinity").String(b.affinity);
    j.Key("command_line").String(b.command_line);
    j.Key("remeasured").Bool(b.remeasured);
    j.Key("throughput").Number(b.m.throughput, 4);
    j.Key("low").Number(b.m.low, 4);
    j.Key("high").Number(b.m.high, 4);
    j.Key("speedup").Number(b.speedup, 3);
    j.Key("runs").BeginArray();
    for (double v : b.m.runs) j.Number(v, 4);
    j.EndArray();
    j.EndObject();
  } else {
    j.Null();
  }
  j.Key("notes").StringArray(r.notes);
  j.Key("profile");
  if (r.profile.asked && !r.dry_run) {
    j.BeginObject();
    j.Key("run").Int(r.profile.run);
    j.Key("interval_s").Number(r.profile.interval_s, 3);
    j.Key("inputs").StringArray(r.profile.inputs);
    j.Key("note").String(r.profile.note);
    j.Key("diagnosis");
    if (r.profile.diagnosis) {
      std::string d = RenderJson(*r.profile.diagnosis, RenderOptions{});
      while (!d.empty() && (d.back() == '\n' || d.back() == ' ')) d.pop_back();
      j.Raw(d);
    } else {
      j.Null();
    }
    j.EndObject();
  } else {
    j.Null();
  }
  j.EndObject();
  return j.Take() + "\n";
}

std::string RenderTuneMarkdown(const TuneReport& r) {
  std::string out = "## stepdoctor tune\n\n";
  out += "Command: " + MdCode(Header(r)) + "  \nThroughput: " + MdText(r.metric) + "  \n";
  if (r.dry_run) {
    out += fmt::format("Plan only (`--dry-run`): at most {} runs of {:.1f} s within the {:.0f} s budget.\n\n",
                       r.runs_planned, r.run_limit_s, r.budget_s);
  } else {
    out += "Baseline: " + MdText(BaselineLine(r)) + "  \n";
    out += fmt::format("Budget: {:.1f} s of {:.0f} s used, {} runs.\n\n", r.used_s, r.budget_s, r.runs_done);
  }
  out += fmt::format("| Setting | On top of | {} | Change vs baseline | Verdict |\n|---|---|---:|---:|---|\n", MdText(r.unit));
  for (const auto& t : r.trials)
    out += fmt::format("| {} | {} | {} | {} | {}{} |\n", MdCode(t.setting), MdText(OnTopOf(t)),
                       t.measured ? Tp(t.m.throughput) : "–", Change(t), TrialVerdict(t), t.why.empty() ? "" : ": " + MdText(t.why));
  if (r.have_best) out += "\n**Best:** " + MdText(BestLine(r)) + "\n\n" + render::MdFence(r.best.command_line, "sh");
  if (!r.notes.empty()) out += "\n";
  for (const auto& n : r.notes) out += "- " + MdText(n) + "\n";
  if (r.profile.asked && !r.dry_run) {
    out += "\n### Diagnosis of " + MdText(ProfileLine(r.profile)) + "\n\n";
    if (!ProfileNote(r.profile).empty()) out += "- " + MdText(ProfileNote(r.profile)) + "\n\n";
    if (r.profile.diagnosis) out += RenderMarkdown(*r.profile.diagnosis, RenderOptions{});
  }
  return out;
}

std::string RenderTuneHtml(const TuneReport& r) {
  std::string s = render::HtmlPageStart("stepdoctor tune: " + render::Shorten(Header(r), 100));
  s += "<header>\n<h1>stepdoctor tune</h1>\n";
  s += "<p class=\"meta\"><code>" + HtmlEscape(Header(r)) + "</code><br>throughput: " + HtmlEscape(r.metric) + "</p>\n</header>\n";
  s += "<section id=\"summary\" class=\"verdict\">\n";
  if (r.dry_run)
    s += fmt::format("<p class=\"summary\">Plan only: at most {} runs of {:.1f} s within the {:.0f} s budget.</p>\n",
                     r.runs_planned, r.run_limit_s, r.budget_s);
  else
    s += "<p>Baseline: " + HtmlEscape(BaselineLine(r)) + "</p>\n" +
         fmt::format("<p class=\"meta\">{:.1f} s of the {:.0f} s budget used, {} runs.</p>\n", r.used_s, r.budget_s, r.runs_done);
  if (r.have_best)
    s += "<p class=\"summary\">Best: " + HtmlEscape(BestLine(r)) + "</p>\n<pre><code>" + HtmlEscape(r.best.command_line) +
         "</code></pre>\n";
  s += "</section>\n<section id=\"trials\">\n<h2>Trials</h2>\n";
  s += "<table><thead><tr><th>setting</th><th>on top of</th><th class=\"num\">" + HtmlEscape(r.unit) +
       "</th><th class=\"num\">change vs baseline</th><th>verdict</th></tr></thead><tbody>\n";
  for (const auto& t : r.trials) {
    const char* cls = t.verdict == TuneVerdict::kKept ? "better"
                      : t.verdict == TuneVerdict::kSlower || t.verdict == TuneVerdict::kFailed ||
                              t.verdict == TuneVerdict::kDiverged ? "worse" : "same";
    s += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
                     "<td>{}{}</td></tr>\n", HtmlEscape(t.setting), HtmlEscape(OnTopOf(t)),
                     t.measured ? Tp(t.m.throughput) : "&ndash;", HtmlEscape(Change(t)), render::Badge(TrialVerdict(t), cls),
                     t.why.empty() ? "" : " " + HtmlEscape(t.why));
  }
  s += "</tbody></table>\n</section>\n";
  if (!r.notes.empty()) {
    s += "<section id=\"notes\">\n<h2>Notes</h2>\n<ul>\n";
    for (const auto& n : r.notes) s += "<li>" + HtmlEscape(n) + "</li>\n";
    s += "</ul>\n</section>\n";
  }
  if (r.profile.asked && !r.dry_run) {
    // The diagnosis as `diagnose` prints it; its own page is `stepdoctor diagnose` on the inputs.
    s += "<section id=\"profile\">\n<h2>Diagnosis of " + HtmlEscape(ProfileLine(r.profile)) + "</h2>\n";
    if (!ProfileNote(r.profile).empty()) s += "<p>" + HtmlEscape(ProfileNote(r.profile)) + "</p>\n";
    if (r.profile.diagnosis) s += "<pre>" + HtmlEscape(RenderText(*r.profile.diagnosis, RenderOptions{})) + "</pre>\n";
    s += "</section>\n";
  }
  s += render::HtmlPageEnd(STEPDOCTOR_VERSION);
  return s;
}

TuneRenderer FindTuneRenderer(const std::string& format) {
  if (format == "text") return &RenderTuneText;
  if (format == "json") return &RenderTuneJson;
  if (format == "md") return &RenderTuneMarkdown;
  if (format == "html") return &RenderTuneHtml;
  return nullptr;
}

std::vector<std::string> TuneRendererNames() { return {"text", "json", "md", "html"}; }

}  // namespace stepdoctor
