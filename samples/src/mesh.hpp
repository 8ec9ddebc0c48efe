// Triangle meshes the renderer draws, and the shapes they are built from: surfaces of
// revolution from a profile, ellipsoids, boxes. Every vertex carries a material slot so one
// mesh can mix a piece's body, its dark details and its felt base.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "math.hpp"

namespace bugcam::samples {

// Material slots a mesh vertex can name; the draw call gives each a colour.
enum class Slot : std::uint8_t { kBody = 0, kDetail = 1, kFelt = 2 };

struct Vertex {
  Vec3 position;
  Vec3 normal;
  float slot = 0;  // a Slot as float, passed to the shader as a vertex attribute
};

struct Mesh {
  std::vector<Vertex> vertices;
  std::vector<std::uint32_t> indices;

  // Adds `other` transformed by `transform` (normals by its rotation part).
  void append(const Mesh& other, const Mat4& transform = Mat4{});
  std::size_t triangle_count() const { return indices.size() / 3; }
  // Lowest and highest point, for placing and for tests.
  Vec3 min_corner() const;
  Vec3 max_corner() const;
};

// A surface of revolution about +z. `profile` holds (radius, height) points from the bottom
// centre (radius 0) to the top centre (radius 0). A point given twice makes a crease there.
Mesh lathe(std::span<const Vec2> profile, int segments, Slot slot = Slot::kBody);
Mesh ellipsoid(Vec3 radii, int slices, int stacks, Slot slot = Slot::kBody);
Mesh box(Vec3 half_extent, Slot slot = Slot::kBody);
// A tapered tube along +y from y=0 to y=length with round ends, for arms and fingers.
Mesh capsule(float radius_start, float radius_end, float length, int segments,
             Slot slot = Slot::kBody);

}  // namespace bugcam::samples
