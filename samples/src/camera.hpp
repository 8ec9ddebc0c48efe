// The pinhole camera with radial lens distortion, in OpenCV's pixel convention (the centre
// of the top-left pixel is (0, 0)). The renderer draws the undistorted image; the distortion
// is applied afterwards by remapping, and truth points are projected through the same model.
#pragma once

#include <opencv2/core.hpp>

#include "math.hpp"
#include "renderer.hpp"

namespace bugcam::samples {

struct Camera {
  int width = 1280, height = 720;
  Vec3 eye;
  Mat4 view;  // world to OpenGL camera space (x right, y up, looking down -z)
  float fx = 1000, fy = 1000, cx = 639.5f, cy = 359.5f;
  // Distortion as a map from output (distorted) to rendered (undistorted) normalised image
  // coordinates: x_u = x_d * (1 + k1 r^2 + k2 r^4). Negative k1 is barrel distortion.
  float k1 = 0, k2 = 0;
  float near_plane = 5, far_plane = 1000;

  ViewProjection view_projection() const;
  // A camera over `target` from `eye`, with roll about the viewing axis, and the focal length.
  static Camera looking(Vec3 eye, Vec3 target, float roll, float focal_px, int width, int height);

  // Undistorted pixel of a world point; false when behind the camera.
  bool project_undistorted(Vec3 world, cv::Point2d& pixel) const;
  // The pixel in the output (distorted) image.
  bool project(Vec3 world, cv::Point2d& pixel) const;
  cv::Point2d distort(cv::Point2d undistorted) const;
  cv::Point2d undistort(cv::Point2d distorted) const;
  // Ray from the eye through an undistorted pixel, intersected with the plane z = height.
  Vec3 unproject_to_plane(cv::Point2d undistorted_pixel, float plane_height) const;
  bool has_distortion() const { return k1 != 0 || k2 != 0; }
  // Remap tables for cv::remap: output pixel -> rendered pixel.
  void distortion_maps(cv::Mat& map_x, cv::Mat& map_y, float scale = 1.0f) const;
};

}  // namespace bugcam::samples
