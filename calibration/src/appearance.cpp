// The top-down warp of a board and what each of its squares looks like against the board's
// own colours. Used by calibration (White's edge from the pieces) and by vision (per frame).
#include <algorithm>
#include <array>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "bugcam/calibration.hpp"

namespace bugcam::calibration {

namespace {

// Pixels in the four corners of a square, where a piece standing on its centre rarely
// reaches: they show the square's own colour.
template <typename Visit>
void for_each_corner_pixel(const cv::Mat& warped, int file, int row, int square_px, Visit visit) {
  const int patch = std::max(2, square_px / 5);
  const int x0 = file * square_px;
  const int y0 = row * square_px;
  for (const int cy : {y0, y0 + square_px - patch}) {
    for (const int cx : {x0, x0 + square_px - patch}) {
      for (int y = cy; y < cy + patch; ++y) {
        const cv::Vec3f* line = warped.ptr<cv::Vec3f>(y);
        for (int x = cx; x < cx + patch; ++x) visit(line[x]);
      }
    }
  }
}

}  // namespace

cv::Vec3f channel_median(std::vector<cv::Vec3f>& colours) {
  cv::Vec3f result(0, 0, 0);
  if (colours.empty()) return result;
  std::vector<float> channel(colours.size());
  for (int c = 0; c < 3; ++c) {
    for (size_t i = 0; i < colours.size(); ++i) channel[i] = colours[i][c];
    const auto middle = channel.begin() + static_cast<long>(channel.size() / 2);
    std::nth_element(channel.begin(), middle, channel.end());
    result[c] = *middle;
  }
  return result;
}

void agree_square_colours(BoardLooks& looks, const std::vector<const BoardLooks*>& seen) {
  if (!looks.learned) {
    looks.empty_square_ratio = {};
    return;
  }
  size_t learnt = 0;
  for (const BoardLooks* other : seen) learnt += other->learned ? 1 : 0;
  std::vector<cv::Vec3f> ratios;
  for (size_t sq = 0; sq < 64; ++sq) {
    ratios.clear();
    for (const BoardLooks* other : seen) {
      if (other->learned && other->empty_square_ratio[sq] != cv::Vec3f(0, 0, 0)) {
        ratios.push_back(other->empty_square_ratio[sq]);
      }
    }
    looks.empty_square_ratio[sq] =
        2 * ratios.size() > learnt ? channel_median(ratios) : cv::Vec3f(0, 0, 0);
  }
}

void agree_shadow_sides(BoardLooks& looks, const std::vector<const BoardLooks*>& seen) {
  // Either side, as more than half of the frames that learnt looks saw it, else 0.
  const auto agreed = [&](int BoardLooks::*side) {
    if (!looks.learned) return 0;
    std::array<size_t, 3> votes{};  // sides -1, 0, 1
    size_t learnt = 0;
    for (const BoardLooks* other : seen) {
      if (!other->learned) continue;
      ++learnt;
      ++votes[static_cast<size_t>(other->*side + 1)];
    }
    for (const int s : {-1, 1}) {
      if (2 * votes[static_cast<size_t>(s + 1)] > learnt) return s;
    }
    return 0;
  };
  looks.shadow_rank_side = agreed(&BoardLooks::shadow_rank_side);
  looks.shadow_file_side = agreed(&BoardLooks::shadow_file_side);
}

cv::Mat warp_board(const cv::Mat& frame_bgr, const cv::Matx33d& board_to_image, int square_px,
                   const RadialLens& lens) {
  if (lens.k1 != 0.0) return BoardWarp(board_to_image, square_px, lens)(frame_bgr);
  const double s = square_px;
  // Warp pixel centre (c + 0.5, r + 0.5) is board point ((c + 0.5) / s, 8 - (r + 0.5) / s).
  const cv::Matx33d warp_to_board(1 / s, 0, 0.5 / s, 0, -1 / s, 8 - 0.5 / s, 0, 0, 1);
  const cv::Matx33d warp_to_image = board_to_image * warp_to_board;
  cv::Mat warped;
  cv::warpPerspective(frame_bgr, warped, cv::Mat(warp_to_image),
                      cv::Size(8 * square_px, 8 * square_px),
                      cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_REPLICATE);
  return warped;
}

BoardWarp::BoardWarp(const cv::Matx33d& board_to_image, int square_px, const RadialLens& lens) {
  const double s = square_px;
  const cv::Matx33d warp_to_board(1 / s, 0, 0.5 / s, 0, -1 / s, 8 - 0.5 / s, 0, 0, 1);
  const cv::Matx33d m = board_to_image * warp_to_board;
  const int side = 8 * square_px;
  source_xy_.create(side, side, CV_16SC2);
  source_frac_.create(side, side, CV_16UC1);
  // Fixed point with cv::INTER_TAB_SIZE steps per pixel, as cv::remap takes it.
  constexpr int kSteps = cv::INTER_TAB_SIZE;
  constexpr int kMask = kSteps - 1;
  for (int y = 0; y < side; ++y) {
    auto* xy = source_xy_.ptr<cv::Vec2s>(y);
    auto* frac = source_frac_.ptr<ushort>(y);
    for (int x = 0; x < side; ++x) {
      const double w = m(2, 0) * x + m(2, 1) * y + m(2, 2);
      const double wx = m(0, 0) * x + m(0, 1) * y + m(0, 2);
      const double wy = m(1, 0) * x + m(1, 1) * y + m(1, 2);
      int fx = 0;
      int fy = 0;
      if (lens.k1 == 0.0) {
        const double scale = w != 0 ? kSteps / w : 0;
        fx = cv::saturate_cast<int>(wx * scale);
        fy = cv::saturate_cast<int>(wy * scale);
      } else if (w != 0) {
        // A sample point the lens cannot place (none in a frame) reads the corner, as one
        // behind the camera does without a lens.
        const cv::Point2d seen = lens.to_seen({wx / w, wy / w});
        if (std::isfinite(seen.x) && std::isfinite(seen.y)) {
          fx = cv::saturate_cast<int>(seen.x * kSteps);
          fy = cv::saturate_cast<int>(seen.y * kSteps);
        }
      }
      xy[x] = cv::Vec2s(cv::saturate_cast<short>(fx >> cv::INTER_BITS),
                        cv::saturate_cast<short>(fy >> cv::INTER_BITS));
      frac[x] = static_cast<ushort>((fy & kMask) * kSteps + (fx & kMask));
    }
  }
}

cv::Mat BoardWarp::operator()(const cv::Mat& frame_bgr) const {
  cv::Mat warped;
  cv::remap(frame_bgr, warped, source_xy_, source_frac_, cv::INTER_LINEAR, cv::BORDER_REPLICATE);
  return warped;
}

float set_board_colours(const std::array<cv::Vec3f, 64>& corner_colour,
                        BoardAppearance& appearance) {
  std::array<std::vector<cv::Vec3f>, 2> by_parity;
  for (int sq = 0; sq < 64; ++sq) {
    by_parity[static_cast<size_t>((sq / 8 + sq % 8) % 2)].push_back(
        corner_colour[static_cast<size_t>(sq)]);
  }
  const cv::Vec3f even = channel_median(by_parity[0]);  // the colour of a1's parity
  const cv::Vec3f odd = channel_median(by_parity[1]);
  appearance.a1_is_dark = luma(even) <= luma(odd);
  appearance.dark_bgr = appearance.a1_is_dark ? even : odd;
  appearance.light_bgr = appearance.a1_is_dark ? odd : even;
  appearance.dark_luma = luma(appearance.dark_bgr);
  appearance.light_luma = luma(appearance.light_bgr);
  const float contrast = colour_distance(appearance.light_bgr, appearance.dark_bgr);
  return std::max(28.0f, 0.25f * contrast);
}

BoardAppearance measure_board(const cv::Mat& warped_bgr, int square_px) {
  cv::Mat warped;
  warped_bgr.convertTo(warped, CV_32FC3);
  BoardAppearance result;

  // Each square's own colour from its corners (row 0 of the warp is rank 8).
  std::array<cv::Vec3f, 64> corner_colour{};
  std::vector<cv::Vec3f> pixels;
  for (int rank = 0; rank < 8; ++rank) {
    for (int file = 0; file < 8; ++file) {
      pixels.clear();
      for_each_corner_pixel(warped, file, 7 - rank, square_px,
                            [&](const cv::Vec3f& p) { pixels.push_back(p); });
      corner_colour[static_cast<size_t>(rank * 8 + file)] = channel_median(pixels);
    }
  }
  const float threshold = set_board_colours(corner_colour, result);
  const cv::Vec3f even = result.a1_is_dark ? result.dark_bgr : result.light_bgr;  // a1's parity
  const cv::Vec3f odd = result.a1_is_dark ? result.light_bgr : result.dark_bgr;
  const float dark_limit = 0.6f * std::min(result.dark_luma, result.light_luma);
  const float midpoint = 0.5f * (result.dark_luma + result.light_luma);

  const float radius = 0.36f * static_cast<float>(square_px);
  const float centre = 0.5f * static_cast<float>(square_px) - 0.5f;
  for (int rank = 0; rank < 8; ++rank) {
    for (int file = 0; file < 8; ++file) {
      const int sq = rank * 8 + file;
      const bool even_parity = (rank + file) % 2 == 0;
      const cv::Vec3f global = even_parity ? even : odd;
      const cv::Vec3f other = even_parity ? odd : even;
      // The local colour of this parity, from this square's own corners (weighted as much as
      // its four diagonal neighbours together), which follows uneven light and shadows.
      std::vector<cv::Vec3f> local;
      for (int dr = -1; dr <= 1; dr += 2) {
        for (int df = -1; df <= 1; df += 2) {
          const int r = rank + dr;
          const int f = file + df;
          if (r >= 0 && r < 8 && f >= 0 && f < 8) local.push_back(corner_colour[r * 8 + f]);
        }
      }
      local.push_back(corner_colour[static_cast<size_t>(sq)]);
      local.push_back(corner_colour[static_cast<size_t>(sq)]);
      local.push_back(corner_colour[static_cast<size_t>(sq)]);
      local.push_back(corner_colour[static_cast<size_t>(sq)]);
      const cv::Vec3f background = channel_median(local);

      SquareAppearance& out = result.squares[static_cast<size_t>(sq)];
      const int x0 = file * square_px;
      const int y0 = (7 - rank) * square_px;
      int disk = 0, differing = 0, dark = 0, bright = 0, all = 0, foreign = 0;
      double differing_luma = 0;
      for (int y = 0; y < square_px; ++y) {
        const cv::Vec3f* line = warped.ptr<cv::Vec3f>(y0 + y);
        for (int x = 0; x < square_px; ++x) {
          const cv::Vec3f& p = line[x0 + x];
          ++all;
          const float far_global = std::min(colour_distance(p, global), colour_distance(p, other));
          const float max_c = std::max({p[0], p[1], p[2]});
          const float min_c = std::min({p[0], p[1], p[2]});
          const float saturation = max_c > 1 ? (max_c - min_c) / max_c : 0;
          const float l = luma(p);
          // Pieces are nearly grey (white, black, wood is the exception); board colours are
          // known; a saturated colour that is neither is skin, a sleeve, a glove.
          if (far_global > 1.5f * threshold && saturation > 0.3f && l > dark_limit) ++foreign;
          const float dx = static_cast<float>(x) - centre;
          const float dy = static_cast<float>(y) - centre;
          if (dx * dx + dy * dy > radius * radius) continue;
          ++disk;
          if (colour_distance(p, background) > threshold) {
            ++differing;
            differing_luma += l;
            if (l > midpoint) ++bright;
          }
          if (l < dark_limit) ++dark;
        }
      }
      int corner_pixels = 0, corner_differing = 0;
      for_each_corner_pixel(warped, file, 7 - rank, square_px, [&](const cv::Vec3f& p) {
        ++corner_pixels;
        if (colour_distance(p, global) > 1.5f * threshold) ++corner_differing;
      });
      out.piece_fraction = static_cast<float>(differing) / static_cast<float>(std::max(disk, 1));
      out.piece_luma =
          differing > 0 ? static_cast<float>(differing_luma / differing) : luma(background);
      out.dark_fraction = static_cast<float>(dark) / static_cast<float>(std::max(disk, 1));
      out.bright_fraction = static_cast<float>(bright) / static_cast<float>(std::max(disk, 1));
      out.corner_deviation =
          static_cast<float>(corner_differing) / static_cast<float>(std::max(corner_pixels, 1));
      out.foreign_fraction = static_cast<float>(foreign) / static_cast<float>(std::max(all, 1));
    }
  }
  return result;
}

}  // namespace bugcam::calibration
