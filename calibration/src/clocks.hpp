// Finding the clocks beside the boards (calibrate's last step).
#pragma once

#include <optional>

#include <opencv2/core.hpp>

#include "bugcam/calibration.hpp"

namespace bugcam::calibration {

// The clock standing beside `board` on its outer side (beyond file h when
// `outer_is_high_file`, else beyond file a), with its two lever halves split at the pivot;
// nullopt when nothing clock-like stands there.
std::optional<Clock> find_clock(const cv::Mat& frame_bgr, const Board& board,
                                bool outer_is_high_file);

}  // namespace bugcam::calibration
