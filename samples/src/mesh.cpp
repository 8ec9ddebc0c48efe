#include "mesh.hpp"

#include <algorithm>
#include <limits>

namespace bugcam::samples {

void Mesh::append(const Mesh& other, const Mat4& transform) {
  const auto base = static_cast<std::uint32_t>(vertices.size());
  const auto nm = normal_matrix(transform);
  for (const Vertex& v : other.vertices) {
    const Vec3 n{nm[0] * v.normal.x + nm[3] * v.normal.y + nm[6] * v.normal.z,
                 nm[1] * v.normal.x + nm[4] * v.normal.y + nm[7] * v.normal.z,
                 nm[2] * v.normal.x + nm[5] * v.normal.y + nm[8] * v.normal.z};
    vertices.push_back({transform.transform_point(v.position), normalize(n), v.slot});
  }
  for (std::uint32_t i : other.indices) indices.push_back(base + i);
}

Vec3 Mesh::min_corner() const {
  Vec3 r{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(),
         std::numeric_limits<float>::max()};
  for (const Vertex& v : vertices) {
    r = {std::min(r.x, v.position.x), std::min(r.y, v.position.y), std::min(r.z, v.position.z)};
  }
  return r;
}

Vec3 Mesh::max_corner() const {
  Vec3 r{std::numeric_limits<float>::lowest(), std::numeric_limits<float>::lowest(),
         std::numeric_limits<float>::lowest()};
  for (const Vertex& v : vertices) {
    r = {std::max(r.x, v.position.x), std::max(r.y, v.position.y), std::max(r.z, v.position.z)};
  }
  return r;
}

namespace {

// Outward normal (in the r-z plane) of the profile segment a->b, for a profile that runs
// from the bottom centre up to the top centre.
Vec2 segment_normal(Vec2 a, Vec2 b) {
  const float dr = b.x - a.x, dz = b.y - a.y;
  const float l = std::sqrt(dr * dr + dz * dz);
  return {dz / l, -dr / l};
}

}  // namespace

Mesh lathe(std::span<const Vec2> profile, int segments, Slot slot) {
  Mesh mesh;
  const auto n = profile.size();
  // Each profile point gets a ring; a repeated point splits the smoothing there.
  std::vector<Vec2> normals(n);
  for (std::size_t i = 0; i < n; ++i) {
    Vec2 sum{0, 0};
    const bool same_as_prev =
        i > 0 && profile[i].x == profile[i - 1].x && profile[i].y == profile[i - 1].y;
    const bool same_as_next =
        i + 1 < n && profile[i].x == profile[i + 1].x && profile[i].y == profile[i + 1].y;
    if (i > 0 && !same_as_prev && !same_as_next) {
      const Vec2 s = segment_normal(profile[i - 1], profile[i]);
      sum = {sum.x + s.x, sum.y + s.y};
    }
    if (same_as_next && i > 0) {
      sum = segment_normal(profile[i - 1], profile[i]);
    }
    if (i + 1 < n && !same_as_next && (!same_as_prev || i == 0)) {
      const Vec2 s = segment_normal(profile[i], profile[i + 1]);
      sum = {sum.x + s.x, sum.y + s.y};
    }
    if (same_as_prev && i + 1 < n) sum = segment_normal(profile[i], profile[i + 1]);
    const float l = std::sqrt(sum.x * sum.x + sum.y * sum.y);
    normals[i] = l > 0 ? Vec2{sum.x / l, sum.y / l} : Vec2{0, 1};
  }
  const float s = static_cast<float>(slot);
  for (std::size_t i = 0; i < n; ++i) {
    for (int k = 0; k <= segments; ++k) {
      const float a = 2 * kPi * static_cast<float>(k) / static_cast<float>(segments);
      const float c = std::cos(a), sn = std::sin(a);
      mesh.vertices.push_back({{profile[i].x * c, profile[i].x * sn, profile[i].y},
                               {normals[i].x * c, normals[i].x * sn, normals[i].y},
                               s});
    }
  }
  const auto ring = static_cast<std::uint32_t>(segments + 1);
  for (std::uint32_t i = 0; i + 1 < n; ++i) {
    if (profile[i].x == profile[i + 1].x && profile[i].y == profile[i + 1].y) continue;
    for (std::uint32_t k = 0; k < static_cast<std::uint32_t>(segments); ++k) {
      const std::uint32_t a = i * ring + k, b = a + 1, c = a + ring, d = c + 1;
      mesh.indices.insert(mesh.indices.end(), {a, b, d, a, d, c});
    }
  }
  return mesh;
}

Mesh ellipsoid(Vec3 radii, int slices, int stacks, Slot slot) {
  Mesh mesh;
  const float s = static_cast<float>(slot);
  for (int j = 0; j <= stacks; ++j) {
    const float phi = kPi * static_cast<float>(j) / static_cast<float>(stacks) - kPi / 2;
    for (int i = 0; i <= slices; ++i) {
      const float th = 2 * kPi * static_cast<float>(i) / static_cast<float>(slices);
      const Vec3 unit{std::cos(phi) * std::cos(th), std::cos(phi) * std::sin(th), std::sin(phi)};
      const Vec3 p{unit.x * radii.x, unit.y * radii.y, unit.z * radii.z};
      const Vec3 nrm = normalize({unit.x / radii.x, unit.y / radii.y, unit.z / radii.z});
      mesh.vertices.push_back({p, nrm, s});
    }
  }
  const auto ring = static_cast<std::uint32_t>(slices + 1);
  for (std::uint32_t j = 0; j < static_cast<std::uint32_t>(stacks); ++j) {
    for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(slices); ++i) {
      const std::uint32_t a = j * ring + i, b = a + 1, c = a + ring, d = c + 1;
      mesh.indices.insert(mesh.indices.end(), {a, b, d, a, d, c});
    }
  }
  return mesh;
}

