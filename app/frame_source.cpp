#include "frame_source.hpp"

#include <filesystem>
#include <stdexcept>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

namespace bugcam::app {

cv::Mat read_frame(const std::string& source, int index) {
  if (!std::filesystem::exists(source)) throw std::runtime_error(source + ": no such file");
  if (cv::haveImageReader(source)) {
    if (index != 0) throw std::runtime_error(source + ": an image has only frame 0");
    cv::Mat image = cv::imread(source, cv::IMREAD_COLOR);
    if (image.empty()) throw std::runtime_error(source + ": cannot decode the image");
    return image;
  }
  cv::VideoCapture video(source);
  if (!video.isOpened()) throw std::runtime_error(source + ": neither an image nor a video");
  // Reading frame by frame is exact where seeking is not in every codec.
  cv::Mat frame;
  for (int i = 0; i <= index; ++i) {
    if (!video.read(frame) || frame.empty()) {
      throw std::runtime_error(source + ": frame " + std::to_string(index) +
                               ": the video has only " + std::to_string(i) + " frames");
    }
  }
  return frame;
}

}  // namespace bugcam::app
