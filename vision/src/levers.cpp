// Clock levers: read_clock on one frame; over a video, LeverReader learns each lever's two
// positions and reads by them, gated by whether something covers the clock.
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"

namespace bugcam::vision {

namespace {

// A polygon of the image as a mask over its box (the box clipped to the image; empty box when
// the polygon lies outside or has fewer than three corners).
struct PolygonMask {
  cv::Rect box;
  cv::Mat mask;  // CV_8U, box-sized
};

PolygonMask polygon_mask(const cv::Mat& frame_bgr, const std::vector<cv::Point2d>& polygon) {
  PolygonMask out;
  std::vector<cv::Point> points;
  for (const cv::Point2d& p : polygon) points.emplace_back(cvRound(p.x), cvRound(p.y));
  if (points.size() < 3) return out;
  out.box = cv::boundingRect(points) & cv::Rect(0, 0, frame_bgr.cols, frame_bgr.rows);
  if (out.box.area() <= 0) return out;
  out.mask = cv::Mat(out.box.size(), CV_8U, cv::Scalar(0));
  for (cv::Point& p : points) p -= out.box.tl();
  cv::fillConvexPoly(out.mask, points, cv::Scalar(255));
  return out;
}

// The pixels inside a polygon of the image, as BGR values.
std::vector<cv::Vec3b> polygon_pixels(const cv::Mat& frame_bgr,
                                      const std::vector<cv::Point2d>& polygon) {
  std::vector<cv::Vec3b> pixels;
  const PolygonMask inside = polygon_mask(frame_bgr, polygon);
  if (inside.box.area() <= 0) return pixels;
  for (int y = 0; y < inside.box.height; ++y) {
    const cv::Vec3b* line = frame_bgr.ptr<cv::Vec3b>(inside.box.y + y) + inside.box.x;
    const uchar* m = inside.mask.ptr<uchar>(y);
    for (int x = 0; x < inside.box.width; ++x) {
      if (m[x] != 0) pixels.push_back(line[x]);
    }
  }
  return pixels;
}

// A colour's bin in a histogram of `bin_width` levels per channel.
int colour_bin(const cv::Vec3b& p, int bin_width) {
  const int levels = 256 / bin_width;
  return (p[0] / bin_width) * levels * levels + (p[1] / bin_width) * levels + p[2] / bin_width;
}

// Colours of what lies just around the clock's area (the table, a board's frame), in bins of
// kSurroundBin levels per channel, each bin widened by one to its neighbours. The area's
// corners are found beside the clock's top, so on a tilted view it takes in some table and
// some of the clock's sides; a bright table there is not the lever.
constexpr int kSurroundBin = 16;
constexpr int kSurroundLevels = 256 / kSurroundBin;
// The ring between the area grown by these factors about its centre.
constexpr double kRingInner = 1.08;
constexpr double kRingOuter = 1.4;
// A colour bin counts as the surroundings' when this share of the ring shows it.
constexpr double kSurroundShare = 0.03;

std::vector<bool> surround_colours(const cv::Mat& frame_bgr,
                                   const std::vector<cv::Point2d>& region) {
  std::vector<bool> common(kSurroundLevels * kSurroundLevels * kSurroundLevels, false);
  if (region.size() < 3) return common;
  cv::Point2d centre(0, 0);
  for (const cv::Point2d& p : region) centre += p;
  centre *= 1.0 / static_cast<double>(region.size());
  const auto grown = [&](double factor) {
    std::vector<cv::Point2d> out;
    for (const cv::Point2d& p : region) out.push_back(centre + (p - centre) * factor);
    return out;
  };
  // The ring's pixels, every other row and column of them (the table's colours are broad).
  PolygonMask ring = polygon_mask(frame_bgr, grown(kRingOuter));
  if (ring.box.area() <= 0) return common;
  const cv::Rect& box = ring.box;
  std::vector<cv::Point> inner;
  for (const cv::Point2d& p : grown(kRingInner)) {
    inner.emplace_back(cvRound(p.x) - box.x, cvRound(p.y) - box.y);
  }
  cv::fillConvexPoly(ring.mask, inner, cv::Scalar(0));
  std::vector<int> frequency(common.size(), 0);
  int ring_pixels = 0;
  for (int y = 0; y < box.height; y += 2) {
    const cv::Vec3b* line = frame_bgr.ptr<cv::Vec3b>(box.y + y) + box.x;
    const uchar* in_ring = ring.mask.ptr<uchar>(y);
    for (int x = 0; x < box.width; x += 2) {
      if (in_ring[x] == 0) continue;
      ++frequency[static_cast<std::size_t>(colour_bin(line[x], kSurroundBin))];
      ++ring_pixels;
    }
  }
  if (ring_pixels == 0) return common;
  const double ring_size = ring_pixels;
  for (int b = 0; b < kSurroundLevels; ++b) {
    for (int g = 0; g < kSurroundLevels; ++g) {
      for (int r = 0; r < kSurroundLevels; ++r) {
        const int bin = (b * kSurroundLevels + g) * kSurroundLevels + r;
        if (frequency[static_cast<std::size_t>(bin)] < kSurroundShare * ring_size) continue;
        for (int db = std::max(0, b - 1); db <= std::min(kSurroundLevels - 1, b + 1); ++db) {
          for (int dg = std::max(0, g - 1); dg <= std::min(kSurroundLevels - 1, g + 1); ++dg) {
            for (int dr = std::max(0, r - 1); dr <= std::min(kSurroundLevels - 1, r + 1); ++dr) {
              common[static_cast<std::size_t>((db * kSurroundLevels + dg) * kSurroundLevels + dr)] =
                  true;
            }
          }
        }
      }
    }
  }
  return common;
}

// Yellow to orange: an LCD clock's lever, deep or, in strong light, pale (peach, its blue
// only 35-60 levels below its green; then its green is at least 3/4 of its red, where a brown
// body's is less).
bool yellow_lever_colour(const cv::Vec3b& p) {
  const int blue = p[0], green = p[1], red = p[2];
  return red > 140 && green > 110 && red >= green &&
         (green - blue > 60 || (green - blue > 35 && 4 * green >= 3 * red));
}

// Much brighter than what the clock's area mostly shows (body, table), whatever the lever's
// colour: `above` levels over `reference_luma`. The display's lit digits are saturated red and
// left out.
constexpr float kAboveBackgroundLuma = 55.0f;
bool bright_lever_colour(const cv::Vec3b& p, float reference_luma,
                         float above = kAboveBackgroundLuma) {
  const float bright = std::max(140.0f, reference_luma + above);
  return calibration::luma(p) >= bright && p[2] - p[1] <= 90;
}

// Over the brighter part of the clock's area (the upper quartile: a pale body beside a dark
// display), a white lever on a light body shows by this much.
constexpr float kAboveBodyLuma = 35.0f;

bool surroundings_colour(const cv::Vec3b& p, const std::vector<bool>& surroundings) {
  return surroundings[static_cast<std::size_t>(colour_bin(p, kSurroundBin))];
}

// The luma below which `share` of some lumas lie (0.5: the median, what a clock's area mostly
// shows: body, table); none: 0. Reorders them.
float luma_quantile(std::vector<float>& lumas, double share) {
  if (lumas.empty()) return 0.0f;
  const std::size_t index =
      std::min(lumas.size() - 1, static_cast<std::size_t>(share * double(lumas.size())));
  const auto at = lumas.begin() + static_cast<std::ptrdiff_t>(index);
  std::nth_element(lumas.begin(), at, lumas.end());
  return *at;
}

// Pixels of the lever: bright or yellow (above), and not of the surroundings' colours.
int lever_pixels(const std::vector<cv::Vec3b>& pixels, float background_luma,
                 const std::vector<bool>& surroundings) {
  int count = 0;
  for (const cv::Vec3b& p : pixels) {
    if ((yellow_lever_colour(p) || bright_lever_colour(p, background_luma)) &&
        !surroundings_colour(p, surroundings)) {
      ++count;
    }
  }
  return count;
}

// The first reading: lever pixels much brighter than most of the clock's area (body, table)
// or yellow to orange, and unlike the table around it, counted per half; the raised end shows more
// of them. Reads unknown where the lever is not that bright (grey on a light clock, a light display
// beside it).
// Lever pixels (lever_pixels) in each half of the clock's area; nullopt when too few show
// to say anything (a hand over the clock, a clock out of view, a lever not that bright).
struct LeverEnds {
  int white_end = 0;
  int black_end = 0;
  // From -1 (all at the black end) to 1 (all at the white end).
  double balance() const { return double(white_end - black_end) / (white_end + black_end); }
};
constexpr int kFewestLeverPixels = 20;

std::optional<LeverEnds> bright_lever_ends(const cv::Mat& frame_bgr,
                                           const calibration::Clock& clock) {
  const std::vector<cv::Vec3b> white_half = polygon_pixels(frame_bgr, clock.white_lever);
  const std::vector<cv::Vec3b> black_half = polygon_pixels(frame_bgr, clock.black_lever);
  std::vector<float> lumas;
  lumas.reserve(white_half.size() + black_half.size());
  for (const cv::Vec3b& p : white_half) lumas.push_back(calibration::luma(p));
  for (const cv::Vec3b& p : black_half) lumas.push_back(calibration::luma(p));
  if (lumas.empty()) return std::nullopt;
  const float background = luma_quantile(lumas, 0.5);
  const std::vector<bool> surroundings = surround_colours(frame_bgr, clock.region);
  LeverEnds ends;
  ends.white_end = lever_pixels(white_half, background, surroundings);
  ends.black_end = lever_pixels(black_half, background, surroundings);
  if (ends.white_end + ends.black_end < kFewestLeverPixels) return std::nullopt;
  return ends;
}

ClockObservation bright_lever_reading(const cv::Mat& frame_bgr, const calibration::Clock& clock) {
  ClockObservation result;
  result.board = clock.board;
  const std::optional<LeverEnds> ends = bright_lever_ends(frame_bgr, clock);
  if (!ends) return result;
  const double balance = ends->balance();
  if (std::abs(balance) < 0.2) return result;
  // The raised end shows more lever; the pressed side is the other one.
  result.lever_down = balance > 0 ? Lever::kBlack : Lever::kWhite;
  result.confidence = static_cast<float>(std::min(1.0, std::abs(balance)));
  return result;
}

// Each half of the clock's area warped to this many pixels across (along the clock's width)
// by this many rows (from the outer end of the half to the clock's middle): pixel (row,
// column) of one half and the same pixel of the other are mirror images of each other
// across the middle.
constexpr int kHalfColumns = 48;
constexpr int kHalfRows = 32;
// Colours at least this far apart (BGR distance) differ.
constexpr float kDifferentColour = 40.0f;
// Colour frequencies are counted in bins of this many levels per channel.
constexpr int kColourBin = 32;
// Fewer differing pixels than this share of a half: the halves look alike (no lever seen).
constexpr double kMinDifferingShare = 0.004;
// A side needs this much more rarity (relative) to be called the raised end.
constexpr double kMinBalance = 0.15;

// One half of the clock's area, `outer` and `middle` being its two edges (two corners each,
// in the order of the clock's width).
cv::Mat warp_half(const cv::Mat& frame_bgr, cv::Point2d outer0, cv::Point2d outer1,
                  cv::Point2d middle1, cv::Point2d middle0) {
  const std::vector<cv::Point2f> from{cv::Point2f(outer0), cv::Point2f(outer1),
                                      cv::Point2f(middle1), cv::Point2f(middle0)};
  const float w = kHalfColumns;
  const float h = kHalfRows;
  const std::vector<cv::Point2f> to{{0, 0}, {w, 0}, {w, h}, {0, h}};
  cv::Mat half;
  cv::warpPerspective(frame_bgr, half, cv::getPerspectiveTransform(from, to),
                      cv::Size(kHalfColumns, kHalfRows), cv::INTER_AREA, cv::BORDER_CONSTANT,
                      cv::Scalar(0, 0, 0));
  return half;
}

// The lever is a bar along the clock, tilted about its middle; beside the display only its
// raised end shows much of it, the lowered end dipping out of sight (the bar shows as a
// wedge, wide at the raised end). So the two halves of the clock's area, mirrored onto each
// other across the middle, look alike (body, display, table) except where the wedge is
// wide: there one half shows the lever and the other what lies beside or below it. The
// lever is the rarer colour of the two, whatever its colour: a thin bar covers little of
// the area, body, display and table much. The display's digits differ between the halves
// too, but on both sides alike.
ClockObservation mirrored_lever_reading(const cv::Mat& frame_bgr, const calibration::Clock& clock) {
  ClockObservation result;
  result.board = clock.board;
  if (clock.white_lever.size() != 4 || clock.black_lever.size() != 4) return result;
  const std::vector<cv::Point2d>& w = clock.white_lever;  // outer end first
  const std::vector<cv::Point2d>& b = clock.black_lever;  // middle first
  const cv::Mat white_half = warp_half(frame_bgr, w[0], w[1], w[2], w[3]);
  const cv::Mat black_half = warp_half(frame_bgr, b[3], b[2], b[1], b[0]);
  constexpr int levels = 256 / kColourBin;
  std::vector<int> frequency(levels * levels * levels, 0);
  int total = 0;
  for (const cv::Mat* half : {&white_half, &black_half}) {
    for (int y = 0; y < half->rows; ++y) {
      const cv::Vec3b* line = half->ptr<cv::Vec3b>(y);
      for (int x = 0; x < half->cols; ++x) {
        ++frequency[static_cast<std::size_t>(colour_bin(line[x], kColourBin))];
        ++total;
      }
    }
  }
  const auto rarity = [&](const cv::Vec3b& p) {
    return -std::log(
        static_cast<double>(frequency[static_cast<std::size_t>(colour_bin(p, kColourBin))]) /
        total);
  };
  // Per column (across the clock's width), how much rarer the white half's differing
  // pixels are than the black half's. The wedge is a band of a few columns, one-sided over
  // its whole length; the digits' differences are spread and of both signs.
  std::array<double, kHalfColumns> column{};
  std::array<double, kHalfColumns> column_weight{};
  int differing = 0;
  for (int y = 0; y < kHalfRows; ++y) {
    const cv::Vec3b* wl = white_half.ptr<cv::Vec3b>(y);
    const cv::Vec3b* bl = black_half.ptr<cv::Vec3b>(y);
    for (int x = 0; x < kHalfColumns; ++x) {
      const cv::Vec3f d = cv::Vec3f(wl[x]) - cv::Vec3f(bl[x]);
      if (std::sqrt(d.dot(d)) < kDifferentColour) continue;
      // Outside the image (warped black) is no evidence.
      if (wl[x] == cv::Vec3b(0, 0, 0) || bl[x] == cv::Vec3b(0, 0, 0)) continue;
      ++differing;
      const double rw = rarity(wl[x]);
      const double rb = rarity(bl[x]);
      column[static_cast<std::size_t>(x)] += rw - rb;
      column_weight[static_cast<std::size_t>(x)] += rw + rb;
    }
  }
  if (differing < kMinDifferingShare * kHalfRows * kHalfColumns) return result;
  constexpr int kBand = 4;
  double best = 0.0;
  double best_weight = 1.0;
  for (int x = 0; x + kBand <= kHalfColumns; ++x) {
    double sum = 0.0;
    double weight = 0.0;
    for (int k = x; k < x + kBand; ++k) {
      sum += column[static_cast<std::size_t>(k)];
      weight += column_weight[static_cast<std::size_t>(k)];
    }
    if (std::abs(sum) > std::abs(best)) {
      best = sum;
      best_weight = weight;
    }
  }
  const double balance = best / std::max(best_weight, 1e-9);
  if (std::abs(balance) < kMinBalance) return result;
  // The raised end shows the lever; the pressed side is the other one.
  result.lever_down = balance > 0 ? Lever::kBlack : Lever::kWhite;
  result.confidence = static_cast<float>(std::min(1.0, std::abs(balance) / (4 * kMinBalance)));
  return result;
}

}  // namespace

ClockObservation read_clock(const cv::Mat& frame_bgr, const calibration::Clock& clock) {
  // A bright or yellow lever is read by its pixels; any other by the mirrored halves.
  const ClockObservation bright = bright_lever_reading(frame_bgr, clock);
  return bright.lever_down != Lever::kUnknown ? bright : mirrored_lever_reading(frame_bgr, clock);
}

namespace {

// The clock's area is compared at this many pixels a side (it is about three squares).
constexpr int kPatchPx = 32;
// A pixel whose luma differs this much from the reference has changed.
constexpr float kChangedLuma = 40.0f;
// The clock is covered when this share of its area has changed. A lever flip changes a
// thin wedge beside the display (a few per cent); the display's digits less; a hand or an
// arm far more.
constexpr double kCoveredShare = 0.08;
// Below this share of changed area nothing touches the clock (digits, noise).
constexpr double kQuietShare = 0.015;
// The reference follows quiet frames at this rate (digits, light, a flipped lever).
constexpr double kReferenceRate = 0.3;
// Changed (not quiet) this many frames in a row without moving: the scene itself changed (the clock
// was moved, the light changed); that view becomes the reference.
constexpr int kAdoptAfterFrames = 8;
constexpr double kStillShare = 0.01;
// The halves of the clock's area are compared at this many pixels across the clock and along
// each half (White's end first): finer than kPatchPx, since one digit of the display changing
// is a small part of the area.
constexpr int kHalfAcrossPx = 48;
constexpr int kHalfAlongPx = 48;
// A pixel whose luma differs this much from the previous frame's has changed.
constexpr float kTickLuma = 30.0f;

// Where the lever shows along the clock: the mean place of its pixels in the clock's area warped
// White's end first (row 0) to Black's, as 0.5 minus its share of the way (higher: nearer
// White's end). The raised end shows more of the bar, so the mean moves towards it when the lever
// flips: on the rendered clocks by a quarter to a third of the area, wherever the area's middle
// lies against the lever's pivot (the area takes in the clock's sides and shadow, so its middle
// is often off the pivot and a count per half sees the whole lever in one half).
// The lever's pixels are either yellow ones or ones much brighter than the area's median, and
// either without the surroundings' colours or with them: four of the five measures of
// LeverPixels (the fifth below). Which
// shows the lever best depends on the clock's look: an LCD clock's pale display is as bright as
// its yellow lever (10704's clock A: the bright pixels' mean moved by 0.02 of the area where the
// yellow ones' moved by 0.26); a grey lever beside a dark display shows among the bright ones; a
// bright table inside the area is no lever, but a grey lever on a pale grey table has the
// table's colours. nullopt when fewer than kFewestPlacePixels show, or more than kMostPlaceShare of
// the area: a thin bar covers 3-8 % of it; 10706's clock A showed 41 % bright (its body and
// display), whose mean moved by 0.03 when the lever flipped. A fifth measure takes the pixels much
// brighter than the area's upper quartile, surroundings' colours kept: where a dark display
// fills most of the area, its median is the display's and the whole pale body counts as bright,
// and a white lever has a pale table's colours (11203's clock B: the other four never saw its
// second position, and the clock was read right in 20 % of frames; this one's moved by 0.39).
constexpr int kFewestPlacePixels = 40;
constexpr double kMostPlaceShare = 0.2;

// A sixth, read by only where none of the five knows both positions, takes grey to white pixels a
// little brighter than the area's upper quartile, lying in a thin band along the clock: 11679's
// clock A had a pale grey lever (luma 175-185) beside a pale grey display (150-165) with pink
// digits; the five saw no lever, the single-frame reading was right in 41 % of frames, and 17 of
// its 36 presses were missed. Without the band's test this measure took a white display's
// upper part for a lever (11671's clock A, its columns spread 0.09-0.13 of the area's width,
// the lever's 0.05-0.06), and read where another measure knew both positions it read unknown
// more often (11679's clock B, 89.9 -> 87.6 % right).
struct LeverPixels {
  bool yellow = false;                     // yellow ones, else bright ones
  bool keep_surroundings_colours = false;  // else left out
  bool above_body = false;                 // bright: above the area's upper quartile
  bool pale_bar = false;                   // the sixth measure (above), the others' fallback
};
constexpr std::array<LeverPixels, 6> kLeverPixels{{{true, false, false, false},
                                                   {false, false, false, false},
                                                   {true, true, false, false},
                                                   {false, true, false, false},
                                                   {false, true, true, false},
                                                   {false, false, false, true}}};
// The pale bar's pixels: channels at most this far apart, and this much over the upper quartile.
constexpr int kPaleBarChroma = 20;
constexpr float kPaleBarAboveBody = 15.0f;
// Its pixels' columns spread (standard deviation) at most this share of the area's width.
constexpr double kPaleBarSpread = 0.08;

bool pale_bar_colour(const cv::Vec3b& p, float body_luma) {
  const int highest = std::max({p[0], p[1], p[2]});
  const int lowest = std::min({p[0], p[1], p[2]});
  return highest - lowest <= kPaleBarChroma &&
         calibration::luma(p) >= body_luma + kPaleBarAboveBody;
}

struct LeverPlace {
  double place = 0.0;
  int pixels = 0;  // how many showed
};

std::optional<LeverPlace> lever_place(const cv::Mat& area_bgr, float background_luma,
                                      float body_luma, const std::vector<bool>& surroundings,
                                      LeverPixels which) {
  double rows = 0.0;
  double columns = 0.0;
  double columns_squared = 0.0;
  int count = 0;
  for (int y = 0; y < area_bgr.rows; ++y) {
    const cv::Vec3b* line = area_bgr.ptr<cv::Vec3b>(y);
    for (int x = 0; x < area_bgr.cols; ++x) {
      const cv::Vec3b& p = line[x];
      const bool lever = which.pale_bar     ? pale_bar_colour(p, body_luma)
                         : which.yellow     ? yellow_lever_colour(p)
                         : which.above_body ? bright_lever_colour(p, body_luma, kAboveBodyLuma)
                                            : bright_lever_colour(p, background_luma);
      if (!lever || (!which.keep_surroundings_colours && surroundings_colour(p, surroundings)))
        continue;
      rows += y + 0.5;
      columns += x + 0.5;
      columns_squared += (x + 0.5) * (x + 0.5);
      ++count;
    }
  }
  if (count < kFewestPlacePixels ||
      count > kMostPlaceShare * static_cast<double>(area_bgr.total())) {
    return std::nullopt;
  }
  if (which.pale_bar) {
    const double mean_column = columns / count;
    const double spread =
        std::sqrt(std::max(0.0, columns_squared / count - mean_column * mean_column));
    if (spread > kPaleBarSpread * area_bgr.cols) return std::nullopt;
  }
  return LeverPlace{0.5 - rows / count / area_bgr.rows, count};
}

// The lumas of an image's pixels.
std::vector<float> lumas_of(const cv::Mat& bgr) {
  std::vector<float> lumas;
  lumas.reserve(bgr.total());
  for (int y = 0; y < bgr.rows; ++y) {
    const cv::Vec3b* line = bgr.ptr<cv::Vec3b>(y);
    for (int x = 0; x < bgr.cols; ++x) lumas.push_back(calibration::luma(line[x]));
  }
  return lumas;
}

// The lever's two positions, learnt per clock from where the lever shows (lever_place) in quiet
// frames. Where the lever shows in each position depends on the clock's look (its angle in
// view, how its area lies against the pivot), but the raised white end always shows it nearer
// White's end: once both positions have been seen, each frame is read by the nearer.
// Places within this of a position's are that position; this far from it, another.
constexpr double kSamePosition = 0.06;
constexpr double kOtherPosition = 0.12;
// Once two positions have been that far apart, they stay the lever's while this far: frames in
// mid-flip, still enough to learn from, draw each towards the other (11209's clock B: its two
// positions 0.127 apart drifted to 0.118, and for 3 s the single-frame reading, wrong there, was
// taken instead).
constexpr double kKeptApart = 0.08;
// A second position is taken once seen in this many quiet frames in a row (half a second):
// a hand's shadow passing over the clock does not stay that still.
constexpr int kNewPositionFrames = 15;
// A position's look has changed when a place at most this share of its distance to the other
// position away from it holds, still, for kRelearnFrames (1.5 s: a hand resting on the clock
// long enough to join the still view, and then as long again, would be learnt).
constexpr double kRelearnShare = 0.3;
constexpr int kRelearnFrames = 45;
// A position's place follows slow changes (light) at this rate.
constexpr double kPositionRate = 0.05;
// Where a hand covers part of the lever (too little of the area to flag the clock covered),
// what still shows of it lies elsewhere: fewer lever pixels, or more (a pale hand is bright),
// than its position showed. On the bundled clip a hand over Black's raised end left 61-71 of
// the 128 pixels, the lever read pressed there before the press, and the press was timed 0.4 s
// early (by the hand's visit, the flip being read early then late). Such a reading is
// unknown; the two positions themselves show about as many (150 and 190 on 10704's clock A).
constexpr double kFewestPixelsShare = 0.75;
constexpr double kMostPixelsShare = 4.0 / 3.0;

// The observation with no side read.
ClockObservation unknown(ClockObservation observation) {
  observation.lever_down = Lever::kUnknown;
  observation.confidence = 0.0f;
  return observation;
}

struct LeverPosition {
  double place = 0.0;
  double pixels = 0.0;  // how many lever pixels it shows
  int frames = 0;
  // What the single-frame reading said in this position's frames.
  int read_white = 0;
  int read_black = 0;

