// One frame: warp each board, read its squares, count the holdings; print and draw it.
#include <array>
#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"

namespace bugcam::vision {

namespace {

float luma(const cv::Vec3b& bgr) {
  return 0.114f * static_cast<float>(bgr[0]) + 0.587f * static_cast<float>(bgr[1]) +
         0.299f * static_cast<float>(bgr[2]);
}

// The luma splitting white from black pieces lying on the table: halfway between the pieces
// as the start position showed them whole (a white piece on a dark square, a black one on a
// light square), else as the frame's own pieces split.
float holding_split_luma(const calibration::Board& board, const SquareClassification& classified) {
  if (!board.looks.learned) return classified.white_black_luma;
  return 0.5f * (calibration::luma(board.looks.white_on_dark) +
                 calibration::luma(board.looks.black_on_light));
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
    : calibration_(std::move(calibration)), options_(std::move(options)) {
  if (!options_.piece_types && options_.bundled_piece_types) {
    options_.piece_types = PieceTypeModel::load_bundled();
  }
  for (const Viewpoint& view : estimate_viewpoints(calibration_)) {
    sampling_.push_back(plan_sampling(view, options_.square_px));
  }
}

FrameObservation FrameReader::read(const cv::Mat& frame_bgr) const {
  return read(frame_bgr, nullptr);
}

FrameObservation FrameReader::read(const cv::Mat& frame_bgr,
                                   std::vector<cv::Mat>* warped_boards) const {
  FrameObservation observation;
  std::vector<calibration::BoardAppearance> appearances;
  if (warped_boards != nullptr) warped_boards->clear();
  for (size_t i = 0; i < calibration_.boards.size(); ++i) {
    const cv::Mat warped = calibration::warp_board(frame_bgr, calibration_.boards[i].board_to_image,
                                                   options_.square_px);
    appearances.push_back(measure_board(warped, sampling_[i], calibration_.boards[i].looks));
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
    observation.holdings.push_back(read_holding(frame_bgr, area, *board, calibration_.image_size,
                                                holding_split_luma(*board, classified),
                                                options_.piece_types.get()));
  }
  for (const calibration::Clock& clock : calibration_.clocks) {
    observation.clocks.push_back(read_clock(frame_bgr, clock));
  }
  return observation;
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
        << holding.black_pieces << " black";
    for (const auto& [letter, count] : holding.counts) out << " " << count << letter;
    out << "\n";
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
