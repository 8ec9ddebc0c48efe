// The square-reading network: its input, and running it (cv::dnn for the convolutions on
// large maps, the last two here in a fixed order).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <mutex>
#include <stdexcept>

#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"
#include "onnx_network.hpp"

namespace bugcam::vision {

namespace {

namespace fs = std::filesystem;

constexpr const char* kModelFile = "squares.onnx";
constexpr int kInputChannels = 5;
constexpr int kClasses = 3;
// Views whose lean planes are kept: the boards of a calibration and of the one before it.
constexpr std::size_t kLeansKept = 4;

}  // namespace

cv::Mat square_net_board(const cv::Mat& warped_bgr) {
  const int side = 8 * kSquareNetPx;
  if (warped_bgr.cols == side && warped_bgr.rows == side) return warped_bgr.clone();
  cv::Mat small;
  cv::resize(warped_bgr, small, cv::Size(side, side), 0, 0, cv::INTER_AREA);
  return small;
}

namespace {

// The input's colour planes (the first three of square_net_input).
void square_net_colours(const cv::Mat& board_bgr, float* out) {
  const int side = 8 * kSquareNetPx;
  if (board_bgr.type() != CV_8UC3 || board_bgr.cols != side || board_bgr.rows != side) {
    throw std::invalid_argument("square_net_input: not a board from square_net_board");
  }
  const int n = kSquareNetSide;
  const int plane = n * n;
  std::fill(out, out + 3 * plane, 0.0f);
  // Mean per channel, spread pooled over the three, in one fixed order.
  std::array<double, 3> sum{}, squares{};
  for (int y = 0; y < side; ++y) {
    const uchar* row = board_bgr.ptr<uchar>(y);
    for (int x = 0; x < side; ++x) {
      for (int c = 0; c < 3; ++c) {
        const double v = row[3 * x + c];
        sum[static_cast<size_t>(c)] += v;
        squares[static_cast<size_t>(c)] += v * v;
      }
    }
  }
  const double count = double(side) * side;
  std::array<float, 3> mean{};
  double variance = 0;
  for (size_t c = 0; c < 3; ++c) {
    const double m = sum[c] / count;
    mean[c] = static_cast<float>(m);
    variance += squares[c] / count - m * m;
  }
  const float spread = std::max(kSquareNetMinSpread, static_cast<float>(std::sqrt(variance / 3)));
  for (int y = 0; y < side; ++y) {
    const uchar* row = board_bgr.ptr<uchar>(y);
    for (int x = 0; x < side; ++x) {
      const int at = (y + kSquareNetMargin) * n + x + kSquareNetMargin;
      for (int c = 0; c < 3; ++c) {
        out[c * plane + at] =
            (static_cast<float>(row[3 * x + c]) - mean[static_cast<size_t>(c)]) / spread;
      }
    }
  }
}

// The input's lean planes (the last two of square_net_input): they depend on the view alone.
void square_net_lean(const Viewpoint& view, float* out) {
  const int n = kSquareNetSide;
  const int plane = n * n;
  // Board point of input pixel (x, y): the warp's pixel (x - margin, y - margin).
  const double s = kSquareNetPx;
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      const cv::Point2d p((x - kSquareNetMargin + 0.5) / s, 8 - (y - kSquareNetMargin + 0.5) / s);
      const cv::Point2d lean = view.lean(p, 1.0);
      out[y * n + x] = static_cast<float>(lean.x) * kSquareNetLeanScale;
      out[plane + y * n + x] = static_cast<float>(-lean.y) * kSquareNetLeanScale;
    }
  }
}

}  // namespace

void square_net_input(const cv::Mat& board_bgr, const Viewpoint& view, float* out) {
  square_net_colours(board_bgr, out);
  square_net_lean(view, out + 3 * kSquareNetSide * kSquareNetSide);
}