  // About as many lever pixels show as in this position (not a hand over part of the lever).
  bool shows_as_many(const LeverPlace& seen) const {
    return seen.pixels >= kFewestPixelsShare * pixels && seen.pixels <= kMostPixelsShare * pixels;
  }
};

class LeverPositions {
 public:
  // The game may be under way (a resumed recording, a renewed calibration): the first position
  // seen is not taken for the start's.
  void clocks_running() { first_is_start_ = false; }

  void learn(LeverPlace seen, Lever single_frame) {
    const double place = seen.place;
    if (positions_.empty()) {
      positions_.push_back({place, double(seen.pixels), 0, 0, 0});
    }
    const std::size_t near = nearest(place);
    const double distance = std::abs(place - positions_[near].place);
    if (distance <= kSamePosition) {
      join(positions_[near], seen, single_frame);
      candidate_.frames = 0;
      note_established();
      return;
    }
    if (positions_.size() >= 2) {
      relearn(near, seen, single_frame);
      return;
    }
    if (distance < kOtherPosition) return;
    follow_candidate(seen, single_frame);
    if (candidate_.frames >= kNewPositionFrames) {
      positions_.push_back(candidate_);
      candidate_.frames = 0;
      note_established();
    }
  }

  // The side pressed, from the nearer of the two positions; the single-frame reading before both
  // are known, when the place lies beyond both, or when what the single-frame reading said in
  // each position contradicts the order (then the two are not the lever's positions); unknown
  // when far more or fewer lever pixels show than the nearer position shows (a hand over part
  // of it).
  ClockObservation read(LeverPlace seen, ClockObservation single_frame) const {
    const double place = seen.place;
    const std::optional<double> apart = separation();
    if (!apart) return before_both(seen, single_frame);
    const LeverPosition& high = raised_white();
    const LeverPosition& low = raised_black();
    if (place > high.place + *apart || place < low.place - *apart) return single_frame;
    const bool white_up = std::abs(place - high.place) < std::abs(place - low.place);
    if (!(white_up ? high : low).shows_as_many(seen)) return unknown(single_frame);
    ClockObservation out = single_frame;
    out.lever_down = white_up ? Lever::kBlack : Lever::kWhite;
    const double from_middle = std::abs(place - 0.5 * (high.place + low.place));
    out.confidence = static_cast<float>(std::min(1.0, 2.0 * from_middle / *apart));
    out.travel = static_cast<float>(std::clamp((high.place - place) / *apart, 0.0, 1.0));
    return out;
  }

