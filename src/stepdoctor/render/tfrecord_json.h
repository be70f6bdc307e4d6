// `tfrecord verify|inspect --format json`: the results as one JSON object each (keys in
// docs/json-report.md). `passed_over` counts files in the folders named that are not TFRecord.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "stepdoctor/tfrecord/tfrecord_inspect.h"
#include "stepdoctor/tfrecord/tfrecord_verify.h"

namespace stepdoctor {

std::string RenderVerifyJson(const std::vector<tfrecord::VerifyResult>& files, double seconds, size_t passed_over);
std::string RenderInspectJson(const tfrecord::InspectResult& r, size_t passed_over);

}  // namespace stepdoctor
