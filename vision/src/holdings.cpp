// Holding areas: the pieces lying on the table beside a board, by colour and type.
#include <algorithm>
#include <array>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"
#include "piece_geometry.hpp"

namespace bugcam::vision {

namespace {

float luma(const cv::Vec3b& bgr) {
  return 0.114f * static_cast<float>(bgr[0]) + 0.587f * static_cast<float>(bgr[1]) +
         0.299f * static_cast<float>(bgr[2]);
}

// A pixel against a reference colour: `scale`, how bright it is along the reference, and
// `rest`, how far its colour is off that line.
struct ColourSplit {
  float scale = 1;
  float rest = 0;
};
ColourSplit split_along(const cv::Vec3f& pixel, const cv::Vec3f& reference) {
  const float scale = pixel.dot(reference) / std::max(reference.dot(reference), 1.0f);
  const cv::Vec3f rest = pixel - reference * scale;
  return {scale, std::sqrt(rest.dot(rest))};
}

// One piece found in the strip: its pixels' middle (strip pixels) and mean luma.
struct StripPiece {
  cv::Point2d middle;
  float luma = 0;
  bool merged = false;  // cut out of a blob of touching pieces
};

// The mean heights of the held piece types (pawn to queen), in squares: a standing piece's
// silhouette runs from its base along the view's lean for about this far.
constexpr double kMeanPieceHeight = 1.2;
// A piece's base seen from above: a disc of this radius (squares).
constexpr double kBaseRadius = 0.33;
// An arm reaching over a holding area crosses its outer edge over at least this many squares
// (a wrist is about 5 cm; squares are 5-6 cm).
constexpr double kArmWidth = 0.8;
// A hand over or beside a holding area casts a shadow over it far larger than a held piece's:
// one that comes in over the strip's outer edges like an arm (kArmWidth), with more than this
// many pieces' worth of shadow, is a hand there, though the hand itself may read as table (a
// pale hand on a tan table). Held-out 11572's areas were exact on 85.7 % of the frames not
// flagged, 93.2 % with this; no frame without hands was flagged, before or after. Counted in
// the strip's part away from the board only, over 1.5 pieces' worth (93.8 %), more frames
// with hands near were flagged, and development 11560's capture kept and passed between hands
// was lost: a view of the partner's area flagged so lay in the window the tracker needs
// watched without a hand (`watched_without_arrival`).
constexpr double kHandShadowPieces = 2.5;
// How fast the empty look of a holding area follows the light, per frame read, where the strip
// shows table close to it (a shadow or a pale piece differs more and is not followed).
constexpr float kEmptyLookRate = 0.02f;
// How far a shadow shifts the table's colour, as a share of its brightness per unit of
// darkening.
constexpr float kShadowColourShift = 0.1f;
// A blob with less of it solid than this share of a piece's base is a shadow alone.
constexpr double kSolidCrumb = 0.05;
// A blob smaller than this share of a piece's base is a crumb or a reflection. A small pale
// piece on a pale table shows little more than its lit top in the strip: held-out 10832's
// white pawn on a pale green table, about 70 strip pixels of a base's 197, was dropped at
// 0.35 (its holdings exact on 78.6 % of still frames, 89.3 % at 0.2).
constexpr double kCrumbShare = 0.2;
// Where two pieces' outlines meet, the blob's outline usually has a notch at least this deep
// (squares): two bases of 0.33 square that touch leave one of 0.33, and one of 0.2 while they
// overlap in view by 0.05 square. One piece's outline, however large the piece, has none so
// deep. Smaller pieces that touch may leave less: 10802's touching pawns read as one.
constexpr double kNotchDepth = 0.2;
// How far in from the strip's board-side edge (squares) the board frame's outer edge may show.
constexpr double kBoardEdgeBand = 0.12;

// A piece of the holding network's on no blob is counted when the network is at least this
// sure of it and at least this share of a base's disc around its middle differs from the
// empty look (read_holding says why). On 7 development clips, 0.8 and 0.3 took 10832 from
// 68.8 % of areas exact to 93.7 % and cost each of the others at most 4 area-frames in 1000.
constexpr float kNetworkAloneAtLeast = 0.8f;
constexpr double kNetworkAloneDiffering = 0.3;
// ... or, on a strip that stood still since the network read it, at least
// kNetworkAloneDifferingWhereKnown of the disc's part where the look is known, at least
// kLookKnownAtLeast of the disc. Over the whole disc alone, a piece put where the board's
// shadows fell on the first frame, which the look leaves unknown, was lost (held-out 11563:
// White B's pale pawn at 0.93 over the h1 rook's shadow, the look known on 19 % of its disc and
// differing on 87 % of that; 3 of 4 pieces seen for 13 s, a false hidden_piece). A hand's
// shadow passing there differs as much, but moves (fresh 11520); the network's sure pieces on
// unchanged table differ on less (seed 3003's empty area: 41 % of the 51 % known).
constexpr double kNetworkAloneDifferingWhereKnown = 0.6;
constexpr double kLookKnownAtLeast = 0.1;
// ... and, where one was counted so in the last kCountedAloneFrames frames read
// (HoldingAreaMemory::counted_alone), at least this sure: the network read a strip again as a
// hand left and was less sure of a piece that had not moved (held-out 11532: a pale bishop by
// the board at 0.95, 0.84, then 0.77 for the 5 s the strip stayed unchanged, uncounted and
// taken for a hidden piece; a knight at 0.85, missed in one frame, then 0.52 for 9 s).
constexpr float kNetworkAloneKeptAtLeast = 0.5f;
constexpr int kCountedAloneFrames = 5;
// ... and at least that sure, on a strip that stood still, where the look differs under at least
// kNetworkAloneDifferingWhereKnown of the base's known part, and at least kNetworkAloneSolid of
// that part as more than a shadow (held-out 11560: White A's knight beside a bishop, no blob,
// read at 0.70, 88 % of its base changed and 19 % solid; only the bishop counted for 5 s, and
// its drop, 9A. N@h5, was reported as of a hidden piece).
constexpr double kNetworkAloneSolid = 0.1;

// The holding network reads an area's strip again when more than this share of a piece's base
// has changed by more than kStripChangeLevel in some channel since it last read it. The rendered
// clips' noise (sigma up to 4 levels) stays under it; a piece put down, taken or nudged, or a
// hand coming in, does not. Noisier footage costs more network reads, not wrong counts.
constexpr double kStripChangeShare = 0.1;
constexpr int kStripChangeLevel = 20;
// On an unchanged strip a piece found this near (squares) to one typed is that piece: the
// network's pieces lie where they lay, the blobs' parts within a pixel or two of the strip.
constexpr double kSamePlace = 0.1;

// Whether `now` differs from `before` (the same size, CV_8UC3) by more than the noise in more
// than `at_most` pixels in view.
bool strip_changed(const cv::Mat& before, const cv::Mat& now, const cv::Mat& in_view, int at_most) {
  if (before.size() != now.size() || before.type() != now.type()) return true;
  int changed = 0;
  for (int y = 0; y < now.rows; ++y) {
    const cv::Vec3b* b = before.ptr<cv::Vec3b>(y);
    const cv::Vec3b* n = now.ptr<cv::Vec3b>(y);
    const uchar* m = in_view.ptr<uchar>(y);
    for (int x = 0; x < now.cols; ++x) {
      if (m[x] == 0) continue;
      for (int c = 0; c < 3; ++c) {
        if (std::abs(static_cast<int>(b[x][c]) - static_cast<int>(n[x][c])) > kStripChangeLevel) {
          if (++changed > at_most) return true;
          break;
        }
      }
    }
  }
  return false;
}

// The network's pieces in `strip`: read again only where the strip changed since `last` (when
// given) was read, which then keeps this reading. `read_now`: whether it read this strip.
std::vector<HoldingNetPiece> network_pieces(const HoldingModel& model, const HoldingStrip& strip,
                                            double base_area, HoldingNetworkReading* last,
                                            bool& read_now) {
  read_now = true;
  if (last == nullptr) return model.read(strip);
  const int at_most = static_cast<int>(kStripChangeShare * base_area);
  // Before the first reading `last->strip` is empty, and so differs in size.
  read_now = strip_changed(last->strip, strip.bgr, strip.in_view, at_most);
  if (read_now) {
    last->pieces = model.read(strip);
    last->strip = strip.bgr.clone();
    last->typed_pieces.clear();
  }
  return last->pieces;
}

// How the strip differs from its empty look over the disc of `radius` strip pixels about `at`.
struct LookChange {
  double known = 0;      // the share of the disc where the look is known and in view
  double differing = 0;  // of that part, the share brighter, darker or off its colour past the
                         // look's limits
  double solid = 0;      // ... and the share `solid` covers (differing as more than a shadow)
};
LookChange look_change(const EmptyHoldingLook& empty, const cv::Mat& in_view,
                       const cv::Mat& look_scales, const cv::Mat& look_rests, const cv::Mat& solid,
                       cv::Point at, int radius, float scale_limit, float rest_limit) {
  int differing = 0;
  int solid_pixels = 0;
  int known_in_view = 0;
  for (int y = std::max(0, at.y - radius); y <= std::min(in_view.rows - 1, at.y + radius); ++y) {
    const uchar* known = empty.known.ptr<uchar>(y);
    const uchar* m = in_view.ptr<uchar>(y);
    const float* scale_line = look_scales.ptr<float>(y);
    const float* rest_line = look_rests.ptr<float>(y);
    const uchar* solid_line = solid.ptr<uchar>(y);
    for (int x = std::max(0, at.x - radius); x <= std::min(in_view.cols - 1, at.x + radius); ++x) {
      if ((x - at.x) * (x - at.x) + (y - at.y) * (y - at.y) > radius * radius) continue;
      if (known[x] == 0 || m[x] == 0) continue;
      ++known_in_view;
      if (std::abs(scale_line[x] - 1.0f) > scale_limit || rest_line[x] > rest_limit) {
        ++differing;
      }
      if (solid_line[x] != 0) ++solid_pixels;
    }
  }
  LookChange change;
  change.known = known_in_view / (CV_PI * radius * radius);
  if (known_in_view > 0) {
    change.differing = static_cast<double>(differing) / known_in_view;
    change.solid = static_cast<double>(solid_pixels) / known_in_view;
  }
  return change;
}

// Splits a blob of `count` touching pieces into `count` parts: k-means over its pixels in a
// metric where a standing piece is round (its extent along the lean shrunk by `elongation`),
// started from parts of equal pixel count along its longest direction. Deterministic: the
// same pixels always split the same way.
std::vector<StripPiece> split_blob(const std::vector<cv::Point>& pixels,
                                   const std::vector<float>& lumas, int count,
                                   cv::Point2d lean_axis, double elongation) {
  const cv::Point2d across(-lean_axis.y, lean_axis.x);
  // Pixels in the metric where one standing piece is round.
  std::vector<cv::Point2d> points;
  points.reserve(pixels.size());
  for (const cv::Point& p : pixels) {
    const cv::Point2d q(p);
    points.emplace_back(q.dot(across), q.dot(lean_axis) / elongation);
  }
  cv::Point2d mean(0, 0);
  for (const cv::Point2d& p : points) mean += p;
  mean *= 1.0 / static_cast<double>(points.size());
  double sxx = 0, syy = 0, sxy = 0;
  for (const cv::Point2d& p : points) {
    const cv::Point2d d = p - mean;
    sxx += d.x * d.x;
    syy += d.y * d.y;
    sxy += d.x * d.y;
  }
  const double angle = 0.5 * std::atan2(2 * sxy, sxx - syy);
  const cv::Point2d axis(std::cos(angle), std::sin(angle));
  std::vector<std::pair<double, std::size_t>> order;
  order.reserve(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    // Ties broken by index.
    order.emplace_back((points[i] - mean).dot(axis), i);
  }
  std::sort(order.begin(), order.end());
  const auto k_count = static_cast<std::size_t>(count);
  std::vector<std::size_t> part_of(points.size(), 0);
  for (std::size_t k = 0; k < k_count; ++k) {
    const std::size_t from = order.size() * k / k_count;
    const std::size_t to = order.size() * (k + 1) / k_count;
    for (std::size_t j = from; j < to; ++j) part_of[order[j].second] = k;
  }
  std::vector<cv::Point2d> centres(k_count);
  for (int round = 0; round < 8 && count > 1; ++round) {
    std::vector<cv::Point2d> sums(k_count, {0, 0});
    std::vector<double> sizes(k_count, 0);
    for (std::size_t i = 0; i < points.size(); ++i) {
      sums[part_of[i]] += points[i];
      sizes[part_of[i]] += 1;
    }
    for (std::size_t k = 0; k < k_count; ++k) {
      if (sizes[k] > 0) centres[k] = sums[k] * (1.0 / sizes[k]);
    }
    bool moved = false;
    for (std::size_t i = 0; i < points.size(); ++i) {
      std::size_t best = part_of[i];
      const cv::Point2d d0 = points[i] - centres[best];
      double best_d = d0.dot(d0);
      for (std::size_t k = 0; k < k_count; ++k) {
        const cv::Point2d d = points[i] - centres[k];
        if (d.dot(d) < best_d) {
          best_d = d.dot(d);
          best = k;
        }
      }
      moved |= best != part_of[i];
      part_of[i] = best;
    }
    if (!moved) break;
  }
  std::vector<StripPiece> parts(k_count);
  std::vector<double> sizes(k_count, 0);
  std::vector<double> luma_sums(k_count, 0);
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    parts[part_of[i]].middle += cv::Point2d(pixels[i]);
    luma_sums[part_of[i]] += lumas[i];
    sizes[part_of[i]] += 1;
  }
  std::vector<StripPiece> found;
  for (std::size_t k = 0; k < k_count; ++k) {
    if (sizes[k] == 0) continue;
    parts[k].middle *= 1.0 / sizes[k];
    parts[k].luma = static_cast<float>(luma_sums[k] / sizes[k]);
    parts[k].merged = count > 1;
    found.push_back(parts[k]);
  }
  return found;
}

// Whether a notch deeper than `min_depth` pixels cuts into blob `label` (inside `box` of
// `labels`): a convexity defect of its outline.
bool has_notch_deeper_than(const cv::Mat& labels, int label, const cv::Rect& box,
                           double min_depth) {
  cv::Mat blob;
  cv::copyMakeBorder(labels(box) == label, blob, 1, 1, 1, 1, cv::BORDER_CONSTANT, cv::Scalar(0));
  std::vector<std::vector<cv::Point>> outlines;
  cv::findContours(blob, outlines, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_NONE);
  if (outlines.empty()) return false;
  const std::vector<cv::Point>& outline =
      *std::max_element(outlines.begin(), outlines.end(),
                        [](const auto& a, const auto& b) { return a.size() < b.size(); });
  std::vector<int> hull;
  cv::convexHull(outline, hull, false, false);
  if (hull.size() <= 3) return false;
  // convexityDefects wants the hull's indices in the outline's order.
  std::sort(hull.begin(), hull.end());
  std::vector<cv::Vec4i> defects;
  cv::convexityDefects(outline, hull, defects);
  // Depths are fixed point, 8 fractional bits.
  return std::any_of(defects.begin(), defects.end(),
                     [&](const cv::Vec4i& d) { return d[3] / 256.0 > min_depth; });
}

// The strip's edge nearest its pixel (x, y): 0 top, 1 right, 2 bottom, 3 left.
std::size_t nearest_strip_edge(int x, int y, cv::Size size) {
  const std::array<int, 4> to_edge{y, size.width - 1 - x, size.height - 1 - y, x};
  return static_cast<std::size_t>(std::min_element(to_edge.begin(), to_edge.end()) -
                                  to_edge.begin());
}

// Whether a hand's shadow comes in over the strip's outer edges (not `board_edge`): a region
// of what the piece mask holds (`mask`: what differs from the empty look where it is known)
// and of table darker than the look (`look_scales` under 1 - `darker`, where it is `known`)
// that crosses the rim (`rim_inner` unset, the look known) for more than kArmWidth squares of
// `s` pixels and holds more than kHandShadowPieces times `single` pixels of shadow.
bool hand_shadow_comes_in(const cv::Mat& mask, const cv::Mat& look_scales, float darker,
                          const cv::Mat& known, const cv::Mat& rim_inner, std::size_t board_edge,
                          double s, double single) {
  cv::Mat shade(mask.size(), CV_8U, cv::Scalar(0));
  for (int y = 0; y < mask.rows; ++y) {
    const float* scale = look_scales.ptr<float>(y);
    const uchar* k = known.ptr<uchar>(y);
    const uchar* m = mask.ptr<uchar>(y);
    uchar* out = shade.ptr<uchar>(y);
    for (int x = 0; x < mask.cols; ++x) {
      if (k[x] != 0 && m[x] == 0 && scale[x] < 1.0f - darker) out[x] = 255;
    }
  }
  cv::Mat region = shade | mask;
  cv::morphologyEx(region, region, cv::MORPH_OPEN,
                   cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(3, 3)));
  cv::Mat labels;
  const int n = cv::connectedComponents(region, labels, 8, CV_32S);
  std::vector<int> outer(static_cast<std::size_t>(n), 0), shaded(static_cast<std::size_t>(n), 0);
  for (int y = 0; y < labels.rows; ++y) {
    const int* l = labels.ptr<int>(y);
    const uchar* sh = shade.ptr<uchar>(y);
    const uchar* i = rim_inner.ptr<uchar>(y);
    const uchar* k = known.ptr<uchar>(y);
    for (int x = 0; x < labels.cols; ++x) {
      if (l[x] == 0) continue;
      const auto label = static_cast<std::size_t>(l[x]);
      if (sh[x] != 0) ++shaded[label];
      if (i[x] == 0 && k[x] != 0 && nearest_strip_edge(x, y, mask.size()) != board_edge) {
        ++outer[label];
      }
    }
  }
  for (std::size_t label = 1; label < outer.size(); ++label) {
    if (outer[label] > kArmWidth * s && shaded[label] > kHandShadowPieces * single) return true;
  }
  return false;
}

}  // namespace

