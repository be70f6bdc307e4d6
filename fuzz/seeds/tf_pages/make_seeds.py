#!/usr/bin/env python3
"""Writes the tf_pages fuzzer's seeds: small pages of each kind, built field by field from the
field numbers of TensorFlow's overview_page.proto, input_pipeline.proto and tf_stats.proto.
The first byte of each seed picks the page kind (see fuzz/tf_pages_fuzzer.cc)."""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def varint(v):
    out = b""
    while v >= 0x80:
        out += bytes([(v & 0x7F) | 0x80])
        v >>= 7
    return out + bytes([v])


def msg(f, body):
    return varint(f << 3 | 2) + varint(len(body)) + body


def text(f, s):
    return msg(f, s.encode())


def dbl(f, d):
    return varint(f << 3 | 1) + struct.pack("<d", d)


def num(f, v):
    return varint(f << 3) + varint(v)


def any_(type_name, body):
    return text(1, "type.googleapis.com/tensorflow.profiler." + type_name) + msg(2, body)


def summary(avg):
    return dbl(1, avg)


def input_analysis(input_pct):
    breakdown = msg(9, summary(28)) + msg(10, summary(2)) + msg(4, summary(60)) + msg(7, summary(4)) + msg(1, summary(6))
    ba = text(1, "host") + text(2, "Your program is <b>input-bound</b>.") + text(3, "high") + text(4, "Kernel launch is high.")
    steps = b"".join(msg(4, any_("PerGenericStepDetails", b"")) for _ in range(3))
    return (msg(2, summary(100)) + dbl(11, input_pct) + msg(7, msg(2, any_("BottleneckAnalysis", ba)))
            + msg(8, any_("GenericStepTimeBreakdown", breakdown)) + steps)


def stats_record(side, op_type, n, self_us, eager):
    r = text(2, side) + text(3, op_type) + text(4, op_type + "/op") + num(5, n) + dbl(8, self_us)
    return r + (num(18, 1) if eager else b"")


def stats_table(with_idle):
    rows = [("Device", "MatMul", 4, 300.0, False), ("Device", "Relu", 6, 100.0, False),
            ("Host", "Dataset", 9, 200.0, False), ("Host", "AddV2", 5, 50.0, True)]
    if with_idle:
        rows.insert(0, ("Device", "IDLE", 3, 600.0, False))
    return b"".join(msg(1, stats_record(*r)) for r in rows)


def chart_tables():
    return json.dumps([
        {"cols": [{"id": "selfTimePercent", "type": "number"}, {"id": "operation", "type": "string"}],
         "rows": [{"c": [{"v": 0.4}, {"v": "resnet50/conv1/Conv2D"}]}]},
        {"cols": [{"id": "stepnum", "type": "string"},
                  {"id": "computeTimeMs", "label": "Compute time (in ms)", "type": "number"},
                  {"id": "inputTimeMs", "label": "Input time (in ms)", "type": "number"}],
         "rows": [{"c": [{"v": "0"}, {"v": 80}, {"v": 20}]}, {"c": [{"v": "1"}, {"v": 90.0}, {"v": 10.0}]}],
         "p": {"steptime_ms_average": "100.0", "infeed_percent_average": "15.0",
               "input_conclusion": "Your program is MODERATELY input-bound."}},
        {"cols": [{"id": "host_id", "type": "string"}], "rows": [], "p": {"device_type": "TPU v4"}},
        {"cols": [{"id": "tip_type", "type": "string"}], "rows": [],
         "p": {"bottleneck": "host", "statement": "Your program is <b>MODERATELY</b> input-bound.",
               "kernel_launch_bottleneck": "high", "kernel_launch_statement": "18.0 % of the time is kernel launch."}},
    ]).encode()


seeds = {
    "overview_page.bin": b"\x00" + msg(2, input_analysis(30.0)) + msg(4, text(1, "host") + text(2, "HIGHLY input-bound")),
    "input_pipeline.bin": b"\x01" + input_analysis(12.5),
    "tensorflow_stats.bin": b"\x02" + msg(4, stats_table(True)) + msg(5, stats_table(False)) + text(6, "GPU"),
    "tensorflow_stats_with_idle_only.bin": b"\x02" + msg(4, stats_table(True)),
    "overview_page_tables.bin": b"\x03" + chart_tables(),
    "input_pipeline_tables.bin": b"\x04" + chart_tables(),
}
for name, data in seeds.items():
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)
