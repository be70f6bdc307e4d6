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

// The profiler's trace viewer names its processes "/host:CPU", "/device:GPU:0" for TensorFlow,
// JAX and any program that records through its C++ API alike; which one ran is in the names of
// the threads and events. Each name adds what it shows; the program is JAX where JAX's names
// were seen and TensorFlow's were not.
struct TraceViewerProgram {
  bool tensorflow = false, jax = false;
  void NoteThread(std::string_view thread_name);
  void NoteEvent(std::string_view event_name);
};

}  // namespace stepdoctor::chrome
