#include "pieces.hpp"

#include <vector>

namespace bugcam::samples {

PieceDesign PieceDesign::random(Random& rng, float square_size) {
  PieceDesign d;
  d.family = rng.integer(0, 2);
  // Tournament sets: king height about 1.6-1.8 times the square.
  d.king_height = square_size * rng.uniformf(1.55f, 1.8f);
  d.base_ratio = rng.uniformf(0.19f, 0.23f);
  d.waist = rng.uniformf(0.85f, 1.2f);
  d.collar = rng.uniformf(0.9f, 1.15f);
  if (d.family == 2) {  // plastic club sets: squat and wide
    d.king_height *= 0.92f;
    d.base_ratio *= 1.08f;
    d.waist *= 1.2f;
  }
  return d;
}

namespace {

using Profile = std::vector<Vec2>;

// Profiles in units of the king height H, radius first. Each starts and ends on the axis.
// The felt base is a separate thin disc so it can take its own colour.

// Base with one or two rings, shared by all pieces; returns the height where it ends.
float add_base(Profile& p, float rb, float f, int family) {
  p.push_back({0, 0.012f});
  p.push_back({rb, 0.012f});
  p.push_back({rb, 0.012f});
  if (family == 1) {
    p.push_back({rb, 0.04f});
    p.push_back({rb * 0.88f, 0.07f});
    p.push_back({rb * 0.72f, 0.095f});
    return 0.095f;
  }
  p.push_back({rb * 1.01f, 0.035f});
  p.push_back({rb * 0.93f, 0.06f});
  p.push_back({rb * 0.80f, 0.07f * f});
  p.push_back({rb * 0.86f, 0.085f * f});
  p.push_back({rb * 0.70f, 0.11f * f});
  return 0.11f * f;
}

Mesh felt_disc(float radius, float king_height, int segments) {
  const Profile p{{0, 0},
                  {radius * 0.97f, 0},
                  {radius * 0.97f, 0},
                  {radius * 0.97f, 0.013f * king_height},
                  {radius * 0.97f, 0.013f * king_height},
                  {0, 0.013f * king_height}};
  return lathe(p, segments, Slot::kFelt);
}

Mesh from_profile(const Profile& p, float height, int segments) {
  Profile scaled;
  for (Vec2 v : p) scaled.push_back({v.x * height, v.y * height});
  return lathe(scaled, segments);
}

Mesh pawn(const PieceDesign& d) {
  const float rb = d.base_ratio * 0.82f;
  Profile p;
  const float top = add_base(p, rb, 0.8f, d.family);
  const float w = d.waist;
  p.push_back({0.11f * w, top + 0.08f});
  p.push_back({0.075f * w, 0.33f});
  p.push_back({0.13f * d.collar, 0.345f});  // collar
  p.push_back({0.13f * d.collar, 0.36f});
  p.push_back({0.06f * w, 0.375f});
  // Ball head.
  const float cz = 0.45f, r = d.family == 2 ? 0.1f : 0.088f;
  for (int k = -6; k <= 8; ++k) {
    const float a = kPi / 2 * static_cast<float>(k) / 8.0f;
    p.push_back({r * std::cos(a), cz + r * std::sin(a)});
  }
  p.back().x = 0;
  return from_profile(p, d.king_height, d.lathe_segments);
}

Mesh rook(const PieceDesign& d) {
  const float rb = d.base_ratio * 0.92f;
  const float H = d.king_height;
  Profile p;
  const float top = add_base(p, rb, 0.9f, d.family);
  const float w = d.waist;
  const float tower_r = 0.15f * w;
  p.push_back({0.16f * w, top + 0.03f});
  p.push_back({0.12f * w, 0.4f});
  p.push_back({tower_r * 1.15f, 0.44f});
  p.push_back({tower_r * 1.1f, 0.55f});
  p.push_back({tower_r * 1.1f, 0.55f});
  // Hollow top: an inner floor below the merlons.
  p.push_back({tower_r * 0.7f, 0.55f});
  p.push_back({tower_r * 0.7f, 0.55f});
  p.push_back({0, 0.53f});
  Mesh m = from_profile(p, H, d.lathe_segments);
  // Crenellations: merlons around the rim.
  const int merlons = d.family == 1 ? 4 : 5;
  const float ring_r = tower_r * 0.9f * H;
  const float merlon_w = 2 * kPi * ring_r / static_cast<float>(merlons) * 0.28f;
  for (int k = 0; k < merlons; ++k) {
    const float a = 2 * kPi * static_cast<float>(k) / static_cast<float>(merlons);
    const Mesh b = box({0.035f * H, merlon_w, 0.04f * H});
    m.append(b, Mat4::rotate({0, 0, 1}, a) * Mat4::translate({ring_r, 0, 0.585f * H}));
  }
  return m;
}

Mesh bishop(const PieceDesign& d) {
  const float rb = d.base_ratio * 0.88f;
  const float H = d.king_height;
  Profile p;
  const float top = add_base(p, rb, 0.9f, d.family);
  const float w = d.waist;
  p.push_back({0.12f * w, top + 0.05f});
  p.push_back({0.07f * w, 0.47f});
  p.push_back({0.13f * d.collar, 0.49f});
  p.push_back({0.13f * d.collar, 0.505f});
  p.push_back({0.065f * w, 0.52f});
  // The mitre: an egg pointed at the top.
  const float z0 = 0.53f, mh = 0.21f, mr = 0.105f;
  for (int k = 0; k <= 10; ++k) {
    const float t = static_cast<float>(k) / 10.0f;
    const float r = mr * std::sin(kPi * (0.15f + 0.85f * t)) * (1.0f - 0.35f * t);
    p.push_back({r + 0.002f, z0 + mh * t});
  }
  p.push_back({0.025f, z0 + mh + 0.01f});
  // A small finial ball.
  for (int k = -4; k <= 4; ++k) {
    const float a = kPi / 2 * static_cast<float>(k) / 4.0f;
    p.push_back({0.028f * std::cos(a), z0 + mh + 0.035f + 0.028f * std::sin(a)});
  }
  p.back().x = 0;
  Mesh m = from_profile(p, H, d.lathe_segments);
  // The mitre's slit: a dark blade set diagonally into the head.
  const Mesh slit = box({0.11f * H, 0.012f * H, 0.022f * H}, Slot::kDetail);
  m.append(slit, Mat4::translate({0, 0, (z0 + mh * 0.62f) * H}) * Mat4::rotate({0, 1, 0}, -0.55f) *
                     Mat4::translate({0.045f * H, 0, 0}));
  return m;
}

Mesh queen(const PieceDesign& d) {
  const float rb = d.base_ratio * 0.97f;
  const float H = d.king_height;
  Profile p;
  const float top = add_base(p, rb, 1.0f, d.family);
  const float w = d.waist;
  p.push_back({0.13f * w, top + 0.05f});
  p.push_back({0.075f * w, 0.6f});
  p.push_back({0.15f * d.collar, 0.625f});
  p.push_back({0.15f * d.collar, 0.64f});
  p.push_back({0.08f * w, 0.66f});
  // The coronet flares out to the crown.
  p.push_back({0.15f, 0.8f});
  p.push_back({0.15f, 0.8f});
  p.push_back({0.09f, 0.79f});
  p.push_back({0.09f, 0.79f});
  p.push_back({0.06f, 0.83f});
  for (int k = -4; k <= 4; ++k) {
    const float a = kPi / 2 * static_cast<float>(k) / 4.0f;
    p.push_back({0.04f * std::cos(a), 0.87f + 0.04f * std::sin(a)});
  }
  p.back().x = 0;
  Mesh m = from_profile(p, H, d.lathe_segments);
  // Points of the crown: small balls on the rim.
  const int points = d.family == 2 ? 6 : 8;
  const Mesh ball = ellipsoid({0.026f * H, 0.026f * H, 0.026f * H}, 8, 5);
  for (int k = 0; k < points; ++k) {
    const float a = 2 * kPi * static_cast<float>(k) / static_cast<float>(points);
    m.append(ball, Mat4::rotate({0, 0, 1}, a) * Mat4::translate({0.14f * H, 0, 0.815f * H}));
  }
  return m;
}

Mesh king(const PieceDesign& d) {
  const float rb = d.base_ratio;
  const float H = d.king_height;
  Profile p;
  const float top = add_base(p, rb, 1.0f, d.family);
  const float w = d.waist;
  p.push_back({0.14f * w, top + 0.05f});
  p.push_back({0.08f * w, 0.6f});
  p.push_back({0.155f * d.collar, 0.625f});
  p.push_back({0.155f * d.collar, 0.64f});
  p.push_back({0.085f * w, 0.66f});
  p.push_back({0.14f, 0.8f});
  p.push_back({0.14f, 0.8f});
  p.push_back({0.14f, 0.82f});
  p.push_back({0.14f, 0.82f});
  p.push_back({0.05f, 0.86f});
  p.push_back({0.05f, 0.86f});
  p.push_back({0, 0.86f});
  Mesh m = from_profile(p, H, d.lathe_segments);
  // The cross, across the board's files so it reads from above.
  m.append(box({0.025f * H, 0.025f * H, 0.075f * H}), Mat4::translate({0, 0, 0.92f * H}));
  m.append(box({0.065f * H, 0.025f * H, 0.022f * H}), Mat4::translate({0, 0, 0.94f * H}));
  return m;
}

Mesh knight(const PieceDesign& d) {
  const float rb = d.base_ratio * 0.9f;
  const float H = d.king_height;
  Profile p;
  const float top = add_base(p, rb, 0.9f, d.family);
  p.push_back({0.15f * d.waist, top + 0.02f});
  p.push_back({0.14f * d.waist, top + 0.05f});
  p.push_back({0, top + 0.05f});
  Mesh m = from_profile(p, H, d.lathe_segments);
  const float z = (top + 0.04f) * H;
  // Chest and neck: leaning back, widest at the chest.
  m.append(ellipsoid({0.09f * H, 0.14f * H, 0.2f * H}, 14, 10),
           Mat4::translate({0, -0.01f * H, z + 0.16f * H}) * Mat4::rotate({1, 0, 0}, 0.3f));
  // Head: long, pointing forward (+y) and down to the muzzle.
  m.append(ellipsoid({0.07f * H, 0.19f * H, 0.08f * H}, 14, 10),
           Mat4::translate({0, 0.06f * H, z + 0.36f * H}) * Mat4::rotate({1, 0, 0}, -0.62f));
  m.append(ellipsoid({0.06f * H, 0.07f * H, 0.065f * H}, 10, 8),
           Mat4::translate({0, 0.19f * H, z + 0.25f * H}));
  for (float side : {-1.0f, 1.0f}) {
    // Ears, pricked up at the back of the head.
    const Profile ear{{0, 0}, {0.028f, 0}, {0, 0.085f}};
    m.append(from_profile(ear, H, 6),
             Mat4::translate({side * 0.03f * H, -0.03f * H, z + 0.44f * H}) *
                 Mat4::rotate({1, 0, 0}, -0.25f));
    // Eyes and nostrils: small dark dots.
    m.append(ellipsoid({0.01f * H, 0.016f * H, 0.012f * H}, 6, 4, Slot::kDetail),
             Mat4::translate({side * 0.062f * H, 0.05f * H, z + 0.4f * H}));
    m.append(ellipsoid({0.008f * H, 0.01f * H, 0.01f * H}, 6, 4, Slot::kDetail),
             Mat4::translate({side * 0.03f * H, 0.255f * H, z + 0.26f * H}));
  }
  // Mane: a ridge down the back of the neck.
  m.append(ellipsoid({0.035f * H, 0.06f * H, 0.19f * H}, 8, 8),
           Mat4::translate({0, -0.09f * H, z + 0.25f * H}) * Mat4::rotate({1, 0, 0}, 0.35f));
  return m;
}

}  // namespace

std::array<Mesh, kPieceTypeCount> make_piece_meshes(const PieceDesign& design) {
  std::array<Mesh, kPieceTypeCount> meshes{pawn(design), knight(design), bishop(design),
                                           rook(design), queen(design),  king(design)};
  const float base_scale[kPieceTypeCount] = {0.82f, 0.9f, 0.88f, 0.92f, 0.97f, 1.0f};
  for (int t = 0; t < kPieceTypeCount; ++t) {
    meshes[static_cast<std::size_t>(t)].append(
        felt_disc(design.base_ratio * base_scale[t] * design.king_height, design.king_height,
                  design.lathe_segments));
  }
  return meshes;
}

Vec3 hand_pinch_point(float size) {
  return {0.1f * size, 1.55f * size, -0.95f * size};
}

Mesh make_hand_mesh(float grip, float arm_length, float size) {
  Mesh m;
  const float s = size;  // palm half-width scale, ~4.5 cm for an adult
  // Palm: a flattened ellipsoid ahead of the wrist.
  m.append(ellipsoid({0.45f * s, 0.55f * s, 0.16f * s}, 14, 8), Mat4::translate({0, 0.5f * s, 0}));
  // Forearm: a tapered capsule running back from the wrist, then the sleeve (felt slot).
  const float bare = 2.6f * s;
  m.append(capsule(0.3f * s, 0.42f * s, bare, 12),
           Mat4::rotate({0, 0, 1}, kPi) * Mat4::translate({0, -0.05f * s, 0}));
  m.append(capsule(0.62f * s, 0.8f * s, arm_length - bare, 12, Slot::kFelt),
           Mat4::rotate({0, 0, 1}, kPi) * Mat4::translate({0, bare, 0}));
  // Four fingers, each of three phalanges that curl down with the grip.
  const float finger_x[4] = {0.29f, 0.1f, -0.09f, -0.27f};
  const float finger_len[4] = {0.42f, 0.47f, 0.44f, 0.34f};
  for (int f = 0; f < 4; ++f) {
    // The index finger (f = 0, on the thumb side) reaches down to meet the thumb; the others
    // tuck in more as the grip closes.
    const float curl = f == 0 ? 0.25f + 0.55f * grip : 0.2f + 0.8f * grip;
    Mat4 t = Mat4::translate({finger_x[f] * s, 0.98f * s, -0.02f * s});
    for (int k = 0; k < 3; ++k) {
      const float len = finger_len[f] * s * (k == 0 ? 1.0f : (k == 1 ? 0.7f : 0.55f));
      t = t * Mat4::rotate({1, 0, 0}, -curl * (k == 0 ? 0.6f : 0.9f));
      m.append(capsule(0.105f * s, 0.09f * s, len, 8), t);
      t = t * Mat4::translate({0, len, 0});
    }
  }
  // Thumb: from the side of the palm, swinging under the index finger as the grip closes.
  {
    Mat4 t = Mat4::translate({0.42f * s, 0.25f * s, -0.06f * s}) *
             Mat4::rotate({0, 0, 1}, -0.9f + 0.55f * grip) *
             Mat4::rotate({1, 0, 0}, -0.35f - 0.45f * grip);
    for (int k = 0; k < 2; ++k) {
      const float len = (k == 0 ? 0.42f : 0.36f) * s;
      m.append(capsule(0.12f * s, 0.1f * s, len, 8), t);
      t = t * Mat4::translate({0, len, 0}) * Mat4::rotate({0, 0, 1}, 0.35f * grip) *
          Mat4::rotate({1, 0, 0}, -0.3f);
    }
  }
  return m;
}

}  // namespace bugcam::samples
