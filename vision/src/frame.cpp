// One frame: warp each board, read its squares, count the holdings; print and draw it.
#include <array>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"

namespace bugcam::vision {

namespace {

// Holding areas are read at this many pixels per square.
constexpr int kHoldingSquarePx = 24;

float luma(const cv::Vec3b& bgr) {
  return 0.114f * static_cast<float>(bgr[0]) + 0.587f * static_cast<float>(bgr[1]) +
         0.299f * static_cast<float>(bgr[2]);
}

double length(cv::Point2d a, cv::Point2d b) {
  return std::hypot(a.x - b.x, a.y - b.y);
}

}  // namespace

const char* lever_name(Lever lever) {
  switch (lever) {
    case Lever::kWhite:
      return "white";
    case Lever::kBlack:
      return "black";
    case Lever::kUnknown:
      break;
  }
  return "unknown";
}

FrameReader::FrameReader(calibration::Calibration calibration, VisionOptions options)
    : calibration_(std::move(calibration)), options_(options) {}

FrameObservation FrameReader::read(const cv::Mat& frame_bgr) const {
  return read(frame_bgr, nullptr);
}

FrameObservation FrameReader::read(const cv::Mat& frame_bgr,
                                   std::vector<cv::Mat>* warped_boards) const {
  FrameObservation observation;
  std::vector<calibration::BoardAppearance> appearances;
  if (warped_boards != nullptr) warped_boards->clear();
  for (const calibration::Board& board : calibration_.boards) {
    const cv::Mat warped =
        calibration::warp_board(frame_bgr, board.board_to_image, options_.square_px);
    appearances.push_back(calibration::measure_board(warped, options_.square_px));
    if (warped_boards != nullptr) warped_boards->push_back(warped);
  }
  const SquareClassification classified = classify_squares(appearances);
  for (size_t i = 0; i < calibration_.boards.size(); ++i) {
    BoardObservation board;
    board.name = calibration_.boards[i].name;
    board.corners = calibration_.boards[i].corners();
    board.squares = classified.boards[i];
    observation.boards.push_back(board);
  }
  for (const calibration::HoldingArea& area : calibration_.holdings) {
    const std::string board_name = area.player.substr(0, area.player.find(':'));
    const calibration::Board* board = calibration_.board(board_name);
    if (board == nullptr) continue;
    observation.holdings.push_back(
        read_holding(frame_bgr, area, board->square_size_px(), classified.white_black_luma));
  }
  for (const calibration::Clock& clock : calibration_.clocks) {
    observation.clocks.push_back(read_clock(frame_bgr, clock));
  }
  return observation;
}

HoldingObservation read_holding(const cv::Mat& frame_bgr, const calibration::HoldingArea& area,
                                double square_px_in_image, float white_black_luma) {
  HoldingObservation result;
  result.player = area.player;
  if (area.region.size() != 4 || square_px_in_image <= 0) return result;
  const double s = kHoldingSquarePx;
  const int width = static_cast<int>(
      std::lround(length(area.region[0], area.region[1]) / square_px_in_image * s));
  const int height = static_cast<int>(
      std::lround(length(area.region[1], area.region[2]) / square_px_in_image * s));
  if (width < 4 || height < 4) return result;
  const std::vector<cv::Point2f> from{{0, 0},
                                      {static_cast<float>(width), 0},
                                      {static_cast<float>(width), static_cast<float>(height)},
                                      {0, static_cast<float>(height)}};
  std::vector<cv::Point2f> to;
  for (const cv::Point2d& p : area.region) to.emplace_back(cv::Point2f(p));
  cv::Mat crop;
  const cv::Mat crop_to_image = cv::getPerspectiveTransform(from, to);
  cv::warpPerspective(frame_bgr, crop, crop_to_image, cv::Size(width, height),
                      cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT);
  // The part of the strip inside the image: beyond its edge there is nothing to count.
  cv::Mat in_view;
  cv::warpPerspective(cv::Mat(frame_bgr.size(), CV_8U, cv::Scalar(255)), in_view, crop_to_image,
                      cv::Size(width, height), cv::INTER_NEAREST | cv::WARP_INVERSE_MAP,
                      cv::BORDER_CONSTANT, cv::Scalar(0));
  cv::erode(in_view, in_view, cv::Mat(), cv::Point(-1, -1), 2);
  // The table is what most of the strip shows.
  std::vector<cv::Mat> channels;
  cv::split(crop, channels);
  cv::Vec3f table;
  for (int c = 0; c < 3; ++c) {
    std::vector<uchar> values;
    for (int y = 0; y < crop.rows; ++y) {
      const uchar* v = channels[static_cast<size_t>(c)].ptr<uchar>(y);
      const uchar* m = in_view.ptr<uchar>(y);
      for (int x = 0; x < crop.cols; ++x) {
        if (m[x] != 0) values.push_back(v[x]);
      }
    }
    if (values.empty()) return result;
    std::nth_element(values.begin(), values.begin() + static_cast<long>(values.size() / 2),
                     values.end());
    table[c] = values[values.size() / 2];
  }
  cv::Mat mask(crop.size(), CV_8U, cv::Scalar(0));
  for (int y = 0; y < crop.rows; ++y) {
    const cv::Vec3b* line = crop.ptr<cv::Vec3b>(y);
    uchar* m = mask.ptr<uchar>(y);
    for (int x = 0; x < crop.cols; ++x) {
      const cv::Vec3f p(line[x]);
      const cv::Vec3f d = p - table;
      if (std::sqrt(d.dot(d)) <= 45.0f || in_view.at<uchar>(y, x) == 0) continue;
      // A piece's shadow is the table darkened, hue kept; a black piece is far darker.
      const float scale = p.dot(table) / std::max(table.dot(table), 1.0f);
      const cv::Vec3f rest = p - table * scale;
      const bool shadow = scale > 0.35f && scale < 1.0f && std::sqrt(rest.dot(rest)) < 20.0f;
      if (!shadow) m[x] = 255;
    }
  }
  const cv::Mat kernel = cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(3, 3));
  cv::morphologyEx(mask, mask, cv::MORPH_OPEN, kernel);
  cv::morphologyEx(mask, mask, cv::MORPH_CLOSE, kernel);
  cv::Mat labels, stats, centroids;
  const int n = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
  // A piece seen from above, standing or lying, covers about a third of a square; smaller
  // blobs are crumbs and reflections; bigger ones are pieces touching each other.
  const double single = 0.33 * s * s;
  int merged = 0;
  for (int label = 1; label < n; ++label) {
    const int blob_area = stats.at<int>(label, cv::CC_STAT_AREA);
    if (blob_area < 0.35 * single) continue;
    // Longer than two pieces lying end to end: the board's frame, an arm, a clock.
    const int longest =
        std::max(stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT));
    if (longest > 2.5 * s) continue;
    const int pieces = std::max(1, static_cast<int>(std::lround(blob_area / single)));
    if (pieces > 1) merged += pieces;
    double sum = 0;
    int count = 0;
    for (int y = 0; y < labels.rows; ++y) {
      const int* l = labels.ptr<int>(y);
      const cv::Vec3b* line = crop.ptr<cv::Vec3b>(y);
      for (int x = 0; x < labels.cols; ++x) {
        if (l[x] == label) {
          sum += luma(line[x]);
          ++count;
        }
      }
    }
    if (sum / std::max(count, 1) >= white_black_luma) {
      result.white_pieces += pieces;
    } else {
      result.black_pieces += pieces;
    }
  }
  const int total = result.white_pieces + result.black_pieces;
  if (total > 0) result.counts['?'] = total;
  result.confidence =
      total == 0 ? 0.9f : 0.9f - 0.5f * static_cast<float>(merged) / static_cast<float>(total);
  return result;
}