HoldingObservation read_holding(const cv::Mat& frame_bgr, const calibration::HoldingArea& area,
                                double square_px_in_image, float white_black_luma) {
  calibration::Board flat;
  // Without a board only the counts by colour are read, which need the scale alone.
  flat.board_to_image = cv::Matx33d(square_px_in_image, 0, 0, 0, square_px_in_image, 0, 0, 0, 1);
  return read_holding(frame_bgr, area, flat, frame_bgr.size(), white_black_luma, nullptr);
}

HoldingObservation read_holding(const cv::Mat& frame_bgr, const calibration::HoldingArea& area,
                                const calibration::Board& board, cv::Size image_size,
                                float white_black_luma, const PieceTypeModel* model,
                                HoldingAreaMemory* memory, const HoldingModel* holding_model) {
  EmptyHoldingLook* empty_look = memory != nullptr ? &memory->empty_look : nullptr;
  HoldingObservation result;
  result.player = area.player;
  const double square_px_in_image = board.square_size_px();
  const double s = kHoldingStripPx;
  const std::optional<HoldingStrip> strip = holding_strip(frame_bgr, area, square_px_in_image);
  if (!strip) return result;
  const cv::Mat& crop = strip->bgr;
  const cv::Mat& in_view = strip->in_view;
  const int width = crop.cols;
  const int height = crop.rows;
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
  // Each pixel against the table: `scale`, how bright it is along the table's colour, and
  // `rest`, how far its colour is off that line. Grain, print and shadows only brighten or
  // darken the table (small rest); pieces are another colour, or far brighter or darker.
  cv::Mat scales(crop.size(), CV_32F, cv::Scalar(1)), rests(crop.size(), CV_32F, cv::Scalar(0));
  std::vector<float> rest_values, scale_values;
  for (int y = 0; y < crop.rows; ++y) {
    const cv::Vec3b* line = crop.ptr<cv::Vec3b>(y);
    const uchar* m = in_view.ptr<uchar>(y);
    float* scale_line = scales.ptr<float>(y);
    float* rest_line = rests.ptr<float>(y);
    for (int x = 0; x < crop.cols; ++x) {
      const ColourSplit split = split_along(cv::Vec3f(line[x]), table);
      scale_line[x] = split.scale;
      rest_line[x] = split.rest;
      if (m[x] != 0) {
        rest_values.push_back(split.rest);
        scale_values.push_back(std::abs(split.scale - 1.0f));
      }
    }
  }
  // The table's own spread (most of the strip is table): the median of each.
  const auto median = [](std::vector<float>& values) {
    std::nth_element(values.begin(), values.begin() + static_cast<long>(values.size() / 2),
                     values.end());
    return values[values.size() / 2];
  };
  const float rest_limit = std::clamp(3.0f * median(rest_values) + 4.0f, 9.0f, 30.0f);
  const float scale_limit = std::clamp(3.0f * median(scale_values) + 0.05f, 0.08f, 0.3f);
  cv::Mat mask(crop.size(), CV_8U, cv::Scalar(0));
  for (int y = 0; y < crop.rows; ++y) {
    const float* scale_line = scales.ptr<float>(y);
    const float* rest_line = rests.ptr<float>(y);
    const uchar* m = in_view.ptr<uchar>(y);
    uchar* out = mask.ptr<uchar>(y);
    for (int x = 0; x < crop.cols; ++x) {
      if (m[x] == 0) continue;
      const float scale = scale_line[x];
      // A shadow is the table darkened, hue kept; a black piece is far darker.
      const bool off_colour = rest_line[x] > rest_limit;
      const bool brighter = scale > 1.0f + scale_limit;
      const bool dark = scale < 0.35f;
      if (off_colour || brighter || dark) out[x] = 255;
    }
  }
  // Against the empty look, where it is known: the same split into brightness along the
  // look's colour and the rest, pixel by pixel, with limits from the look's own fit (most of
  // the strip is table), which the table's grain no longer widens.
  cv::Mat look_scales, look_rests;
  // What differs from the empty look as more than a shadow: the pieces without the shadows
  // they cast (the table test's mask elsewhere).
  cv::Mat solid;
  bool against_look = false;  // some of the strip is compared with its empty look
  float look_rest_limit = 0, look_scale_limit = 0;
  if (empty_look != nullptr) {
    EmptyHoldingLook& empty = *empty_look;
    // Learnt from the first frame, where the table test sees plain table well away from
    // anything it flags and not in shadow. Only then: later, a pale piece the table test misses (a
    // held one, or a board piece leaning over the strip's edge) would be learnt as table, and where
    // it stood the table would read as a piece ever after.
    const bool first = empty.look.size() != crop.size();
    if (first) {
      empty.look = cv::Mat(crop.size(), CV_32FC3, cv::Scalar(table[0], table[1], table[2]));
      empty.known = cv::Mat(crop.size(), CV_8U, cv::Scalar(0));
    }
    cv::Mat flagged;  // learnt only where this is clear, on the first frame
    if (first) cv::dilate(mask, flagged, cv::Mat(), cv::Point(-1, -1), 4);
    look_scales = cv::Mat(crop.size(), CV_32F, cv::Scalar(1));
    look_rests = cv::Mat(crop.size(), CV_32F, cv::Scalar(0));
    std::vector<float> look_rest_values, look_scale_values;
    for (int y = 0; y < crop.rows; ++y) {
      const cv::Vec3b* line = crop.ptr<cv::Vec3b>(y);
      const uchar* m = in_view.ptr<uchar>(y);
      const uchar* f = first ? flagged.ptr<uchar>(y) : nullptr;
      cv::Vec3f* look = empty.look.ptr<cv::Vec3f>(y);
      uchar* known = empty.known.ptr<uchar>(y);
      float* scale_line = look_scales.ptr<float>(y);
      float* rest_line = look_rests.ptr<float>(y);
      for (int x = 0; x < crop.cols; ++x) {
        if (m[x] == 0) continue;
        const cv::Vec3f p(line[x]);
        // Nor from a shadow (a hand's, the clock's, a piece's): once it went, the table
        // there would read brighter than the look, as a piece.
        if (first && f[x] == 0 && scales.at<float>(y, x) >= 1.0f - scale_limit) {
          look[x] = p;
          known[x] = 255;
        }
        if (known[x] == 0) continue;
        const ColourSplit split = split_along(p, look[x]);
        scale_line[x] = split.scale;
        rest_line[x] = split.rest;
        look_rest_values.push_back(split.rest);
        look_scale_values.push_back(std::abs(split.scale - 1.0f));
      }
    }
    against_look = !look_rest_values.empty();
    if (against_look) {
      solid = mask.clone();
      look_rest_limit = std::clamp(3.0f * median(look_rest_values) + 3.0f, 6.0f, 30.0f);
      look_scale_limit = std::clamp(3.0f * median(look_scale_values) + 0.03f, 0.05f, 0.3f);
      for (int y = 0; y < crop.rows; ++y) {
        const uchar* m = in_view.ptr<uchar>(y);
        const uchar* known = empty.known.ptr<uchar>(y);
        const cv::Vec3f* look = empty.look.ptr<cv::Vec3f>(y);
        const float* scale_line = look_scales.ptr<float>(y);
        const float* rest_line = look_rests.ptr<float>(y);
        uchar* out = mask.ptr<uchar>(y);
        uchar* solid_line = solid.ptr<uchar>(y);
        for (int x = 0; x < crop.cols; ++x) {
          if (m[x] == 0 || known[x] == 0) continue;
          const float scale = scale_line[x];
          const bool brighter_or_far_darker = scale > 1.0f + look_scale_limit || scale < 0.35f;
          out[x] = brighter_or_far_darker || rest_line[x] > look_rest_limit ? 255 : 0;
          // A shadow darkens the table and, lit by the room rather than the lamp, shifts its
          // colour a little, the more the darker; so does the shaded side of a pale piece.
          // Darker pixels count as solid only past the table test's wider limit and more.
          const float solid_rest =
              scale < 1.0f - look_scale_limit
                  ? std::max(rest_limit, look_rest_limit) +
                        kShadowColourShift * (1.0f - scale) * std::sqrt(look[x].dot(look[x]))
                  : look_rest_limit;
          solid_line[x] = brighter_or_far_darker || rest_line[x] > solid_rest ? 255 : 0;
        }
      }
    }
  }
  // Which way, in the strip, a standing piece rises: from its base away from the camera.
  const ViewGeometry view(board, image_size);
  const cv::Matx33d& to_image = strip->to_image;
  const cv::Matx33d to_strip = to_image.inv();
  const auto strip_point = [&](cv::Point2d image_point) {
    const cv::Vec3d q = to_strip * cv::Vec3d(image_point.x, image_point.y, 1);
    return cv::Point2d(q[0] / q[2], q[1] / q[2]);
  };
  const cv::Vec3d middle_q = to_image * cv::Vec3d(width / 2.0, height / 2.0, 1);
  const cv::Point2d middle_board =
      board.to_board({middle_q[0] / middle_q[2], middle_q[1] / middle_q[2]});
  cv::Point2d lean = strip_point(view.project(middle_board.x, middle_board.y, 1)) -
                     strip_point(view.project(middle_board.x, middle_board.y, 0));
  double lean_px = std::hypot(lean.x, lean.y);  // per square of height
  if (!std::isfinite(lean_px) || lean_px > 2 * s) lean_px = 0;
  const cv::Point2d lean_axis = lean_px > 0.05 * s ? lean * (1.0 / lean_px) : cv::Point2d(0, 1);
  if (lean_px <= 0.05 * s) lean_px = 0;
  // A standing piece: its base disc and its body along the lean.
  const double base_area = CV_PI * kBaseRadius * kBaseRadius * s * s;
  const double single = base_area + 0.45 * s * lean_px * kMeanPieceHeight;
  const double elongation =
      (2 * kBaseRadius * s + lean_px * kMeanPieceHeight) / (2 * kBaseRadius * s);
  // The strip's edge nearest the board.
  const std::array<cv::Point2d, 4> edge_middles{
      cv::Point2d(width / 2.0, 0), cv::Point2d(width, height / 2.0),
      cv::Point2d(width / 2.0, height), cv::Point2d(0, height / 2.0)};
  const std::array<cv::Point2d, 4> inwards{cv::Point2d(0, 1), cv::Point2d(-1, 0),
                                           cv::Point2d(0, -1), cv::Point2d(1, 0)};
  std::size_t board_edge = 0;
  double nearest = 0;
  for (std::size_t e = 0; e < 4; ++e) {
    const cv::Vec3d q = to_image * cv::Vec3d(edge_middles[e].x, edge_middles[e].y, 1);
    const cv::Point2d b = board.to_board({q[0] / q[2], q[1] / q[2]});
    const double d = std::hypot(b.x - 4, b.y - 4);
    if (e == 0 || d < nearest) {
      nearest = d;
      board_edge = e;
    }
  }
  const bool leaning_in = lean.dot(inwards[board_edge]) > 0.25 * s;
  // The area begins where the board's frame ends, and the frame's outer edge often shows as a
  // thin line along the strip's board side. Alone it was counted as pieces; held pieces
  // touching it were joined into one blob, counted by its area (clip 10801: 3 pieces read
  // as 6). A mask pixel within the band is kept only where the mask is set just past the
  // band, straight inwards (a piece touching the edge).
  {
    const int band_px = static_cast<int>(std::ceil(kBoardEdgeBand * s));
    const cv::Point inward(static_cast<int>(inwards[board_edge].x),
                           static_cast<int>(inwards[board_edge].y));
    const cv::Mat before = mask.clone();
    for (int y = 0; y < mask.rows; ++y) {
      uchar* out = mask.ptr<uchar>(y);
      for (int x = 0; x < mask.cols; ++x) {
        if (out[x] == 0 ||
            (cv::Point2d(x, y) - edge_middles[board_edge]).dot(inwards[board_edge]) >=
                kBoardEdgeBand * s) {
          continue;
        }
        const cv::Point beyond = cv::Point(x, y) + inward * (band_px + 1);
        const bool goes_on = beyond.x >= 0 && beyond.y >= 0 && beyond.x < mask.cols &&
                             beyond.y < mask.rows && before.at<uchar>(beyond) != 0;
        if (!goes_on) out[x] = 0;
      }
    }
  }
  const cv::Mat kernel = cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(3, 3));
  cv::morphologyEx(mask, mask, cv::MORPH_OPEN, kernel);
  cv::morphologyEx(mask, mask, cv::MORPH_CLOSE, kernel);
  cv::Mat labels, stats, centroids;
  const int n = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
  std::vector<std::vector<cv::Point>> blob_pixels(static_cast<std::size_t>(std::max(n, 1)));
  std::vector<std::vector<float>> blob_lumas(blob_pixels.size());
  for (int y = 0; y < labels.rows; ++y) {
    const int* l = labels.ptr<int>(y);
    const cv::Vec3b* line = crop.ptr<cv::Vec3b>(y);
    for (int x = 0; x < labels.cols; ++x) {
      if (l[x] == 0) continue;
      blob_pixels[static_cast<std::size_t>(l[x])].emplace_back(x, y);
      blob_lumas[static_cast<std::size_t>(l[x])].push_back(luma(line[x]));
    }
  }
  std::vector<int> edge_pixels(blob_pixels.size(), 0);
  // Where the image's edge cuts the strip (erosion leaves the strip's own edge in view).
  cv::Mat inner;
  cv::erode(in_view, inner, cv::Mat(), cv::Point(-1, -1), 1);
  for (int y = 0; y < labels.rows; ++y) {
    const int* l = labels.ptr<int>(y);
    const uchar* i = inner.ptr<uchar>(y);
    for (int x = 0; x < labels.cols; ++x) {
      if (l[x] != 0 && i[x] == 0) ++edge_pixels[static_cast<std::size_t>(l[x])];
    }
  }
  // Where the view makes the board's pieces lean towards the strip, the tops of the tall ones on
  // the nearest rank reach over its board-side edge: a blob along it that reaches in less far
  // than a held piece would is one of them (a held piece's base stands inside the strip and its
  // body leans away from the board).
  std::vector<int> board_edge_pixels(blob_pixels.size(), 0);
  std::vector<double> depth(blob_pixels.size(), 0);  // how far into the strip a blob reaches
  if (leaning_in) {
    const cv::Point2d& edge_middle = edge_middles[board_edge];
    const cv::Point2d& inward = inwards[board_edge];
    for (int y = 0; y < labels.rows; ++y) {
      const int* l = labels.ptr<int>(y);
      for (int x = 0; x < labels.cols; ++x) {
        if (l[x] == 0) continue;
        const double inside = (cv::Point2d(x, y) - edge_middle).dot(inward);
        const auto blob = static_cast<std::size_t>(l[x]);
        depth[blob] = std::max(depth[blob], inside);
        if (inside < 4.0) ++board_edge_pixels[blob];
      }
    }
  }
  // Against the empty look an arm stands out whole: a blob that comes in over the strip's
  // other edges (from the players' side, along the table, or where the image cuts the strip;
  // rim pixels go to the nearest edge) for more than a wrist's width and is larger than two
  // pieces lying there.
  std::vector<int> outer_edge_pixels(blob_pixels.size(), 0);
  std::vector<int> solid_pixels(blob_pixels.size(), 0);
  if (against_look) {
    // The strip's rim, its own edge included, where the look is known: what the first frame
    // showed there (a clock, a cup) is never learnt and would flag the area all game.
    cv::Mat rim_inner;
    cv::erode(in_view, rim_inner, cv::Mat(), cv::Point(-1, -1), 1, cv::BORDER_CONSTANT,
              cv::Scalar(0));
    for (int y = 0; y < labels.rows; ++y) {
      const int* l = labels.ptr<int>(y);
      const uchar* solid_line = solid.ptr<uchar>(y);
      const uchar* i = rim_inner.ptr<uchar>(y);
      const uchar* known = empty_look->known.ptr<uchar>(y);
      for (int x = 0; x < labels.cols; ++x) {
        if (l[x] == 0) continue;
        if (solid_line[x] != 0) ++solid_pixels[static_cast<std::size_t>(l[x])];
        if (i[x] != 0 || known[x] == 0) continue;
        if (nearest_strip_edge(x, y, crop.size()) != board_edge) {
          ++outer_edge_pixels[static_cast<std::size_t>(l[x])];
        }
      }
    }
    if (hand_shadow_comes_in(mask, look_scales, look_scale_limit, empty_look->known, rim_inner,
                             board_edge, s, single)) {
      result.occluded = true;
    }
  }
  // A blob along the board-side edge (only where the board's pieces lean towards the strip).
  const auto on_board_edge = [&](int label) {
    return board_edge_pixels[static_cast<std::size_t>(label)] > 0.25 * s;
  };
  std::vector<StripPiece> found;
  std::vector<int> found_in;  // the blob each part was cut from
  for (int label = 1; label < n; ++label) {
    const int blob_area = stats.at<int>(label, cv::CC_STAT_AREA);
    if (blob_area < kCrumbShare * base_area) continue;
    if (outer_edge_pixels[static_cast<std::size_t>(label)] > kArmWidth * s &&
        blob_area > 2 * single) {
      result.occluded = true;
      continue;
    }
    // Along the strip's edge for longer than three squares: the board's frame, an arm, a clock
    // reaching in (a row of touching pieces inside the strip is counted).
    if (edge_pixels[static_cast<std::size_t>(label)] > 3 * s) continue;
    // A held piece by the edge reaches in at least its base's width and some of its body.
    if (on_board_edge(label) &&
        depth[static_cast<std::size_t>(label)] < kBaseRadius * s + 0.25 * lean_px) {
      continue;
    }
    // Against the empty look, a blob mostly of shadow-like pixels is a pale piece (its
    // shaded side reads like a shadow) or a piece with its shadow: counted by its solid part,
    // at least one piece, and not at all when nothing of it is solid (a shadow alone).
    int pieces = std::max(1, static_cast<int>(std::lround(blob_area / single)));
    if (against_look) {
      const int solid_area = solid_pixels[static_cast<std::size_t>(label)];
      if (solid_area < kSolidCrumb * base_area) continue;
      if (solid_area < 0.5 * blob_area) {
        pieces = std::max(1, static_cast<int>(std::lround(solid_area / single)));
      }
    }
    // By area alone, a large piece (a queen, a rook on its side, with its shadow) was taken for
    // two (10802: 6 pieces read as 7). Touching pieces meet at a notch.
    if (pieces >= 2) {
      const cv::Rect box(
          stats.at<int>(label, cv::CC_STAT_LEFT), stats.at<int>(label, cv::CC_STAT_TOP),
          stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT));
      if (!has_notch_deeper_than(labels, label, box, kNotchDepth * s)) pieces = 1;
    }
    for (const StripPiece& part :
         split_blob(blob_pixels[static_cast<std::size_t>(label)],
                    blob_lumas[static_cast<std::size_t>(label)], pieces, lean_axis, elongation)) {
      found.push_back(part);
      found_in.push_back(label);
    }
  }
  // The holding network, where given, tells how many pieces lie where. Against the empty look
  // the blobs still tell what is a piece and what is table: the shadows the board's pieces
  // cast into the strip, which the network can take for pieces, are in the look. So each
  // blob kept holds the network's pieces whose middle lies on it or within a base's radius,
  // or, where the network finds none there, its own parts; pieces of the network on no blob
  // kept are counted only where sure and on a base's worth of change from the look (less sure,
  // or on less change, on a strip that stood still: see kNetworkAloneAtLeast). Without
  // the look, the network's pieces are counted as they are. Not on an area an arm covers: its
  // counts say nothing then (the tracker takes none), and hands over the areas are what makes
  // the network read most often.
  const bool by_network = holding_model != nullptr && !result.occluded;
  std::vector<bool> network_white;
  if (by_network) {
    bool read_now = true;
    const std::vector<HoldingNetPiece> network_found =
        network_pieces(*holding_model, *strip, base_area,
                       memory != nullptr ? &memory->network : nullptr, read_now);
    std::vector<StripPiece> pieces;
    if (!against_look) {
      for (const HoldingNetPiece& piece : network_found) {
        pieces.push_back({piece.middle, 0.0f, false});
        network_white.push_back(piece.white);
      }
    } else {
      std::vector<bool> kept(static_cast<std::size_t>(std::max(n, 1)), false);
      for (const int label : found_in) kept[static_cast<std::size_t>(label)] = true;
      const int reach = static_cast<int>(std::ceil(kBaseRadius * s));
      std::vector<bool> has_network_piece(kept.size(), false);
      // The places counted alone lately, each kept while the network finds a piece there.
      std::vector<HoldingAreaMemory::CountedAlone>& counted_alone = memory->counted_alone;
      const std::size_t counted_before = counted_alone.size();
      std::vector<bool> found_again(counted_before, false);
      // One place for one piece: the first of the earlier ones near, not yet found again.
      const auto counted_alone_near = [&](cv::Point2d at) {
        for (std::size_t i = 0; i < counted_before; ++i) {
          if (!found_again[i] && cv::norm(counted_alone[i].at - at) <= kSamePlace * s) {
            return std::optional{i};
          }
        }
        return std::optional<std::size_t>{};
      };
      for (const HoldingNetPiece& piece : network_found) {
        const cv::Point at(static_cast<int>(piece.middle.x), static_cast<int>(piece.middle.y));
        // The nearest kept blob within a base's radius holds this piece, and so does any
        // other there smaller than half a piece: one piece's silhouette can fall into two
        // blobs, its lit top and its shaded base, and the one left without a network piece
        // was counted again by its own parts (10706: 85.1 % of its areas exact, 159
        // over-counted; 94.9 %, 30 over-counted once both hold it). A whole piece's blob
        // beside it is another piece the network missed (10301 lost 13 pieces so).
        int nearest_label = 0;
        int nearest_d2 = reach * reach + 1;
        for (int y = std::max(0, at.y - reach); y <= std::min(labels.rows - 1, at.y + reach); ++y) {
          const int* l = labels.ptr<int>(y);
          for (int x = std::max(0, at.x - reach); x <= std::min(labels.cols - 1, at.x + reach);
               ++x) {
            const int d = (x - at.x) * (x - at.x) + (y - at.y) * (y - at.y);
            if (l[x] == 0 || !kept[static_cast<std::size_t>(l[x])] || d > reach * reach) continue;
            if (d < nearest_d2) {
              nearest_d2 = d;
              nearest_label = l[x];
            }
            if (stats.at<int>(l[x], cv::CC_STAT_AREA) < 0.5 * single) {
              has_network_piece[static_cast<std::size_t>(l[x])] = true;
            }
          }
        }
        const bool on_blob = nearest_label != 0;
        if (on_blob) has_network_piece[static_cast<std::size_t>(nearest_label)] = true;
        if (!on_blob) {
          // A pale piece on a pale table may leave no blob: only its lit top and its own
          // shadow differ from the look, and shadows alone make none. 10832's white
          // pieces on a pale green table: 4 read as 1 (68.8 % of its areas exact). The
          // network's sure piece is kept where much of its base differs from the look there,
          // learnt as lit table; the board's shadows cast into the strip as the game began
          // are where the look is not known.
          // Less sure only of a strip that stood still since it was read: a hand moving by
          // the area (the partner's, reaching past it) changes the strip in every frame, and
          // the network found pieces there for a frame or two.
          const std::optional<std::size_t> before = counted_alone_near(piece.middle);
          const bool kept_place = before && !read_now;
          const LookChange change =
              look_change(*empty_look, in_view, look_scales, look_rests, solid, at, reach,
                          look_scale_limit, look_rest_limit);
          // On a strip that stood still, most of the base's known part changed (some of the
          // base known).
          const bool mostly_changed = !read_now && change.known >= kLookKnownAtLeast &&
                                      change.differing >= kNetworkAloneDifferingWhereKnown;
          // ... and some of it more than a shadow changes it: less sure still.
          const bool base_changed = mostly_changed && change.solid >= kNetworkAloneSolid;
          const float at_least =
              kept_place || base_changed ? kNetworkAloneKeptAtLeast : kNetworkAloneAtLeast;
          const bool differs =
              change.known * change.differing >= kNetworkAloneDiffering || mostly_changed;
          if (piece.confidence < at_least || !differs) continue;
          if (before) {
            found_again[*before] = true;
          } else {
            counted_alone.push_back({piece.middle, 0});
            found_again.push_back(true);
          }
        }
        pieces.push_back({piece.middle, 0.0f, false});
        network_white.push_back(piece.white);
      }
      for (std::size_t k = 0; k < found.size(); ++k) {
        const auto label = static_cast<std::size_t>(found_in[k]);
        if (has_network_piece[label]) continue;
        // A blob on the board-side edge that reaches in less than a base's width, with no
        // piece of the network's on it, is taken for the top of a tall board piece leaning
        // over the edge: the blob rules keep it once past a base's radius and some lean
        // (10702's kings and queens, 0.58 square in against 0.56 at a lean of 0.9 square: one
        // piece too many in two areas all game). The network learnt such tops as table. Held
        // pieces it missed by the edge reached in 0.83 square or more on 10301 and 10807; one
        // lying along the edge or seen in part is lost (one of 400 unseen stills' areas).
        if (on_board_edge(found_in[k]) && depth[label] < 2 * kBaseRadius * s) continue;
        pieces.push_back(found[k]);
        network_white.push_back(found[k].luma >= white_black_luma);
      }
      for (std::size_t i = 0; i < counted_alone.size(); ++i) {
        counted_alone[i].frames_missed = found_again[i] ? 0 : counted_alone[i].frames_missed + 1;
      }
      std::erase_if(counted_alone, [](const HoldingAreaMemory::CountedAlone& place) {
        return place.frames_missed >= kCountedAloneFrames;
      });
    }
    found = std::move(pieces);
  }
  int merged = 0;
  float type_confidence = 0;
  // The pieces typed on earlier frames whose strips the network found as this one (none when
  // it read this one); this frame's are added after them.
  std::vector<HeldPiece>* typed_pieces =
      by_network && memory != nullptr ? &memory->network.typed_pieces : nullptr;
  const std::size_t typed_before = typed_pieces != nullptr ? typed_pieces->size() : 0;
  const double same_place_px = kSamePlace * square_px_in_image;
  for (std::size_t k = 0; k < found.size(); ++k) {
    const StripPiece& part = found[k];
    const bool white = by_network ? network_white[k] : part.luma >= white_black_luma;
    (white ? result.white_pieces : result.black_pieces) += 1;
    merged += part.merged;
    HeldPiece piece;
    const cv::Vec3d q = to_image * cv::Vec3d(part.middle.x, part.middle.y, 1);
    piece.at = {q[0] / q[2], q[1] / q[2]};
    if (model != nullptr) {
      // The nearest piece typed where this one lies, on a strip the network found unchanged,
      // is this piece (its colour aside: which pieces are white may change with what is found).
      const HeldPiece* typed_here = nullptr;
      double nearest_px = same_place_px;
      for (std::size_t t = 0; t < typed_before; ++t) {
        const HeldPiece& earlier = (*typed_pieces)[t];
        const double d = std::hypot(earlier.at.x - piece.at.x, earlier.at.y - piece.at.y);
        if (d <= nearest_px) {
          nearest_px = d;
          typed_here = &earlier;
        }
      }
      TypeProbabilities p{};
      if (typed_here != nullptr) {
        p = typed_here->probabilities;
      } else {
        p = model->holding_piece(holding_patch(frame_bgr, view, board, piece.at));
      }
      const auto best = std::max_element(p.begin(), p.end());
      const char letter = kPieceTypeLetters[static_cast<std::size_t>(best - p.begin())];
      piece.letter = white ? letter : static_cast<char>(std::tolower(letter));
      piece.confidence = *best;
      piece.probabilities = p;
      if (typed_pieces != nullptr && typed_here == nullptr) typed_pieces->push_back(piece);
      type_confidence += *best;
      ++result.counts[letter];
    } else {
      piece.letter = '?';
      ++result.counts['?'];
    }
    result.pieces.push_back(piece);
  }
  if (against_look) {
    cv::Mat near_blobs;
    cv::dilate(mask, near_blobs, cv::Mat(), cv::Point(-1, -1), 2);
    for (int y = 0; y < crop.rows; ++y) {
      const cv::Vec3b* line = crop.ptr<cv::Vec3b>(y);
      const uchar* m = in_view.ptr<uchar>(y);
      const uchar* b = near_blobs.ptr<uchar>(y);
      const uchar* known = empty_look->known.ptr<uchar>(y);
      const float* scale_line = look_scales.ptr<float>(y);
      const float* rest_line = look_rests.ptr<float>(y);
      cv::Vec3f* look = empty_look->look.ptr<cv::Vec3f>(y);
      for (int x = 0; x < crop.cols; ++x) {
        if (m[x] == 0 || known[x] == 0 || b[x] != 0) continue;
        if (std::abs(scale_line[x] - 1.0f) > 0.5f * look_scale_limit ||
            rest_line[x] > 0.5f * look_rest_limit) {
          continue;
        }
        look[x] += kEmptyLookRate * (cv::Vec3f(line[x]) - look[x]);
      }
    }
  }
  const int total = result.white_pieces + result.black_pieces;
  result.confidence =
      total == 0 ? 0.9f : 0.9f - 0.5f * static_cast<float>(merged) / static_cast<float>(total);
  if (model != nullptr && total > 0) {
    result.confidence *= type_confidence / static_cast<float>(total);
  }
  return result;
}

}  // namespace bugcam::vision
