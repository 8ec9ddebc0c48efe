#include "postprocess.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <opencv2/imgproc.hpp>

namespace bugcam::samples {

PostProcess::PostProcess(const Camera& camera, const Style& style, double /*fps*/)
    : camera_(camera), blur_sigma_(style.optical_blur), noise_sigma_(style.noise_sigma) {
  if (camera.has_distortion()) camera.distortion_maps(map_x_, map_y_);
  if (noise_sigma_ > 0) noise_starts_.emplace_back(style.seed ^ 0x6e6f697365ull);
}

const cv::Mat& PostProcess::noise(std::size_t k) {
  cv::Mat& pattern = noise_[k];
  if (!pattern.empty()) return pattern;
  const std::uint64_t draws =
      static_cast<std::uint64_t>(camera_.width) * static_cast<std::uint64_t>(camera_.height) * 3;
  while (noise_starts_.size() <= k) {
    Random next = noise_starts_.back();
    next.skip_normals(draws);
    noise_starts_.push_back(next);
  }
  Random rng = noise_starts_[k];
  pattern.create(camera_.height, camera_.width, CV_16SC3);
  for (int y = 0; y < pattern.rows; ++y) {
    auto* row = pattern.ptr<std::int16_t>(y);
    for (int x = 0; x < pattern.cols * 3; ++x) {
      row[x] = static_cast<std::int16_t>(std::lround(rng.normal() * noise_sigma_));
    }
  }
  // The next pattern begins where this one's draws ended.
  if (noise_starts_.size() == k + 1) noise_starts_.push_back(rng);
  return pattern;
}

void PostProcess::motion_blur(cv::Mat& image, const cv::Mat& hand_ids, const World& now,
                              const World& earlier) {
  image.copyTo(blur_source_);
  const cv::Mat& source = blur_source_;
  for (int p = 0; p < kPlayerCount; ++p) {
    const HandPose& h1 = now.hands[static_cast<std::size_t>(p)];
    const HandPose& h0 = earlier.hands[static_cast<std::size_t>(p)];
    if (!h1.present || !h0.present) continue;
    cv::Point2d a, b;
    if (!camera_.project_undistorted(h0.pinch, a) || !camera_.project_undistorted(h1.pinch, b)) {
      continue;
    }
    const cv::Point2d v = b - a;
    const double len = std::hypot(v.x, v.y);
    if (len < 1.5) continue;
    // Pixels of this hand, grown by the blur length, at full size.
    const cv::Mat hand =
        hand_ids == static_cast<int>(object_id::kHand | static_cast<std::uint32_t>(p));
    cv::resize(hand, hand_mask_, image.size(), 0, 0, cv::INTER_NEAREST);
    const int grow = static_cast<int>(std::ceil(len / 2)) + 1;
    cv::dilate(hand_mask_, grown_mask_,
               cv::getStructuringElement(cv::MORPH_ELLIPSE, {2 * grow + 1, 2 * grow + 1}));
    const cv::Mat& mask = grown_mask_;
    const int samples = std::min(8, static_cast<int>(std::ceil(len / 2.0)) + 1);
    for (int y = 0; y < image.rows; ++y) {
      const std::uint8_t* m = mask.ptr<std::uint8_t>(y);
      auto* out = image.ptr<cv::Vec3b>(y);
      for (int x = 0; x < image.cols; ++x) {
        if (!m[x]) continue;
        int sum[3] = {0, 0, 0};
        for (int s = 0; s < samples; ++s) {
          const double u = static_cast<double>(s) / (samples - 1) - 0.5;
          const int sx = std::clamp(static_cast<int>(std::lround(x + u * v.x)), 0, image.cols - 1);
          const int sy = std::clamp(static_cast<int>(std::lround(y + u * v.y)), 0, image.rows - 1);
          const cv::Vec3b c = source.at<cv::Vec3b>(sy, sx);
          sum[0] += c[0];
          sum[1] += c[1];
          sum[2] += c[2];
        }
        out[x] = {static_cast<std::uint8_t>(sum[0] / samples),
                  static_cast<std::uint8_t>(sum[1] / samples),
                  static_cast<std::uint8_t>(sum[2] / samples)};
      }
    }
  }
}

std::array<std::vector<int>, 2> PostProcess::occluded_squares(const cv::Mat& hand_ids,
                                                              const Layout& layout) const {
  std::array<std::set<int>, 2> covered;
  const double scale = static_cast<double>(hand_ids.cols) / camera_.width;
  for (int y = 0; y < hand_ids.rows; ++y) {
    const auto* row = hand_ids.ptr<std::int32_t>(y);
    for (int x = 0; x < hand_ids.cols; ++x) {
      if (object_id::kind(static_cast<std::uint32_t>(row[x])) != object_id::kHand) continue;
      const cv::Point2d px{(x + 0.5) / scale - 0.5, (y + 0.5) / scale - 0.5};
      const Vec3 w = camera_.unproject_to_plane(px, layout.board_top);
      for (int b = 0; b < 2; ++b) {
        const Vec3 c = layout.board_center[static_cast<std::size_t>(b)];
        const float s = b == 0 ? 1.0f : -1.0f;
        const float u = s * (w.x - c.x) / layout.square + 4;
        const float v = s * (w.y - c.y) / layout.square + 4;
        if (u < 0 || v < 0 || u >= 8 || v >= 8) continue;
        covered[static_cast<std::size_t>(b)].insert(static_cast<int>(v) * 8 + static_cast<int>(u));
      }
    }
  }
  return {std::vector<int>(covered[0].begin(), covered[0].end()),
          std::vector<int>(covered[1].begin(), covered[1].end())};
}

void PostProcess::finish(cv::Mat& image, int frame) {
  // Each step goes through a buffer kept for the next frame and back into `image`'s own.
  if (blur_sigma_ > 0.05f) {
    cv::GaussianBlur(image, step_, {0, 0}, blur_sigma_);
    step_.copyTo(image);
  }
  if (!map_x_.empty()) {
    cv::remap(image, step_, map_x_, map_y_, cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    step_.copyTo(image);
  }
  if (!noise_starts_.empty()) {
    const cv::Mat& n = noise(static_cast<std::size_t>(frame) % kNoisePatterns);
    image.convertTo(wide_, CV_16SC3);
    wide_ += n;
    wide_.convertTo(image, CV_8UC3);
  }
}

cv::Mat PostProcess::distort_ids(const cv::Mat& ids) const {
  if (map_x_.empty()) return ids;
  // Nearest neighbour on integer IDs: remap needs float maps, so the IDs go through as
  // 32-bit floats, exact below 2^24.
  cv::Mat as_float, out;
  ids.convertTo(as_float, CV_32F);
  cv::remap(as_float, out, map_x_, map_y_, cv::INTER_NEAREST, cv::BORDER_CONSTANT, 0);
  cv::Mat result;
  out.convertTo(result, CV_32S);
  return result;
}

}  // namespace bugcam::samples