// OpenCV 4.6's convolution sums a small map in an order that depends on its thread count
// (see piece_types.cpp), so the network's last two convolutions (3x3 without padding, ReLU;
// then 1x1: the logits of each square) run here in one fixed order; the ones before, on
// larger maps, in cv::dnn.
struct SquareModel::Network {
  std::mutex running;  // cv::dnn::Net::forward changes the net's buffers
  cv::dnn::Net head;
  std::string head_output;
  cv::Mat conv_weights, conv_bias;         // K x C x 3 x 3, K
  std::vector<float> conv_weights_by_tap;  // the same as (C x 3 x 3) x K
  cv::Mat logit_weights, logit_bias;       // 3 x K x 1 x 1, 3
  // The lean planes of the views seen (a recording has one per board), under `running`.
  std::vector<std::pair<Viewpoint, std::vector<float>>> leans;
};

SquareModel::SquareModel(const fs::path& file) : network_(std::make_unique<Network>()) {
  Network& net = *network_;
  net.head = read_onnx_network(file, "a square network");
  const auto unexpected = [&](const std::string& what) {
    return std::runtime_error(file.string() + ": not a square network (" + what + ")");
  };
  const auto layers = network_layers(net.head);
  std::vector<size_t> convs;
  for (size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].second->type == "Convolution") convs.push_back(i);
  }
  if (convs.size() < 3) throw unexpected("fewer than three convolutions");
  const size_t conv_at = convs[convs.size() - 2];
  const cv::dnn::Layer& conv = *layers[conv_at].second;
  const cv::dnn::Layer& logits = *layers[convs.back()].second;
  if (conv.blobs.size() != 2 || conv.blobs[0].dims != 4 || conv.blobs[0].size[2] != 3 ||
      conv.blobs[0].size[3] != 3) {
    throw unexpected("the second last convolution is not 3x3 with a bias");
  }
  if (logits.blobs.size() != 2 || logits.blobs[0].dims != 4 ||
      logits.blobs[0].size[0] != kClasses || logits.blobs[0].size[1] != conv.blobs[0].size[0] ||
      logits.blobs[0].size[2] != 1 || logits.blobs[0].size[3] != 1) {
    throw unexpected("the last convolution is not 1x1 to three classes");
  }
  net.head_output = layers[conv_at - 1].first;
  net.conv_weights = conv.blobs[0].clone();
  net.conv_bias = conv.blobs[1].clone();
  const int kernels = net.conv_weights.size[0], taps = net.conv_weights.size[1] * 9;
  net.conv_weights_by_tap.resize(static_cast<size_t>(kernels) * static_cast<size_t>(taps));
  for (int k = 0; k < kernels; ++k) {
    for (int t = 0; t < taps; ++t) {
      net.conv_weights_by_tap[static_cast<size_t>(t) * static_cast<size_t>(kernels) +
                              static_cast<size_t>(k)] = net.conv_weights.ptr<float>()[k * taps + t];
    }
  }
  net.logit_weights = logits.blobs[0].clone();
  net.logit_bias = logits.blobs[1].clone();
}

SquareModel::~SquareModel() = default;

fs::path SquareModel::bundled_file() {
  const fs::path dir = PieceTypeModel::bundled_dir();
  if (dir.empty()) return {};
  std::error_code error;
  return fs::is_regular_file(dir / kModelFile, error) ? dir / kModelFile : fs::path();
}

std::shared_ptr<const SquareModel> SquareModel::load_bundled() {
  const fs::path file = bundled_file();
  if (file.empty()) return nullptr;
  return std::make_shared<const SquareModel>(file);
}

