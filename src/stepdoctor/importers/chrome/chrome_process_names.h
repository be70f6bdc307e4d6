// What a Chrome trace's process names say about devices: Kineto's "<KIND> <N>" device processes
// ("GPU 0", "MTIA 9", "XPU 0") and TensorFlow's "/device:GPU:N" planes.
#pragma once

#include <string_view>
#include <utility>

namespace stepdoctor::chrome {

// "GPU 3", "/device:GPU:3", "/device:TPU:0 ..." with marker "GPU " / "/device:GPU:" / ... -> the
// number after the marker; -1 where the marker is absent or no number follows it.
int TrailingDeviceNumber(std::string_view s, std::string_view marker);

// Kineto names each device's process "<KIND> <N>" (process_labels / process_name). Returns the
// kind word and N, or an empty word where the name is not of that shape or names the host ("CPU").
std::pair<std::string_view, int> DeviceProcessName(std::string_view name);

}  // namespace stepdoctor::chrome
