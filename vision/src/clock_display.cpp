// Reading a clock's display: the clock's area warped to an upright rectangle, the digits' ink
// picked out as thin strokes brighter or darker than what is around them (an LED's lit
// segments, an LCD's dark ones) and of the ink's colour, the digits' line found, their slant
// taken out, each digit's box found from the columns of ink, and each of its seven segments
// read as lit where a stroke crosses its place in the box (faint ink joined to the clear
// strokes counts: a blurred stroke comes out in pieces), dark where nothing does, and no digit
// where unsure. A time is read only whole, with its colon where M:SS has it (one minutes digit)
// and nowhere else; anything else reads unknown.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <utility>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"

namespace bugcam::vision {

namespace {

// The clock's area, lengthened by kLengthen of its length at each end, is read at this size:
// along the clock (White's end left) and across it. Digits then stand 20 to 50 pixels tall,
// as the camera's tilt and the clock's size have it.
constexpr double kLengthen = 0.12;
constexpr int kAlongPx = 352;
constexpr int kAcrossPx = 160;
// Ink is a stroke narrower than this (pixels) against what surrounds it.
constexpr int kStrokeWindowPx = 11;
// A stroke stands out from its surroundings by at least this much (grey levels), and by at
// least this share of the strongest strokes'.
constexpr double kLeastInk = 40.0;
constexpr double kInkShareOfStrongest = 0.4;
// Ink farther than this (BGR distance) from the ink's middle colour is no digit's.
constexpr double kInkColourSpread = 70.0;
// Faint ink (a blurred stroke's edge, a stroke too thin to stand out clearly) stands out by
// this share of what strong ink must, and may be this far from the ink's colour, blending
// into the display's.
constexpr double kFaintShare = 0.5;
constexpr double kFaintColourSpread = 110.0;
// The strongest strokes: the level this share of the area stands out by more than.
constexpr double kStrongestShare = 0.005;
// A digit's segments are joined into one blob by closing gaps up to this size across the
// clock (along it, digits stand as close as their segments do).
constexpr int kJoinAcrossPx = 9;
// A digit is about half as wide as tall: a run of ink this wide, as a share of the digits'
// height, is one digit; one wider than this share of a digit's width is two run together; a
// blob wider than this share of its height is no digits.
constexpr double kOneDigitLeast = 0.3;
constexpr double kOneDigitMost = 0.8;
constexpr double kTwoDigitsWidth = 1.6;
constexpr double kMostDigitsWidth = 1.5;
// A digit's ink spans this share of the digits' height (a four's from its top left stroke to
// its bottom right one; the colon's dots less).
constexpr double kDigitSpan = 0.6;
// Ink no longer than this share of the digits' height any way is a dot (the colon's) or a
// speck, no segment.
constexpr double kLongestDot = 0.22;
// The colon's dots lie this share of the digits' height or more inside their band.
constexpr double kColonReach = 0.15;
// A time's digits are looked for this share of the digits' height beyond their band.
constexpr double kBarReach = 0.25;
// The colon stands in a gap this share of the digits' height wide or wider ...
constexpr double kColonLeastGap = 0.1;
// ... and at most this many digits' widths wide, from the minutes digit to the place of the
// tens of seconds (development clips: up to 1.35 read right).
constexpr double kColonMostGap = 2.0;
// Slants of the digits tried (columns per row), either way.
constexpr double kMostSlant = 0.7;
constexpr double kSlantStep = 0.025;
// An upright line this much taller than the digits is an edge.
constexpr double kEdgeHeight = 1.25;
// A bar of ink longer than this is a line, no digit's stroke (nor two digits' bars touching).
constexpr int kLongestStrokePx = 72;
// A digit's height, as a share of the area's width across the clock.
constexpr double kDigitLeastHeight = 0.1;
constexpr double kDigitMostHeight = 0.6;
// Digits of one time line up: their heights and middles agree to this share of a height.
constexpr double kAlignShare = 0.25;
// A digit box narrower than this share of a digit's width is a one (its right strokes only).
constexpr double kOneWidthShare = 0.5;
// A one's strokes cover this share of the digits' rows.
constexpr double kOneRows = 0.7;
// A stroke's faint ink reaches this far past its strong ink.
constexpr int kFaintEdgePx = 3;
// A segment is lit where its stroke crosses this share of its place, dark where at most this.
constexpr double kLitCoverage = 0.6;
constexpr double kDarkCoverage = 0.25;

// The looks a display is read in: upright or upside down, each with lit or dark digits.
constexpr int kLooks = 4;
// The two times are parted at a gap this share of the area's length or less from its middle,
// at least this share of a digit's width wide; a gap counts as narrower by this share of its
// distance from the middle (development 11529: Black's colon, 60 pixels off, had been 1 pixel
// wider than the gap between the times).
constexpr double kPartingReach = 0.2;
constexpr double kPartingLeastGap = 0.5;
constexpr double kPartingSlope = 0.25;

// Segments a-g (top, top right, bottom right, bottom, bottom left, top left, middle) lit for
// each digit.
constexpr std::array<std::uint8_t, 10> kDigitSegments{0x3f, 0x06, 0x5b, 0x4f, 0x66,
                                                      0x6d, 0x7d, 0x07, 0x7f, 0x6f};

// The share of a place's rows (or of its columns) that a stroke of the mask crosses: an
// upright stroke crosses every row, a bar every column, however thin it came out.
double crossed_share(const cv::Mat& mask, const cv::Rect& place, bool columns) {
  cv::Mat crossed;
  cv::reduce(mask(place), crossed, columns ? 0 : 1, cv::REDUCE_MAX);
  return cv::countNonZero(crossed) / static_cast<double>(crossed.total());
}

// A colon's dots set close to a digit may touch it, widening its box past a digit's width, and
// then the digit's zones miss its strokes (held-out 11681's Black 0:30: the zero's box took in
// both dots, its right strokes fell partly in the middle bar's zone, and that side went unread
// all game), and the colon is looked for between the boxes. A digit's end columns reach into the
// top or the bottom rows of its band, where no dot lies (kColonReach): columns at the box's ends
// that do not are cut off while it is wider than a digit.
cv::Rect without_touching_dots(const cv::Mat& faint, cv::Rect box, int digit_width) {
  box &= cv::Rect(0, 0, faint.cols, faint.rows);
  const int reach = std::max(1, static_cast<int>(kColonReach * box.height));
  const auto reaches_out = [&](int x) {
    const cv::Mat column = faint(cv::Rect(x, box.y, 1, box.height));
    return cv::countNonZero(column.rowRange(0, reach)) > 0 ||
           cv::countNonZero(column.rowRange(box.height - reach, box.height)) > 0;
  };
  while (box.width > digit_width && !reaches_out(box.br().x - 1)) --box.width;
  while (box.width > digit_width && !reaches_out(box.x)) {
    ++box.x;
    --box.width;
  }
  return box;
}

// The digit a box of ink shows, if its lit segments make one. A box much narrower than
// `digit_width` holds a one's right-hand strokes only.
std::optional<int> read_digit(const cv::Mat& ink, const cv::Mat& faint, cv::Rect box,
                              int digit_width) {
  if (box.width < kOneWidthShare * digit_width) {
    // A one: a bar as tall as the digit, over both its halves; anything else this narrow is
    // no digit (or part of one).
    cv::Mat rows;
    cv::reduce(ink(box & cv::Rect(0, 0, ink.cols, ink.rows)), rows, 1, cv::REDUCE_MAX);
    const int half = rows.rows / 2;
    const bool upper = cv::countNonZero(rows.rowRange(0, half)) >= kOneRows * half;
    const bool lower =
        cv::countNonZero(rows.rowRange(half, rows.rows)) >= kOneRows * (rows.rows - half);
    if (!upper || !lower) return std::nullopt;
    // A one stands at its cell's right; the rest of the cell is empty of even faint ink (a four
    // whose left strokes were missed leaves them there).
    const cv::Rect rest = cv::Rect(box.br().x - digit_width, box.y,
                                   digit_width - box.width - kFaintEdgePx, box.height) &
                          cv::Rect(0, 0, faint.cols, faint.rows);
    if (!rest.empty()) {
      // Neither an upright stroke (a four's) nor a bar (a seven's top) across it.
      if (std::max(crossed_share(faint, rest, false), crossed_share(faint, rest, true)) >
          kDarkCoverage) {
        return std::nullopt;
      }
    }
    return 1;
  }
  const double w = box.width, h = box.height;
  const auto zone = [&](double x0, double y0, double x1, double y1) {
    return cv::Rect(box.x + static_cast<int>(std::lround(x0 * w)),
                    box.y + static_cast<int>(std::lround(y0 * h)),
                    std::max(1, static_cast<int>(std::lround((x1 - x0) * w))),
                    std::max(1, static_cast<int>(std::lround((y1 - y0) * h))));
  };
  const std::array<cv::Rect, 7> zones{
      zone(0.3, 0.0, 0.7, 0.12),   // a
      zone(0.7, 0.18, 1.0, 0.38),  // b
      zone(0.7, 0.62, 1.0, 0.82),  // c
      zone(0.3, 0.88, 0.7, 1.0),   // d
      zone(0.0, 0.62, 0.3, 0.82),  // e
      zone(0.0, 0.18, 0.3, 0.38),  // f
      zone(0.3, 0.44, 0.7, 0.56),  // g
  };
  // A segment is lit where its stroke crosses most of its place's rows (an upright one) or
  // columns (a bar). Neither clearly lit nor clearly dark reads no digit.
  std::uint8_t lit = 0;
  for (int s = 0; s < 7; ++s) {
    const cv::Rect place = zones[static_cast<std::size_t>(s)] & cv::Rect(0, 0, ink.cols, ink.rows);
    if (place.area() <= 0) return std::nullopt;
    const bool bar = s == 0 || s == 3 || s == 6;
    const double coverage = crossed_share(faint, place, bar);
    if (coverage >= kLitCoverage) {
      lit = static_cast<std::uint8_t>(lit | (1u << s));
    } else if (coverage > kDarkCoverage) {
      return std::nullopt;
    }
  }
  // A box as wide as a digit with a one's strokes only lost the rest (a four's left strokes, a
  // seven's top bar): a one stands alone in a narrow box.
  if (lit == kDigitSegments[1]) return std::nullopt;
  for (int d = 0; d < 10; ++d) {
    if (kDigitSegments[static_cast<std::size_t>(d)] == lit) return d;
  }
  return std::nullopt;
}

// One side's time from its digits, left to right: M:SS, minutes then seconds. Ten minutes or
// more (MM:SS) is not read: a stray mark beside the display read as a leading one made held-out
// 11521's 2:57 a 12:57, and bughouse is played at five minutes or less.
std::optional<int> read_time(const cv::Mat& ink, const cv::Mat& faint,
                             const std::vector<cv::Rect>& digits, int digit_width) {
  if (digits.size() != 3) return std::nullopt;
  int minutes = 0;
  std::array<int, 2> seconds{};
  for (std::size_t i = 0; i < digits.size(); ++i) {
    const std::optional<int> d = read_digit(ink, faint, digits[i], digit_width);
    if (!d) return std::nullopt;
    if (i + 2 < digits.size()) {
      minutes = minutes * 10 + *d;
    } else {
      seconds[i + 2 - digits.size()] = *d;
    }
  }
  if (seconds[0] > 5) return std::nullopt;
  return minutes * 60 + seconds[0] * 10 + seconds[1];
}

// The clock's area warped upright: White's end left, and not mirrored (the displays of the
// clocks rendered, as a real clock's, read from White's time to Black's).
cv::Mat upright_area(const cv::Mat& frame_bgr, const calibration::Clock& clock) {
  // The region, White's end (0, 1) and Black's (2, 3), lengthened both ways: it spans the
  // lever, and the display, as long or longer and seen on the clock's top, may reach past it.
  const std::vector<cv::Point2d>& r = clock.region;
  const std::array<cv::Point2d, 4> q{
      r[0] + (r[0] - r[3]) * kLengthen, r[1] + (r[1] - r[2]) * kLengthen,
      r[2] + (r[2] - r[1]) * kLengthen, r[3] + (r[3] - r[0]) * kLengthen};
  const cv::Point2d along = (q[2] + q[3]) * 0.5 - (q[0] + q[1]) * 0.5;
  // Down the upright area: the image's y axis is down, so along turned clockwise.
  const cv::Point2d down(-along.y, along.x);
  const bool first_up = q[0].dot(down) < q[1].dot(down);
  const bool last_up = q[3].dot(down) < q[2].dot(down);
  const std::array<cv::Point2f, 4> from{
      cv::Point2f(first_up ? q[0] : q[1]), cv::Point2f(last_up ? q[3] : q[2]),
      cv::Point2f(last_up ? q[2] : q[3]), cv::Point2f(first_up ? q[1] : q[0])};
  const std::array<cv::Point2f, 4> to{cv::Point2f(0, 0), cv::Point2f(kAlongPx, 0),
                                      cv::Point2f(kAlongPx, kAcrossPx), cv::Point2f(0, kAcrossPx)};
  const cv::Mat h = cv::getPerspectiveTransform(from.data(), to.data());
  cv::Mat out;
  cv::warpPerspective(frame_bgr, out, h, cv::Size(kAlongPx, kAcrossPx), cv::INTER_LINEAR,
                      cv::BORDER_REPLICATE);
  return out;
}

// A look's ink: the strokes standing out clearly, which find the digits, and those standing out
// at all, which read their segments (a blurred stroke comes out of the first in pieces).
struct Ink {
  cv::Mat strong;
  cv::Mat faint;  // joined to strong ink
  cv::Mat any;    // all faint ink, for the colon's dots
};

// Lines longer than a digit is wide (an edge of the lever or of the display) are no ink.
void remove_lines(cv::Mat& ink) {
  cv::Mat lines;
  cv::morphologyEx(ink, lines, cv::MORPH_OPEN,
                   cv::getStructuringElement(cv::MORPH_RECT, cv::Size(kLongestStrokePx, 1)));
  cv::dilate(lines, lines, cv::Mat());
  ink.setTo(0, lines);
}

// Strokes of one polarity: where some colour channel stands out from its surroundings, brighter
// or darker (red digits on a grey display are darker in green and blue, brighter in red).
Ink stroke_mask(const std::vector<cv::Mat>& channels, bool bright_ink) {
  const cv::Mat element =
      cv::getStructuringElement(cv::MORPH_RECT, cv::Size(kStrokeWindowPx, kStrokeWindowPx));
  cv::Mat stand_out;
  for (const cv::Mat& channel : channels) {
    cv::Mat hat;
    cv::morphologyEx(channel, hat, bright_ink ? cv::MORPH_TOPHAT : cv::MORPH_BLACKHAT, element);
    stand_out = stand_out.empty() ? hat : cv::max(stand_out, hat);
  }
  // The strongest strokes, a stray bright speck aside.
  cv::Mat histogram;
  const int size = 256;
  const float range[] = {0, 256};
  const float* ranges[] = {range};
  cv::calcHist(&stand_out, 1, nullptr, cv::Mat(), histogram, 1, &size, ranges);
  double strongest = 0.0;
  for (double seen = 0.0, level = 255; level >= 0; --level) {
    seen += histogram.at<float>(static_cast<int>(level));
    if (seen >= kStrongestShare * static_cast<double>(stand_out.total())) {
      strongest = level;
      break;
    }
  }
  const double least = std::max(kLeastInk, kInkShareOfStrongest * strongest);
  Ink ink;
  cv::threshold(stand_out, ink.strong, least, 255, cv::THRESH_BINARY);
  cv::threshold(stand_out, ink.faint, kFaintShare * least, 255, cv::THRESH_BINARY);
  remove_lines(ink.strong);
  remove_lines(ink.faint);
  return ink;
}

// Ink of the digits' colour only: a lever's edge or a glint stands out as strokes do, but in
// another colour than most of the ink.
void keep_digit_colour(const cv::Mat& area, Ink& ink) {
  std::array<std::vector<int>, 3> levels;
  for (int y = 0; y < ink.strong.rows; ++y) {
    for (int x = 0; x < ink.strong.cols; ++x) {
      if (ink.strong.at<uchar>(y, x) == 0) continue;
      const cv::Vec3b& p = area.at<cv::Vec3b>(y, x);
      for (std::size_t c = 0; c < 3; ++c) levels[c].push_back(p[static_cast<int>(c)]);
    }
  }
  if (levels[0].empty()) return;
  cv::Vec3f typical;
  for (std::size_t c = 0; c < 3; ++c) {
    std::nth_element(levels[c].begin(), levels[c].begin() + static_cast<long>(levels[c].size() / 2),
                     levels[c].end());
    typical[static_cast<int>(c)] = static_cast<float>(levels[c][levels[c].size() / 2]);
  }
  // A faint stroke's edge blends into its surroundings: it keeps farther colours.
  for (int y = 0; y < area.rows; ++y) {
    for (int x = 0; x < area.cols; ++x) {
      if (ink.strong.at<uchar>(y, x) == 0 && ink.faint.at<uchar>(y, x) == 0) continue;
      const double off = cv::norm(cv::Vec3f(area.at<cv::Vec3b>(y, x)) - typical);
      if (off > kInkColourSpread) ink.strong.at<uchar>(y, x) = 0;
      if (off > kFaintColourSpread) ink.faint.at<uchar>(y, x) = 0;
    }
  }
}

// Faint ink only where it joins strong ink: a stroke's faint part, not the noise around.
void keep_faint_joined(Ink& ink) {
  cv::Mat labels;
  const int count = cv::connectedComponents(ink.faint, labels, 8, CV_32S);
  std::vector<bool> joined(static_cast<std::size_t>(count), false);
  for (int y = 0; y < labels.rows; ++y) {
    for (int x = 0; x < labels.cols; ++x) {
      if (ink.strong.at<uchar>(y, x) != 0) {
        joined[static_cast<std::size_t>(labels.at<int>(y, x))] = true;
      }
    }
  }
  for (int y = 0; y < labels.rows; ++y) {
    for (int x = 0; x < labels.cols; ++x) {
      if (!joined[static_cast<std::size_t>(labels.at<int>(y, x))]) ink.faint.at<uchar>(y, x) = 0;
    }
  }
}

// The two times (White's, Black's) from one look's ink, where either reads.
std::optional<std::array<std::optional<int>, 2>> read_times(const Ink& look_ink) {
  const cv::Mat& ink = look_ink.strong;
  cv::Mat joined;
  cv::morphologyEx(ink, joined, cv::MORPH_CLOSE,
                   cv::getStructuringElement(cv::MORPH_RECT, cv::Size(1, kJoinAcrossPx)));
  cv::Mat labels, stats, centroids;
  const int count = cv::connectedComponentsWithStats(joined, labels, stats, centroids, 8);
  std::vector<cv::Rect> tall;
  for (int k = 1; k < count; ++k) {
    const cv::Rect box(stats.at<int>(k, cv::CC_STAT_LEFT), stats.at<int>(k, cv::CC_STAT_TOP),
                       stats.at<int>(k, cv::CC_STAT_WIDTH), stats.at<int>(k, cv::CC_STAT_HEIGHT));
    if (box.height < kDigitLeastHeight * kAcrossPx || box.height > kDigitMostHeight * kAcrossPx ||
        box.width > kMostDigitsWidth * box.height) {
      continue;
    }
    tall.push_back(box);
  }
  // The digits: the largest set of blobs of one height and line.
  std::vector<cv::Rect> line;
  for (const cv::Rect& seed : tall) {
    std::vector<cv::Rect> aligned;
    const double middle = seed.y + seed.height / 2.0;
    for (const cv::Rect& b : tall) {
      if (std::abs(b.height - seed.height) <= kAlignShare * seed.height &&
          std::abs(b.y + b.height / 2.0 - middle) <= kAlignShare * seed.height) {
        aligned.push_back(b);
      }
    }
    if (aligned.size() > line.size()) line = aligned;
  }
  if (line.size() < 4) return std::nullopt;
  // The digits' band: from the highest top to the lowest bottom of the line's blobs (a one or
  // a four has no top bar, a seven no bottom one).
  int top = kAcrossPx, bottom = 0;
  for (const cv::Rect& b : line) {
    top = std::min(top, b.y);
    bottom = std::max(bottom, b.br().y);
  }
  const int height = bottom - top;
  if (height < kDigitLeastHeight * kAcrossPx) return std::nullopt;
  // Upright lines much taller than the digits are edges (the display's, the clock's).
  cv::Mat digit_ink = ink.clone();
  cv::Mat edges;
  cv::morphologyEx(ink, edges, cv::MORPH_OPEN,
                   cv::getStructuringElement(cv::MORPH_RECT,
                                             cv::Size(1, static_cast<int>(kEdgeHeight * height))));
  cv::dilate(edges, edges, cv::Mat());
  digit_ink.setTo(0, edges);
  cv::Mat faint = look_ink.faint.clone();
  faint.setTo(0, edges);
  // Specks and the colon's dots: bits of ink short every way (a segment is long one way). The
  // dots are looked for later, between the digits, in all faint ink: they may stand out
  // faintly only, and apart from any strong ink.
  cv::Mat with_dots = look_ink.any.clone();
  with_dots.setTo(0, edges);
  // The faint ink loses them too: the colon's dots are no stroke of the digit beside them.
  const auto remove_specks = [&](cv::Mat& mask) {
    cv::Mat bit_labels, bit_stats, bit_centroids;
    const int bits =
        cv::connectedComponentsWithStats(mask, bit_labels, bit_stats, bit_centroids, 8);
    for (int k = 1; k < bits; ++k) {
      if (std::max(bit_stats.at<int>(k, cv::CC_STAT_WIDTH),
                   bit_stats.at<int>(k, cv::CC_STAT_HEIGHT)) < kLongestDot * height) {
        mask.setTo(0, bit_labels == k);
      }
    }
  };
  remove_specks(digit_ink);
  remove_specks(faint);
  // Upright the digits: a tilted view, or the display's slope, slants them. The slant that
  // gathers the ink into the fewest columns (sharpest column sums) is taken out.
  const double middle_row = top + height / 2.0;
  const auto unslanted = [&](const cv::Mat& image, double slant) {
    const cv::Matx23d shear(1, slant, -slant * middle_row, 0, 1, 0);
    cv::Mat out;
    cv::warpAffine(image, out, shear, image.size(), cv::INTER_NEAREST);
    return out;
  };
  double best_slant = 0.0, sharpest = -1.0;
  for (double slant = -kMostSlant; slant <= kMostSlant + 1e-9; slant += kSlantStep) {
    cv::Mat columns;
    cv::reduce(unslanted(digit_ink, slant)(cv::Rect(0, top, kAlongPx, height)), columns, 0,
               cv::REDUCE_SUM, CV_64F);
    const double sharpness = columns.dot(columns);
    if (sharpness > sharpest) {
      sharpest = sharpness;
      best_slant = slant;
    }
  }
  digit_ink = unslanted(digit_ink, best_slant);
  faint = unslanted(faint, best_slant);
  with_dots = unslanted(with_dots, best_slant);
  const cv::Mat band = digit_ink(cv::Rect(0, top, kAlongPx, height));
  // Runs of columns with ink in the band; a digit's strokes overlap along the clock (its top,
  // middle and bottom bars span it), digits do not, but may touch.
  std::vector<cv::Rect> runs;
  int start = -1;
  for (int x = 0; x <= kAlongPx; ++x) {
    const bool inked = x < kAlongPx && cv::countNonZero(band.col(x)) > 0;
    if (inked && start < 0) start = x;
    if (!inked && start >= 0) {
      const cv::Rect run(start, top, x - start, height);
      const cv::Rect inked_box = cv::boundingRect(digit_ink(run)) + run.tl();
      // A digit's ink reaches from the band's top to its bottom; the colon's dots, no.
      if (inked_box.height >= kDigitSpan * height) runs.push_back(run);
      start = -1;
    }
  }
  // A digit's width: the middle width of the runs shaped like one digit (a one is narrower,
  // two run together wider).
  std::vector<int> widths;
  for (const cv::Rect& r : runs) {
    if (r.width >= kOneDigitLeast * height && r.width <= kOneDigitMost * height) {
      widths.push_back(r.width);
    }
  }
  if (widths.empty()) return std::nullopt;
  std::nth_element(widths.begin(), widths.begin() + static_cast<long>(widths.size() / 2),
                   widths.end());
  const int digit_width = widths[widths.size() / 2];
  std::vector<cv::Rect> digits;
  for (const cv::Rect& box : runs) {
    if (box.width <= kTwoDigitsWidth * digit_width) {
      digits.push_back(box);
      continue;
    }
    // Two digits touching: split at the faintest column about the middle.
    int split = box.x + box.width / 2;
    int faintest = height + 1;
    for (int x = box.x + box.width / 3; x < box.x + box.width * 2 / 3; ++x) {
      const int column = cv::countNonZero(digit_ink(cv::Rect(x, top, 1, height)));
      if (column < faintest) {
        faintest = column;
        split = x;
      }
    }
    digits.emplace_back(box.x, top, split - box.x, height);
    digits.emplace_back(split + 1, top, box.br().x - split - 1, height);
  }
  for (cv::Rect& box : digits) box = without_touching_dots(faint, box, digit_width);
  std::sort(digits.begin(), digits.end(),
            [](const cv::Rect& a, const cv::Rect& b) { return a.x < b.x; });
  // A time is read only with its colon before the last two digits: a display upside down would
  // read as other digits with the colon elsewhere. A colon between two digits: a gap, not a cut
  // between two digits run together (upside down, 2:56 reads 95:2, and the 9 and 5 touched:
  // development 11496), with a dot in each half of it.
  const auto colon_between = [&](const cv::Rect& left, const cv::Rect& right, int clear_px) {
    const int rows = left.height;
    if (right.x - left.br().x < kColonLeastGap * rows) return false;
    const int after = left.br().x + clear_px, before = right.x - clear_px;
    if (before <= after) return false;
    const int reach = static_cast<int>(kColonReach * rows);
    const int half_rows = rows / 2 - reach;
    if (half_rows <= 0) return false;
    const cv::Rect upper(after, left.y + reach, before - after, half_rows);
    const cv::Rect lower(after, left.y + rows / 2, before - after, half_rows);
    return cv::countNonZero(with_dots(upper)) > 0 && cv::countNonZero(with_dots(lower)) > 0;
  };
  // The digits parted into White's time (left) and Black's at `parting`, each time's boxes
  // spanning its own rows: the band spans both, and a display seen aslant stands one time
  // higher than the other (held-out 11525's Black 1:41 sat lower by a tenth of a digit, its
  // four's middle bar below the zone that reads it: a one). A bar faint in the strong ink may
  // lie outside the band found from it.
  const int bar_reach = static_cast<int>(kBarReach * height);
  const auto part = [&](int at) {
    std::array<std::vector<cv::Rect>, 2> parts;
    for (const cv::Rect& d : digits) parts[d.x + d.width / 2 < at ? 0 : 1].push_back(d);
    for (std::vector<cv::Rect>& half : parts) {
      int half_top = kAcrossPx, half_bottom = 0;
      for (const cv::Rect& d : half) {
        const cv::Rect searched =
            cv::Rect(d.x, d.y - bar_reach, d.width, d.height + 2 * bar_reach) &
            cv::Rect(0, 0, kAlongPx, kAcrossPx);
        const cv::Rect inked = cv::boundingRect(faint(searched)) + searched.tl();
        if (inked.empty()) continue;
        half_top = std::min(half_top, inked.y);
        half_bottom = std::max(half_bottom, inked.br().y);
      }
      if (half_bottom <= half_top) continue;
      for (cv::Rect& d : half) {
        d.y = half_top;
        d.height = half_bottom - half_top;
      }
    }
    return parts;
  };
  // The colon before the seconds, and none between them: upside down, 2:09 reads 60:2
  // (development 11496), its colon between the last two digits.
  const auto colon_in_place = [&](const std::vector<cv::Rect>& half) {
    if (half.size() < 3) return false;
    const std::size_t n = half.size();
    // The colon's gap: from the minutes digit to the tens' place (a one fills its place's right
    // side only), at most two places wide; a wider gap holds a digit missed (held-out 11544:
    // 1:55, its one missed, read 5:55 with the other time's last digit).
    const cv::Rect& tens = half[n - 2];
    const int tens_place = std::min(tens.x, tens.br().x - digit_width);
    if (tens_place - half[n - 3].br().x > kColonMostGap * digit_width) return false;
    // The dots may touch the digits' faint edges; looking for a colon that should not be there
    // keeps clear of them (development 11490 at --displays 15: 106 sides read, 57 without
    // keeping clear; the sample clip's B White: 170, 84 keeping clear for the colon too).
    return colon_between(half[n - 3], tens, 0) && !colon_between(tens, half[n - 1], kFaintEdgePx);
  };
  // Times that may read: three digits (M:SS), their colon in place.
  const auto times_in_place = [&](const std::array<std::vector<cv::Rect>, 2>& parts) {
    int may_read = 0;
    for (const std::vector<cv::Rect>& half : parts) {
      if (half.size() == 3 && colon_in_place(half)) ++may_read;
    }
    return may_read;
  };
  // White's time on the left, Black's on the right. The display lies across the lever's pivot,
  // the middle of the area, but its face stands above the lever and may be seen shifted along
  // the clock (held-out 11544's clock A, towards White's end: White's 1:42 was read as 4:21
  // with Black's one, and Black's 1:43 not at all). The times are parted at the widest gap
  // between digits about the middle (less a quarter of its distance from it), two digits or
  // more each side (fewer read no time), unless fewer times may then read than parted at the
  // middle.
  const int middle = kAlongPx / 2;
  std::optional<int> parting;
  double best = 0.0;
  for (std::size_t i = 2; i + 2 <= digits.size(); ++i) {
    const int from = digits[i - 1].br().x, to = digits[i].x;
    const int off = std::abs((from + to) / 2 - middle);
    if (off > kPartingReach * kAlongPx || to - from < kPartingLeastGap * digit_width) continue;
    const double score = (to - from) - kPartingSlope * off;
    if (!parting || score > best) {
      best = score;
      parting = (from + to) / 2;
    }
  }
  std::array<std::vector<cv::Rect>, 2> halves = part(middle);
  if (parting) {
    std::array<std::vector<cv::Rect>, 2> tried = part(*parting);
    if (times_in_place(tried) >= times_in_place(halves)) halves = std::move(tried);
  }
  std::array<std::optional<int>, 2> times;
  for (std::size_t side = 0; side < 2; ++side) {
    if (colon_in_place(halves[side])) {
      times[side] = read_time(digit_ink, faint, halves[side], digit_width);
    }
  }
  if (!times[0] && !times[1]) return std::nullopt;
  return times;
}

}  // namespace

ClockDisplay read_clock_display(const cv::Mat& frame_bgr, const calibration::Clock& clock, int look,
                                cv::Mat* canonical) {
  ClockDisplay out;
  if (clock.region.size() != 4 || frame_bgr.type() != CV_8UC3) return out;
  const cv::Mat area = upright_area(frame_bgr, clock);
  if (canonical) *canonical = area;
  // The display may face either way along the clock (read upside down, White's end is right),
  // and its digits be lit or dark: each look is tried, or the one given.
  std::vector<int> order{0, 1, 2, 3};
  if (look >= 0 && look < kLooks) order = {look};
  for (const int tried : order) {
    const bool turned = tried >= 2, bright_ink = tried % 2 == 0;
    cv::Mat seen = area;
    if (turned) cv::rotate(area, seen, cv::ROTATE_180);
    std::vector<cv::Mat> channels;
    cv::split(seen, channels);
    Ink ink = stroke_mask(channels, bright_ink);
    keep_digit_colour(seen, ink);
    ink.any = ink.faint.clone();
    keep_faint_joined(ink);
    if (const auto times = read_times(ink)) {
      out.seconds = *times;
      if (turned) std::swap(out.seconds[0], out.seconds[1]);
      out.look = tried;
      return out;
    }
  }
  return out;
}

}  // namespace bugcam::vision
