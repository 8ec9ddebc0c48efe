// Small vector and matrix types for the renderer: column-major 4x4 matrices as OpenGL
// expects them, float throughout (the scene is a few metres across, in centimetres).
#pragma once

#include <array>
#include <cmath>

namespace bugcam::samples {

inline constexpr float kPi = 3.14159265358979f;

struct Vec2 {
  float x = 0, y = 0;
};

struct Vec3 {
  float x = 0, y = 0, z = 0;
  friend Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
  friend Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
  friend Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
  friend Vec3 operator*(float s, Vec3 a) { return a * s; }
  friend Vec3 operator-(Vec3 a) { return {-a.x, -a.y, -a.z}; }
};

inline float dot(Vec3 a, Vec3 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline float length(Vec3 a) {
  return std::sqrt(dot(a, a));
}
inline Vec3 normalize(Vec3 a) {
  const float l = length(a);
  return l > 0 ? a * (1.0f / l) : a;
}
inline Vec3 lerp(Vec3 a, Vec3 b, float t) {
  return a + (b - a) * t;
}

struct Vec4 {
  float x = 0, y = 0, z = 0, w = 0;
};

// Column-major: m[c * 4 + r].
struct Mat4 {
  std::array<float, 16> m{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

  float& at(int row, int col) { return m[static_cast<std::size_t>(col * 4 + row)]; }
  float at(int row, int col) const { return m[static_cast<std::size_t>(col * 4 + row)]; }

  friend Mat4 operator*(const Mat4& a, const Mat4& b) {
    Mat4 r;
    for (int c = 0; c < 4; ++c) {
      for (int rr = 0; rr < 4; ++rr) {
        float s = 0;
        for (int k = 0; k < 4; ++k) s += a.at(rr, k) * b.at(k, c);
        r.at(rr, c) = s;
      }
    }
    return r;
  }
  Vec4 operator*(Vec4 v) const {
    return {at(0, 0) * v.x + at(0, 1) * v.y + at(0, 2) * v.z + at(0, 3) * v.w,
            at(1, 0) * v.x + at(1, 1) * v.y + at(1, 2) * v.z + at(1, 3) * v.w,
            at(2, 0) * v.x + at(2, 1) * v.y + at(2, 2) * v.z + at(2, 3) * v.w,
            at(3, 0) * v.x + at(3, 1) * v.y + at(3, 2) * v.z + at(3, 3) * v.w};
  }
  Vec3 transform_point(Vec3 p) const {
    const Vec4 r = (*this) * Vec4{p.x, p.y, p.z, 1};
    return {r.x, r.y, r.z};
  }
  Vec3 transform_direction(Vec3 d) const {
    const Vec4 r = (*this) * Vec4{d.x, d.y, d.z, 0};
    return {r.x, r.y, r.z};
  }

  static Mat4 translate(Vec3 t) {
    Mat4 r;
    r.at(0, 3) = t.x;
    r.at(1, 3) = t.y;
    r.at(2, 3) = t.z;
    return r;
  }
  static Mat4 scale(Vec3 s) {
    Mat4 r;
    r.at(0, 0) = s.x;
    r.at(1, 1) = s.y;
    r.at(2, 2) = s.z;
    return r;
  }
  // Rotation by `angle` radians about a unit axis (right-handed).
  static Mat4 rotate(Vec3 axis, float angle) {
    const Vec3 a = normalize(axis);
    const float c = std::cos(angle), s = std::sin(angle), t = 1 - c;
    Mat4 r;
    r.at(0, 0) = t * a.x * a.x + c;
    r.at(0, 1) = t * a.x * a.y - s * a.z;
    r.at(0, 2) = t * a.x * a.z + s * a.y;
    r.at(1, 0) = t * a.x * a.y + s * a.z;
    r.at(1, 1) = t * a.y * a.y + c;
    r.at(1, 2) = t * a.y * a.z - s * a.x;
    r.at(2, 0) = t * a.x * a.z - s * a.y;
    r.at(2, 1) = t * a.y * a.z + s * a.x;
    r.at(2, 2) = t * a.z * a.z + c;
    return r;
  }
  // Maps world to a camera looking from `eye` to `target` (OpenGL convention: -z forward).
  static Mat4 look_at(Vec3 eye, Vec3 target, Vec3 up) {
    const Vec3 f = normalize(target - eye);
    const Vec3 s = normalize(cross(f, up));
    const Vec3 u = cross(s, f);
    Mat4 r;
    r.at(0, 0) = s.x;
    r.at(0, 1) = s.y;
    r.at(0, 2) = s.z;
    r.at(1, 0) = u.x;
    r.at(1, 1) = u.y;
    r.at(1, 2) = u.z;
    r.at(2, 0) = -f.x;
    r.at(2, 1) = -f.y;
    r.at(2, 2) = -f.z;
    r.at(0, 3) = -dot(s, eye);
    r.at(1, 3) = -dot(u, eye);
    r.at(2, 3) = dot(f, eye);
    return r;
  }
  static Mat4 orthographic(float l, float r, float b, float t, float n, float f) {
    Mat4 o;
    o.at(0, 0) = 2 / (r - l);
    o.at(1, 1) = 2 / (t - b);
    o.at(2, 2) = -2 / (f - n);
    o.at(0, 3) = -(r + l) / (r - l);
    o.at(1, 3) = -(t + b) / (t - b);
    o.at(2, 3) = -(f + n) / (f - n);
    return o;
  }
};

// The inverse-transpose of the upper 3x3, for normals; the model matrices here are
// rotations, translations and positive scales.
inline std::array<float, 9> normal_matrix(const Mat4& m) {
  const float a = m.at(0, 0), b = m.at(0, 1), c = m.at(0, 2);
  const float d = m.at(1, 0), e = m.at(1, 1), f = m.at(1, 2);
  const float g = m.at(2, 0), h = m.at(2, 1), i = m.at(2, 2);
  const float A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const float D = -(b * i - c * h), E = a * i - c * g, F = -(a * h - b * g);
  const float G = b * f - c * e, H = -(a * f - c * d), I = a * e - b * d;
  const float det = a * A + b * B + c * C;
  const float k = det != 0 ? 1.0f / det : 0.0f;
  // Inverse is adj^T / det; its transpose is the cofactor matrix / det. Column-major out.
  return {A * k, B * k, C * k, D * k, E * k, F * k, G * k, H * k, I * k};
}

}  // namespace bugcam::samples
