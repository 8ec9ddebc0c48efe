// Chess piece and hand meshes, generated from profiles so that a camera from above tells
// the types apart the way real Staunton pieces differ: heights, the king's cross, the
// queen's crown, the bishop's mitre with its slit, the rook's crenellations, the knight's
// head. Sizes in centimetres; each piece stands on z = 0 centred on the origin, facing +y.
#pragma once

#include <array>

#include "mesh.hpp"
#include "random.hpp"

namespace bugcam::samples {

// Index order of the piece types: pawn, knight, bishop, rook, queen, king (as rules::PieceType).
inline constexpr int kPieceTypeCount = 6;

struct PieceDesign {
  int family = 0;            // profile family: 0 classic Staunton, 1 slim club, 2 chunky plastic
  float king_height = 9.5f;  // cm
  float base_ratio = 0.42f;  // base radius / king height
  float waist = 1.0f;        // scales stem thickness
  float collar = 1.0f;       // scales collar discs
  int lathe_segments = 24;
  static PieceDesign random(Random& rng, float square_size);
};

// The six piece meshes of one design.
std::array<Mesh, kPieceTypeCount> make_piece_meshes(const PieceDesign& design);

// A right hand and forearm in local coordinates: the wrist at the origin, fingers towards +y,
// the palm facing -z, the forearm running back along -y for `arm_length`. `grip` 0 is a
// relaxed open hand, 1 a pinch with thumb and index finger meeting below the fingertips.
Mesh make_hand_mesh(float grip, float arm_length, float size);

// The point between thumb and index fingertips where a gripped object's top sits, in the
// hand's local coordinates, for grip 1.
Vec3 hand_pinch_point(float size);

}  // namespace bugcam::samples
