// TF1 timeline lane names: the legacy device spelling is rewritten once into the "/device:GPU:N"
// form, and each lane name says which kind of StepStats lane it is.
#include "stepdoctor/importers/chrome/tf1_timeline_lanes.h"

#include <gtest/gtest.h>

namespace stepdoctor::chrome {
namespace {

TEST(Tf1TimelineLanes, LegacyDeviceNamesTakeTheDeviceForm) {
  EXPECT_EQ(CanonicalTfDeviceName("/gpu:0/stream:all Compute"), "/device:GPU:0/stream:all Compute");
  EXPECT_EQ(CanonicalTfDeviceName("/gpu:0/memcpy Compute"), "/device:GPU:0/memcpy Compute");
  EXPECT_EQ(CanonicalTfDeviceName("/gpu:1/stream:12 Compute"), "/device:GPU:1/stream:12 Compute");
  EXPECT_EQ(CanonicalTfDeviceName("/job:localhost/replica:0/task:0/gpu:0 Compute"),
            "/job:localhost/replica:0/task:0/device:GPU:0 Compute");
  EXPECT_EQ(CanonicalTfDeviceName("/job:localhost/replica:0/task:0/cpu:0 Tensors"),
            "/job:localhost/replica:0/task:0/device:CPU:0 Tensors");
  EXPECT_EQ(CanonicalTfDeviceName("/GPU:3/stream:all Compute"), "/device:GPU:3/stream:all Compute");
  EXPECT_EQ(CanonicalTfDeviceName("/cpu:0"), "/device:CPU:0");
}

TEST(Tf1TimelineLanes, OtherNamesAreKept) {
  for (const char* n : {"/device:GPU:0/stream:all Compute", "/job:localhost/replica:0/task:0/device:CPU:0 Compute",
                        "/host:CPU", "Allocators", "GPU 0", "gpu:0 Compute", "/gpu:x/stream:all Compute", "/gpus:0",
                        "/job:worker/replica:0/task:1/tpu:0", "", "/", "//gpu:0"}) {
    std::string expect = n;
    if (expect == "//gpu:0") expect = "//device:GPU:0";  // an empty component, then a legacy one
    EXPECT_EQ(CanonicalTfDeviceName(n), expect) << n;
  }
}

TEST(Tf1TimelineLanes, ClassifiesCanonicalLaneNames) {
  EXPECT_EQ(ClassifyTf1Lane("/job:localhost/replica:0/task:0/device:GPU:0 Compute"), Tf1Lane::kOpLevel);
  EXPECT_EQ(ClassifyTf1Lane("/job:localhost/replica:0/task:0/device:CPU:0 Compute"), Tf1Lane::kHostOps);
  EXPECT_EQ(ClassifyTf1Lane("/device:GPU:0/stream:all Compute"), Tf1Lane::kAllStreams);
  EXPECT_EQ(ClassifyTf1Lane("/device:GPU:0/stream:12 Compute"), Tf1Lane::kStream);
  EXPECT_EQ(ClassifyTf1Lane("/device:GPU:0/memcpy Compute"), Tf1Lane::kMemcpy);
  EXPECT_EQ(ClassifyTf1Lane("/device:GPU:0/stream:all Tensors"), Tf1Lane::kNone);
  EXPECT_EQ(ClassifyTf1Lane("/device:GPU:0"), Tf1Lane::kNone);  // TF2's plane, not a TF1 lane
  // Legacy names are lanes once canonical, and only then.
  EXPECT_EQ(ClassifyTf1Lane("/gpu:0/stream:all Compute"), Tf1Lane::kNone);
  EXPECT_EQ(ClassifyTf1Lane(CanonicalTfDeviceName("/gpu:0/stream:all Compute")), Tf1Lane::kAllStreams);
  EXPECT_EQ(ClassifyTf1Lane(CanonicalTfDeviceName("/job:localhost/replica:0/task:0/gpu:0 Compute")), Tf1Lane::kOpLevel);
}

TEST(Tf1TimelineLanes, OneSetOfLanesIsTheDevice) {
  // Per-stream lanes where they hold the kernels; else stream:all (with memcpy for the copies
  // where stream:all has none); else memcpy. Never the op-level lane.
  Tf1GpuLanes whole;  // per-stream lanes and stream:all with the same kernels
  whole.has_streams = whole.has_all_streams = true;
  whole.Count(Tf1Lane::kStream, EventKind::kKernel);
  whole.Count(Tf1Lane::kStream, EventKind::kMemcpyH2D);
  whole.Count(Tf1Lane::kAllStreams, EventKind::kKernel);
  EXPECT_TRUE(Tf1LaneIsDeviceStream(Tf1Lane::kStream, whole));
  EXPECT_FALSE(Tf1LaneIsDeviceStream(Tf1Lane::kAllStreams, whole));
  EXPECT_FALSE(Tf1LaneIsDeviceStream(Tf1Lane::kMemcpy, whole));
  EXPECT_FALSE(Tf1LaneIsDeviceStream(Tf1Lane::kOpLevel, whole));

  Tf1GpuLanes cut = whole;  // one kernel more on stream:all than on the streams: they are cut short
  cut.Count(Tf1Lane::kAllStreams, EventKind::kKernel);
  EXPECT_FALSE(cut.UseStreams());
  EXPECT_FALSE(Tf1LaneIsDeviceStream(Tf1Lane::kStream, cut));
  EXPECT_TRUE(Tf1LaneIsDeviceStream(Tf1Lane::kAllStreams, cut));
  EXPECT_TRUE(Tf1LaneIsDeviceStream(Tf1Lane::kMemcpy, cut));  // stream:all holds no copies
  cut.Count(Tf1Lane::kAllStreams, EventKind::kMemcpyH2D);
  EXPECT_FALSE(Tf1LaneIsDeviceStream(Tf1Lane::kMemcpy, cut));  // now it does: memcpy would count them twice

  Tf1GpuLanes all_only;
  all_only.has_all_streams = true;
  all_only.Count(Tf1Lane::kAllStreams, EventKind::kKernel);
  EXPECT_TRUE(Tf1LaneIsDeviceStream(Tf1Lane::kAllStreams, all_only));
  Tf1GpuLanes memcpy_only;
  EXPECT_TRUE(Tf1LaneIsDeviceStream(Tf1Lane::kMemcpy, memcpy_only));
  EXPECT_FALSE(Tf1LaneIsDeviceStream(Tf1Lane::kOpLevel, memcpy_only));
}

}  // namespace
}  // namespace stepdoctor::chrome
