// What a real camera adds after the optics form the image: motion blur on moving hands,
// lens blur, radial distortion and sensor noise; and what the hand mask tells the truth
// (which squares a hand hides).
#pragma once

#include <array>
#include <vector>

#include <opencv2/core.hpp>

#include "camera.hpp"
#include "random.hpp"
#include "scene.hpp"

namespace bugcam::samples {

class PostProcess {
 public:
  // The hand mask is rendered at this fraction of the frame size.
  static constexpr float kMaskScale = 0.25f;

  PostProcess(const Camera& camera, const Style& style, double fps);

  // Smears each hand's pixels along its motion over half a frame time (a 180-degree shutter).
  void motion_blur(cv::Mat& image, const cv::Mat& hand_ids, const World& now, const World& earlier);
  // Squares of each board that a hand covers in the (undistorted) view.
  std::array<std::vector<int>, 2> occluded_squares(const cv::Mat& hand_ids,
                                                   const Layout& layout) const;
  // Lens blur, distortion and noise, in `image`'s own buffer (which must not be shared with a
  // picture kept elsewhere); frame picks the noise pattern.
  void finish(cv::Mat& image, int frame);
  // An ID image through the same distortion, nearest neighbour.
  cv::Mat distort_ids(const cv::Mat& ids) const;

 private:
  const Camera& camera_;
  float blur_sigma_;
  cv::Mat map_x_, map_y_;
  // Sensor noise: kNoisePatterns patterns (CV_16SC3), frame by frame in turn, each made on
  // first use (a still uses one; a pattern takes a normal draw per pixel and channel, most of
  // a still's rendering time). Pattern k is the k-th run of draws from one source, so
  // `noise_starts_` keeps where each known one begins.
  static constexpr std::size_t kNoisePatterns = 3;
  const cv::Mat& noise(std::size_t k);
  float noise_sigma_ = 0.0f;
  std::array<cv::Mat, kNoisePatterns> noise_;
  std::vector<Random> noise_starts_;
  // Full-frame working buffers, kept from frame to frame: fresh ones each frame cost their
  // page faults, most of a clip's rendering under AddressSanitizer.
  cv::Mat blur_source_, hand_mask_, grown_mask_, step_, wide_;
};

}  // namespace bugcam::samples
