// The holding network: where held pieces lie in a holding area's strip.
#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"
#include "onnx_network.hpp"

namespace bugcam::vision {

namespace fs = std::filesystem;

namespace {

constexpr const char* kModelFile = "holdings.onnx";
constexpr int kInputChannels = 4;
constexpr int kOutputChannels = 3;  // no piece's middle, a white piece's, a black piece's
// Two maxima this many cells apart or less, with no cell between them below kValleyShare of
// the weaker, are one piece. Two pieces' middles lie at least two base radii apart, about 0.66
// square or 4 cells, with a dip between; one piece lying on its side gave two maxima 2.2 cells
// apart (10508).
constexpr int kMergeRadius = 3;
constexpr float kValleyShare = 0.6f;

double length(cv::Point2d a, cv::Point2d b) {
  return std::hypot(a.x - b.x, a.y - b.y);
}

int rounded_up(int value, int step) {
  return (value + step - 1) / step * step;
}

}  // namespace

std::optional<HoldingStrip> holding_strip(const cv::Mat& frame_bgr,
                                          const calibration::HoldingArea& area,
                                          double square_px_in_image) {
  if (area.region.size() != 4 || square_px_in_image <= 0) return std::nullopt;
  const double s = kHoldingStripPx;
  const int width = static_cast<int>(
      std::lround(length(area.region[0], area.region[1]) / square_px_in_image * s));
  const int height = static_cast<int>(
      std::lround(length(area.region[1], area.region[2]) / square_px_in_image * s));
  if (width < 4 || height < 4) return std::nullopt;
  const std::vector<cv::Point2f> from{{0, 0},
                                      {static_cast<float>(width), 0},
                                      {static_cast<float>(width), static_cast<float>(height)},
                                      {0, static_cast<float>(height)}};
  std::vector<cv::Point2f> to;
  for (const cv::Point2d& p : area.region) to.emplace_back(cv::Point2f(p));
  HoldingStrip strip;
  const cv::Mat to_image = cv::getPerspectiveTransform(from, to);
  strip.to_image = cv::Matx33d(to_image);
  cv::warpPerspective(frame_bgr, strip.bgr, to_image, cv::Size(width, height),
                      cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT);
  // The part of the strip inside the image: beyond its edge there is nothing to count. A convex
  // area whose corners are all inside is inside whole (its pixels map into the quadrilateral
  // they span), as most are: no image-sized mask to warp then. (A calibration file may give a
  // region that is not convex.)
  const cv::Rect2d image_box(0, 0, frame_bgr.cols - 1, frame_bgr.rows - 1);
  if (cv::isContourConvex(to) &&
      std::all_of(area.region.begin(), area.region.end(),
                  [&](const cv::Point2d& p) { return image_box.contains(p); })) {
    strip.in_view = cv::Mat(height, width, CV_8U, cv::Scalar(255));
    return strip;
  }
  cv::warpPerspective(cv::Mat(frame_bgr.size(), CV_8U, cv::Scalar(255)), strip.in_view, to_image,
                      cv::Size(width, height), cv::INTER_NEAREST | cv::WARP_INVERSE_MAP,
                      cv::BORDER_CONSTANT, cv::Scalar(0));
  cv::erode(strip.in_view, strip.in_view, cv::Mat(), cv::Point(-1, -1), 2);
  return strip;
}

cv::Mat holding_net_input(const HoldingStrip& strip) {
  const cv::Mat& bgr = strip.bgr;
  if (bgr.type() != CV_8UC3 || strip.in_view.size() != bgr.size()) {
    throw std::invalid_argument("holding_net_input: not a strip from holding_strip");
  }
  const int height = rounded_up(bgr.rows, kHoldingNetStride);
  const int width = rounded_up(bgr.cols, kHoldingNetStride);
  const int shape[] = {1, kInputChannels, height, width};
  cv::Mat input(4, shape, CV_32F, cv::Scalar(0));
  const std::size_t plane = static_cast<std::size_t>(height) * static_cast<std::size_t>(width);
  float* out = input.ptr<float>();
  // The table's colour: the median per channel of what is in view (most of it is table).
  std::array<std::vector<uchar>, 3> values;
  for (int y = 0; y < bgr.rows; ++y) {
    const uchar* row = bgr.ptr<uchar>(y);
    const uchar* m = strip.in_view.ptr<uchar>(y);
    for (int x = 0; x < bgr.cols; ++x) {
      if (m[x] == 0) continue;
      for (std::size_t c = 0; c < 3; ++c) values[c].push_back(row[3 * x + static_cast<int>(c)]);
    }
  }
  if (values[0].empty()) return input;
  std::array<float, 3> table{};
  for (std::size_t c = 0; c < 3; ++c) {
    std::vector<uchar>& v = values[c];
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
    table[c] = v[v.size() / 2];
  }
  double squares = 0;
  double count = 0;
  for (int y = 0; y < bgr.rows; ++y) {
    const uchar* row = bgr.ptr<uchar>(y);
    const uchar* m = strip.in_view.ptr<uchar>(y);
    for (int x = 0; x < bgr.cols; ++x) {
      if (m[x] == 0) continue;
      for (std::size_t c = 0; c < 3; ++c) {
        const double d = row[3 * x + static_cast<int>(c)] - table[c];
        squares += d * d;
      }
      ++count;
    }
  }
  const float spread =
      std::max(kHoldingNetMinSpread, static_cast<float>(std::sqrt(squares / (3.0 * count))));
  for (int y = 0; y < bgr.rows; ++y) {
    const uchar* row = bgr.ptr<uchar>(y);
    const uchar* m = strip.in_view.ptr<uchar>(y);
    for (int x = 0; x < bgr.cols; ++x) {
      if (m[x] == 0) continue;
      const std::size_t at = static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                             static_cast<std::size_t>(x);
      for (std::size_t c = 0; c < 3; ++c) {
        out[c * plane + at] =
            (static_cast<float>(row[3 * x + static_cast<int>(c)]) - table[c]) / spread;
      }
      out[3 * plane + at] = 1.0f;
    }
  }
  return input;
}

struct HoldingModel::Network {
  std::mutex running;  // cv::dnn::Net::forward changes the net's buffers
  cv::dnn::Net net;
};

HoldingModel::HoldingModel(const fs::path& file) : network_(std::make_unique<Network>()) {
  network_->net = read_onnx_network(file, "a holding network");
  // One run on a small strip: a network of another shape fails here, not mid-recording.
  HoldingStrip probe;
  probe.bgr = cv::Mat(48, 96, CV_8UC3, cv::Scalar(128, 128, 128));
  probe.in_view = cv::Mat(probe.bgr.size(), CV_8U, cv::Scalar(255));
  network_->net.setInput(holding_net_input(probe));
  cv::Mat out;
  try {
    out = network_->net.forward();
  } catch (const cv::Exception& e) {
    throw std::runtime_error(file.string() + ": not a holding network (" + e.what() + ")");
  }
  if (out.dims != 4 || out.size[1] != kOutputChannels ||
      out.size[2] != probe.bgr.rows / kHoldingNetStride ||
      out.size[3] != probe.bgr.cols / kHoldingNetStride) {
    throw std::runtime_error(file.string() +
                             ": not a holding network (its output is not 3 planes of cells "
                             "one stride apart)");
  }
}

HoldingModel::~HoldingModel() = default;

fs::path HoldingModel::bundled_file() {
  const fs::path dir = PieceTypeModel::bundled_dir();
  if (dir.empty()) return {};
  std::error_code error;
  return fs::is_regular_file(dir / kModelFile, error) ? dir / kModelFile : fs::path();
}

std::shared_ptr<const HoldingModel> HoldingModel::load_bundled() {
  const fs::path file = bundled_file();
  if (file.empty()) return nullptr;
  return std::make_shared<const HoldingModel>(file);
}

std::vector<HoldingNetPiece> HoldingModel::read(const HoldingStrip& strip) const {
  cv::Mat logits;
  {
    const std::lock_guard<std::mutex> lock(network_->running);
    network_->net.setInput(holding_net_input(strip));
    logits = network_->net.forward().clone();
  }
  const int rows = logits.size[2], cols = logits.size[3];
  const std::size_t plane = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  const float* l = logits.ptr<float>();
  // Softmax per cell: the piece probability (white plus black) and white's share.
  std::vector<float> piece(plane), white(plane);
  for (std::size_t i = 0; i < plane; ++i) {
    const float top = std::max({l[i], l[plane + i], l[2 * plane + i]});
    const float none = std::exp(l[i] - top);
    const float w = std::exp(l[plane + i] - top);
    const float b = std::exp(l[2 * plane + i] - top);
    piece[i] = (w + b) / (none + w + b);
    white[i] = w / std::max(w + b, 1e-30f);
  }
  const auto at = [&](int y, int x) {
    return static_cast<std::size_t>(y) * static_cast<std::size_t>(cols) +
           static_cast<std::size_t>(x);
  };
  // Candidates: maxima among their 8 neighbours (of equal ones, the first in raster order).
  struct Candidate {
    int y, x;
    float p;
  };
  std::vector<Candidate> candidates;
  for (int y = 0; y < rows; ++y) {
    for (int x = 0; x < cols; ++x) {
      const float p = piece[at(y, x)];
      if (p < kHoldingNetPieceAtLeast) continue;
      bool peak = true;
      for (int dy = -1; dy <= 1 && peak; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          const int ny = y + dy, nx = x + dx;
          if ((dx == 0 && dy == 0) || ny < 0 || nx < 0 || ny >= rows || nx >= cols) continue;
          const float q = piece[at(ny, nx)];
          const bool before = dy < 0 || (dy == 0 && dx < 0);
          if (q > p || (before && q == p)) {
            peak = false;
            break;
          }
        }
      }
      if (peak) candidates.push_back({y, x, p});
    }
  }
  // Strongest first; one is dropped where a stronger one within kMergeRadius cells joins it
  // without a valley: one piece (a lying one's length) can show two maxima so, while two
  // pieces touching show a dip between their middles.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.p > b.p; });
  std::vector<Candidate> kept;
  for (const Candidate& c : candidates) {
    const bool joined = std::any_of(kept.begin(), kept.end(), [&](const Candidate& k) {
      const int dy = c.y - k.y, dx = c.x - k.x;
      if (std::max(std::abs(dx), std::abs(dy)) > kMergeRadius) return false;
      const int steps = std::max(std::abs(dx), std::abs(dy));
      float lowest = c.p;
      for (int i = 1; i < steps; ++i) {
        const int y = k.y + static_cast<int>(std::lround(static_cast<double>(dy) * i / steps));
        const int x = k.x + static_cast<int>(std::lround(static_cast<double>(dx) * i / steps));
        lowest = std::min(lowest, piece[at(y, x)]);
      }
      return lowest >= kValleyShare * c.p;
    });
    if (!joined) kept.push_back(c);
  }
  std::sort(kept.begin(), kept.end(), [](const Candidate& a, const Candidate& b) {
    return a.y != b.y ? a.y < b.y : a.x < b.x;
  });
  std::vector<HoldingNetPiece> found;
  for (const Candidate& c : kept) {
    double sum = 0, sum_x = 0, sum_y = 0, sum_white = 0;
    for (int ny = std::max(0, c.y - 1); ny <= std::min(rows - 1, c.y + 1); ++ny) {
      for (int nx = std::max(0, c.x - 1); nx <= std::min(cols - 1, c.x + 1); ++nx) {
        const float q = piece[at(ny, nx)];
        sum += q;
        sum_x += q * (nx + 0.5);
        sum_y += q * (ny + 0.5);
        sum_white += q * white[at(ny, nx)];
      }
    }
    HoldingNetPiece found_piece;
    found_piece.middle = {sum_x / sum * kHoldingNetStride, sum_y / sum * kHoldingNetStride};
    found_piece.white = sum_white >= 0.5 * sum;
    found_piece.confidence = c.p;
    found.push_back(found_piece);
  }
  return found;
}

}  // namespace bugcam::vision
