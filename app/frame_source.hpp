// Reading one frame from an image or a video file for the one-frame commands (calibrate,
// see). The capture library will replace this when it lands.
#pragma once

#include <string>

#include <opencv2/core.hpp>

namespace bugcam::app {

// Frame `index` (0 = first) of a video, or the image itself. Throws std::runtime_error
// naming the file and the frame when it cannot be read.
cv::Mat read_frame(const std::string& source, int index);

}  // namespace bugcam::app
