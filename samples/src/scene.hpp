// The table scene: what varies by seed (Style), where everything is on the table (Layout),
// the state of every object at one moment (World), and how that becomes draw calls.
//
// World coordinates in centimetres: the table top is z = 0, +x runs from board A to board B
// (left to right in the image), +y from the White-A / Black-B edge of the table to the other.
// Seating (SPEC section 1): White A and Black B sit at -y, Black A and White B at +y.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "camera.hpp"
#include "pieces.hpp"
#include "random.hpp"
#include "renderer.hpp"

namespace bugcam::samples {

// Players in a fixed order: board * 2 + colour (0 White, 1 Black).
inline constexpr int kPlayerCount = 4;
inline constexpr int player_index(int board, int color) {
  return board * 2 + color;
}
inline constexpr int board_of_player(int player) {
  return player / 2;
}
inline constexpr int color_of_player(int player) {
  return player % 2;
}
// The partner sits beside: White A with Black B, Black A with White B.
inline constexpr int partner_of(int player) {
  return player_index(1 - board_of_player(player), 1 - color_of_player(player));
}
// -1: the player sits at the -y edge of the table, +1 at the +y edge.
inline constexpr float seat_side(int player) {
  return (board_of_player(player) == 0) == (color_of_player(player) == 0) ? -1.0f : 1.0f;
}

enum class BoardKind : std::uint8_t { kWood = 0, kPlastic = 1, kVinyl = 2 };

struct Style {
  std::uint64_t seed = 0;
  // Boards.
  BoardKind board_kind = BoardKind::kWood;
  float square_size = 5.5f;
  float board_border = 2.0f;
  float board_thickness = 1.5f;
  Vec3 light_square, dark_square, board_frame;
  // Pieces.
  PieceDesign design;
  Vec3 white_piece, black_piece, felt;
  bool wooden_pieces = true;
  float piece_specular = 0.3f;
  float piece_offset = 0.3f;    // cm, largest random offset of a piece on its square
  float piece_rotation = 0.2f;  // radians, largest random turn
  // Table and light.
  Vec3 table_color;
  Surface table_surface = Surface::kWood;
  Vec3 light_direction;
  float light_strength = 1.0f;
  float ambient = 0.35f;
  // Camera.
  float camera_distance = 110;  // from the table centre, cm
  float tilt = 0;               // radians from vertical
  float azimuth = 0;            // direction the camera leans to, radians (0: towards -y)
  float roll = 0;
  float k1 = 0, k2 = 0;
  float noise_sigma = 2.0f;  // grey levels
  float optical_blur = 0.6f;
  // People and clocks.
  std::array<Vec3, kPlayerCount> skin{}, sleeve{};
  float hand_size = 9.0f;
  Vec3 clock_body;
  int clock_design = 0;  // 0 LCD grey-green, 1 red LED

  static Style random(std::uint64_t seed);
  // A plain top-down style for tests: no tilt, roll, distortion or noise.
  static Style plain_top_down(std::uint64_t seed);
};

// Where things are on the table, derived from the style.
struct Layout {
  std::array<Vec3, 2> board_center{};  // at the height of the squares' top
  float square = 5.5f;
  float board_half = 22;  // half the playing area
  float frame_half = 24;  // half the board including its border
  float board_top = 1.5f;
  std::array<Vec3, kPlayerCount> holding_center{};
  Vec2 holding_half{20, 4};
  std::array<Vec3, 2> clock_center{};
  Vec3 clock_half{4, 9, 2.6f};

