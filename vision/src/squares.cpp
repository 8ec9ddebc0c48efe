// Per-square classification: empty / white / black and occluded, from the appearance of
// each square against the board's own colours.
#include <algorithm>
#include <cmath>

#include "bugcam/vision.hpp"

namespace bugcam::vision {

namespace {

float logistic(float x) {
  return 1.0f / (1.0f + std::exp(-x));
}

// A square whose centre differs from its colour over more than this share holds a piece.
// Empty squares stay under a few percent (print, dust, grain); a piece seen from above
// covers a third or more of the centre disk, a white piece on a light square still shows
// its shaded rim over a sixth of it.
constexpr float kPieceFraction = 0.07f;
constexpr float kPieceFractionSpread = 0.015f;
// A hand or sleeve: colours that are neither board nor piece over a quarter of the square,
// or a square's corners (which pieces spare) mostly unlike the board.
constexpr float kForeignFraction = 0.25f;
constexpr float kCornerDeviation = 0.5f;
constexpr float kGrazedCornerDeviation = 0.1f;
// Learnt piece colours: how much nearer one must be (share of their distance, at least a
// few levels) for the colour to be sure.
constexpr float kLearnedColourSpread = 0.05f;
constexpr float kLearnedColourSpreadMin = 3.0f;
// Below this probability of the best class, the square is reported unknown.
constexpr float kSure = 0.7f;

// The luma splitting white from black pieces: two-means over the pieces of the frame,
// starting from the midpoint of the square colours; kept at that midpoint when the pieces
// do not form two groups (one colour only on the board).
float split_luma(const std::vector<calibration::BoardAppearance>& boards) {
  std::vector<float> lumas;
  float prior = 0;
  for (const calibration::BoardAppearance& board : boards) {
    prior += 0.5f * (board.light_luma + board.dark_luma);
    for (const calibration::SquareAppearance& s : board.squares) {
      if (s.piece_fraction > kPieceFraction) lumas.push_back(s.piece_luma);
    }
  }
  prior /= static_cast<float>(std::max<size_t>(boards.size(), 1));
  float split = prior;
  for (int round = 0; round < 20; ++round) {
    double low = 0, high = 0;
    int n_low = 0, n_high = 0;
    for (const float l : lumas) {
      if (l < split) {
        low += l;
        ++n_low;
      } else {
        high += l;
        ++n_high;
      }
    }
    if (n_low == 0 || n_high == 0) return prior;
    const float next = static_cast<float>(0.5 * (low / n_low + high / n_high));
    if (std::abs(next - split) < 0.1f) break;
    split = next;
  }
  // Two groups close together are one colour under uneven light, not two colours.
  float spread = 0;
  for (const calibration::BoardAppearance& board : boards) {
    spread += std::abs(board.light_luma - board.dark_luma);
  }
  spread /= static_cast<float>(std::max<size_t>(boards.size(), 1));
  double low = 0, high = 0;
  int n_low = 0, n_high = 0;
  for (const float l : lumas) {
    (l < split ? low : high) += l;
    (l < split ? n_low : n_high) += 1;
  }
  if (n_low == 0 || n_high == 0) return prior;
  if (high / n_high - low / n_low < 0.3 * std::max(spread, 60.0f)) return prior;
  return split;
}

// The probability that a square's piece is white, from its differing pixels' mean colour and
// the colours a white and a black piece showed on a square of this colour in the start
// position: the nearer of the two, sure once one is nearer by a tenth of their distance.
float learned_white(const calibration::BoardAppearance& board, int sq, const cv::Vec3f& piece) {
  const bool even = (sq / 8 + sq % 8) % 2 == 0;
  const bool dark_square = even == board.a1_is_dark;
  const calibration::BoardLooks& looks = board.looks;
  const cv::Vec3f& white = dark_square ? looks.white_on_dark : looks.white_on_light;
  const cv::Vec3f& black = dark_square ? looks.black_on_dark : looks.black_on_light;
  const float to_white = calibration::colour_distance(piece, white);
  const float to_black = calibration::colour_distance(piece, black);
  const float spread = std::max(kLearnedColourSpreadMin,
                                kLearnedColourSpread * calibration::colour_distance(white, black));
  return logistic((to_black - to_white) / spread);
}

}  // namespace

char SquareObservation::symbol() const {
  if (occluded) return '?';
  if (p_empty >= kSure) return '.';
  if (p_white >= kSure) return 'w';
  if (p_black >= kSure) return 'b';
  return '?';
}

char SquareObservation::probable_symbol() const {
  SquareObservation unflagged = *this;
  unflagged.occluded = false;
  return unflagged.symbol();
}

std::array<std::string, 8> BoardObservation::occupancy() const {
  std::array<std::string, 8> rows;
  for (int rank = 7; rank >= 0; --rank) {
    std::string& row = rows[static_cast<size_t>(7 - rank)];
    for (int file = 0; file < 8; ++file) {
      row.push_back(squares[static_cast<size_t>(rank * 8 + file)].symbol());
    }
  }
  return rows;
}

SquareClassification classify_squares(const std::vector<calibration::BoardAppearance>& boards) {
  SquareClassification result;
  result.white_black_luma = split_luma(boards);
  for (const calibration::BoardAppearance& board : boards) {
    // How far from the split a piece's luma must be to be sure of its colour.
    const float colour_spread =
        std::max(8.0f, 0.08f * std::abs(board.light_luma - board.dark_luma));
    std::array<SquareObservation, 64> squares{};
    for (size_t sq = 0; sq < 64; ++sq) {
      const calibration::SquareAppearance& s = board.squares[sq];
      const float p_piece = logistic((s.piece_fraction - kPieceFraction) / kPieceFractionSpread);
      float p_white_piece = 0.5f;
      if (board.looks.learned) {
        p_white_piece = learned_white(board, static_cast<int>(sq), s.piece_bgr);
      } else {
        // Very dark pixels in the centre are a black piece whatever the mean says.
        p_white_piece = logistic((s.piece_luma - result.white_black_luma) / colour_spread);
        if (s.dark_fraction > 0.25f) p_white_piece = std::min(p_white_piece, 0.1f);
      }
      SquareObservation& out = squares[sq];
      out.p_empty = 1.0f - p_piece;
      out.p_white = p_piece * p_white_piece;
      out.p_black = p_piece * (1.0f - p_white_piece);
      out.occluded = s.foreign_fraction > kForeignFraction || s.corner_deviation > kCornerDeviation;
    }
    // A hand is one large thing: its edge only grazes the squares around it, whose
    // corners then differ a little. Those count as covered too.
    std::array<bool, 64> grazed{};
    for (int sq = 0; sq < 64; ++sq) {
      if (squares[static_cast<size_t>(sq)].occluded) continue;
      if (board.squares[static_cast<size_t>(sq)].corner_deviation < kGrazedCornerDeviation)
        continue;
      for (int dr = -1; dr <= 1; ++dr) {
        for (int df = -1; df <= 1; ++df) {
          const int r = sq / 8 + dr;
          const int f = sq % 8 + df;
          if (r >= 0 && r < 8 && f >= 0 && f < 8 &&
              squares[static_cast<size_t>(r * 8 + f)].occluded) {
            grazed[static_cast<size_t>(sq)] = true;
          }
        }
      }
    }
    for (size_t sq = 0; sq < 64; ++sq) squares[sq].occluded = squares[sq].occluded || grazed[sq];
    result.boards.push_back(squares);
  }
  return result;
}

}  // namespace bugcam::vision