  // Before the second position has been seen: a game starts with Black's side down (White's
  // clock running), so the first position seen is that one, and a place well nearer Black's
  // end than it is White's side down. The single-frame reading took 10704's clock A for
  // pressed on White's side from the start (its first press was missed) and 10803's clock B
  // for the first three seconds. Unknown before any position is known; the single-frame
  // reading elsewhere, when the game may be under way, and when both positions were seen but
  // are not read (too close, or against the single-frame reading).
  ClockObservation before_both(LeverPlace seen, ClockObservation single_frame) const {
    if (!first_is_start_ || positions_.size() > 1) return single_frame;
    if (positions_.empty() || !positions_[0].shows_as_many(seen)) return unknown(single_frame);
    const LeverPosition& start = positions_[0];
    ClockObservation out = single_frame;
    if (std::abs(seen.place - start.place) <= kSamePosition) {
      out.lever_down = Lever::kBlack;
    } else if (seen.place <= start.place - kOtherPosition) {
      out.lever_down = Lever::kWhite;
    } else {
      return single_frame;
    }
    out.confidence = 0.5f;
    return out;
  }

  // How far apart the two positions' places lie, once both are known and the single-frame
  // reading does not contradict their order.
  std::optional<double> separation() const {
    if (positions_.size() < 2) return std::nullopt;
    const LeverPosition& high = raised_white();
    const LeverPosition& low = raised_black();
    const double apart = high.place - low.place;
    if (apart < (established_ ? kKeptApart : kOtherPosition)) return std::nullopt;
    if (high.read_white > high.read_black && low.read_black > low.read_white) return std::nullopt;
    return apart;
  }

