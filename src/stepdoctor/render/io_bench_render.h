// io-bench's report as text for people and JSON for machines (keys in docs/input.md).
#pragma once

#include <string>

#include "stepdoctor/report/io_bench_report.h"

namespace stepdoctor {

std::string RenderIoBenchText(const IoBenchReport& r);
std::string RenderIoBenchJson(const IoBenchReport& r);

}  // namespace stepdoctor
