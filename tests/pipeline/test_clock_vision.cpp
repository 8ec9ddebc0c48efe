// `--clocks vision` on the bundled sample clip: the presses read from the clock levers
// (vision::LeverReader, then tracker::LeverPressDetector) against the clip's clock log.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "bugcam/capture.hpp"
#include "bugcam/pipeline.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bugcam;

TEST(ClockVision, PressesOfTheSampleClipWithinAFifthOfASecond) {
  const fs::path clip = fs::path(BUGCAM_SOURCE_DIR) / "samples/clip";
  std::vector<capture::ClockEvent> truth;
  for (const capture::ClockEvent& e : capture::read_clock_log(clip / "clocks.jsonl")) {
    if (e.kind == capture::ClockEvent::Kind::kPress) truth.push_back(e);
  }
  ASSERT_EQ(truth.size(), 40u);
  std::unique_ptr<capture::FrameSource> source =
      capture::open_frame_source((clip / "video.mp4").string());
  std::optional<capture::Frame> frame = source->next();
  ASSERT_TRUE(frame.has_value());
  vision::LeverReader reader(calibration::calibrate(frame->image));
  tracker::LeverPressDetector detector;
  std::vector<capture::ClockEvent> found;
  for (; frame; frame = source->next()) {
    vision::FrameObservation clocks;
    clocks.clocks = reader.read(frame->image);
    for (const tracker::LeverObservation& lever :
         pipeline::to_tracker_inputs(clocks, frame->index, frame->t).levers) {
      if (std::optional<capture::ClockEvent> press = detector.add(lever)) found.push_back(*press);
    }
  }
  for (const capture::ClockEvent& press : detector.flush()) found.push_back(press);
  // Every press once, on its board, by its side, within 0.2 s (SPEC's press-time target);
  // nothing else.
  int matched = 0;
  std::vector<bool> used(found.size(), false);
  for (const capture::ClockEvent& want : truth) {
    for (std::size_t i = 0; i < found.size(); ++i) {
      if (!used[i] && found[i].board == want.board && found[i].side == want.side &&
          std::abs(found[i].t - want.t) <= 0.2) {
        used[i] = true;
        ++matched;
        break;
      }
    }
  }
  EXPECT_EQ(matched, 40);
  EXPECT_EQ(found.size(), 40u);
}

}  // namespace
