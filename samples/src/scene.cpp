#include "scene.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <opencv2/imgproc.hpp>

namespace bugcam::samples {

namespace {

// Colours are chosen in sRGB and lit in linear light.
Vec3 srgb(float r, float g, float b) {
  return {std::pow(r, 2.2f), std::pow(g, 2.2f), std::pow(b, 2.2f)};
}

Vec3 jitter(Random& rng, Vec3 c, float amount) {
  auto j = [&](float v) { return std::clamp(v * (1 + rng.uniformf(-amount, amount)), 0.0f, 1.0f); };
  return {j(c.x), j(c.y), j(c.z)};
}

Mat4 frame_matrix(Vec3 x_axis, Vec3 y_axis, Vec3 z_axis, Vec3 origin) {
  Mat4 m;
  m.at(0, 0) = x_axis.x;
  m.at(1, 0) = x_axis.y;
  m.at(2, 0) = x_axis.z;
  m.at(0, 1) = y_axis.x;
  m.at(1, 1) = y_axis.y;
  m.at(2, 1) = y_axis.z;
  m.at(0, 2) = z_axis.x;
  m.at(1, 2) = z_axis.y;
  m.at(2, 2) = z_axis.z;
  m.at(0, 3) = origin.x;
  m.at(1, 3) = origin.y;
  m.at(2, 3) = origin.z;
  return m;
}

}  // namespace

Style Style::random(std::uint64_t seed) {
  Style st;
  st.seed = seed;
  Random root(seed);
  Random rb = root.fork(1), rp = root.fork(2), rt = root.fork(3), rc = root.fork(4),
         rh = root.fork(5);

  st.board_kind = static_cast<BoardKind>(rb.integer(0, 2));
  switch (st.board_kind) {
    case BoardKind::kWood:
      st.square_size = rb.uniformf(5.0f, 5.7f);
      st.board_border = rb.uniformf(1.5f, 3.0f);
      st.board_thickness = rb.uniformf(1.2f, 2.0f);
      st.light_square = jitter(rb, srgb(0.86f, 0.72f, 0.52f), 0.06f);
      st.dark_square = jitter(rb, srgb(0.52f, 0.32f, 0.18f), 0.1f);
      st.board_frame = jitter(rb, srgb(0.35f, 0.2f, 0.11f), 0.1f);
      break;
    case BoardKind::kPlastic:
      st.square_size = rb.uniformf(5.0f, 5.5f);
      st.board_border = rb.uniformf(1.0f, 2.0f);
      st.board_thickness = rb.uniformf(0.4f, 0.8f);
      st.light_square = jitter(rb, srgb(0.9f, 0.9f, 0.86f), 0.04f);
      st.dark_square = rb.chance(0.5) ? jitter(rb, srgb(0.25f, 0.25f, 0.27f), 0.1f)
                                      : jitter(rb, srgb(0.55f, 0.38f, 0.25f), 0.1f);
      st.board_frame = jitter(rb, srgb(0.8f, 0.8f, 0.78f), 0.05f);
      break;
    case BoardKind::kVinyl:
      st.square_size = rb.uniformf(5.5f, 5.8f);
      st.board_border = rb.uniformf(1.5f, 2.5f);
      st.board_thickness = 0.15f;
      st.light_square = jitter(rb, srgb(0.93f, 0.92f, 0.83f), 0.03f);
      st.dark_square = rb.chance(0.6) ? jitter(rb, srgb(0.35f, 0.55f, 0.33f), 0.1f)
                                      : jitter(rb, srgb(0.25f, 0.35f, 0.55f), 0.1f);
      st.board_frame = st.light_square;
      break;
  }

  st.design = PieceDesign::random(rp, st.square_size);
  st.wooden_pieces = st.board_kind == BoardKind::kWood ? rp.chance(0.8) : rp.chance(0.25);
  if (st.wooden_pieces) {
    st.white_piece = jitter(rp, srgb(0.92f, 0.8f, 0.58f), 0.05f);
    st.black_piece = rp.chance(0.5) ? jitter(rp, srgb(0.12f, 0.08f, 0.06f), 0.15f)
                                    : jitter(rp, srgb(0.36f, 0.16f, 0.1f), 0.1f);
    st.piece_specular = rp.uniformf(0.15f, 0.35f);
  } else {
    st.white_piece = jitter(rp, srgb(0.93f, 0.92f, 0.88f), 0.03f);
    st.black_piece = jitter(rp, srgb(0.1f, 0.1f, 0.1f), 0.15f);
    st.piece_specular = rp.uniformf(0.3f, 0.55f);
  }
  st.felt = rp.chance(0.7) ? srgb(0.1f, 0.25f, 0.12f) : srgb(0.12f, 0.12f, 0.12f);
  st.piece_offset = rp.uniformf(0.1f, 0.1f * st.square_size);
  st.piece_rotation = rp.uniformf(0.05f, 0.35f);

  const int table = rt.integer(0, 3);
  st.table_surface = table <= 1 ? Surface::kWood : Surface::kCloth;
  const Vec3 tables[4] = {srgb(0.55f, 0.4f, 0.28f), srgb(0.75f, 0.66f, 0.52f),
                          srgb(0.35f, 0.38f, 0.42f), srgb(0.8f, 0.8f, 0.78f)};
  st.table_color = jitter(rt, tables[table], 0.08f);
  const float light_elevation = rt.uniformf(0.6f, 1.35f);
  const float light_azimuth = rt.uniformf(0, 2 * kPi);
  st.light_direction = {std::cos(light_elevation) * std::cos(light_azimuth),
                        std::cos(light_elevation) * std::sin(light_azimuth),
                        std::sin(light_elevation)};
  st.light_strength = rt.uniformf(0.75f, 1.15f);
  st.ambient = rt.uniformf(0.25f, 0.45f);

  st.camera_distance = rc.uniformf(95, 150);
  st.tilt = rc.uniformf(0, 40) * kPi / 180;
  st.azimuth = rc.uniformf(-0.35f, 0.35f) + (rc.chance(0.5) ? 0.0f : kPi);
  st.roll = rc.uniformf(-4, 4) * kPi / 180;
  st.k1 = rc.uniformf(-0.12f, 0.02f);
  st.k2 = rc.uniformf(-0.02f, 0.02f);
  st.noise_sigma = rc.uniformf(0.5f, 4.0f);
  st.optical_blur = rc.uniformf(0.4f, 0.9f);

  const Vec3 skins[5] = {srgb(0.94f, 0.78f, 0.66f), srgb(0.85f, 0.65f, 0.5f),
                         srgb(0.68f, 0.48f, 0.34f), srgb(0.45f, 0.3f, 0.2f),
                         srgb(0.3f, 0.2f, 0.14f)};
  const Vec3 sleeves[6] = {srgb(0.15f, 0.2f, 0.4f),  srgb(0.6f, 0.1f, 0.1f),
                           srgb(0.2f, 0.2f, 0.2f),   srgb(0.8f, 0.8f, 0.8f),
                           srgb(0.3f, 0.45f, 0.25f), srgb(0.55f, 0.45f, 0.3f)};
  for (int p = 0; p < kPlayerCount; ++p) {
    st.skin[static_cast<std::size_t>(p)] = jitter(rh, skins[rh.integer(0, 4)], 0.05f);
    st.sleeve[static_cast<std::size_t>(p)] = jitter(rh, sleeves[rh.integer(0, 5)], 0.1f);
  }
  st.hand_size = rh.uniformf(8.2f, 9.6f);
  st.clock_design = rh.integer(0, 1);
  st.clock_body = rh.chance(0.6) ? srgb(0.12f, 0.12f, 0.13f) : srgb(0.55f, 0.3f, 0.15f);
  return st;
}

Style Style::plain_top_down(std::uint64_t seed) {
  Style st = random(seed);
  st.tilt = 0;
  st.roll = 0;
  st.azimuth = 0;
  st.k1 = st.k2 = 0;
  st.noise_sigma = 0;
  st.optical_blur = 0;
  st.camera_distance = 120;
  return st;
}

Layout::Layout(const Style& style) {
  square = style.square_size;
  board_half = 4 * square;
  frame_half = board_half + style.board_border;
  board_top = style.board_thickness;
  const float gap = 7.0f;
  board_center[0] = {-(frame_half + gap / 2), 0, board_top};
  board_center[1] = {frame_half + gap / 2, 0, board_top};
  holding_half = {board_half * 0.95f, 4.2f};
  for (int p = 0; p < kPlayerCount; ++p) {
    const Vec3 c = board_center[static_cast<std::size_t>(board_of_player(p))];
    holding_center[static_cast<std::size_t>(p)] = {
        c.x, seat_side(p) * (frame_half + 1.5f + holding_half.y), 0};
  }
  clock_half = {4.0f, 9.0f, 2.4f};
  const float clock_x = frame_half * 2 + gap / 2 + 3.5f + clock_half.x;
  clock_center[0] = {-clock_x, 0, clock_half.z};
  clock_center[1] = {clock_x, 0, clock_half.z};
}

Vec3 Layout::square_center(int board, int sq) const {
  const float u = (static_cast<float>(sq % 8) - 3.5f) * square;
  const float v = (static_cast<float>(sq / 8) - 3.5f) * square;
  const Vec3 c = board_center[static_cast<std::size_t>(board)];
  return board == 0 ? Vec3{c.x + u, c.y + v, c.z} : Vec3{c.x - u, c.y - v, c.z};
}

std::array<Vec3, 4> Layout::playing_corners(int board) const {
  const float h = board_half;
  const Vec3 c = board_center[static_cast<std::size_t>(board)];
  const float s = board == 0 ? 1.0f : -1.0f;
  return {Vec3{c.x - s * h, c.y - s * h, c.z}, Vec3{c.x + s * h, c.y - s * h, c.z},
          Vec3{c.x + s * h, c.y + s * h, c.z}, Vec3{c.x - s * h, c.y + s * h, c.z}};
}

Vec3 Layout::holding_slot(int player, int slot) const {
  const Vec3 c = holding_center[static_cast<std::size_t>(player)];
  const float side = seat_side(player);
  const int row = (slot / 8) % 2, col = slot % 8;
  const float spacing = holding_half.x * 2 / 8;
  // The player's own right is +x at the -y edge; fill from the left of the player.
  const float x = c.x - side * (static_cast<float>(col) - 3.5f) * spacing * -1.0f;
  const float y = c.y - side * 1.9f + side * 3.8f * static_cast<float>(row);
  return {x, y, 0};
}

Vec3 Layout::clock_button(int player) const {
  const Vec3 c = clock_center[static_cast<std::size_t>(board_of_player(player))];
  return {c.x, c.y + seat_side(player) * 6.0f, 2 * clock_half.z + 0.9f};
}

Vec3 Layout::shoulder(int player) const {
  const float side = seat_side(player);
  const Vec3 c = board_center[static_cast<std::size_t>(board_of_player(player))];
  return {c.x - side * 14.0f, side * (frame_half + 40.0f), 30.0f};
}

void Layout::clock_display(int board, Vec3& center, Vec3& x_axis, Vec3& y_axis) const {
  const Vec3 c = clock_center[static_cast<std::size_t>(board)];
  const float inward = board == 0 ? 1.0f : -1.0f;
  const float slope = 0.6f;  // radians from horizontal, facing the boards
  const Vec3 normal{inward * std::sin(slope), 0, std::cos(slope)};
  // Text runs from White's end of the clock to Black's.
  x_axis = {0, -seat_side(player_index(board, 0)), 0};
  y_axis = cross(normal, x_axis);
  center = {c.x + inward * clock_half.x * 0.35f, c.y, 2 * clock_half.z + 0.5f};
}

void draw_clock_digit(cv::Mat& img, int digit, cv::Rect cell, const cv::Scalar& ink) {
  static constexpr std::uint8_t kSegments[10] = {0x3f, 0x06, 0x5b, 0x4f, 0x66,
                                                 0x6d, 0x7d, 0x07, 0x7f, 0x6f};
  const int w = cell.width, h = cell.height, t = std::max(2, w / 6);
  const int x = cell.x, y = cell.y, m = y + h / 2;
  const cv::Rect seg[7] = {{x + t, y, w - 2 * t, t},
                           {x + w - t, y + t, t, h / 2 - t},
                           {x + w - t, m, t, h / 2 - t},
                           {x + t, y + h - t, w - 2 * t, t},
                           {x, m, t, h / 2 - t},
                           {x, y + t, t, h / 2 - t},
                           {x + t, m - t / 2, w - 2 * t, t}};
  for (int s = 0; s < 7; ++s) {
    if (kSegments[digit] & (1 << s)) cv::rectangle(img, seg[s], ink, cv::FILLED);
  }
}

namespace {

Mesh flat_squares(const Layout& layout, int board, bool dark) {
  Mesh m;
  const float h = layout.square / 2;
  for (int sq = 0; sq < 64; ++sq) {
    const bool is_dark = (sq % 8 + sq / 8) % 2 == 0;  // a1 is dark
    if (is_dark != dark) continue;
    const Vec3 c = layout.square_center(board, sq);
    m.append(box({h, h, 0.01f}), Mat4::translate({c.x, c.y, c.z - 0.01f}));
  }
  return m;
}

void draw_time(cv::Mat& img, int ms, cv::Rect area, const cv::Scalar& ink) {
  const int total = std::max(0, ms) / 1000;
  const int minutes = std::min(total / 60, 9), seconds = total % 60;
  const int cw = area.width / 4, ch = area.height * 3 / 4;
  const int y = area.y + (area.height - ch) / 2;
  draw_clock_digit(img, minutes, {area.x + cw / 4, y, cw * 3 / 4, ch}, ink);
  cv::rectangle(img, cv::Rect(area.x + cw + cw / 8, y + ch / 4, cw / 8, cw / 8), ink, cv::FILLED);
  cv::rectangle(img, cv::Rect(area.x + cw + cw / 8, y + ch * 3 / 4 - cw / 8, cw / 8, cw / 8), ink,
                cv::FILLED);
  draw_clock_digit(img, seconds / 10, {area.x + cw + cw / 2, y, cw * 3 / 4, ch}, ink);
  draw_clock_digit(img, seconds % 10, {area.x + 2 * cw + cw / 2 + cw / 8, y, cw * 3 / 4, ch}, ink);
}

constexpr int kClockTextureW = 256, kClockTextureH = 64;

}  // namespace

SceneAssets::SceneAssets(Renderer& renderer, const Style& style, const Layout& layout)
    : style_(style), layout_(layout) {
  const auto piece_meshes = make_piece_meshes(style.design);
  for (int t = 0; t < kPieceTypeCount; ++t) {
    piece_mesh_[static_cast<std::size_t>(t)] =
        renderer.add_mesh(piece_meshes[static_cast<std::size_t>(t)]);
  }
  for (int g = 0; g < kGrips; ++g) {
    hand_mesh_[static_cast<std::size_t>(g)] = renderer.add_mesh(
        make_hand_mesh(static_cast<float>(g) / (kGrips - 1), 60.0f, style.hand_size));
  }
  unit_box_ = renderer.add_mesh(box({1, 1, 1}));
  for (int b = 0; b < 2; ++b)
    clock_texture_[b] = renderer.add_texture(kClockTextureW, kClockTextureH);
  last_clock_text_ = {{{-1, -1}, {-1, -1}}};

  // Static scenery.
  DrawItem table;
  table.mesh = unit_box_;
  table.model = Mat4::scale({220, 140, 2}) * Mat4::translate({0, 0, -1});
  table.slot_colors = {style.table_color, style.table_color, style.table_color};
  table.surface = style.table_surface;
  table.grain_direction = {1, 0, 0};
  table.grain_scale = 0.6f;
  table.specular = 0.08f;
  table.id = object_id::kTable;
  table.casts_shadow = false;
  scenery_.push_back(table);
  for (int b = 0; b < 2; ++b) {
    const Vec3 c = layout.board_center[static_cast<std::size_t>(b)];
    DrawItem frame;
    frame.mesh = unit_box_;
    const float th = layout.board_top - 0.02f;
    frame.model = Mat4::translate({c.x, c.y, th / 2}) *
                  Mat4::scale({layout.frame_half, layout.frame_half, th / 2});
    frame.slot_colors = {style.board_frame, style.board_frame, style.board_frame};
    frame.surface = style.board_kind == BoardKind::kWood ? Surface::kWood : Surface::kPlain;
    frame.grain_direction = {0, 1, 0};
    frame.specular = style.board_kind == BoardKind::kVinyl ? 0.05f : 0.2f;
    frame.id = object_id::kFrame | static_cast<std::uint32_t>(b << 8);
    scenery_.push_back(frame);
    for (int dark = 0; dark < 2; ++dark) {
      DrawItem squares;
      squares.mesh = renderer.add_mesh(flat_squares(layout, b, dark == 1));
      const Vec3 col = dark ? style.dark_square : style.light_square;
      squares.slot_colors = {col, col, col};
      squares.surface = style.board_kind == BoardKind::kWood ? Surface::kWood : Surface::kPlain;
      squares.grain_direction = dark ? Vec3{1, 0, 0} : Vec3{0, 1, 0};
      squares.grain_scale = 1.3f;
      squares.specular = style.board_kind == BoardKind::kVinyl ? 0.04f : 0.25f;
      squares.id = object_id::kSquare | static_cast<std::uint32_t>(b << 8);
      squares.casts_shadow = false;
      scenery_.push_back(squares);
    }
    // The clock body.
    const Vec3 k = layout.clock_center[static_cast<std::size_t>(b)];
    DrawItem body;
    body.mesh = unit_box_;
    body.model = Mat4::translate(k) * Mat4::scale(layout.clock_half);
    body.slot_colors = {style.clock_body, style.clock_body, style.clock_body};
    body.specular = 0.35f;
    body.id = object_id::kClock | static_cast<std::uint32_t>(b);
    scenery_.push_back(body);
    Vec3 dc, dx, dy;
    layout.clock_display(b, dc, dx, dy);
    DrawItem display;
    display.mesh = unit_box_;
    display.model = frame_matrix(dx * 7.0f, dy * 2.0f, normalize(cross(dx, dy)) * 0.6f, dc);
    display.surface = Surface::kTextured;
    display.texture = clock_texture_[b];
    display.slot_colors = {style.clock_body, style.clock_body, style.clock_body};
    display.specular = 0.5f;
    display.shininess = 60;
    display.id = body.id;
    display.casts_shadow = false;
    displays_.push_back(display);
  }
}

void SceneAssets::update_clock_displays(Renderer& renderer, const World& world) {
  for (int b = 0; b < 2; ++b) {
    const ClockFace& f = world.clocks[static_cast<std::size_t>(b)];
    const std::array<int, 2> shown{f.white_ms / 1000, f.black_ms / 1000};
    if (shown == last_clock_text_[static_cast<std::size_t>(b)]) continue;
    last_clock_text_[static_cast<std::size_t>(b)] = shown;
    const bool led = style_.clock_design == 1;
    cv::Mat img(kClockTextureH, kClockTextureW, CV_8UC3,
                led ? cv::Scalar(20, 12, 12) : cv::Scalar(150, 175, 160));
    const cv::Scalar ink = led ? cv::Scalar(255, 60, 40) : cv::Scalar(25, 30, 28);
    draw_time(img, f.white_ms, {4, 4, kClockTextureW / 2 - 8, kClockTextureH - 8}, ink);
    draw_time(img, f.black_ms,
              {kClockTextureW / 2 + 4, 4, kClockTextureW / 2 - 8, kClockTextureH - 8}, ink);
    cv::flip(img, img, 0);  // texture rows run bottom-up
    renderer.update_texture(clock_texture_[b], img.data);
  }
}

DrawItem SceneAssets::piece_item(const PlacedPiece& p) const {
  DrawItem it;
  it.mesh = piece_mesh_[static_cast<std::size_t>(p.type)];
  Mat4 m = Mat4::translate(p.position) * Mat4::rotate({0, 0, 1}, p.yaw);
  if (p.knocked > 0) {
    // Lying down: turned about a horizontal axis, resting on the base's rim.
    const float base_r = style_.design.base_ratio * style_.design.king_height * 0.85f;
    m = Mat4::translate(p.position + Vec3{0, 0, base_r * p.knocked}) *
        Mat4::rotate({0, 0, 1}, p.knock_direction) * Mat4::rotate({1, 0, 0}, -p.knocked * kPi / 2) *
        Mat4::rotate({0, 0, 1}, p.yaw - p.knock_direction);
  }
  it.model = m;
  const Vec3 body = p.color == 0 ? style_.white_piece : style_.black_piece;
  const Vec3 detail = p.color == 0 ? style_.white_piece * 0.25f : style_.black_piece * 0.3f;
  it.slot_colors = {body, detail, style_.felt};
  it.specular = style_.piece_specular;
  it.shininess = style_.wooden_pieces ? 25.0f : 60.0f;
  it.surface = style_.wooden_pieces ? Surface::kWood : Surface::kPlain;
  it.grain_direction = {0, 0, 1};
  it.grain_scale = 2.0f;
  it.id = object_id::kPiece | static_cast<std::uint32_t>(p.uid);
  return it;
}

std::vector<DrawItem> SceneAssets::static_items(const World& world) const {
  std::vector<DrawItem> items = scenery_;
  for (const PlacedPiece& p : world.pieces) {
    if (p.place == PiecePlace::kHidden || p.moving) continue;
    items.push_back(piece_item(p));
  }
  return items;
}

std::vector<DrawItem> SceneAssets::hand_items(const World& world) const {
  std::vector<DrawItem> items;
  for (int p = 0; p < kPlayerCount; ++p) {
    const HandPose& h = world.hands[static_cast<std::size_t>(p)];
    if (!h.present) continue;
    const Vec3 shoulder = layout_.shoulder(p);
    Vec3 d = h.pinch - shoulder;
    const float horizontal = std::sqrt(d.x * d.x + d.y * d.y);
    const float yaw = std::atan2(-d.x, d.y);  // turns local +y towards d
    const float pitch = std::atan2(shoulder.z - h.pinch.z, horizontal) * 0.6f;
    const int g = std::clamp(static_cast<int>(std::lround(h.grip * (kGrips - 1))), 0, kGrips - 1);
    const Vec3 pinch_local = hand_pinch_point(style_.hand_size);
    DrawItem it;
    it.mesh = hand_mesh_[static_cast<std::size_t>(g)];
    it.model = Mat4::translate(h.pinch) * Mat4::rotate({0, 0, 1}, yaw) *
               Mat4::rotate({1, 0, 0}, -pitch) * Mat4::translate(-pinch_local);
    const Vec3 skin = style_.skin[static_cast<std::size_t>(p)];
    it.slot_colors = {skin, skin * 0.8f, style_.sleeve[static_cast<std::size_t>(p)]};
    it.specular = 0.12f;
    it.shininess = 12;
    it.id = object_id::kHand | static_cast<std::uint32_t>(p);
    items.push_back(it);
  }
  return items;
}

std::vector<DrawItem> SceneAssets::moving_items(const World& world) const {
  std::vector<DrawItem> items = displays_;
  for (const PlacedPiece& p : world.pieces) {
    if (p.place == PiecePlace::kHidden || !p.moving) continue;
    items.push_back(piece_item(p));
  }
  for (int b = 0; b < 2; ++b) {
    const ClockFace& f = world.clocks[static_cast<std::size_t>(b)];
    const Vec3 k = layout_.clock_center[static_cast<std::size_t>(b)];
    const float white_side = seat_side(player_index(b, 0));
    DrawItem lever;
    lever.mesh = unit_box_;
    lever.model = Mat4::translate({k.x, k.y, 2 * layout_.clock_half.z + 0.3f}) *
                  Mat4::rotate({1, 0, 0}, f.lever * 0.11f * white_side) *
                  Mat4::translate({0, 0, 0.5f}) * Mat4::scale({1.0f, 7.0f, 0.45f});
    const Vec3 lever_color =
        style_.clock_design == 1 ? srgb(0.7f, 0.7f, 0.72f) : srgb(0.85f, 0.6f, 0.1f);
    lever.slot_colors = {lever_color, lever_color, lever_color};
    lever.specular = 0.5f;
    lever.casts_shadow = false;
    lever.id = object_id::kClock | static_cast<std::uint32_t>(b);
    items.push_back(lever);
  }
  for (const DrawItem& h : hand_items(world)) items.push_back(h);
  return items;
}

std::vector<DrawItem> SceneAssets::all_items(const World& world) const {
  std::vector<DrawItem> items = static_items(world);
  for (const DrawItem& m : moving_items(world)) items.push_back(m);
  return items;
}

float SceneAssets::shadow_plane() const {
  return layout_.board_top + 0.03f;
}

Camera make_camera(const Style& style, const Layout& layout, int width, int height) {
  const Vec3 target{0, 0, 0};
  const Vec3 lean{std::sin(style.azimuth), -std::cos(style.azimuth), 0};
  const Vec3 eye = target + lean * (style.camera_distance * std::sin(style.tilt)) +
                   Vec3{0, 0, style.camera_distance * std::cos(style.tilt)};
  Camera cam = Camera::looking(eye, target, style.roll, 1.0f, width, height);
  // Fit: everything that must be in view, with a margin.
  std::vector<Vec3> keep;
  for (int b = 0; b < 2; ++b) {
    const Vec3 c = layout.board_center[static_cast<std::size_t>(b)];
    for (float sx : {-1.0f, 1.0f}) {
      for (float sy : {-1.0f, 1.0f}) {
        keep.push_back({c.x + sx * layout.frame_half, c.y + sy * layout.frame_half, 0});
        keep.push_back(
            {c.x + sx * layout.frame_half, c.y + sy * layout.frame_half, style.design.king_height});
      }
    }
    const Vec3 k = layout.clock_center[static_cast<std::size_t>(b)];
    for (float sx : {-1.0f, 1.0f}) {
      for (float sy : {-1.0f, 1.0f}) {
        keep.push_back({k.x + sx * layout.clock_half.x, k.y + sy * layout.clock_half.y,
                        2 * layout.clock_half.z + 1});
      }
    }
  }
  for (int p = 0; p < kPlayerCount; ++p) {
    const Vec3 h = layout.holding_center[static_cast<std::size_t>(p)];
    for (float sx : {-1.0f, 1.0f}) {
      for (float sy : {-1.0f, 1.0f}) {
        keep.push_back({h.x + sx * layout.holding_half.x, h.y + sy * layout.holding_half.y, 4});
      }
    }
  }
  float focal = 1e9f;
  const float margin = 0.93f;
  for (const Vec3& p : keep) {
    const Vec3 c = cam.view.transform_point(p);
    const float xn = std::fabs(c.x / -c.z), yn = std::fabs(c.y / -c.z);
    // Barrel distortion pulls the edges in; the fit is on the undistorted image, so keep a
    // little more margin when it is strong.
    if (xn > 0) focal = std::min(focal, margin * static_cast<float>(width) / 2 / xn);
    if (yn > 0) focal = std::min(focal, margin * static_cast<float>(height) / 2 / yn);
  }
  cam.fx = cam.fy = focal;
  cam.k1 = style.k1;
  cam.k2 = style.k2;
  return cam;
}

Lighting make_lighting(const Style& style) {
  Lighting l;
  l.direction = style.light_direction;
  const float s = style.light_strength;
  l.color = {s, s * 0.97f, s * 0.9f};
  l.ambient = {style.ambient * 0.95f, style.ambient, style.ambient * 1.05f};
  l.scene_center = {0, 0, 0};
  l.scene_radius = 85;
  return l;
}

void settle_on_square(const Style& style, const Layout& layout, PlacedPiece& piece) {
  Random rng(style.seed * 0x2545F4914F6CDD1Dull ^
             static_cast<std::uint64_t>(piece.uid * 131 + piece.square * 7 + piece.board + 1));
  const Vec3 c = layout.square_center(piece.board, piece.square);
  const float r = style.piece_offset;
  piece.position = {c.x + rng.uniformf(-r, r), c.y + rng.uniformf(-r, r), c.z};
  const int owner = player_index(piece.board, piece.color);
  const float facing = seat_side(owner) < 0 ? 0.0f : kPi;
  const float turn = style.piece_rotation * (piece.type == 1 ? 2.0f : 1.0f);
  piece.yaw = facing + rng.uniformf(-turn, turn);
  piece.place = PiecePlace::kBoard;
}

PlacedPiece piece_on_square(const Style& style, const Layout& layout, int uid, int type, int color,
                            int board, int square) {
  PlacedPiece p;
  p.uid = uid;
  p.type = type;
  p.color = color;
  p.board = board;
  p.square = square;
  settle_on_square(style, layout, p);
  return p;
}

World starting_world(const Style& style, const Layout& layout) {
  World w;
  static constexpr int kBackRank[8] = {3, 1, 2, 4, 5, 2, 1, 3};  // R N B Q K B N R
  int uid = 0;
  for (int b = 0; b < 2; ++b) {
    for (int sq = 0; sq < 64; ++sq) {
      const int rank = sq / 8, file = sq % 8;
      int type = -1, color = 0;
      if (rank == 0 || rank == 7) type = kBackRank[file];
      if (rank == 1 || rank == 6) type = 0;
      if (type < 0) continue;
      color = rank >= 6 ? 1 : 0;
      w.pieces.push_back(piece_on_square(style, layout, uid++, type, color, b, sq));
    }
  }
  for (int b = 0; b < 2; ++b) {
    w.clocks[static_cast<std::size_t>(b)] = {-1, 0, 180000, 180000};
  }
  return w;
}

}  // namespace bugcam::samples
