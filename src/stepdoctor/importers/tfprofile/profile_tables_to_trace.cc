#include "stepdoctor/importers/tfprofile/profile_tables_to_trace.h"

#include <simdjson.h>

#include <cstdlib>
#include <optional>
#include <vector>

namespace stepdoctor {
namespace {

namespace dom = simdjson::dom;

constexpr size_t kMaxPageBytes = size_t{64} << 20;  // pages are KB; past this, not a page

// The recommendation table's warnings besides the input one: "<kind>_bottleneck" says whether
// it holds, "<kind>_statement" says it.
constexpr const char* kOtherKinds[] = {"kernel_launch", "all_other", "device_collectives"};

std::string StringField(dom::object o, std::string_view key) {
  std::string_view s;
  if (o[key].get_string().get(s) == simdjson::SUCCESS) return std::string(s);
  return {};
}

// The pages write their figures as strings ("96.3", "0.0%"); nullopt where absent or not a number.
std::optional<double> NumberField(dom::object o, std::string_view key) {
  dom::element e;
  if (o[key].get(e) != simdjson::SUCCESS) return std::nullopt;
  double d = 0;
  if (e.get_double().get(d) == simdjson::SUCCESS) return d;
  std::string_view s;
  if (e.get_string().get(s) != simdjson::SUCCESS || s.empty()) return std::nullopt;
  std::string text(s);
  char* end = nullptr;
  d = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return std::nullopt;
  return d;
}

bool EndsWith(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

struct Column {
  std::string id, label;
};

std::vector<Column> ColumnsOf(dom::object table) {
  std::vector<Column> cols;
  dom::array arr;
  if (table["cols"].get_array().get(arr) != simdjson::SUCCESS) return cols;
  for (dom::element c : arr) {
    dom::object co;
    if (c.get_object().get(co) != simdjson::SUCCESS) {
      cols.push_back({});
      continue;
    }
    cols.push_back({StringField(co, "id"), StringField(co, "label")});
  }
  return cols;
}

bool HasColumn(const std::vector<Column>& cols, std::string_view id) {
  for (const auto& c : cols)
    if (c.id == id) return true;
  return false;
}

// Each row's cells: rows[i].c[j].v.
template <typename Fn>
void ForEachRow(dom::object table, Fn on) {
  dom::array rows;
  if (table["rows"].get_array().get(rows) != simdjson::SUCCESS) return;
  for (dom::element row : rows) {
    dom::array cells;
    if (row["c"].get_array().get(cells) != simdjson::SUCCESS) continue;
    on(cells);
  }
}

// The per-step table: columns "<x>TimeMs" (TF's words in the label, "Compute time (in ms)"),
// averaged over the rows, in the order TF shows them; its "p" holds TF's own averages.
void ReadStepTable(dom::object table, const std::vector<Column>& cols, TfProfilerVerdict& v) {
  std::vector<double> sum(cols.size(), 0.0);
  int rows = 0;
  ForEachRow(table, [&](dom::array cells) {
    ++rows;
    size_t j = 0;
    for (dom::element cell : cells) {
      double d = 0;
      if (j < cols.size() && cell["v"].get_double().get(d) == simdjson::SUCCESS) sum[j] += d;
      ++j;
    }
  });
  v.steps = rows;
  double total = 0;
  for (size_t j = 0; j < cols.size() && rows > 0; ++j) {
    if (!EndsWith(cols[j].id, "TimeMs")) continue;
    std::string name = cols[j].label.empty() ? cols[j].id : cols[j].label;
    if (size_t at = name.find(" (in ms)"); at != std::string::npos) name.erase(at);
    v.breakdown_ms.emplace_back(name, sum[j] / rows);
    total += sum[j] / rows;
  }
  dom::object p;
  if (table["p"].get_object().get(p) != simdjson::SUCCESS) {
    v.step_ms = total;
    return;
  }
  auto step = NumberField(p, "steptime_ms_average");
  v.step_ms = step ? *step : total;
  if (auto in = NumberField(p, "infeed_percent_average")) v.input_pct = *in;
  if (v.statement.empty()) {
    v.statement = StripProfilerMarkup(StringField(p, "input_conclusion"));
    if (v.statement.empty()) v.statement = StripProfilerMarkup(StringField(p, "summary_conclusion"));
  }
}

// The recommendation table ("tip_type" rows): its statement and bottleneck, and the other
// warnings that hold.
void ReadRecommendation(dom::object p, TfProfilerVerdict& v) {
  std::string statement = StripProfilerMarkup(StringField(p, "statement"));
  if (!statement.empty()) v.statement = statement;  // the recommendation's word over the input page's
  if (std::string b = StringField(p, "bottleneck"); !b.empty()) v.bottleneck = b;
  for (const char* kind : kOtherKinds) {
    std::string holds = StringField(p, std::string(kind) + "_bottleneck");
    std::string says = StripProfilerMarkup(StringField(p, std::string(kind) + "_statement"));
    if (!holds.empty() && holds != "no" && !says.empty()) v.other_statements.push_back(says);
  }
}

// JAX programs' operations are named after the jit-compiled function: "jit(train_step)/...".
bool NamesJitOperations(dom::object table, const std::vector<Column>& cols) {
  size_t op = cols.size();
  for (size_t j = 0; j < cols.size(); ++j)
    if (cols[j].id == "operation") op = j;
  bool jit = false;
  ForEachRow(table, [&](dom::array cells) {
    size_t j = 0;
    for (dom::element cell : cells) {
      std::string_view s;
      if (j++ == op && cell["v"].get_string().get(s) == simdjson::SUCCESS && s.rfind("jit(", 0) == 0) jit = true;
    }
  });
  return jit;
}

// `framework`: JAX where the top-operations table names jit-compiled functions, TensorFlow where
// it names others, left as it is where the page has no such table (an input-pipeline page).
Result<TfProfilerVerdict> Parse(std::string_view json, TfProfilerPageKind kind, const std::string& name,
                                Framework* framework) {
  dom::parser parser;
  dom::element root;
  if (parser.parse(json.data(), json.size()).get(root) != simdjson::SUCCESS)
    return Result<TfProfilerVerdict>(ErrorCode::kCorruptInput, name + ": not a readable TensorFlow profiler page (bad JSON)");
  dom::array tables;
  if (root.get_array().get(tables) != simdjson::SUCCESS)
    return Result<TfProfilerVerdict>(ErrorCode::kUnknownFormat, name + ": not a TensorFlow profiler page (no array of tables)");
  TfProfilerVerdict v;
  v.source = name;
  v.overview = kind == TfProfilerPageKind::kOverviewPage;
  v.host = ProfilerPageHost(name, {".overview_page.", ".input_pipeline.", "_overview_page_", "_input_pipeline_analyzer_"});
  int known = 0;
  for (dom::element t : tables) {
    dom::object table;
    if (t.get_object().get(table) != simdjson::SUCCESS) continue;
    std::vector<Column> cols = ColumnsOf(table);
    dom::object p;
    bool has_p = table["p"].get_object().get(p) == simdjson::SUCCESS;
    if (HasColumn(cols, "stepnum")) {
      ReadStepTable(table, cols, v);
      ++known;
    } else if (HasColumn(cols, "tip_type") && has_p) {
      ReadRecommendation(p, v);
      ++known;
    } else if (HasColumn(cols, "host_id") && has_p) {
      v.device = StringField(p, "device_type");
      ++known;
    } else if (HasColumn(cols, "operation")) {
      *framework = NamesJitOperations(table, cols) ? Framework::kJax : Framework::kTensorFlow;
    }
  }
  if (known == 0)
    return Result<TfProfilerVerdict>(ErrorCode::kUnknownFormat,
                                     name + ": not a TensorFlow profiler page (no step, recommendation or run table)");
  return v;
}

}  // namespace

TfProfilerPageKind TfProfilerTablesKindOf(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (!EndsWith(base, ".json") && !EndsWith(base, ".json.gz")) return TfProfilerPageKind::kNone;
  auto has = [&](std::string_view s) { return base.find(s) != std::string_view::npos; };
  if (has(".overview_page.") || has("_overview_page_")) return TfProfilerPageKind::kOverviewPage;
  if (has(".input_pipeline.") || has("_input_pipeline_analyzer_")) return TfProfilerPageKind::kInputPipeline;
  return TfProfilerPageKind::kNone;
}

Result<TfProfilerVerdict> ParseTfProfilerTables(std::string_view json, TfProfilerPageKind kind, const std::string& name) {
  Framework framework = Framework::kUnknown;
  return Parse(json, kind, name, &framework);
}

Status ImportTfProfilerTables(PeekableSource& src, Trace& trace) {
  auto bytes = ReadAll(src, kMaxPageBytes);
  if (!bytes.ok()) return bytes.status();
  Framework framework = Framework::kUnknown;
  auto v = Parse(*bytes, TfProfilerTablesKindOf(src.name()), src.name(), &framework);
  if (!v.ok()) return v.status();
  trace.sources.push_back(src.name());
  if (trace.format.empty()) trace.format = "tensorflow profiler pages";
  trace.tf_verdicts.push_back(std::move(*v));
  if (trace.framework == Framework::kUnknown) trace.framework = framework;
  return Status::Ok();
}

}  // namespace stepdoctor
