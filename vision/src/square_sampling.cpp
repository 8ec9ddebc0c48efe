// Where to look at each square of a board's top-down warp, given where the camera stands.
// A standing piece's base sits on its square's centre, but its body rises toward the camera
// and so, on the board plane, lies beyond the base, away from the point under the camera:
// with a tilted camera a tall piece covers the square(s) behind it and their corners. Each
// square is read where its own piece's base and lower body show and the pieces in front
// cannot reach; its board colour and its "something over it" test use only the corners no
// standing piece can lean over.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"
#include "colour.hpp"
#include "piece_geometry.hpp"

namespace bugcam::vision {

namespace {

using calibration::channel_median;
using calibration::colour_distance;
using calibration::luma;

// The tallest piece, in squares (a king stands 1.5 to 1.8 squares tall) and its body's
// half-width near the base: what a neighbour's piece can cover.
constexpr double kTallestPiece = 1.9;
constexpr double kBodyRadius = 0.3;
// The sampled region: disks of this radius along the piece's own axis from its base up to
// this height (in squares), where its own body shows whatever its shape.
constexpr double kBaseRadius = 0.36;
constexpr double kBaseHeight = 0.35;
constexpr double kEdgeMargin = 0.08;
// Corner patches are this share of the square's side.
constexpr double kCornerPatch = 0.2;
// Squares whose pieces can lean over a pixel: up to this many squares away.
constexpr int kReach = 2;

// Share of a region's pixels unlike the square and unlike a shadow above which the square
// shows a piece, whose shaded pixels then count too.
constexpr double kSolidShare = 0.015;
// A white piece's shaded side is its square's colour darkened a little: only clearly darker
// counts as shadow.
constexpr float kShadowMaxScale = 0.8f;

// Colours nearer than this share of the board's threshold are one: the squares' common
// colour and the pixels that show it.
constexpr float kCommonColourNear = 0.5f;

// A learnt shadow may be this much deeper than the umbra seen in the start position.
constexpr float kLearnedShadowDepth = 1.4f;
// A shadow-like pixel this much nearer (share of its distance from any shadow) to the look
// black or white pieces showed is a piece's.
constexpr float kPieceLookNearer = 0.5f;

// Chroma: red less green and green less blue, over the brightness plus this much (so that
// dark pixels' noise counts less), which a shadow changes little but in the darkest pixels.
constexpr float kChromaLumaOffset = 20.0f;
// A pixel within the board's colour threshold of its square but this far from it in chroma
// is a piece (dark brown pieces on dark grey squares).
constexpr float kPieceChroma = 0.45f;
// A square whose corners are unlike the board's common colour by more than its threshold and
// this far from it in chroma has its corners covered, not shaded: the common colour is its
// own. (Not checked on warm-tinted shadows: the looks rendered so far have neutral ones.)
constexpr float kCoveredCornersChroma = 0.1f;

float chroma_distance(const cv::Vec3f& p, const cv::Vec3f& q) {
  const float lp = luma(p) + kChromaLumaOffset, lq = luma(q) + kChromaLumaOffset;
  return std::abs((p[2] - p[1]) / lp - (q[2] - q[1]) / lq) +
         std::abs((p[1] - p[0]) / lp - (q[1] - q[0]) / lq);
}

bool is_shadow(const cv::Vec3f& p, const cv::Vec3f& square) {
  return detail::is_shadow(p, square, kShadowMaxScale);
}

bool is_learned_shadow(const cv::Vec3f& p, const cv::Vec3f& square, const cv::Vec3f& ratio) {
  return detail::is_learned_shadow(p, square, ratio, kLearnedShadowDepth);
}

// How far `p` is from the nearest colour a shadow can give `square`: the square darkened with
// its hue kept, or (when learnt) with the hue of the scene's shadows.
float shadow_residual(const cv::Vec3f& p, const cv::Vec3f& square, const cv::Vec3f* ratio) {
  float best = colour_distance(p, square);
  const float square2 = square.dot(square);
  if (square2 >= 1.0f) {
    const float scale = std::clamp(p.dot(square) / square2, detail::kShadowMinScale, 1.0f);
    best = std::min(best, colour_distance(p, square * scale));
  }
  if (ratio != nullptr) {
    const cv::Vec3f depth = detail::shadow_depth(square, *ratio);
    const float depth2 = depth.dot(depth);
    if (depth2 >= 1.0f) {
      const float t = std::clamp((square - p).dot(depth) / depth2, 0.0f, kLearnedShadowDepth);
      best = std::min(best, colour_distance(p, square - depth * t));
    }
  }
  return best;
}

// A board warp's pixels as colours, by index (row * side + column), converted as they are
// read: a fresh float copy of the whole warp for each board of each frame cost its allocation
// and a pass over every pixel, some of which are never read.
class WarpPixels {
 public:
  // Reads `warped_bgr`'s pixels, which must outlive it.
  explicit WarpPixels(const cv::Mat& warped_bgr) : cols_(warped_bgr.cols) {
    if (warped_bgr.type() == CV_8UC3 && warped_bgr.isContinuous()) {
      bytes_ = warped_bgr.ptr<cv::Vec3b>(0);
    } else {
      warped_bgr.convertTo(converted_, CV_32FC3);
      floats_ = converted_.ptr<cv::Vec3f>(0);
    }
  }
  cv::Vec3f operator[](int i) const {
    return bytes_ != nullptr ? cv::Vec3f(bytes_[i]) : floats_[i];
  }
  cv::Vec3f at(int y, int x) const { return (*this)[y * cols_ + x]; }
  WarpPixels(const WarpPixels&) = delete;
  WarpPixels& operator=(const WarpPixels&) = delete;