 private:
  std::size_t nearest(double place) const {
    std::size_t best = 0;
    for (std::size_t i = 1; i < positions_.size(); ++i) {
      if (std::abs(place - positions_[i].place) < std::abs(place - positions_[best].place))
        best = i;
    }
    return best;
  }
  // The candidate place, held still: joined where `seen` lies within kSamePosition of it,
  // else begun again there.
  void follow_candidate(LeverPlace seen, Lever single_frame) {
    if (candidate_.frames == 0 || std::abs(seen.place - candidate_.place) > kSamePosition) {
      candidate_ = {seen.place, double(seen.pixels), 0, 0, 0};
    }
    join(candidate_, seen, single_frame);
  }
  static void join(LeverPosition& position, LeverPlace seen, Lever single_frame) {
    ++position.frames;
    const double rate = std::max(kPositionRate, 1.0 / position.frames);
    position.place += rate * (seen.place - position.place);
    position.pixels += rate * (seen.pixels - position.pixels);
    position.read_white += single_frame == Lever::kWhite ? 1 : 0;
    position.read_black += single_frame == Lever::kBlack ? 1 : 0;
  }
  // Of two positions, the one with White's end raised (the place nearer White's end), and the
  // other.
  const LeverPosition& raised_white() const {
    return positions_[0].place > positions_[1].place ? positions_[0] : positions_[1];
  }
  const LeverPosition& raised_black() const {
    return positions_[0].place > positions_[1].place ? positions_[1] : positions_[0];
  }

