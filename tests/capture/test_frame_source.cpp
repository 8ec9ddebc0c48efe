#include <fstream>

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "bugcam/capture.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using bugcam::capture::CaptureError;
using bugcam::capture::open_frame_source;

// A frame whose grey level encodes its number, so order can be checked after decoding.
cv::Mat numbered_frame(int number) {
  return cv::Mat(48, 64, CV_8UC3, cv::Scalar::all(20.0 + 40.0 * number));
}

TEST(FrameSource, ImageDirectoryIsReadInNumericOrder) {
  const bugcam::test_support::TempDir dir_temp("capture-frames-dir");
  const fs::path dir = dir_temp.path();
  cv::imwrite((dir / "frame_10.png").string(), numbered_frame(2));
  cv::imwrite((dir / "frame_2.png").string(), numbered_frame(1));
  cv::imwrite((dir / "frame_1.png").string(), numbered_frame(0));
  std::ofstream(dir / "notes7.txt") << "not an image";  // ignored: not an image type
  auto source = open_frame_source(dir.string(), 10.0);
  for (int i = 0; i < 3; ++i) {
    auto frame = source->next();
    ASSERT_TRUE(frame.has_value());
    EXPECT_EQ(frame->index, i);
    EXPECT_DOUBLE_EQ(frame->t, i / 10.0);
    EXPECT_EQ(frame->image.at<cv::Vec3b>(0, 0)[0], 20 + 40 * i);
  }
  EXPECT_FALSE(source->next().has_value());
}

TEST(FrameSource, ImageDirectorySeeks) {
  const bugcam::test_support::TempDir dir_temp("capture-frames-seek");
  const fs::path dir = dir_temp.path();
  for (int i = 0; i < 4; ++i) {
    cv::imwrite((dir / ("f" + std::to_string(i) + ".png")).string(), numbered_frame(i));
  }
  auto source = open_frame_source(dir.string(), 2.0);
  source->seek(1.0);
  auto frame = source->next();
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->index, 2);
  EXPECT_DOUBLE_EQ(frame->t, 1.0);
}

TEST(FrameSource, VideoFileTimesComeFromFrameIndex) {
  const bugcam::test_support::TempDir dir_temp("capture-video-file");
  const fs::path dir = dir_temp.path();
  const fs::path file = dir / "clip.avi";
  {
    cv::VideoWriter writer(file.string(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 25.0,
                           cv::Size(64, 48));
    ASSERT_TRUE(writer.isOpened());
    for (int i = 0; i < 5; ++i) writer.write(numbered_frame(i));
  }
  auto source = open_frame_source(file.string());
  EXPECT_DOUBLE_EQ(source->fps(), 25.0);
  int count = 0;
  while (auto frame = source->next()) {
    EXPECT_EQ(frame->index, count);
    EXPECT_DOUBLE_EQ(frame->t, count / 25.0);
    EXPECT_NEAR(frame->image.at<cv::Vec3b>(24, 32)[1], 20 + 40 * count, 6);
    ++count;
  }
  EXPECT_EQ(count, 5);

  auto again = open_frame_source(file.string());
  again->seek(0.12);  // the first frame at or after 0.12 s is frame 3 (0.12 s)
  auto frame = again->next();
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->index, 3);
}

TEST(FrameSource, ErrorsNameTheSource) {
  const bugcam::test_support::TempDir dir_temp("capture-bad-sources");
  const fs::path dir = dir_temp.path();
  try {
    open_frame_source((dir / "nothing.mp4").string());
    FAIL();
  } catch (const CaptureError& e) {
    EXPECT_NE(std::string(e.what()).find("nothing.mp4"), std::string::npos);
  }
  try {
    open_frame_source(dir.string());  // a directory without images
    FAIL();
  } catch (const CaptureError& e) {
    EXPECT_NE(std::string(e.what()).find("no numbered images"), std::string::npos);
  }
}

TEST(FrameSource, RecognisesCameraNames) {
  EXPECT_TRUE(bugcam::capture::is_camera("/dev/video0"));
  EXPECT_TRUE(bugcam::capture::is_camera("camera:2"));
  EXPECT_FALSE(bugcam::capture::is_camera("camera:x"));
  EXPECT_FALSE(bugcam::capture::is_camera("clip.mp4"));
  EXPECT_THROW(open_frame_source("camera:97"), CaptureError);
}

}  // namespace
