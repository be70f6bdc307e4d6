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
  // Per-stream lanes where there are any; else stream:all; else memcpy. Never the op-level lane.
  EXPECT_TRUE(Tf1LaneIsDeviceStream(Tf1Lane::kStream, true, true));
  EXPECT_FALSE(Tf1LaneIsDeviceStream(Tf1Lane::kAllStreams, true, true));
  EXPECT_TRUE(Tf1LaneIsDeviceStream(Tf1Lane::kAllStreams, false, true));
  EXPECT_FALSE(Tf1LaneIsDeviceStream(Tf1Lane::kMemcpy, false, true));
  EXPECT_TRUE(Tf1LaneIsDeviceStream(Tf1Lane::kMemcpy, false, false));
  EXPECT_FALSE(Tf1LaneIsDeviceStream(Tf1Lane::kOpLevel, false, false));
}

}  // namespace
}  // namespace stepdoctor::chrome
