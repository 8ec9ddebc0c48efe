// Stills of random positions and holdings with their truth, for piece-type recognition.
#include <algorithm>
#include <cmath>

#include "bugcam/samples.hpp"
#include "postprocess.hpp"
#include "scene.hpp"

namespace bugcam::samples {

namespace {

cv::Point2d project_or_origin(const Camera& camera, Vec3 world) {
  cv::Point2d pixel;
  if (!camera.project(world, pixel)) return {0, 0};
  return pixel;
}

// A type for a random piece: pawns as often as in games, the others evenly, so that every
// type has enough examples.
int random_type(Random& rng, bool king_allowed) {
  const int roll = rng.integer(0, king_allowed ? 11 : 10);
  if (roll < 3) return 0;
  if (roll == 11) return 5;
  return 1 + (roll - 3) / 2;  // 1..4
}

// Both boards: sometimes the start position thinned out (crowded rows, as in openings),
// otherwise pieces scattered over random squares.
void place_board_pieces(Random& rng, const Style& style, const Layout& layout, World& world,
                        int& uid) {
  static constexpr int kBackRank[8] = {3, 1, 2, 4, 5, 2, 1, 3};
  for (int b = 0; b < 2; ++b) {
    std::array<bool, 64> used{};
    const bool opening = rng.chance(0.35);
    const int scattered = opening ? rng.integer(0, 6) : rng.integer(6, 30);
    const double keep = opening ? rng.uniform(0.6, 1.0) : 0.0;
    const auto add = [&](int square, int type, int color) {
      world.pieces.push_back(piece_on_square(style, layout, uid++, type, color, b, square));
      used[static_cast<std::size_t>(square)] = true;
    };
    if (opening) {
      for (int sq = 0; sq < 64; ++sq) {
        const int rank = sq / 8, file = sq % 8;
        int type = -1;
        if (rank == 0 || rank == 7) type = kBackRank[file];
        if (rank == 1 || rank == 6) type = 0;
        if (type < 0 || !rng.chance(keep)) continue;
        add(sq, type, rank >= 6 ? 1 : 0);
      }
    }
    for (int i = 0; i < scattered; ++i) {
      const int square = rng.integer(0, 63);
      if (used[static_cast<std::size_t>(square)]) continue;
      int type = random_type(rng, true);
      const int rank = square / 8;
      if (type == 0 && (rank == 0 || rank == 7)) type = 1 + rng.integer(0, 3);
      add(square, type, rng.integer(0, 1));
    }
  }
}

// Holdings: in the slots the timeline uses, or loose (touching, some lying on their side).
void place_holdings(Random& rng, const Style& style, const Layout& layout, World& world, int& uid) {
  for (int player = 0; player < kPlayerCount; ++player) {
    const int count = rng.integer(0, 9);
    const bool loose = rng.chance(0.4);
    const Vec3 c = layout.holding_center[static_cast<std::size_t>(player)];
    Vec2 last{c.x, c.y};
    for (int k = 0; k < count; ++k) {
      PlacedPiece p;
      p.uid = uid++;
      p.type = random_type(rng, false);
      p.color = color_of_player(player);
      p.place = PiecePlace::kHolding;
      p.player = player;
      p.yaw = rng.uniformf(0, 2 * kPi);
      if (!loose) {
        p.position = layout.holding_slot(player, k) +
                     Vec3{rng.uniformf(-0.5f, 0.5f), rng.uniformf(-0.5f, 0.5f), 0};
      } else {
        // Next to the previous piece half the time (touching), else anywhere in the strip.
        const float radius = style.design.base_ratio * style.design.king_height;
        Vec2 at;
        if (k > 0 && rng.chance(0.5)) {
          const float angle = rng.uniformf(0, 2 * kPi);
          const float d = radius * rng.uniformf(1.6f, 2.1f);
          at = {last.x + d * std::cos(angle), last.y + d * std::sin(angle)};
        } else {
          at = {c.x + rng.uniformf(-0.85f, 0.85f) * layout.holding_half.x,
                c.y + rng.uniformf(-0.6f, 0.6f) * layout.holding_half.y};
        }
        at.x = std::clamp(at.x, c.x - 0.9f * layout.holding_half.x,
                          c.x + 0.9f * layout.holding_half.x);
        at.y = std::clamp(at.y, c.y - 0.7f * layout.holding_half.y,
                          c.y + 0.7f * layout.holding_half.y);
        last = at;
        p.position = {at.x, at.y, 0};
        if (rng.chance(0.3)) {
          p.knocked = 1;
          p.knock_direction = rng.uniformf(0, 2 * kPi);
        }
      }
      world.pieces.push_back(p);
    }
  }
}

// Renders `world` as seen by the seed's camera, with the truth a TrainingStill carries.
TrainingStill render_world(const Style& style, const Layout& layout, const World& world,
                           std::uint64_t variant, int width, int height) {
  const Camera camera = make_camera(style, layout, width, height);
  Renderer renderer(width, height, 1024);
  SceneAssets assets(renderer, style, layout);
  assets.update_clock_displays(renderer, world);
  renderer.set_static_scene(assets.static_items(world), camera.view_projection(),
                            make_lighting(style));
  TrainingStill still;
  still.image = renderer.render_frame(assets.moving_items(world), assets.shadow_plane());
  PostProcess post(camera, style, 30);
  post.finish(still.image, static_cast<int>(variant % 1000));
  still.tilt_degrees = style.tilt * 180.0 / kPi;

  for (int b = 0; b < 2; ++b) {
    still.squares[static_cast<std::size_t>(b)].fill('.');
    // Corner (file_line, rank_line) of the playing area: a1's outer corner is (0, 0).
    const std::array<Vec3, 4> corners = layout.playing_corners(b);
    for (int r = 0; r <= 8; ++r) {
      for (int f = 0; f <= 8; ++f) {
        const float u = static_cast<float>(f) / 8, v = static_cast<float>(r) / 8;
        const Vec3 bottom = corners[0] + (corners[1] - corners[0]) * u;
        const Vec3 top = corners[3] + (corners[2] - corners[3]) * u;
        still.lattice[static_cast<std::size_t>(b)].push_back(
            project_or_origin(camera, bottom + (top - bottom) * v));
      }
    }
  }
  const float king = style.design.king_height;
  static constexpr float kHeight[6] = {0.55f, 0.68f, 0.78f, 0.62f, 0.9f, 1.0f};
  for (const PlacedPiece& p : world.pieces) {
    const char letter = p.color == 0 ? "PNBRQK"[p.type] : "pnbrqk"[p.type];
    if (p.place == PiecePlace::kBoard) {
      still.squares[static_cast<std::size_t>(p.board)][static_cast<std::size_t>(p.square)] = letter;
      continue;
    }
    TrainingStill::HoldingPiece h;
    h.letter = letter;
    const float length = king * kHeight[p.type];
    if (p.knocked > 0) {
      // Lying: the body runs from the base along the knock direction.
      const Vec3 along{-std::sin(p.knock_direction), std::cos(p.knock_direction), 0};
      const Vec3 axis = Vec3{0, 0, 0} + along * 1.0f;
      h.lying = true;
      h.base = project_or_origin(camera, p.position + axis * (0.5f * length));
      h.top = project_or_origin(camera, p.position + axis * length);
    } else {
      h.base = project_or_origin(camera, p.position);
      h.top = project_or_origin(camera, p.position + Vec3{0, 0, length});
    }
    still.holdings[static_cast<std::size_t>(p.player)].push_back(h);
  }
  for (int b = 0; b < 2; ++b) {
    for (int colour = 0; colour < 2; ++colour) {
      still.clock_ends[static_cast<std::size_t>(b)][static_cast<std::size_t>(colour)] =
          project_or_origin(camera, layout.clock_button(player_index(b, colour)));
    }
  }
  for (int player = 0; player < kPlayerCount; ++player) {
    const Vec3 c = layout.holding_center[static_cast<std::size_t>(player)];
    const Vec2 h = layout.holding_half;
    for (const Vec3& corner : {Vec3{c.x - h.x, c.y - h.y, 0}, Vec3{c.x + h.x, c.y - h.y, 0},
                               Vec3{c.x + h.x, c.y + h.y, 0}, Vec3{c.x - h.x, c.y + h.y, 0}}) {
      still.holding_regions[static_cast<std::size_t>(player)].push_back(
          project_or_origin(camera, corner));
    }
  }
  return still;
}

}  // namespace

TrainingStill render_training_still(std::uint64_t seed, std::uint64_t variant, int width,
                                    int height) {
  const Style style = Style::random(seed);
  const Layout layout(style);
  Random rng(seed * 0x9E3779B97F4A7C15ull ^ (variant + 1) * 0xD1B54A32D192ED03ull);
  World world;
  for (int b = 0; b < 2; ++b) world.clocks[static_cast<std::size_t>(b)] = {-1, 0, 180000, 180000};
  int uid = 0;
  place_board_pieces(rng, style, layout, world, uid);
  place_holdings(rng, style, layout, world, uid);
  return render_world(style, layout, world, variant, width, height);
}

TrainingStill render_start_still(std::uint64_t seed, std::uint64_t variant, int width, int height) {
  const Style style = Style::random(seed);
  const Layout layout(style);
  return render_world(style, layout, starting_world(style, layout), variant, width, height);
}

TrainingStill render_reach_still(std::uint64_t seed, std::uint64_t variant, int width, int height,
                                 int player_board, int player_colour, int over_board, double file_x,
                                 double rank_y) {
  return render_reaches_still(seed, variant, width, height,
                              {{player_board, player_colour, over_board, file_x, rank_y}});
}

TrainingStill render_reaches_still(std::uint64_t seed, std::uint64_t variant, int width, int height,
                                   const std::vector<Reach>& reaches) {
  const Style style = Style::random(seed);
  const Layout layout(style);
  World world = starting_world(style, layout);
  for (const Reach& reach : reaches) {
    if (reach.player_board < 0 || reach.player_board > 1 || reach.player_colour < 0 ||
        reach.player_colour > 1 || reach.over_board < 0 || reach.over_board > 1) {
      throw SynthError("render_reaches_still: no such player or board");
    }
    // Board coordinates to the table's: board B is turned half a turn (Layout::square_center).
    const Vec3 c = layout.board_center[static_cast<std::size_t>(reach.over_board)];
    const float turn = reach.over_board == 0 ? 1.0f : -1.0f;
    const Vec3 over{c.x + turn * static_cast<float>(reach.file_x - 4) * layout.square,
                    c.y + turn * static_cast<float>(reach.rank_y - 4) * layout.square, c.z};
    // Held as the timeline holds a hand over the partner's board: open, well above the pieces.
    HandPose& hand =
        world
            .hands[static_cast<std::size_t>(player_index(reach.player_board, reach.player_colour))];
    hand.present = true;
    hand.pinch = over + Vec3{0, 0, 14};
    hand.grip = 0.1f;
  }
  return render_world(style, layout, world, variant, width, height);
}

}  // namespace bugcam::samples
