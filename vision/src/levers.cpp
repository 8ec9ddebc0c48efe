// Clock levers over a video: read_clock, gated by whether something covers the clock.
#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"

namespace bugcam::vision {

namespace {

// The clock's area is compared at this many pixels a side (it is about three squares).
constexpr int kPatchPx = 32;
// A pixel whose luma differs this much from the reference has changed.
constexpr float kChangedLuma = 40.0f;
// The clock is covered when this share of its area has changed. A lever flip changes a
// thin wedge beside the display (a few per cent); the display's digits less; a hand or an
// arm far more.
constexpr double kCoveredShare = 0.08;
// Below this share of changed area nothing touches the clock (digits, noise).
constexpr double kQuietShare = 0.015;
// The reference follows quiet frames at this rate (digits, light, a flipped lever).
constexpr double kReferenceRate = 0.3;
// Changed (not quiet) this many frames in a row without moving: the scene itself changed (the clock
// was moved, the light changed); that view becomes the reference.
constexpr int kAdoptAfterFrames = 8;
constexpr double kStillShare = 0.01;

double changed_share(const cv::Mat& a, const cv::Mat& b) {
  cv::Mat difference;
  cv::absdiff(a, b, difference);
  return static_cast<double>(cv::countNonZero(difference > kChangedLuma)) /
         static_cast<double>(a.total());
}

}  // namespace

struct LeverReader::Impl {
  struct PerClock {
    calibration::Clock clock;
    cv::Mat image_to_patch;
    cv::Mat reference;  // CV_32F luma of the last uncovered views
    cv::Mat previous;   // CV_32F luma of the last frame
    int covered_frames = 0;
  };
  std::vector<PerClock> clocks;
};

LeverReader::LeverReader(calibration::Calibration calibration) : impl_(std::make_unique<Impl>()) {
  for (const calibration::Clock& clock : calibration.clocks) {
    Impl::PerClock per;
    per.clock = clock;
    if (clock.region.size() == 4) {
      const float s = kPatchPx;
      std::vector<cv::Point2f> from;
      for (const cv::Point2d& p : clock.region) from.emplace_back(cv::Point2f(p));
      const std::vector<cv::Point2f> to{{0, 0}, {s, 0}, {s, s}, {0, s}};
      per.image_to_patch = cv::getPerspectiveTransform(from, to);
    }
    impl_->clocks.push_back(std::move(per));
  }
}

LeverReader::~LeverReader() = default;
LeverReader::LeverReader(LeverReader&&) noexcept = default;
LeverReader& LeverReader::operator=(LeverReader&&) noexcept = default;

std::vector<ClockObservation> LeverReader::read(const cv::Mat& frame_bgr) {
  std::vector<ClockObservation> seen;
  for (const Impl::PerClock& per : impl_->clocks) seen.push_back(read_clock(frame_bgr, per.clock));
  return read(frame_bgr, std::move(seen));
}

std::vector<ClockObservation> LeverReader::read(const cv::Mat& frame_bgr,
                                                std::vector<ClockObservation> levers) {
  std::vector<ClockObservation> out;
  cv::Mat grey;
  for (size_t c = 0; c < impl_->clocks.size(); ++c) {
    Impl::PerClock& per = impl_->clocks[c];
    ClockObservation seen = c < levers.size() ? levers[c] : read_clock(frame_bgr, per.clock);
    if (per.image_to_patch.empty()) {
      out.push_back(seen);
      continue;
    }
    if (grey.empty()) cv::cvtColor(frame_bgr, grey, cv::COLOR_BGR2GRAY);
    cv::Mat patch;
    cv::warpPerspective(grey, patch, per.image_to_patch, cv::Size(kPatchPx, kPatchPx),
                        cv::INTER_AREA, cv::BORDER_REPLICATE);
    patch.convertTo(patch, CV_32F);
    if (per.reference.empty()) {
      per.reference = patch.clone();
      per.previous = patch.clone();
    }
    const double share = changed_share(patch, per.reference);
    const bool covered = share > kCoveredShare;
    const bool quiet = share < kQuietShare;
    seen.touched = !quiet;
    if (covered) {
      // No evidence: the covered end of the lever looks pressed.
      seen.lever_down = Lever::kUnknown;
      seen.confidence = 0.0f;
    }
    if (quiet) {
      per.covered_frames = 0;
      cv::accumulateWeighted(patch, per.reference, kReferenceRate);
    } else {
      const bool still = changed_share(patch, per.previous) < kStillShare;
      per.covered_frames = still ? per.covered_frames + 1 : 0;
      if (per.covered_frames >= kAdoptAfterFrames) {
        patch.copyTo(per.reference);
        per.covered_frames = 0;
      }
    }
    patch.copyTo(per.previous);
    out.push_back(seen);
  }
  return out;
}

}  // namespace bugcam::vision