  explicit Layout(const Style& style);
  // Centre of a square (0 = a1 .. 63 = h8) on the board's top. Board B is turned round:
  // White B sits at +y.
  Vec3 square_center(int board, int square) const;
  // Outer corners of the playing area in the order of squares a1, h1, h8, a8.
  std::array<Vec3, 4> playing_corners(int board) const;
  // Resting place of the k-th piece in a player's holding area.
  Vec3 holding_slot(int player, int slot) const;
  // The button a player presses on their board's clock.
  Vec3 clock_button(int player) const;
  // Where the arm comes from: beyond the table edge behind the player, left of centre for
  // right hands.
  Vec3 shoulder(int player) const;
  // Display panel of a clock: centre, and its local axes (x along the text, y up the panel).
  void clock_display(int board, Vec3& center, Vec3& x_axis, Vec3& y_axis) const;
};

enum class PiecePlace : std::uint8_t { kBoard, kHolding, kHand, kAside, kHidden };

struct PlacedPiece {
  int uid = 0;
  int color = 0;  // 0 White, 1 Black
  int type = 0;   // pawn..king as rules::PieceType
  Vec3 position;  // base centre
  float yaw = 0;
  float knocked = 0;  // 0 standing, 1 lying on its side
  float knock_direction = 0;
  PiecePlace place = PiecePlace::kBoard;
  bool moving = false;          // drawn with the moving objects, not the cached static scene
  int board = -1, square = -1;  // when on a board
  int player = -1;              // holding owner, or the hand holding it
};

struct HandPose {
  bool present = false;
  Vec3 pinch;  // world position of the pinch point
  float grip = 0;
};

struct ClockFace {
  int down = -1;    // whose side of the lever is down: 0 White (Black's time runs), 1 Black
  float lever = 0;  // -1..1, animated tilt towards White's (-1) or Black's (+1) side
  int white_ms = 0, black_ms = 0;
};

struct World {
  std::vector<PlacedPiece> pieces;
  std::array<HandPose, kPlayerCount> hands{};
  std::array<ClockFace, 2> clocks{};
};

// Object IDs in the ID pass. Bits 16-23 say what kind of object, the low bits which one.
namespace object_id {
inline constexpr std::uint32_t kTable = 0x010000;
inline constexpr std::uint32_t kSquare = 0x020000;  // | board << 8 | square
inline constexpr std::uint32_t kFrame = 0x030000;   // | board << 8
inline constexpr std::uint32_t kPiece = 0x040000;   // | uid
inline constexpr std::uint32_t kHand = 0x050000;    // | player
inline constexpr std::uint32_t kClock = 0x060000;   // | board
inline constexpr std::uint32_t kind(std::uint32_t id) {
  return id & 0xff0000u;
}
}  // namespace object_id

// The meshes and textures of one style, loaded into a renderer.
class SceneAssets {
 public:
  SceneAssets(Renderer& renderer, const Style& style, const Layout& layout);
  void update_clock_displays(Renderer& renderer, const World& world);
  // What stays still between piece moves: scenery, clock bodies and resting pieces.
  std::vector<DrawItem> static_items(const World& world) const;
  // Hands, moving pieces, clock levers and displays.
  std::vector<DrawItem> moving_items(const World& world) const;
  std::vector<DrawItem> hand_items(const World& world) const;
  std::vector<DrawItem> all_items(const World& world) const;
  // The plane that moving objects' shadows fall on.
  float shadow_plane() const;

 private:
  static constexpr int kGrips = 5;
  const Style& style_;
  const Layout& layout_;
  std::array<int, kPieceTypeCount> piece_mesh_{};
  std::array<int, kGrips> hand_mesh_{};
  int unit_box_ = -1;
  int clock_texture_[2] = {-1, -1};
  std::vector<DrawItem> scenery_;
  std::vector<DrawItem> displays_;
  DrawItem piece_item(const PlacedPiece& p) const;
  std::array<std::array<int, 2>, 2> last_clock_text_{};  // to skip unchanged uploads
};

// A camera for the style: leaning by its tilt and azimuth, with the focal length chosen so
// that boards, holding areas and clocks fill the frame with a margin.
Camera make_camera(const Style& style, const Layout& layout, int width, int height);
Lighting make_lighting(const Style& style);

// Standard starting positions for both boards with the given uids, and small seeded offsets.
World starting_world(const Style& style, const Layout& layout);
// Offset and turn of a piece on its square, stable for a piece uid and square.
void settle_on_square(const Style& style, const Layout& layout, PlacedPiece& piece);
// A piece standing on a board square, settled there.
PlacedPiece piece_on_square(const Style& style, const Layout& layout, int uid, int type, int color,
                            int board, int square);

}  // namespace bugcam::samples