std::vector<SquareProbabilities> SquareModel::read(const std::vector<cv::Mat>& warped_bgr,
                                                   const std::vector<Viewpoint>& views) const {
  if (warped_bgr.size() != views.size()) {
    throw std::invalid_argument("SquareModel::read: one viewpoint per board");
  }
  std::vector<SquareProbabilities> result(warped_bgr.size());
  if (warped_bgr.empty()) return result;
  const int n = kSquareNetSide;
  const int boards = static_cast<int>(warped_bgr.size());
  const int input_shape[] = {boards, kInputChannels, n, n};
  cv::Mat input(4, input_shape, CV_32F);
  const auto board_input = [&](int b) {
    return input.ptr<float>() + static_cast<ptrdiff_t>(b) * kInputChannels * n * n;
  };
  for (int b = 0; b < boards; ++b) {
    square_net_colours(square_net_board(warped_bgr[static_cast<size_t>(b)]), board_input(b));
  }
  Network& net = *network_;
  cv::Mat map;
  {
    const std::scoped_lock lock(net.running);
    for (int b = 0; b < boards; ++b) {
      const Viewpoint& view = views[static_cast<size_t>(b)];
      auto known = std::find_if(net.leans.begin(), net.leans.end(),
                                [&](const auto& seen) { return seen.first == view; });
      if (known == net.leans.end()) {
        // A few views at most; a renewed calibration brings new ones.
        if (net.leans.size() >= kLeansKept) net.leans.erase(net.leans.begin());
        std::vector<float> planes(static_cast<size_t>(2 * n * n));
        square_net_lean(view, planes.data());
        net.leans.emplace_back(view, std::move(planes));
        known = std::prev(net.leans.end());
      }
      std::copy(known->second.begin(), known->second.end(), board_input(b) + 3 * n * n);
    }
    net.head.setInput(input);
    map = net.head.forward(net.head_output).clone();
  }
  const int channels = map.size[1], height = map.size[2], width = map.size[3];
  const int kernels = net.conv_weights.size[0];
  if (map.size[0] != boards || net.conv_weights.size[1] != channels || height != 10 ||
      width != 10) {
    throw std::runtime_error("square network: the map before its last convolutions does not fit");
  }
  const float* by_tap = net.conv_weights_by_tap.data();
  const float* bias = net.conv_bias.ptr<float>();
  const float* lw = net.logit_weights.ptr<float>();
  const float* lb = net.logit_bias.ptr<float>();
  std::vector<float> hidden(static_cast<size_t>(kernels));
  for (int b = 0; b < boards; ++b) {
    const float* in = map.ptr<float>() + static_cast<ptrdiff_t>(b) * channels * height * width;
    for (int row = 0; row < 8; ++row) {
      for (int file = 0; file < 8; ++file) {
        // Each kernel: its bias, then the channels in order, each over its 3x3 taps row by row.
        // All kernels step together (tap by tap), each summing in that order.
        std::copy(bias, bias + kernels, hidden.begin());
        const float* wt = by_tap;
        for (int c = 0; c < channels; ++c) {
          const float* plane = in + static_cast<ptrdiff_t>(c) * height * width;
          for (int dy = 0; dy < 3; ++dy) {
            for (int dx = 0; dx < 3; ++dx, wt += kernels) {
              const float v = plane[(row + dy) * width + file + dx];
              for (int k = 0; k < kernels; ++k) hidden[static_cast<size_t>(k)] += wt[k] * v;
            }
          }
        }
        for (float& h : hidden) h = std::max(h, 0.0f);
        std::array<float, kClasses> logit{};
        for (int o = 0; o < kClasses; ++o) {
          float sum = lb[o];
          for (int k = 0; k < kernels; ++k)
            sum += lw[o * kernels + k] * hidden[static_cast<size_t>(k)];
          logit[static_cast<size_t>(o)] = sum;
        }
        const float top = std::max({logit[0], logit[1], logit[2]});
        std::array<float, kClasses> p{};
        float total = 0;
        for (size_t o = 0; o < kClasses; ++o) {
          p[o] = std::exp(logit[o] - top);
          total += p[o];
        }
        // Row 0 of the warp is rank 8.
        std::array<float, 3>& out =
            result[static_cast<size_t>(b)][static_cast<size_t>((7 - row) * 8 + file)];
        for (size_t o = 0; o < kClasses; ++o) out[o] = p[o] / total;
      }
    }
  }
  return result;
}

}  // namespace bugcam::vision
