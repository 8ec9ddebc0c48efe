#include "camera.hpp"

#include <cmath>

namespace bugcam::samples {

ViewProjection Camera::view_projection() const {
  const auto W = static_cast<float>(width), H = static_cast<float>(height);
  Mat4 p;
  p.m.fill(0);
  p.at(0, 0) = 2 * fx / W;
  p.at(0, 2) = -(2 * (cx + 0.5f) / W - 1);
  p.at(1, 1) = 2 * fy / H;
  p.at(1, 2) = -(1 - 2 * (cy + 0.5f) / H);
  p.at(2, 2) = -(far_plane + near_plane) / (far_plane - near_plane);
  p.at(2, 3) = -2 * far_plane * near_plane / (far_plane - near_plane);
  p.at(3, 2) = -1;
  return {view, p, eye};
}

Camera Camera::looking(Vec3 eye, Vec3 target, float roll, float focal_px, int width, int height) {
  Camera c;
  c.width = width;
  c.height = height;
  c.eye = eye;
  const Vec3 forward = normalize(target - eye);
  // "Up" in the image is the far side of the table (+y) unless looking straight along it.
  Vec3 up{0, 1, 0};
  if (std::fabs(dot(forward, up)) > 0.99f) up = {0, 0, 1};
  c.view = Mat4::rotate({0, 0, 1}, roll) * Mat4::look_at(eye, target, up);
  c.fx = c.fy = focal_px;
  c.cx = static_cast<float>(width - 1) / 2;
  c.cy = static_cast<float>(height - 1) / 2;
  return c;
}

bool Camera::project_undistorted(Vec3 world, cv::Point2d& pixel) const {
  const Vec3 c = view.transform_point(world);
  if (c.z >= -1e-6f) return false;
  const double depth = -static_cast<double>(c.z);
  pixel.x = cx + fx * c.x / depth;
  pixel.y = cy - fy * c.y / depth;
  return true;
}

cv::Point2d Camera::undistort(cv::Point2d d) const {
  const double xd = (d.x - cx) / fx, yd = (d.y - cy) / fy;
  const double r2 = xd * xd + yd * yd;
  const double s = 1 + k1 * r2 + k2 * r2 * r2;
  return {cx + fx * xd * s, cy + fy * yd * s};
}

cv::Point2d Camera::distort(cv::Point2d u) const {
  if (!has_distortion()) return u;
  // Invert undistort() by Newton's method on the radius.
  const double xu = (u.x - cx) / fx, yu = (u.y - cy) / fy;
  const double ru = std::sqrt(xu * xu + yu * yu);
  if (ru < 1e-12) return u;
  double rd = ru;
  for (int i = 0; i < 30; ++i) {
    const double f = rd * (1 + k1 * rd * rd + k2 * rd * rd * rd * rd) - ru;
    const double df = 1 + 3 * k1 * rd * rd + 5 * k2 * rd * rd * rd * rd;
    const double step = f / df;
    rd -= step;
    if (std::fabs(step) < 1e-14) break;
  }
  const double k = rd / ru;
  return {cx + fx * xu * k, cy + fy * yu * k};
}

bool Camera::project(Vec3 world, cv::Point2d& pixel) const {
  cv::Point2d u;
  if (!project_undistorted(world, u)) return false;
  pixel = distort(u);
  return true;
}

Vec3 Camera::unproject_to_plane(cv::Point2d pixel, float plane_height) const {
  // Camera-space ray, then back to world with the inverse of the rigid view matrix.
  const Vec3 ray_cam{static_cast<float>((pixel.x - cx) / fx),
                     static_cast<float>(-(pixel.y - cy) / fy), -1.0f};
  const Vec3 ray_world{
      view.at(0, 0) * ray_cam.x + view.at(1, 0) * ray_cam.y + view.at(2, 0) * ray_cam.z,
      view.at(0, 1) * ray_cam.x + view.at(1, 1) * ray_cam.y + view.at(2, 1) * ray_cam.z,
      view.at(0, 2) * ray_cam.x + view.at(1, 2) * ray_cam.y + view.at(2, 2) * ray_cam.z};
  const float t = (plane_height - eye.z) / ray_world.z;
  return eye + ray_world * t;
}

void Camera::distortion_maps(cv::Mat& map_x, cv::Mat& map_y, float scale) const {
  const int w = static_cast<int>(std::lround(static_cast<float>(width) * scale));
  const int h = static_cast<int>(std::lround(static_cast<float>(height) * scale));
  map_x.create(h, w, CV_32F);
  map_y.create(h, w, CV_32F);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      // Pixel centres scale about the half-pixel offset.
      const cv::Point2d out{(x + 0.5) / scale - 0.5, (y + 0.5) / scale - 0.5};
      const cv::Point2d src = undistort(out);
      map_x.at<float>(y, x) = static_cast<float>((src.x + 0.5) * scale - 0.5);
      map_y.at<float>(y, x) = static_cast<float>((src.y + 0.5) * scale - 0.5);
    }
  }
}

}  // namespace bugcam::samples
