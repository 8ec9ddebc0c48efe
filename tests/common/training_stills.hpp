// What the programs that learn from rendered stills share (bench/train_piece_types,
// bench/train_holdings): their seeds, and each still as recording would see it.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/samples.hpp"
#include "still_calibration.hpp"

namespace bugcam::testing {

// "FIRST-LAST" with 0 <= FIRST <= LAST.
inline bool parse_range(const std::string& text, int& first, int& last) {
  const std::size_t dash = text.find('-');
  if (dash == std::string::npos) return false;
  first = std::atoi(text.substr(0, dash).c_str());
  last = std::atoi(text.substr(dash + 1).c_str());
  return first >= 0 && last >= first;
}

// The seeds of `count` stills spread evenly over [first, last].
inline std::vector<int> seeds_of(int first, int last, int count) {
  std::vector<int> seeds;
  const int span = last - first + 1;
  for (int i = 0; i < count && i < span; ++i) {
    seeds.push_back(first + static_cast<int>(static_cast<long>(i) * span / std::min(count, span)));
  }
  return seeds;
}

// The calibration a camera calibration would find for the still: the lattice fitted by a
// homography (lens distortion leaves some error), moved by up to a few hundredths of a
// square, and the holding areas where calibrate() puts them.
inline calibration::Calibration jittered_still_calibration(const samples::TrainingStill& still,
                                                           std::mt19937_64& rng) {
  std::uniform_real_distribution<double> jitter(-0.04, 0.04);
  const double dx = jitter(rng), dy = jitter(rng);
  return still_calibration(still, {dx, dy});
}

// The still as a video frame would show it: JPEG-compressed at a random quality.
inline cv::Mat compressed_as_video(const cv::Mat& image, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> quality(55, 92);
  std::vector<uchar> bytes;
  cv::imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_QUALITY, quality(rng)});
  return cv::imdecode(bytes, cv::IMREAD_COLOR);
}

}  // namespace bugcam::testing
