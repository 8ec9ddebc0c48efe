// Calibration from one frame: boards found, named A and B, turned so that White's first
// rank is y = 0, and the holding areas and clocks placed around them.
#include <algorithm>
#include <cmath>

#include "bugcam/calibration.hpp"
#include "clocks.hpp"
#include "geometry.hpp"

namespace bugcam::calibration {

namespace {

// Square size of the warp used to read the pieces when calibrating.
constexpr int kOrientationSquarePx = 32;

// Rotation by a quarter turn about the board's centre, from turned to untouched board
// coordinates: (x, y) -> (8 - y, x).
const cv::Matx33d kQuarterTurn(0, -1, 8, 1, 0, 0, 0, 0, 1);

cv::Matx33d quarter_turns(int k) {
  cv::Matx33d result = cv::Matx33d::eye();
  for (int i = 0; i < ((k % 4) + 4) % 4; ++i) result = result * kQuarterTurn;
  return result;
}

// Where White sits, read from the pieces: a vector in board coordinates from the centre
// towards White's side, weighted by how sure each square is. Black pieces are very dark;
// white pieces differ from their square and are bright.
struct PieceEvidence {
  cv::Point2d towards_white{0, 0};
  double pieces = 0;  // how many squares carried clear evidence
};

PieceEvidence read_pieces(const BoardAppearance& appearance) {
  PieceEvidence evidence;
  for (int sq = 0; sq < 64; ++sq) {
    const SquareAppearance& s = appearance.squares[static_cast<size_t>(sq)];
    if (s.piece_fraction < 0.12f) continue;
    double sign = 0;
    if (s.dark_fraction > 0.15f) {
      sign = -1;
    } else if (s.bright_fraction > 0.08f) {
      sign = 1;
    }
    if (sign == 0) continue;
    const cv::Point2d offset(sq % 8 - 3.5, sq / 8 - 3.5);
    evidence.towards_white += sign * offset;
    evidence.pieces += 1;
  }
  return evidence;
}

// The direction in board coordinates (lattice frame) from the centre to White's edge for k
// quarter turns.
cv::Point2d white_direction(int k) {
  static const std::array<cv::Point2d, 4> kDirections{cv::Point2d(0, -1), cv::Point2d(1, 0),
                                                      cv::Point2d(0, 1), cv::Point2d(-1, 0)};
  return kDirections[static_cast<size_t>(k)];
}

struct Candidate {
  FoundBoard found;
  BoardAppearance appearance;
  PieceEvidence evidence;
  int turns = 0;
  bool from_pieces = false;
};

// The image direction from a board's centre to its White edge.
cv::Point2d image_white_direction(const cv::Matx33d& board_to_image) {
  return apply(board_to_image, {4, 0}) - apply(board_to_image, {4, 4});
}

std::vector<cv::Point2d> board_polygon(const Board& board, double x0, double y0, double x1,
                                       double y1) {
  return {board.to_image({x0, y0}), board.to_image({x1, y0}), board.to_image({x1, y1}),
          board.to_image({x0, y1})};
}

// "A:white" and the like. (Built with append: GCC 12 warns falsely on operator+ here.)
std::string player_name(const std::string& board, const char* colour) {
  std::string name;
  name.reserve(board.size() + 6);
  name.append(board).append(":").append(colour);
  return name;
}

}  // namespace

cv::Point2d RadialLens::to_pinhole(cv::Point2d seen) const {
  if (k1 == 0.0) return seen;
  const cv::Point2d d = (seen - centre) / scale;
  return centre + (seen - centre) * (1.0 + k1 * d.dot(d));
}

cv::Point2d RadialLens::to_seen(cv::Point2d pinhole) const {
  if (k1 == 0.0) return pinhole;
  const cv::Point2d d = (pinhole - centre) / scale;
  const double pinhole_r = std::hypot(d.x, d.y);
  if (pinhole_r == 0.0) return pinhole;
  return centre + (pinhole - centre) * (seen_radius(pinhole_r, k1) / pinhole_r);
}

cv::Point2d Board::to_image(cv::Point2d board_point) const {
  return lens.to_seen(apply(board_to_image, board_point));
}

cv::Point2d Board::to_board(cv::Point2d image_point) const {
  return apply(board_to_image.inv(), lens.to_pinhole(image_point));
}

std::array<cv::Point2d, 4> Board::corners() const {
  return {to_image({0, 0}), to_image({8, 0}), to_image({8, 8}), to_image({0, 8})};
}

double Board::square_size_px() const {
  const cv::Point2d c = to_image({4, 4});
  const cv::Point2d dx = to_image({5, 4}) - c;
  const cv::Point2d dy = to_image({4, 5}) - c;
  return std::sqrt(std::abs(dx.cross(dy)));
}

const Board* Calibration::board(const std::string& name) const {
  for (const Board& b : boards) {
    if (b.name == name) return &b;
  }
  return nullptr;
}

Calibration calibrate(const cv::Mat& frame_bgr, const CalibrateOptions& options) {
  if (frame_bgr.empty()) throw CalibrationError("empty frame");
  std::vector<FoundBoard> found = find_boards(frame_bgr, options.max_boards);
  if (found.empty()) throw CalibrationError("no chessboard found in the frame");
  RadialLens lens;
  if (options.known_lens && options.known_lens->k1 != 0.0) {
    lens = *options.known_lens;
    fit_boards_through(found, lens);
  } else if (options.fit_lens && !options.known_lens) {
    lens = fit_lens(found, frame_bgr.size());
  }

  std::vector<Candidate> candidates;
  for (const FoundBoard& f : found) {
    Candidate c;
    c.found = f;
    c.appearance = measure_board(
        warp_board(frame_bgr, f.board_to_image, kOrientationSquarePx, lens), kOrientationSquarePx);
    c.evidence = read_pieces(c.appearance);
    candidates.push_back(c);
  }
  // Turn each board so that White is at y = 0. The warp above has lattice y = 8 at its top,
  // so its "rank" axis is the lattice y axis.
  for (Candidate& c : candidates) {
    const double strength = std::hypot(c.evidence.towards_white.x, c.evidence.towards_white.y);
    // Four pieces clearly on one side are enough; the start position gives about 90.
    c.from_pieces = c.evidence.pieces >= 4 && strength >= 8.0;
    if (c.from_pieces) {
      int best = 0;
      for (int k = 1; k < 4; ++k) {
        if (c.evidence.towards_white.dot(white_direction(k)) >
            c.evidence.towards_white.dot(white_direction(best))) {
          best = k;
        }
      }
      c.turns = best;
    }
  }
  // Boards without pieces to read: a1 must be a dark square, which leaves two turns; of
  // those, the one that puts White opposite to the other board's White (bughouse seating),
  // or, alone, nearest the bottom of the image.
  for (Candidate& c : candidates) {
    if (c.from_pieces) continue;
    const int parity_turn = c.appearance.a1_is_dark ? 0 : 1;
    cv::Point2d wanted(0, 1);  // image down
    for (const Candidate& other : candidates) {
      if (&other != &c && other.from_pieces) {
        wanted = -image_white_direction(other.found.board_to_image * quarter_turns(other.turns));
      }
    }
    int best = parity_turn;
    double best_score = -1e18;
    for (const int k : {parity_turn, parity_turn + 2}) {
      const double score =
          image_white_direction(c.found.board_to_image * quarter_turns(k)).dot(wanted);
      if (score > best_score) {
        best_score = score;
        best = k;
      }
    }
    c.turns = best;
  }

  Calibration calibration;
  calibration.image_size = frame_bgr.size();
  for (const Candidate& c : candidates) {
    Board board;
    board.board_to_image = c.found.board_to_image * quarter_turns(c.turns);
    board.lens = lens;
    board.inner_corners_seen = c.found.inner_corners_seen;
    board.rms_error_px = c.found.rms_error_px;
    board.white_edge_from_pieces = c.from_pieces;
    board.light_square_bgr = cv::Vec3d(c.appearance.light_bgr);
    board.dark_square_bgr = cv::Vec3d(c.appearance.dark_bgr);
    calibration.boards.push_back(board);
  }
  // A is the left board unless told otherwise.
  std::stable_sort(calibration.boards.begin(), calibration.boards.end(),
                   [&](const Board& a, const Board& b) {
                     const double ax = a.to_image({4, 4}).x;
                     const double bx = b.to_image({4, 4}).x;
                     return options.board_a_on_right ? ax > bx : ax < bx;
                   });
  static const std::array<std::string, 2> kNames{"A", "B"};
  for (size_t i = 0; i < calibration.boards.size() && i < kNames.size(); ++i) {
    calibration.boards[i].name.assign(kNames[i]);
  }

  // Holding areas: the strip of table between each player's board edge and the player.
  // Clocks: beside each board on its outer side, away from the partner board; each lever is
  // on its player's half.
  for (const Board& board : calibration.boards) {
    calibration.holdings.push_back(
        {player_name(board.name, "white"), board_polygon(board, 0.0, -3.2, 8.0, -0.6)});
    calibration.holdings.push_back(
        {player_name(board.name, "black"), board_polygon(board, 0.0, 8.6, 8.0, 11.2)});
    bool outer_is_high_file = board.name == "B";
    for (const Board& other : calibration.boards) {
      if (&other == &board) continue;
      const cv::Point2d other_centre = board.to_board(other.to_image({4, 4}));
      outer_is_high_file = other_centre.x < 4;
    }
    if (std::optional<Clock> found_clock = find_clock(frame_bgr, board, outer_is_high_file)) {
      calibration.clocks.push_back(*found_clock);
      continue;
    }
    // Nothing clock-like seen (a hand over it, out of view): where a clock usually stands.
    const double x0 = outer_is_high_file ? 8.7 : -3.7;
    const double x1 = outer_is_high_file ? 11.7 : -0.7;
    Clock clock;
    clock.board = board.name;
    clock.region = board_polygon(board, x0, 2.5, x1, 5.5);
    clock.white_lever = board_polygon(board, x0, 2.5, x1, 4.0);
    clock.black_lever = board_polygon(board, x0, 4.0, x1, 5.5);
    calibration.clocks.push_back(clock);
  }
  return calibration;
}

}  // namespace bugcam::calibration
