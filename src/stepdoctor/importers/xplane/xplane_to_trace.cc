#include "stepdoctor/importers/xplane/xplane_to_trace.h"

namespace stepdoctor::xplane {

StatUse UseOfStat(std::string_view n) {
  static constexpr std::string_view kKeep[] = {
      "step_num", "group_id", "tf_op", "kernel_details", "memcpy_details", "is_eager", "tf_function_call",
      "tracing_count", "bytes_allocated", "bytes_reserved", "peak_bytes_in_use", "fragmentation",
      "bytes_available", "requested_bytes", "allocation_bytes", "allocator_name", "region_type", "hlo_category",
      "hlo_op", "step_name", "iter_num", "element_id", "parent_id", "flops", "bytes_accessed", "model_flops",
      "long_name", "buffer_limit", "run_id"};
  if (n == "correlation_id") return StatUse::kCorrelation;
  if (n == "id") return StatUse::kIteratorId;
  for (auto k : kKeep)
    if (n == k) return StatUse::kKeep;
  return StatUse::kDrop;
}

void PlaneConverterBase::AddStatMetadata(int64_t id, std::string_view name) {
  StatInfo& si = stats_.Put(id);
  si.name = name;
  si.interned = false;
  si.use = UseOfStat(name);
  si.memcpy_details = name == "memcpy_details";
}

bool PlaneConverterBase::ToArg(const StatView& st, StatInfo& si, Arg* out) {
  switch (st.value_case) {
    case StatCase::kBytes:
    case StatCase::kNone: return false;
    default: break;
  }
  out->key = KeyOf(si);
  switch (st.value_case) {
    case StatCase::kDouble: out->type = ArgType::kDouble; out->d = st.d; return true;
    case StatCase::kUint64: out->type = ArgType::kInt; out->i = static_cast<int64_t>(st.u); return true;
    case StatCase::kInt64: out->type = ArgType::kInt; out->i = st.i; return true;
    case StatCase::kStr:
      out->type = ArgType::kString;
      if (st.s != si.last_str) {  // (unset, the cache holds "" as id 0, the pool's empty string)
        si.last_str_id = trace_.strings.Intern(st.s);
        si.last_str = st.s;
      }
      out->s = si.last_str_id;
      return true;
    case StatCase::kRef: {
      // A ref names another XStatMetadata whose name is the value (interned strings in XPlane).
      StatInfo* ref = FindStat(static_cast<int64_t>(st.u));
      out->type = ArgType::kString;
      out->s = ref ? KeyOf(*ref) : StringId{};
      return true;
    }
    default: return false;
  }
}

int64_t PlaneConverterBase::IntOf(const StatView& st) {
  switch (st.value_case) {
    case StatCase::kUint64: return static_cast<int64_t>(st.u);
    case StatCase::kInt64: return st.i;
    case StatCase::kDouble: return RoundToInt64(st.d).value_or(0);  // NaN or past int64: none
    default: return 0;
  }
}

void PlaneConverterBase::ApplyPlaneStat(const StatView& st, Device& d, std::string* type_string) {
  const StatInfo* si = FindStat(st.metadata_id);
  if (!si) return;
  std::string_view n = si->name;
  if (n == "core_count") d.sm_count = static_cast<int>(IntOf(st));
  else if (n == "memory_size") d.memory_bytes = IntOf(st);
  else if (n == "compute_cap_major") d.compute_major = static_cast<int>(IntOf(st));
  else if (n == "compute_cap_minor") d.compute_minor = static_cast<int>(IntOf(st));
  else if (n == "device_vendor" && st.value_case == StatCase::kStr) d.vendor = st.s;
  else if (n == "device_type_string" && st.value_case == StatCase::kStr) type_string->assign(st.s);
}

void PlaneConverterBase::FinishDevice(Device& d, std::string_view plane_name, const std::string& type_string) {
  if (d.kind == DeviceKind::kTpu) d.vendor = "google";
  if (d.kind == DeviceKind::kGpu) {
    if (d.vendor == "AMD" || d.vendor == "amd") d.vendor = "amd";
    else if (d.vendor.empty() || d.vendor == "Nvidia" || d.vendor == "NVIDIA") d.vendor = "nvidia";
  }
  if (!type_string.empty()) d.name = std::string(plane_name) + " (" + type_string + ")";
}

MetaInfo PlaneConverterBase::NewMeta(std::string_view name) {
  MetaInfo m;
  m.name = trace_.strings.Intern(name);
  m.text = trace_.str(m.name);
  m.iterator = m.text.substr(0, 10) == "Iterator::";
  m.kind.fill(EventKind::kCount_);
  return m;
}

void PlaneConverterBase::AddMetaStat(const StatView& st, MetaInfo* m) {
  StatInfo* si = FindStat(st.metadata_id);
  if (!si || si->use != StatUse::kKeep) return;
  Arg a;
  if (!ToArg(st, *si, &a)) return;
  m->args.push_back(a);
  if (si->name == "hlo_category" && a.type == ArgType::kString) {
    m->has_tpu_kind = true;
    m->tpu_kind = TpuOpKind(trace_.str(a.s), m->text);
  }
}

MetaInfo PlaneConverterBase::MissingMeta(int64_t id) {
  trace_.diagnostics.Count(ImportIssue::kXPlaneMissingMetadata);
  return NewMeta("event metadata " + std::to_string(id));
}

EventKind PlaneConverterBase::KindOf(MetaInfo& m, LineClass c) {
  EventKind& k = m.kind[static_cast<size_t>(c)];
  if (k == EventKind::kCount_) {
    k = (c == LineClass::kTpuOps && m.has_tpu_kind) ? m.tpu_kind : ClassifyEventName(c, m.text);
    if (c == LineClass::kHostThread && !m.text.empty() && m.text[0] == '$') state_.saw_jax = true;
  }
  return k;
}

void PlaneConverterBase::NoteFramework(std::string_view line_name) {
  if (line_name.rfind("py_xla_execute", 0) == 0 || line_name.rfind("tf_pjrt", 0) == 0 ||
      line_name.rfind("pjrt", 0) == 0)
    state_.saw_jax = true;
  if (line_name == "TensorFlow Ops" || line_name.rfind("tf_Compute", 0) == 0 || line_name.rfind("tf_data", 0) == 0)
    state_.saw_tf = true;
}

// The TF "Steps" line names each step by its number; analyses read step_num.
void PlaneConverterBase::AddStepNumber(std::string_view name, StringId key, std::vector<Arg>* args) {
  for (const Arg& a : *args)
    if (a.key == key) return;
  int64_t n = 0;
  auto r = std::from_chars(name.data(), name.data() + name.size(), n);
  if (r.ec != std::errc() || r.ptr != name.data() + name.size()) return;
  Arg a;
  a.key = key;
  a.type = ArgType::kInt;
  a.i = n;
  args->push_back(a);
}

// Allocator events carry the allocator's bytes in use: one counter series per allocator.
void PlaneConverterBase::AddMemorySample(int64_t ts, const std::vector<Arg>& args, DeviceId host) {
  const Arg* bytes = nullptr;
  const Arg* alloc = nullptr;
  for (const Arg& a : args) {
    std::string_view k = trace_.str(a.key);
    if (k == "bytes_allocated") bytes = &a;
    else if (k == "allocator_name" && a.type == ArgType::kString) alloc = &a;
  }
  if (!bytes || !alloc) return;
  auto it = state_.counters.find(alloc->s.v);
  if (it == state_.counters.end()) {
    std::string_view an = trace_.str(alloc->s);
    CounterSeries c;
    c.worker = worker_;
    c.device = host;
    // "GPU_0_bfc" is GPU 0's allocator; others ("gpu_host_bfc", "cpu") are the host's.
    if (an.rfind("GPU_", 0) == 0) {
      int idx = 0;
      std::from_chars(an.data() + 4, an.data() + an.size(), idx);
      c.device = trace_.GetOrAddDevice(worker_, DeviceKind::kGpu, idx, "/device:GPU:" + std::to_string(idx));
    }
    c.name = "memory in use (" + std::string(an) + ")";
    c.unit = "bytes";
    trace_.counters.push_back(std::move(c));
    it = state_.counters.emplace(alloc->s.v, trace_.counters.size() - 1).first;
  }
  CounterSeries& c = trace_.counters[it->second];
  c.ts_ns.push_back(ts);
  c.value.push_back(bytes->type == ArgType::kDouble ? bytes->d : static_cast<double>(bytes->i));
}

}  // namespace stepdoctor::xplane