Mesh box(Vec3 h, Slot slot) {
  Mesh mesh;
  const float s = static_cast<float>(slot);
  const Vec3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  for (int a = 0; a < 3; ++a) {
    for (float sign : {-1.0f, 1.0f}) {
      const Vec3 n = axes[a] * sign;
      const Vec3 u = axes[(a + 1) % 3], v = axes[(a + 2) % 3];
      const auto base = static_cast<std::uint32_t>(mesh.vertices.size());
      for (int k = 0; k < 4; ++k) {
        const float du = (k == 1 || k == 2) ? 1.0f : -1.0f;
        const float dv = (k >= 2) ? 1.0f : -1.0f;
        const Vec3 p = n + u * du + v * dv;
        mesh.vertices.push_back({{p.x * h.x, p.y * h.y, p.z * h.z}, n, s});
      }
      // Wind counter-clockwise seen from outside.
      if (sign > 0) {
        mesh.indices.insert(mesh.indices.end(),
                            {base, base + 1, base + 2, base, base + 2, base + 3});
      } else {
        mesh.indices.insert(mesh.indices.end(),
                            {base, base + 2, base + 1, base, base + 3, base + 2});
      }
    }
  }
  return mesh;
}

Mesh capsule(float r0, float r1, float length, int segments, Slot slot) {
  // A lathe about z, then turned so that its axis is +y.
  std::vector<Vec2> profile;
  const int cap = 4;
  for (int k = 0; k <= cap; ++k) {
    const float a = -kPi / 2 + kPi / 2 * static_cast<float>(k) / cap;
    profile.push_back({r0 * std::cos(a), r0 * std::sin(a)});
  }
  for (int k = 0; k <= cap; ++k) {
    const float a = kPi / 2 * static_cast<float>(k) / cap;
    profile.push_back({r1 * std::cos(a), length + r1 * std::sin(a)});
  }
  profile.front().x = 0;
  profile.back().x = 0;
  Mesh tube = lathe(profile, segments, slot);
  Mesh out;
  out.append(tube, Mat4::rotate({1, 0, 0}, -kPi / 2));
  return out;
}

}  // namespace bugcam::samples