  // A place beyond kSamePosition of both positions but much nearer one of them, held still
  // for kRelearnFrames: that position's look changed (10706's clock A: its lever
  // raised at White's end showed 47 pixels at 0.14 of the area, then 77 at 0.21 for the rest of
  // the game, every frame read unknown by their count, and two presses were missed). It moves
  // there.
  void relearn(std::size_t near, LeverPlace seen, Lever single_frame) {
    const double distance = std::abs(seen.place - positions_[near].place);
    const double to_other = std::abs(seen.place - positions_[1 - near].place);
    if (distance > kRelearnShare * to_other) {
      candidate_.frames = 0;
      return;
    }
    if (relearning_ != near) candidate_.frames = 0;
    relearning_ = near;
    follow_candidate(seen, single_frame);
    if (candidate_.frames >= kRelearnFrames) {
      positions_[near].place = candidate_.place;
      positions_[near].pixels = candidate_.pixels;
      candidate_.frames = 0;
    }
  }

  // Two positions kOtherPosition apart have been seen.
  void note_established() {
    if (positions_.size() == 2 && raised_white().place - raised_black().place >= kOtherPosition) {
      established_ = true;
    }
  }

  std::vector<LeverPosition> positions_;  // at most two, the first seen first
  bool established_ = false;
  std::size_t relearning_ = 0;  // the position candidate_ would replace, both being known
  bool first_is_start_ = true;
  LeverPosition candidate_;
};

double changed_share(const cv::Mat& a, const cv::Mat& b, float luma = kChangedLuma) {
  cv::Mat difference;
  cv::absdiff(a, b, difference);
  return static_cast<double>(cv::countNonZero(difference > luma)) / static_cast<double>(a.total());
}

}  // namespace

// The displays are read on one frame in this many (a read takes some milliseconds; their
// seconds change once a second).
constexpr int kDisplayEvery = 6;
// A display's look (upside down or not, lit or dark digits) that read this often is the only
// one tried from then on: most readings fail (a hand, the lever), and a failure tries all four.
constexpr int kDisplayLookReadings = 5;

struct LeverReader::Impl {
  struct PerClock {
    calibration::Clock clock;
    cv::Mat image_to_patch;
    cv::Mat image_to_halves;  // the area, White's half over Black's (kHalfAlongPx each)
    cv::Mat halves_previous;  // CV_32F luma of the last frame
    cv::Mat reference;        // CV_32F luma of the last uncovered views
    cv::Mat previous;         // CV_32F luma of the last frame
    int covered_frames = 0;
    int frames = 0;
    // How its display reads (read_clock_display's looks): the readings per look, and the
    // look once one has read kDisplayLookReadings times (then only it is tried).
    std::array<int, 4> display_reads{};
    int display_look = -1;
    // Learnt from where the lever shows, one per kLeverPixels.
    std::array<LeverPositions, kLeverPixels.size()> positions;
  };
  std::vector<PerClock> clocks;
};

LeverReader::LeverReader(calibration::Calibration calibration) : impl_(std::make_unique<Impl>()) {
  for (const calibration::Clock& clock : calibration.clocks) {
    Impl::PerClock per;
    per.clock = clock;
    if (clock.region.size() == 4) {
      const float s = kPatchPx;
      std::vector<cv::Point2f> from;
      for (const cv::Point2d& p : clock.region) from.emplace_back(cv::Point2f(p));
      const std::vector<cv::Point2f> to{{0, 0}, {s, 0}, {s, s}, {0, s}};
      per.image_to_patch = cv::getPerspectiveTransform(from, to);
      const float across = kHalfAcrossPx, along = 2 * kHalfAlongPx;
      const std::vector<cv::Point2f> halves{{0, 0}, {across, 0}, {across, along}, {0, along}};
      per.image_to_halves = cv::getPerspectiveTransform(from, halves);
    }
    impl_->clocks.push_back(std::move(per));
  }
}

void LeverReader::clocks_running() {
  for (Impl::PerClock& per : impl_->clocks) {
    for (LeverPositions& positions : per.positions) positions.clocks_running();
  }
}

LeverReader::~LeverReader() = default;
LeverReader::LeverReader(LeverReader&&) noexcept = default;
LeverReader& LeverReader::operator=(LeverReader&&) noexcept = default;

std::vector<ClockObservation> LeverReader::read(const cv::Mat& frame_bgr) {
  std::vector<ClockObservation> seen;
  for (const Impl::PerClock& per : impl_->clocks) seen.push_back(read_clock(frame_bgr, per.clock));
  return read(frame_bgr, std::move(seen));
}

std::vector<ClockObservation> LeverReader::read(const cv::Mat& frame_bgr,
                                                std::vector<ClockObservation> levers) {
  std::vector<ClockObservation> out;
  cv::Mat grey;
  for (size_t c = 0; c < impl_->clocks.size(); ++c) {
    Impl::PerClock& per = impl_->clocks[c];
    ClockObservation seen = c < levers.size() ? levers[c] : read_clock(frame_bgr, per.clock);
    if (per.image_to_patch.empty()) {
      out.push_back(seen);
      continue;
    }
    if (grey.empty()) cv::cvtColor(frame_bgr, grey, cv::COLOR_BGR2GRAY);
    cv::Mat patch;
    cv::warpPerspective(grey, patch, per.image_to_patch, cv::Size(kPatchPx, kPatchPx),
                        cv::INTER_AREA, cv::BORDER_REPLICATE);
    patch.convertTo(patch, CV_32F);
    if (per.reference.empty()) {
      per.reference = patch.clone();
      per.previous = patch.clone();
    }
    const double share = changed_share(patch, per.reference);
    const bool covered = share > kCoveredShare;
    const bool quiet = share < kQuietShare;
    seen.touched = !quiet;
    if (covered) {
      // No evidence: the covered end of the lever looks pressed.
      seen = unknown(seen);
    } else {
      cv::Mat area;
      cv::warpPerspective(frame_bgr, area, per.image_to_halves,
                          cv::Size(kHalfAcrossPx, 2 * kHalfAlongPx), cv::INTER_AREA,
                          cv::BORDER_REPLICATE);
      const std::vector<bool> surroundings = surround_colours(frame_bgr, per.clock.region);
      std::vector<float> lumas = lumas_of(area);
      const float background = luma_quantile(lumas, 0.5);
      const float body = luma_quantile(lumas, 0.75);
      // Read by the measure whose two positions lie farther apart: its pixels are more the
      // lever's. Before any has both positions, by the first that shows the lever. The pale bar,
      // last, only where none before it knows both positions.
      std::array<std::optional<LeverPlace>, kLeverPixels.size()> places;
      std::optional<std::size_t> chosen;
      bool any_apart = false;
      double farthest = 0.0;
      for (std::size_t k = 0; k < places.size(); ++k) {
        places[k] = lever_place(area, background, body, surroundings, kLeverPixels[k]);
        if (places[k] && quiet) per.positions[k].learn(*places[k], seen.lever_down);
        if (kLeverPixels[k].pale_bar && any_apart) continue;
        const std::optional<double> apart = per.positions[k].separation();
        any_apart = any_apart || apart.has_value();
        if (!places[k]) continue;
        if (!chosen) chosen = k;
        if (apart && *apart > farthest) {
          chosen = k;
          farthest = *apart;
        }
      }
      if (any_apart) {
        // Both positions known: no measure still takes its first for the start's (one whose
        // place barely moves with the lever never sees a second).
        for (LeverPositions& positions : per.positions) positions.clocks_running();
        // Those that know them show no lever in this frame (a hand over it): a weaker measure
        // would only guess.
        if (farthest == 0.0) chosen.reset();
      }
      if (chosen) {
        seen = per.positions[*chosen].read(*places[*chosen], seen);
      } else if (any_apart) {
        seen = unknown(seen);
      }
    }
    if (quiet) {
      per.covered_frames = 0;
      cv::accumulateWeighted(patch, per.reference, kReferenceRate);
    } else {
      const bool still = changed_share(patch, per.previous) < kStillShare;
      per.covered_frames = still ? per.covered_frames + 1 : 0;
      if (per.covered_frames >= kAdoptAfterFrames) {
        patch.copyTo(per.reference);
        per.covered_frames = 0;
      }
    }
    patch.copyTo(per.previous);
    // The display, now and then, where nothing over the clock hides its digits.
    if (quiet && per.frames % kDisplayEvery == 0) {
      const ClockDisplay display = read_clock_display(frame_bgr, per.clock, per.display_look);
      seen.display_seconds = display.seconds;
      if (display.look >= 0 &&
          ++per.display_reads[static_cast<std::size_t>(display.look)] >= kDisplayLookReadings) {
        per.display_look = display.look;
      }
    }
    ++per.frames;
    cv::Mat halves;
    cv::warpPerspective(grey, halves, per.image_to_halves,
                        cv::Size(kHalfAcrossPx, 2 * kHalfAlongPx), cv::INTER_AREA,
                        cv::BORDER_REPLICATE);
    halves.convertTo(halves, CV_32F);
    if (!per.halves_previous.empty()) {
      for (int side = 0; side < 2; ++side) {
        const cv::Rect half(0, side * kHalfAlongPx, kHalfAcrossPx, kHalfAlongPx);
        seen.half_change[static_cast<std::size_t>(side)] =
            static_cast<float>(changed_share(halves(half), per.halves_previous(half), kTickLuma));
      }
    }
    halves.copyTo(per.halves_previous);
    out.push_back(seen);
  }
  return out;
}

}  // namespace bugcam::vision