namespace {

// The pixels inside a polygon of the image, as BGR values.
std::vector<cv::Vec3b> polygon_pixels(const cv::Mat& frame_bgr,
                                      const std::vector<cv::Point2d>& polygon) {
  std::vector<cv::Point> points;
  for (const cv::Point2d& p : polygon) points.emplace_back(cvRound(p.x), cvRound(p.y));
  std::vector<cv::Vec3b> pixels;
  if (points.size() < 3) return pixels;
  const cv::Rect box = cv::boundingRect(points) & cv::Rect(0, 0, frame_bgr.cols, frame_bgr.rows);
  if (box.area() <= 0) return pixels;
  cv::Mat mask(box.size(), CV_8U, cv::Scalar(0));
  for (cv::Point& p : points) p -= box.tl();
  cv::fillConvexPoly(mask, points, cv::Scalar(255));
  for (int y = 0; y < box.height; ++y) {
    const cv::Vec3b* line = frame_bgr.ptr<cv::Vec3b>(box.y + y) + box.x;
    const uchar* m = mask.ptr<uchar>(y);
    for (int x = 0; x < box.width; ++x) {
      if (m[x] != 0) pixels.push_back(line[x]);
    }
  }
  return pixels;
}

// Pixels of the lever: much brighter than what the clock's area mostly shows (body, table),
// whatever the lever's colour, or yellow to orange. The display's lit digits are saturated
// red and left out.
int lever_pixels(const std::vector<cv::Vec3b>& pixels, float background_luma) {
  const float bright = std::max(140.0f, background_luma + 55.0f);
  int count = 0;
  for (const cv::Vec3b& p : pixels) {
    const int blue = p[0], green = p[1], red = p[2];
    // Bright yellow to orange, pale or deep (far less blue than green), stands out from a
    // wooden clock or table only by its colour.
    const bool yellow = red > 140 && green > 110 && red >= green && green - blue > 60;
    const bool brighter = luma(p) >= bright && red - green <= 90;
    if (yellow || brighter) ++count;
  }
  return count;
}

// The first reading: lever pixels much brighter than most of the clock's area (body, table)
// or yellow to orange, counted per half; the raised end shows more of them. Reads unknown
// where the lever is not that bright (grey on a light clock, a light display beside it).
ClockObservation bright_lever_reading(const cv::Mat& frame_bgr, const calibration::Clock& clock) {
  ClockObservation result;
  result.board = clock.board;
  const std::vector<cv::Vec3b> white_half = polygon_pixels(frame_bgr, clock.white_lever);
  const std::vector<cv::Vec3b> black_half = polygon_pixels(frame_bgr, clock.black_lever);
  std::vector<float> lumas;
  lumas.reserve(white_half.size() + black_half.size());
  for (const cv::Vec3b& p : white_half) lumas.push_back(luma(p));
  for (const cv::Vec3b& p : black_half) lumas.push_back(luma(p));
  if (lumas.empty()) return result;
  const auto middle = lumas.begin() + static_cast<long>(lumas.size() / 2);
  std::nth_element(lumas.begin(), middle, lumas.end());
  const int white_end = lever_pixels(white_half, *middle);
  const int black_end = lever_pixels(black_half, *middle);
  const int total = white_end + black_end;
  // Too little lever in view to say (a hand over the clock, a clock out of view).
  if (total < 20) return result;
  const double balance = double(white_end - black_end) / total;
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

int colour_bin(const cv::Vec3b& p) {
  constexpr int levels = 256 / kColourBin;
  return (p[0] / kColourBin) * levels * levels + (p[1] / kColourBin) * levels + p[2] / kColourBin;
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
        ++frequency[static_cast<std::size_t>(colour_bin(line[x]))];
        ++total;
      }
    }
  }
  const auto rarity = [&](const cv::Vec3b& p) {
    return -std::log(static_cast<double>(frequency[static_cast<std::size_t>(colour_bin(p))]) /
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

std::string to_json(const FrameObservation& observation) {
  nlohmann::ordered_json out;
  out["boards"] = nlohmann::ordered_json::array();
  for (const BoardObservation& board : observation.boards) {
    nlohmann::ordered_json b;
    b["name"] = board.name;
    b["corners"] = nlohmann::ordered_json::array();
    for (const cv::Point2d& c : board.corners) {
      b["corners"].push_back({std::round(c.x * 10) / 10, std::round(c.y * 10) / 10});
    }
    b["occupancy"] = board.occupancy();
    out["boards"].push_back(b);
  }
  out["holdings"] = nlohmann::ordered_json::object();
  for (const HoldingObservation& holding : observation.holdings) {
    nlohmann::ordered_json counts = nlohmann::ordered_json::object();
    for (const auto& [letter, count] : holding.counts) counts[std::string(1, letter)] = count;
    out["holdings"][holding.player] = counts;
  }
  out["clocks"] = nlohmann::ordered_json::object();
  for (const ClockObservation& clock : observation.clocks) {
    out["clocks"][clock.board] = lever_name(clock.lever_down);
  }
  return out.dump();
}

std::string to_text(const FrameObservation& observation) {
  std::ostringstream out;
  for (const BoardObservation& board : observation.boards) {
    out << "board " << board.name << " (a1 h1 h8 a8:";
    for (const cv::Point2d& c : board.corners)
      out << " " << std::lround(c.x) << "," << std::lround(c.y);
    out << ")\n";
    const std::array<std::string, 8> rows = board.occupancy();
    for (size_t r = 0; r < 8; ++r) out << "  " << 8 - r << " " << rows[r] << "\n";
    out << "    abcdefgh\n";
  }
  for (const HoldingObservation& holding : observation.holdings) {
    out << "holding " << holding.player << ": " << holding.white_pieces << " white, "
        << holding.black_pieces << " black\n";
  }
  for (const ClockObservation& clock : observation.clocks) {
    out << "clock " << clock.board << ": lever down " << lever_name(clock.lever_down) << "\n";
  }
  return out.str();
}

cv::Mat draw_observation(const cv::Mat& frame_bgr, const FrameObservation& observation,
                         const calibration::Calibration& calibration) {
  cv::Mat canvas = calibration::draw_calibration(frame_bgr, calibration);
  for (const BoardObservation& seen : observation.boards) {
    const calibration::Board* board = calibration.board(seen.name);
    if (board == nullptr) continue;
    const double radius = 0.22 * board->square_size_px();
    for (int sq = 0; sq < 64; ++sq) {
      const cv::Point2d centre = board->to_image({sq % 8 + 0.5, sq / 8 + 0.5});
      const cv::Point at(cvRound(centre.x), cvRound(centre.y));
      switch (seen.squares[static_cast<size_t>(sq)].symbol()) {
        case 'w':
          cv::circle(canvas, at, cvRound(radius), cv::Scalar(255, 255, 255), -1, cv::LINE_AA);
          cv::circle(canvas, at, cvRound(radius), cv::Scalar(0, 0, 255), 2, cv::LINE_AA);
          break;
        case 'b':
          cv::circle(canvas, at, cvRound(radius), cv::Scalar(0, 0, 0), -1, cv::LINE_AA);
          cv::circle(canvas, at, cvRound(radius), cv::Scalar(0, 0, 255), 2, cv::LINE_AA);
          break;
        case '?':
          cv::drawMarker(canvas, at, cv::Scalar(0, 0, 255), cv::MARKER_TILTED_CROSS,
                         cvRound(2 * radius), 3);
          break;
        default:
          cv::circle(canvas, at, 3, cv::Scalar(0, 200, 0), -1);
      }
    }
  }
  return canvas;
}

}  // namespace bugcam::vision
