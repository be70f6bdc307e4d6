// A Report built by hand for renderer tests: every section filled, names that need escaping.
#pragma once

#include "stepdoctor/report/report.h"

namespace stepdoctor::testing {

inline Report SampleReport() {
  Report r;
  r.tool_version = "0.1.0-test";
  r.inputs = {"runs/a&b/worker0.pt.trace.json.gz"};
  r.format = "chrome-json (kineto)";
  r.verdict.bottleneck = Bottleneck::kInput;
  r.verdict.summary = "input-bound: 31.2% of each 150 ms step waits on the DataLoader";
  r.steps.source = "ProfilerStep#N markers";
  r.steps.count = 6;
  r.steps.median_ms = 150;
  r.steps.p90_ms = 158;
  r.steps.max_ms = 206.5;
  r.steps.min_ms = 117.8;
  r.steps.mean_ms = 152;
  r.steps.outlier_numbers = {21};
  r.steps.categories = {"input", "kernel_launch", "host_compute", "device_compute", "memcpy", "other"};
  const double durations[] = {149.4, 151.0, 148.7, 150.7, 153.2, 206.5};
  for (int i = 0; i < 6; ++i) {
    StepRecord s;
    s.number = 16 + i;
    s.start_ns = 1000000000LL + i * 150000000LL;
    s.duration_ms = durations[i];
    double input = 46.8, launch = 3, host = 9, memcpy = 1.5, other = 0.5;
    s.category_ms = {input, launch, host, durations[i] - input - launch - host - memcpy - other, memcpy, other};
    r.steps.steps.push_back(s);
  }
  r.breakdown = {{"input", 46.8, 31.2},       {"kernel_launch", 3, 2.0}, {"host_compute", 9, 6.0},
                 {"device_compute", 89.2, 59.5}, {"memcpy", 1.5, 1.0},   {"other", 0.5, 0.3}};
  DeviceUtilization d;
  d.worker = "worker0";
  d.device = "GPU 0 (Tesla V100-SXM2-32GB)";
  d.span_us = 912000;
  d.idle_pct = 38.1;
  d.compute_pct = 59.5;
  d.non_compute_pct = 2.4;
  d.kernel_count = 3120;
  r.devices.push_back(d);

  Finding f;
  f.id = "input_bound";
  f.severity = FindingSeverity::kHigh;
  f.title = "31.2% of each step waits on the DataLoader";
  f.share_pct = 31.2;
  f.gain_upper_bound = 1.45;
  f.gain_text = "up to 1.45x faster steps if the input wait is fully hidden";
  f.evidence = {{"host waits on input per step", "46.8 ms (31.2%)"}, {"steps measured", "6"}};
  f.top_events = {{"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 280.8, 6, 100}};
  f.fix.summary = "Load batches in worker processes and keep some ready.";
  f.fix.pytorch = "loader = DataLoader(ds, num_workers=8, pin_memory=True)\nif a < b and c > d: pass";
  f.fix.tensorflow = "ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)";
  r.findings.push_back(f);
  Finding h;
  h.id = "host_bound";
  h.severity = FindingSeverity::kModerate;
  h.title = "the device idles 8% of each step while the host launches kernels";
  h.share_pct = 8.0;
  h.gain_upper_bound = 1.09;
  h.gain_text = "up to 1.09x";
  r.findings.push_back(h);

  r.top_kernels = {{"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*)",
                    80.7, 162, 13.4},
                   {"Memcpy HtoD (Pageable -> Device)", 10.4, 12, 1.7},
                   {"kernel|with|pipes & <angle>", 1.0, 3, 0.2}};
  r.top_ops = {{"aten::conv2d", 120.5, 318, 20.1}, {"aten::copy_", 50.9, 588, 8.5}};
  r.window_ms = 912;
  DeviceLane lane;
  lane.label = "GPU 0 stream 7";
  for (int i = 0; i < 6; ++i) lane.busy_ms.push_back({i * 150.0 + 47, i * 150.0 + 140});
  r.lanes.push_back(lane);
  DeviceLane host;
  host.label = "host thread 1234 (python)";
  for (int i = 0; i < 6; ++i) host.busy_ms.push_back({i * 150.0, i * 150.0 + 60});
  r.lanes.push_back(host);
  TimeSeries ts;
  ts.name = "gpu0_util_pct";
  ts.unit = "%";
  for (int i = 0; i <= 20; ++i) ts.points.push_back({i * 0.05, i % 4 == 0 ? 20.0 : 85.0});
  r.series.push_back(ts);
  CollectiveBandwidthSummary bw;
  CollectiveLinkInfo link;
  link.kind = "nvlink";
  link.name = "NVLink 3 (A100 SXM4)";
  link.peak_gbps = 300;
  link.basis = "the 8-rank group fits the 8 GPUs this host has; 'NVIDIA A100-SXM4-80GB' <&>";
  bw.links = {link};
  CollectiveBandwidthRow row;
  row.kind = "all_reduce";
  row.group_size = 8;
  row.size_bucket = "16-64 MiB";
  row.min_bytes = 16 << 20;
  row.below_bytes = int64_t(64) << 20;
  row.calls = 12;
  row.bytes = 12.0 * (25 << 20);
  row.mean_bytes = 25 << 20;
  row.kernel_ms = 30.5;
  row.mean_ms = 30.5 / 12;
  row.algbw_gbps = 10.3125;
  row.busbw_gbps = 18.046875;
  row.includes_waits = false;
  row.transfer_calls = 12;
  row.transfer_mean_ms = 0.25;
  row.transfer_algbw_gbps = 104.8576;
  row.transfer_busbw_gbps = 183.5008;
  row.link = 0;
  row.busbw_of_peak_pct = 61.17;
  bw.rows = {row};
  bw.note = "the ranks were aligned at their collectives";
  r.collective_bandwidth = bw;
  r.diagnostics = {"skipped 12 events with negative duration <bad>"};
  r.notes = {"no memory counters in this trace"};
  return r;
}

}  // namespace stepdoctor::testing