 private:
  int cols_;
  const cv::Vec3b* bytes_ = nullptr;
  cv::Mat converted_;
  const cv::Vec3f* floats_ = nullptr;
};

// Each square's own colour: the median of its corners, of those no piece can lean over
// when at least three are (a median of two follows whichever is off: a corner over the
// board's edge, a calibration a little off), else of all four.
std::array<cv::Vec3f, 64> corner_colours(const WarpPixels& pixels, const SquareSampling& plan) {
  std::array<cv::Vec3f, 64> corner_colour{};
  std::vector<cv::Vec3f> colours;
  for (size_t sq = 0; sq < 64; ++sq) {
    int clear = 0;
    for (const SquareSampling::Patch& corner : plan.corners[sq]) {
      clear += corner.reached_from == 0 ? 1 : 0;
    }
    colours.clear();
    for (const SquareSampling::Patch& corner : plan.corners[sq]) {
      if (clear >= 3 && corner.reached_from != 0) continue;
      for (const int p : corner.pixels) colours.push_back(pixels[p]);
    }
    corner_colour[sq] = channel_median(colours);
  }
  return corner_colour;
}

// The colour most squares of one parity (0: a1's) show at their corners: the one with the
// most others near it, and the median of those. Unlike the median of all, it is not pulled
// toward the pieces and their shadows when many squares' corners hold them (a middle game
// seen from low, the back ranks of the start position).
cv::Vec3f common_colour(const std::array<cv::Vec3f, 64>& corner_colour, int parity, float near) {
  std::vector<cv::Vec3f> colours;
  for (size_t sq = 0; sq < 64; ++sq) {
    if (static_cast<int>((sq / 8 + sq % 8) % 2) == parity) colours.push_back(corner_colour[sq]);
  }
  size_t best = 0;
  int best_count = -1;
  for (size_t i = 0; i < colours.size(); ++i) {
    int count = 0;
    for (const cv::Vec3f& other : colours)
      count += colour_distance(colours[i], other) < near ? 1 : 0;
    if (count > best_count) {
      best_count = count;
      best = i;
    }
  }
  std::vector<cv::Vec3f> group;
  for (const cv::Vec3f& other : colours) {
    if (colour_distance(colours[best], other) < near) group.push_back(other);
  }
  return channel_median(group);
}

}  // namespace

SquareSampling plan_sampling(const Viewpoint& view, int square_px) {
  SquareSampling plan;
  plan.square_px = square_px;
  const int side = 8 * square_px;
  const double s = square_px;
  // Board point of warp pixel (x, y): row 0 is rank 8.
  const auto board_point = [&](int x, int y) {
    return cv::Point2d((x + 0.5) / s, 8 - (y + 0.5) / s);
  };
  const auto reaches = [&](int from_sq, cv::Point2d p) {
    const cv::Point2d c = square_centre(from_sq);
    return segment_distance(p, c, c + view.lean(c, kTallestPiece)) < kBodyRadius;
  };
  const int patch = std::max(2, static_cast<int>(std::lround(kCornerPatch * s)));
  for (int sq = 0; sq < 64; ++sq) {
    const int file = sq % 8, rank = sq / 8;
    const cv::Point2d c = square_centre(sq);
    // The piece's own region: its base (a disk on the square's centre) and along its axis
    // up to kBaseHeight.
    std::vector<cv::Point2d> axis;
    for (int i = 0; i <= 4; ++i) axis.push_back(c + view.lean(c, kBaseHeight * i / 4.0));
    const int x_low = std::max(0, static_cast<int>((file - 1) * s));
    const int x_high = std::min(side, static_cast<int>((file + 2) * s));
    const int y_low = std::max(0, static_cast<int>((7 - rank - 1) * s));
    const int y_high = std::min(side, static_cast<int>((7 - rank + 2) * s));
    std::vector<int>& base = plan.base[static_cast<size_t>(sq)];
    for (int y = y_low; y < y_high; ++y) {
      for (int x = x_low; x < x_high; ++x) {
        const cv::Point2d p = board_point(x, y);
        if (std::hypot(p.x - c.x, p.y - c.y) < kBaseRadius) {
          base.push_back(y * side + x);
          continue;
        }
        // Beyond the base, the body is looked for inside the square only, away from its
        // edges (a shade along the edge, a calibration a little off).
        if (std::abs(p.x - c.x) > 0.5 - kEdgeMargin || std::abs(p.y - c.y) > 0.5 - kEdgeMargin)
          continue;
        for (size_t i = 0; i + 1 < axis.size(); ++i) {
          if (segment_distance(p, axis[i], axis[i + 1]) < kBaseRadius) {
            base.push_back(y * side + x);
            break;
          }
        }
      }
    }
    // Corner patches, with the squares (this one included) whose piece can lean over them.
    const int x0 = file * square_px;
    const int y0 = (7 - rank) * square_px;
    size_t k = 0;
    for (const int cy : {y0, y0 + square_px - patch}) {
      for (const int cx : {x0, x0 + square_px - patch}) {
        SquareSampling::Patch& corner = plan.corners[static_cast<size_t>(sq)][k++];
        for (int y = cy; y < cy + patch; ++y) {
          for (int x = cx; x < cx + patch; ++x) {
            corner.pixels.push_back(y * side + x);
            const cv::Point2d p = board_point(x, y);
            for (int dr = -kReach; dr <= kReach; ++dr) {
              for (int df = -kReach; df <= kReach; ++df) {
                const int r = rank + dr, f = file + df;
                if (r < 0 || r >= 8 || f < 0 || f >= 8) continue;
                if (reaches(r * 8 + f, p)) corner.reached_from |= std::uint64_t{1} << (r * 8 + f);
              }
            }
          }
        }
      }
    }
  }
  // Front to back: squares nearer the point under the camera first.
  std::iota(plan.front_to_back.begin(), plan.front_to_back.end(), 0);
  std::stable_sort(plan.front_to_back.begin(), plan.front_to_back.end(), [&](int a, int b) {
    const cv::Point2d da = square_centre(a) - view.nadir, db = square_centre(b) - view.nadir;
    return da.dot(da) < db.dot(db);
  });
  // For each pixel of a square's region, the other squares whose piece could cover it.
  for (int sq = 0; sq < 64; ++sq) {
    const int file = sq % 8, rank = sq / 8;
    for (const int pixel : plan.base[static_cast<size_t>(sq)]) {
      const cv::Point2d p = board_point(pixel % side, pixel / side);
      std::uint64_t from = 0;
      for (int dr = -kReach; dr <= kReach; ++dr) {
        for (int df = -kReach; df <= kReach; ++df) {
          const int r = rank + dr, f = file + df;
          if ((dr == 0 && df == 0) || r < 0 || r >= 8 || f < 0 || f >= 8) continue;
          if (reaches(r * 8 + f, p)) from |= std::uint64_t{1} << (r * 8 + f);
        }
      }
      plan.base_reached_from[static_cast<size_t>(sq)].push_back(from);
      const int on_rank = 7 - (pixel / side) / square_px, on_file = (pixel % side) / square_px;
      plan.base_on[static_cast<size_t>(sq)].push_back(
          static_cast<std::uint8_t>(on_rank * 8 + on_file));
    }
  }
  return plan;
}

calibration::BoardAppearance measure_board(const cv::Mat& warped_bgr, const SquareSampling& plan,
                                           const calibration::BoardLooks& looks) {
  const int square_px = plan.square_px;
  const WarpPixels pixels(warped_bgr);
  calibration::BoardAppearance result;
  result.looks = looks;
  const bool learned_shadow = looks.learned && looks.shadow_ratio != cv::Vec3f(0, 0, 0);
  const double solid_share =
      looks.learned && looks.solid_share > 0 ? looks.solid_share : kSolidShare;

  const std::array<cv::Vec3f, 64> corner_colour = corner_colours(pixels, plan);
  const float threshold = calibration::set_board_colours(corner_colour, result);
  const cv::Vec3f even = result.a1_is_dark ? result.dark_bgr : result.light_bgr;  // a1's parity
  const cv::Vec3f odd = result.a1_is_dark ? result.light_bgr : result.dark_bgr;
  const float dark_limit = 0.6f * std::min(result.dark_luma, result.light_luma);
  const float midpoint = 0.5f * (result.dark_luma + result.light_luma);
  // The squares' colours where nothing covers or shades them.
  const float near_common = kCommonColourNear * threshold;
  const cv::Vec3f common_even = common_colour(corner_colour, 0, near_common);
  const cv::Vec3f common_odd = common_colour(corner_colour, 1, near_common);
  // Each square's colour where nothing covers or shades it: its parity's common colour, or
  // where the start position showed it lit whiter (a lamp's hot spot), that colour scaled with
  // the light of this frame.
  std::array<cv::Vec3f, 64> own_colour{};
  std::array<bool, 64> own_learnt{};
  for (size_t sq = 0; sq < 64; ++sq) {
    const cv::Vec3f& common = (sq / 8 + sq % 8) % 2 == 0 ? common_even : common_odd;
    const cv::Vec3f& ratio = looks.empty_square_ratio[sq];
    own_learnt[sq] = looks.learned && ratio != cv::Vec3f(0, 0, 0);
    own_colour[sq] = own_learnt[sq] ? common.mul(ratio) : common;
  }
  // How far a pixel of square `sq` is from the board's colours: either parity's, or the
  // square's own where it was learnt.
  const auto from_board = [&](const cv::Vec3f& p, size_t sq) {
    const float parity = std::min(colour_distance(p, even), colour_distance(p, odd));
    return own_learnt[sq] ? std::min(parity, colour_distance(p, own_colour[sq])) : parity;
  };

  // Per pixel of each region: does it differ from the square's colour.
  std::array<std::vector<char>, 64> differs;
  std::array<cv::Vec3f, 64> background{};
  for (int rank = 0; rank < 8; ++rank) {
    for (int file = 0; file < 8; ++file) {
      const int sq = rank * 8 + file;
      std::vector<cv::Vec3f> local;
      for (int dr = -1; dr <= 1; dr += 2) {
        for (int df = -1; df <= 1; df += 2) {
          const int r = rank + dr, f = file + df;
          if (r >= 0 && r < 8 && f >= 0 && f < 8) local.push_back(corner_colour[r * 8 + f]);
        }
      }
      for (int i = 0; i < 4; ++i) local.push_back(corner_colour[static_cast<size_t>(sq)]);
      background[static_cast<size_t>(sq)] = channel_median(local);
    }
  }
  // Corners covered by the pieces around (a back rank's big pieces): the board's colour, not
  // theirs, is the square's. (Taking it whenever most of the square's middle shows it lost a
  // move on dev clip 1003.)
  for (size_t sq = 0; sq < 64; ++sq) {
    const cv::Vec3f& own = own_colour[sq];
    if (colour_distance(background[sq], own) > threshold &&
        chroma_distance(background[sq], own) > kCoveredCornersChroma) {
      background[sq] = own;
    }
  }
  std::array<float, 64> lit{};
  std::array<bool, 64> shaded{};
  for (size_t sq = 0; sq < 64; ++sq) {
    const cv::Vec3f& own = own_colour[sq];
    // Corners in the pieces' shadow while the middle is lit: pixels showing the board's lit
    // colour are the board there, and a piece's lit side is brighter than that.
    shaded[sq] = luma(own) > luma(background[sq]) + near_common;
    // Corners that show the board a little shaded: a piece's lit side is brighter than the
    // board lit, not only than them.
    lit[sq] = shaded[sq] || colour_distance(background[sq], own) <= threshold
                  ? std::max(luma(background[sq]), luma(own))
                  : luma(background[sq]);
  }
  // A region may reach over the square's edge (the piece's body leans over it): pixels there
  // are compared with the board's colour of the square they lie on.
  for (size_t sq = 0; sq < 64; ++sq) {
    const std::vector<int>& region = plan.base[sq];
    differs[sq].resize(region.size());
    for (size_t i = 0; i < region.size(); ++i) {
      const size_t on = plan.base_on[sq][i];
      const cv::Vec3f p = pixels[region[i]];
      const bool on_even = (on / 8 + on % 8) % 2 == 0;
      const cv::Vec3f& b = on == sq         ? background[sq]
                           : own_learnt[on] ? own_colour[on]
                           : on_even        ? even
                                            : odd;
      const float lit_luma = on == sq ? lit[sq] : luma(b);
      if (looks.bright_margin > 0 && luma(p) > lit_luma + looks.bright_margin) {
        // A shadow only darkens: a pixel brighter than its square is a piece's lit side.
        differs[sq][i] = 1;
        continue;
      }
      if (on == sq && shaded[sq] && colour_distance(p, own_colour[sq]) <= near_common) {
        differs[sq][i] = 0;
        continue;
      }
      // Most pixels show their square: the shadow tests only for those that do not.
      if (colour_distance(p, b) <= threshold) {
        differs[sq][i] = 0;
      } else {
        const bool shadow =
            is_shadow(p, b) || (learned_shadow && is_learned_shadow(p, b, looks.shadow_ratio));
        differs[sq][i] = shadow ? 2 : 1;
      }
      if (differs[sq][i] == 2 && looks.learned) {
        // A dark piece of a hue like its square's (dark red on brown) passes for a shadow, and
        // so does the shaded side of a pale one on a pale square (cream on light wood); a
        // pixel much nearer the look such pieces showed on such squares is one.
        const bool on_dark = on_even == result.a1_is_dark;
        const float nearest_look =
            std::min(colour_distance(p, on_dark ? looks.black_on_dark : looks.black_on_light),
                     colour_distance(p, on_dark ? looks.white_on_dark : looks.white_on_light));
        if (nearest_look <
            kPieceLookNearer *
                shadow_residual(p, b, learned_shadow ? &looks.shadow_ratio : nullptr)) {
          differs[sq][i] = 1;
        }
      }
      if (differs[sq][i] == 0 && chroma_distance(p, b) > kPieceChroma) differs[sq][i] = 1;
    }
  }

  // Front to back: a square's region pixels that an occupied square in front can cover are
  // left out while enough of the region remains; they are the front piece's body.
  std::uint64_t occupied_so_far = 0;  // bit per square
  for (const int sq_index : plan.front_to_back) {
    const size_t sq = static_cast<size_t>(sq_index);
    const std::vector<int>& region = plan.base[sq];
    const std::vector<std::uint64_t>& reached_from = plan.base_reached_from[sq];
    std::vector<char> hidden(region.size(), 0);
    for (size_t i = 0; i < region.size(); ++i) {
      hidden[i] = (reached_from[i] & occupied_so_far) != 0 ? 1 : 0;
    }
    int seen = 0;
    for (const char h : hidden) seen += h == 0 ? 1 : 0;
    // Too little left to read: read the whole region.
    const bool use_hidden = seen < static_cast<int>(region.size()) / 4;
    // Pixels like a shadow count only where the square shows a piece anyway (a white piece's
    // shaded side is its square's colour darkened too); alone, they are a shadow.
    int used = 0, solid = 0;
    for (size_t i = 0; i < region.size(); ++i) {
      if (hidden[i] != 0 && !use_hidden) continue;
      ++used;
      solid += differs[sq][i] == 1 ? 1 : 0;
    }
    const bool with_shadows = solid > solid_share * used;
    int differing = 0, dark = 0, bright = 0;
    double differing_luma = 0;
    cv::Vec3d differing_bgr(0, 0, 0);
    for (size_t i = 0; i < region.size(); ++i) {
      if (hidden[i] != 0 && !use_hidden) continue;
      const cv::Vec3f p = pixels[region[i]];
      const float l = luma(p);
      if (differs[sq][i] == 1 || (with_shadows && differs[sq][i] == 2)) {
        ++differing;
        differing_luma += l;
        differing_bgr += cv::Vec3d(p);
        if (l > midpoint) ++bright;
      }
      if (l < dark_limit) ++dark;
    }
    calibration::SquareAppearance& out = result.squares[sq];
    out.piece_fraction = static_cast<float>(differing) / static_cast<float>(std::max(used, 1));
    out.piece_luma =
        differing > 0 ? static_cast<float>(differing_luma / differing) : luma(background[sq]);
    out.solid_fraction = static_cast<float>(solid) / static_cast<float>(std::max(used, 1));
    out.piece_bgr = differing > 0 ? cv::Vec3f(differing_bgr / differing) : background[sq];
    out.dark_fraction = static_cast<float>(dark) / static_cast<float>(std::max(used, 1));
    out.bright_fraction = static_cast<float>(bright) / static_cast<float>(std::max(used, 1));
    if (out.piece_fraction > kSamplingPieceFraction) occupied_so_far |= std::uint64_t{1} << sq;
  }

  // Something over a square: those of its corners that no piece on an occupied square can
  // lean over unlike the board, or colours that are neither board nor piece (skin, a
  // sleeve) over a good share of it.
  for (size_t sq = 0; sq < 64; ++sq) {
    calibration::SquareAppearance& out = result.squares[sq];
    int corner_pixels = 0, corner_differing = 0;
    for (const SquareSampling::Patch& corner : plan.corners[sq]) {
      if ((corner.reached_from & occupied_so_far) != 0) continue;
      for (const int p : corner.pixels) {
        ++corner_pixels;
        if (from_board(pixels[p], sq) > 1.5f * threshold) ++corner_differing;
      }
    }
    out.corner_deviation =
        static_cast<float>(corner_differing) / static_cast<float>(std::max(corner_pixels, 1));
    const int file = static_cast<int>(sq) % 8, rank = static_cast<int>(sq) / 8;
    int all = 0, foreign = 0;
    for (int y = (7 - rank) * square_px; y < (8 - rank) * square_px; ++y) {
      for (int x = file * square_px; x < (file + 1) * square_px; ++x) {
        const cv::Vec3f p = pixels.at(y, x);
        ++all;
        const float max_c = std::max({p[0], p[1], p[2]});
        const float min_c = std::min({p[0], p[1], p[2]});
        const float saturation = max_c > 1 ? (max_c - min_c) / max_c : 0;
        // The distance from the board's colours last: it costs most and is needed least.
        if (saturation > 0.3f && luma(p) > dark_limit && from_board(p, sq) > 1.5f * threshold)
          ++foreign;
      }
    }
    out.foreign_fraction = static_cast<float>(foreign) / static_cast<float>(std::max(all, 1));
  }
  return result;
}

namespace {

// The start position: which squares (a1 = 0) hold a piece, and of which colour.
bool start_occupied(int sq) {
  return sq < 16 || sq >= 48;
}
bool start_white(int sq) {
  return sq < 16;
}

// Of the 64 squares, at least this many must read as in the start position (occupied or
// not) for a frame to be learnt from: a few shadows or a first move are forgiven.
constexpr int kStartSquaresAgreeing = 56;
// Each piece colour on each square colour needs this many squares read occupied.
constexpr int kLearnSquaresPerClass = 2;
// Shadow pixels: darker than their square by this range of luma ratios (lighter is the
// penumbra's edge, darker a piece); at least this many are needed to learn the shadow.
constexpr float kShadowLearnLightest = 0.9f;
constexpr float kShadowLearnDarkest = 0.3f;
constexpr size_t kShadowLearnPixels = 60;
// The learnt share of solid pixels: only when the pieces showed this many times more than
// the empty squares, and within these bounds.
constexpr float kSolidShareParting = 2.0f;
constexpr float kSolidShareFloor = 0.015f;
constexpr float kSolidShareCeiling = 0.15f;
// A piece's lit side: brighter than its square by more than this share over the brightest
// the empty squares showed (their 99.5th percentile above their colour), and at least by so
// many levels.
constexpr float kBrightQuantile = 0.995f;
constexpr float kBrightMarginScale = 1.5f;
constexpr float kBrightMarginFloor = 10.0f;
// Squares whose corners or colours say something covers them (a hand) are not learnt from.
constexpr float kLearnCoveredCorners = 0.1f;
constexpr float kLearnForeign = 0.05f;

// Each empty square's colour in the start position over its parity's common colour, where it
// is clearly brighter (a lamp's hot spot) and still nearer that than the other parity's. Not
// where darker: a start piece's shadow leaves with its piece. Nothing covering the square is
// ruled out here (a hot spot trips those tests): agree_square_colours does that over frames.
void learn_square_colours(const std::array<cv::Vec3f, 64>& corner_colour,
                          calibration::BoardLooks& looks) {
  calibration::BoardAppearance board_colours;
  const float near_common =
      kCommonColourNear * calibration::set_board_colours(corner_colour, board_colours);
  const std::array<cv::Vec3f, 2> common = {common_colour(corner_colour, 0, near_common),
                                           common_colour(corner_colour, 1, near_common)};
  for (size_t sq = 16; sq < 48; ++sq) {
    const cv::Vec3f& seen = corner_colour[sq];
    const size_t parity = (sq / 8 + sq % 8) % 2;
    const cv::Vec3f& own = common[parity];
    if (std::min({own[0], own[1], own[2]}) < 8.0f) continue;
    if (colour_distance(seen, own) >= colour_distance(seen, common[1 - parity])) continue;
    if (luma(seen) < luma(own) || colour_distance(seen, own) < near_common) continue;
    looks.empty_square_ratio[sq] = cv::Vec3f(seen[0] / own[0], seen[1] / own[1], seen[2] / own[2]);
  }
}

// From the start position's empty squares, where no piece can lean over them: the shadow's
// colour over the lit square's, per channel (0 when too few pixels there look shadowed), how
// much brighter than their square the pixels get, and the squares' own colours.
void learn_empty_squares(const cv::Mat& warped_bgr, const SquareSampling& plan,
                         calibration::BoardLooks& looks) {
  const WarpPixels pixels(warped_bgr);
  const std::array<cv::Vec3f, 64> corner_colour = corner_colours(pixels, plan);
  learn_square_colours(corner_colour, looks);
  std::uint64_t occupied = 0;
  for (int sq = 0; sq < 64; ++sq) {
    if (start_occupied(sq)) occupied |= std::uint64_t{1} << sq;
  }
  std::array<std::vector<float>, 3> ratios;
  std::vector<float> brighter;
  for (size_t sq = 16; sq < 48; ++sq) {
    const cv::Vec3f& square = corner_colour[sq];
    if (std::min({square[0], square[1], square[2]}) < 8.0f) continue;
    const float square_luma = luma(square);
    const std::vector<int>& region = plan.base[sq];
    for (size_t i = 0; i < region.size(); ++i) {
      if ((plan.base_reached_from[sq][i] & occupied) != 0) continue;
      const cv::Vec3f p = pixels[region[i]];
      brighter.push_back(luma(p) - square_luma);
      const float ratio = luma(p) / square_luma;
      if (ratio > kShadowLearnLightest || ratio < kShadowLearnDarkest) continue;
      for (int c = 0; c < 3; ++c) ratios[static_cast<size_t>(c)].push_back(p[c] / square[c]);
    }
  }
  if (brighter.size() >= kShadowLearnPixels) {
    const auto high =
        brighter.begin() + static_cast<long>(kBrightQuantile * static_cast<float>(brighter.size()));
    std::nth_element(brighter.begin(), high, brighter.end());
    looks.bright_margin = std::max(kBrightMarginFloor, kBrightMarginScale * *high);
  }
  if (ratios[0].size() < kShadowLearnPixels) return;
  for (int c = 0; c < 3; ++c) {
    std::vector<float>& r = ratios[static_cast<size_t>(c)];
    const auto middle = r.begin() + static_cast<long>(r.size() / 2);
    std::nth_element(r.begin(), middle, r.end());
    looks.shadow_ratio[c] = *middle;
  }
}

// How many squares read occupied or empty as in the start position.
int start_squares_read(const calibration::BoardAppearance& seen) {
  int right = 0;
  for (int sq = 0; sq < 64; ++sq) {
    const bool occupied =
        seen.squares[static_cast<size_t>(sq)].piece_fraction > kSamplingPieceFraction;
    right += occupied == start_occupied(sq) ? 1 : 0;
  }
  return right;
}

// The board's looks from one frame of the start position; nullopt when the frame does not
// show it.
std::optional<calibration::BoardLooks> learn_board(const cv::Mat& warped_bgr,
                                                   const SquareSampling& plan) {
  // Is it the start position? Read by the fixed rules.
  const int agreeing = start_squares_read(measure_board(warped_bgr, plan));
  if (agreeing < kStartSquaresAgreeing) return std::nullopt;

  calibration::BoardLooks learnt;
  learnt.learned = true;
  learn_empty_squares(warped_bgr, plan, learnt);
  // The shadow's colour and the squares' brightness each help only where they do not hide
  // pieces too (a white piece's shaded side is its square's colour in shadow where the two
  // are alike): of the readings with and without each, the one that reads the start position
  // best is kept, the fuller one on a tie.
  calibration::BoardLooks looks = learnt;
  calibration::BoardAppearance seen = measure_board(warped_bgr, plan, looks);
  int best = start_squares_read(seen);
  for (const int without : {1, 2, 3}) {
    calibration::BoardLooks candidate = learnt;
    if ((without & 1) != 0) candidate.shadow_ratio = cv::Vec3f(0, 0, 0);
    if ((without & 2) != 0) candidate.bright_margin = 0;
    calibration::BoardAppearance read = measure_board(warped_bgr, plan, candidate);
    const int right = start_squares_read(read);
    if (right > best) {
      best = right;
      looks = candidate;
      seen = read;
    }
  }
  // Per piece colour (white 0, black 1) and square colour (light 0, dark 1).
  std::array<std::array<std::vector<cv::Vec3f>, 2>, 2> pieces;
  float empty_solid = 0, piece_solid = 1;
  for (int sq = 0; sq < 64; ++sq) {
    const calibration::SquareAppearance& s = seen.squares[static_cast<size_t>(sq)];
    // Squares whose corners or colours say something covers them tell nothing of the shares.
    const bool covered =
        s.corner_deviation > kLearnCoveredCorners || s.foreign_fraction > kLearnForeign;
    if (!start_occupied(sq)) {
      if (!covered) empty_solid = std::max(empty_solid, s.solid_fraction);
      continue;
    }
    if (!covered) piece_solid = std::min(piece_solid, s.solid_fraction);
    if (s.piece_fraction <= kSamplingPieceFraction) continue;
    const bool even = (sq / 8 + sq % 8) % 2 == 0;
    const bool dark_square = even == seen.a1_is_dark;
    pieces[start_white(sq) ? 0 : 1][dark_square ? 1 : 0].push_back(s.piece_bgr);
  }
  for (const auto& by_square : pieces) {
    for (const std::vector<cv::Vec3f>& colours : by_square) {
      if (colours.size() < static_cast<size_t>(kLearnSquaresPerClass)) return std::nullopt;
    }
  }
  looks.white_on_light = channel_median(pieces[0][0]);
  looks.white_on_dark = channel_median(pieces[0][1]);
  looks.black_on_light = channel_median(pieces[1][0]);
  looks.black_on_dark = channel_median(pieces[1][1]);
  // Black pieces darker than white ones on both square colours, or the rows are not what the
  // orientation says.
  if (luma(looks.white_on_light) <= luma(looks.black_on_light) ||
      luma(looks.white_on_dark) <= luma(looks.black_on_dark))
    return std::nullopt;
  looks.shadow_rank_side = shadow_rank_side(warped_bgr, plan.square_px, seen.a1_is_dark);
  // Between the most an empty square showed and the least a piece did, when they part well.
  if (piece_solid > kSolidShareParting * std::max(empty_solid, kSolidShareFloor)) {
    looks.solid_share = std::clamp(std::sqrt(std::max(empty_solid, kSolidShareFloor) * piece_solid),
                                   kSolidShareFloor, kSolidShareCeiling);
  }
  return looks;
}

}  // namespace

int shadow_rank_side(const cv::Mat& warped_bgr, int square_px, bool a1_is_dark) {
  if (warped_bgr.type() != CV_8UC3 || square_px < 4 || warped_bgr.cols != 8 * square_px ||
      warped_bgr.rows != 8 * square_px) {
    throw std::invalid_argument("shadow_rank_side: needs an 8-bit BGR view of 8 x " +
                                std::to_string(square_px) + " pixels a side");
  }
  cv::Mat gray;
  cv::cvtColor(warped_bgr, gray, cv::COLOR_BGR2GRAY);
  // Mean luma of the middle half of the light squares of a rank (0-based).
  const auto light_rank_luma = [&](int rank) {
    double sum = 0.0;
    int squares = 0;
    for (int file = 0; file < 8; ++file) {
      if (((file + rank) % 2 == 0) == a1_is_dark) continue;  // a square of a1's colour
      const cv::Rect middle(file * square_px + square_px / 4,
                            (7 - rank) * square_px + square_px / 4, square_px / 2, square_px / 2);
      sum += cv::mean(gray(middle))[0];
      ++squares;
    }
    return sum / squares;
  };
  const double rank_3 = light_rank_luma(2), rank_4 = light_rank_luma(3);
  const double rank_5 = light_rank_luma(4), rank_6 = light_rank_luma(5);
  // Each outer rank against the darker of ranks 4 and 5 and of the line through them, so that
  // neither light falling off across the board nor a shadow over one middle rank makes a
  // side; both outer ranks darker (a hot spot in the middle) is none either.
  const double middle = std::min(rank_4, rank_5);
  const bool rank_6_shaded = rank_6 < std::min(middle, 2 * rank_5 - rank_4) - kShadowLumaDrop;
  const bool rank_3_shaded = rank_3 < std::min(middle, 2 * rank_4 - rank_5) - kShadowLumaDrop;
  if (rank_6_shaded == rank_3_shaded) return 0;
  return rank_6_shaded ? 1 : -1;
}

int shadow_file_side(const cv::Mat& frame_bgr, const calibration::Board& board,
                     const Viewpoint& view, int square_px) {
  if (frame_bgr.type() != CV_8UC3 || square_px < 4) {
    throw std::invalid_argument("shadow_file_side: needs an 8-bit BGR frame, 4 pixels a square");
  }
  // The strips, in board units (squares) from the a-file's edge and from rank 1's.
  constexpr double kStripNear = 0.1, kStripFar = 0.4;
  // Both strips in the frame, or neither is read (rare: boards are framed with room around).
  const cv::Rect frame(0, 0, frame_bgr.cols, frame_bgr.rows);
  for (const double x : {-kStripFar, 8 + kStripFar}) {
    for (const double y : {0.0, 8.0}) {
      const cv::Point2d seen = board.to_image({x, y});
      if (!frame.contains(cv::Point(static_cast<int>(std::floor(seen.x)),
                                    static_cast<int>(std::floor(seen.y))))) {
        return 0;
      }
    }
  }
  // A view of the board and half a square around it: board x = -0.5 + 9/8 x' for the warp's
  // own x' (0 to 8), the same for y.
  const cv::Matx33d padded(9.0 / 8, 0, -0.5, 0, 9.0 / 8, -0.5, 0, 0, 1);
  cv::Mat gray;
  cv::cvtColor(
      calibration::warp_board(frame_bgr, board.board_to_image * padded, square_px, board.lens),
      gray, cv::COLOR_BGR2GRAY);
  const double unit = 8.0 * square_px / 9.0;  // pixels per square
  // Mean luma over board x in [x0, x1], y in [y0, y1] (the warp's rows run from rank 8 down).
  const auto mean_luma = [&](double x0, double x1, double y0, double y1) {
    const cv::Rect area(cv::Point(static_cast<int>(std::lround((x0 + 0.5) * unit)),
                                  static_cast<int>(std::lround((8.5 - y1) * unit))),
                        cv::Point(static_cast<int>(std::lround((x1 + 0.5) * unit)),
                                  static_cast<int>(std::lround((8.5 - y0) * unit))));
    return cv::mean(gray(area & cv::Rect(0, 0, gray.cols, gray.rows)))[0];
  };
  // Whether a piece as tall as the tallest on the corner squares by the strip (file centre
  // `file_x`) would lean over it (its body could be what darkens the strip: rooks are shorter,
  // so this errs towards not reading). Then the other side decides alone: common, as a
  // camera between the boards sees both outer sides so.
  const auto leaned_over = [&](double file_x, double outward) {
    for (const double rank_y : {0.5, 7.5}) {
      const double reach = outward * view.lean({file_x, rank_y}, kTallestPiece).x;
      if (reach > 0.5 - kBodyRadius + kStripNear) return true;
    }
    return false;
  };
  const auto shaded = [&](double x0, double x1) {
    const double middle = mean_luma(x0, x1, 2.5, 5.5);
    return mean_luma(x0, x1, 0.1, 1.9) < middle - kShadowLumaDrop &&
           mean_luma(x0, x1, 6.1, 7.9) < middle - kShadowLumaDrop;
  };
  const bool a_side = !leaned_over(0.5, -1.0) && shaded(-kStripFar, -kStripNear);
  const bool h_side = !leaned_over(7.5, 1.0) && shaded(8 + kStripNear, 8 + kStripFar);
  if (a_side == h_side) return 0;
  return a_side ? 1 : -1;
}

int learn_looks(const cv::Mat& frame_bgr, calibration::Calibration& calibration, int square_px) {
  const std::vector<Viewpoint> views = estimate_viewpoints(calibration);
  int learnt = 0;
  for (size_t i = 0; i < calibration.boards.size() && i < views.size(); ++i) {
    calibration::Board& board = calibration.boards[i];
    const cv::Mat warped =
        calibration::warp_board(frame_bgr, board.board_to_image, square_px, board.lens);
    if (const std::optional<calibration::BoardLooks> looks =
            learn_board(warped, plan_sampling(views[i], square_px))) {
      board.looks = *looks;
      board.looks.shadow_file_side = shadow_file_side(frame_bgr, board, views[i], square_px);
      ++learnt;
    }
  }
  return learnt;
}

}  // namespace bugcam::vision
