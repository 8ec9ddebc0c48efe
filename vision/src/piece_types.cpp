// Piece types: where a piece's body is in the image, the patch cut around it, and the two
// convolutional networks that read it.
#include <algorithm>
#include <array>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include <opencv2/core/hal/intrin.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"
#include "onnx_network.hpp"
#include "piece_geometry.hpp"

namespace bugcam::vision {

namespace {

namespace fs = std::filesystem;

constexpr const char* kBoardModelFile = "piece_types_board.onnx";
constexpr const char* kHoldingModelFile = "piece_types_holding.onnx";
// A patch is standardised before the network sees it: minus its mean, over its standard
// deviation but at least this many grey levels (scripts/train_piece_types.py does the same).
constexpr double kMinStddev = 4.0;
// Height (squares) up to which a standing piece's body is cut out: a tall king.
constexpr double kPieceHeight = 1.9;
// The most kernels the last convolution, run here, may have.
constexpr int kMaxKernels = 256;

// Kernels rounded up to whole SIMD vectors.
int padded_kernels(int kernels) {
  const int lanes = cv::v_float32x4::nlanes;
  return (kernels + lanes - 1) / lanes * lanes;
}

cv::Vec3d column(const cv::Matx33d& m, int c) {
  return {m(0, c), m(1, c), m(2, c)};
}

// Maps the patch's frame to the image: the patch's x axis along `across`, y down along
// -`up`, its point (px, py) at `anchor`.
cv::Mat cut(const cv::Mat& frame_bgr, cv::Point2d anchor, cv::Point2d up, cv::Point2d across,
            cv::Point2d patch_anchor, cv::Size size) {
  // image = anchor + (x - ax) * across + (y - ay) * (-up)
  cv::Matx23d patch_to_image(across.x, -up.x, 0, across.y, -up.y, 0);
  patch_to_image(0, 2) = anchor.x - patch_anchor.x * across.x + patch_anchor.y * up.x;
  patch_to_image(1, 2) = anchor.y - patch_anchor.x * across.y + patch_anchor.y * up.y;
  cv::Mat gray;
  cv::cvtColor(frame_bgr, gray, cv::COLOR_BGR2GRAY);
  cv::Mat patch;
  cv::warpAffine(gray, patch, cv::Mat(patch_to_image), size,
                 cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_REPLICATE);
  return patch;
}

// The grey image of the neighbourhood only: converting the whole frame per patch would be
// wasteful.
cv::Mat region_of(const cv::Mat& frame_bgr, cv::Point2d centre, double radius, cv::Point& origin) {
  const cv::Rect wanted(cvFloor(centre.x - radius), cvFloor(centre.y - radius),
                        cvCeil(2 * radius) + 1, cvCeil(2 * radius) + 1);
  const cv::Rect box = wanted & cv::Rect(0, 0, frame_bgr.cols, frame_bgr.rows);
  origin = box.tl();
  if (box.area() <= 0) {
    origin = {0, 0};
    return cv::Mat(1, 1, CV_8UC3, cv::Scalar(0, 0, 0));
  }
  return frame_bgr(box);
}

// The networks give logits (their softmax temperature is folded in when training).
TypeProbabilities softmax(const std::vector<float>& v, int classes) {
  TypeProbabilities p{};
  const float top = *std::max_element(v.begin(), v.begin() + classes);
  float sum = 0;
  for (std::size_t i = 0; i < static_cast<std::size_t>(classes); ++i) {
    p[i] = std::exp(v[i] - top);
    sum += p[i];
  }
  for (float& x : p) x /= sum;
  return p;
}

}  // namespace

// --- Geometry ----------------------------------------------------------------------------

ViewGeometry::ViewGeometry(const calibration::Board& board, cv::Size image_size)
    : lens_(board.lens) {
  const cv::Matx33d& h = board.board_to_image;
  const double cx = image_size.width > 0 ? (image_size.width - 1) / 2.0 : h(0, 2);
  const double cy = image_size.height > 0 ? (image_size.height - 1) / 2.0 : h(1, 2);
  // The focal length from the homography of a plane seen by a camera with square pixels and
  // its principal point in the middle: the plane's axes are orthogonal and equally long.
  const cv::Vec3d a = column(h, 0), b = column(h, 1);
  const double ax = a[0] - cx * a[2], ay = a[1] - cy * a[2];
  const double bx = b[0] - cx * b[2], by = b[1] - cy * b[2];
  double f2_sum = 0, weight_sum = 0;
  const double ortho_den = a[2] * b[2];
  if (std::abs(ortho_den) > 1e-12) {
    const double f2 = -(ax * bx + ay * by) / ortho_den;
    const double w = ortho_den * ortho_den;
    if (f2 > 0) {
      f2_sum += f2 * w;
      weight_sum += w;
    }
  }
  const double norm_den = b[2] * b[2] - a[2] * a[2];
  if (std::abs(norm_den) > 1e-12) {
    const double f2 = (ax * ax + ay * ay - bx * bx - by * by) / norm_den;
    const double w = norm_den * norm_den;
    if (f2 > 0) {
      f2_sum += f2 * w;
      weight_sum += w;
    }
  }
  const double width = std::max(image_size.width, 1);
  // Nearly straight down the focal length cannot be told; any plausible lens then does.
  double f = weight_sum > 0 ? std::sqrt(f2_sum / weight_sum) : 1.2 * width;
  f = std::clamp(f, 0.4 * width, 4.0 * width);
  const cv::Matx33d k(f, 0, cx, 0, f, cy, 0, 0, 1);
  const std::optional<BoardPose> pose = board_pose(h, f, {cx, cy});
  if (!pose) return;  // degenerate: every point projects to the origin
  const cv::Vec3d r1 = pose->r1, r2 = pose->r2, t = pose->t;
  cv::Vec3d up = r1.cross(r2);
  up /= std::max(cv::norm(up), 1e-12);
  if (up.dot(t) > 0) up = -up;  // towards the camera
  // Board coordinates (x, y, height) to image: K [r1 r2 up t].
  for (int row = 0; row < 3; ++row) {
    const cv::Vec3d kr(k(row, 0), k(row, 1), k(row, 2));
    projection_(row, 0) = kr.dot(r1);
    projection_(row, 1) = kr.dot(r2);
    projection_(row, 2) = kr.dot(up);
    projection_(row, 3) = kr.dot(t);
  }
}

cv::Point2d ViewGeometry::project(double x, double y, double height) const {
  const cv::Vec4d p(x, y, height, 1);
  const cv::Vec3d q = projection_ * p;
  if (std::abs(q[2]) < 1e-12) return lens_.to_seen({q[0], q[1]});
  return lens_.to_seen({q[0] / q[2], q[1] / q[2]});
}

void ViewGeometry::upright_frame(cv::Point2d board_point, double height, cv::Point2d& base,
                                 cv::Point2d& up, cv::Point2d& across) const {
  base = project(board_point.x, board_point.y, 0);
  const cv::Point2d top = project(board_point.x, board_point.y, height);
  const cv::Point2d right = project(board_point.x + 0.5, board_point.y, 0);
  const cv::Point2d ahead = project(board_point.x, board_point.y + 0.5, 0);
  // One square's size here, in pixels.
  const double square = std::max(1.0, std::sqrt(std::abs((right - base).cross(ahead - base))) * 2);
  cv::Point2d lean = top - base;
  const double lean_length = std::hypot(lean.x, lean.y);
  // Seen straight down a piece does not lean; its top view is then cut as if it leaned up.
  up = lean_length > 0.05 * square ? lean * (1.0 / lean_length) : cv::Point2d(0, -1);
  across = {-up.y, up.x};  // to the right of up (image y runs down)
  up *= square;
  across *= square;
}

// --- Patches -------------------------------------------------------------------------------

cv::Mat square_patch(const cv::Mat& frame_bgr, const calibration::Board& board, cv::Size image_size,
                     int square) {
  const ViewGeometry view(board, image_size);
  return square_patch(frame_bgr, view, square);
}

cv::Mat square_patch(const cv::Mat& frame_bgr, const ViewGeometry& view, int square) {
  cv::Point2d base, up, across;
  const cv::Point2d centre(square % 8 + 0.5, square / 8 + 0.5);
  view.upright_frame(centre, kPieceHeight, base, up, across);
  const cv::Point2d top = view.project(centre.x, centre.y, kPieceHeight);
  const double square_px = std::hypot(up.x, up.y);
  // From 0.6 of a square below the base to 0.25 above the top of a tall piece (at least 1.6
  // squares of body), 1.4 squares wide.
  const double body = std::max(1.0, std::hypot(top.x - base.x, top.y - base.y) / square_px);
  const double length = 0.6 + body + 0.25;
  const cv::Size size = kSquarePatchSize;
  const double down_px = length / size.height;  // squares per patch pixel, along up
  const double across_px = 1.4 / size.width;    // squares per patch pixel, across
  cv::Point origin;
  const cv::Mat region = region_of(frame_bgr, base + up * (0.5 * length - 0.6),
                                   square_px * (0.5 * length + 1.0), origin);
  const cv::Point2d anchor = base - cv::Point2d(origin);
  return cut(region, anchor, up * down_px, across * across_px,
             {size.width / 2.0, size.height - 0.6 / down_px}, size);
}

cv::Mat holding_patch(const cv::Mat& frame_bgr, const calibration::Board& board,
                      cv::Size image_size, cv::Point2d image_point) {
  const ViewGeometry view(board, image_size);
  return holding_patch(frame_bgr, view, board, image_point);
}

cv::Mat holding_patch(const cv::Mat& frame_bgr, const ViewGeometry& view,
                      const calibration::Board& board, cv::Point2d image_point) {
  cv::Point2d base, up, across;
  view.upright_frame(board.to_board(image_point), kPieceHeight, base, up, across);
  const cv::Size size = kHoldingPatchSize;
  const double span = 2.4;  // squares the patch covers each way
  const double square_px = std::hypot(up.x, up.y);
  cv::Point origin;
  const cv::Mat region = region_of(frame_bgr, image_point, square_px * 1.8, origin);
  return cut(region, image_point - cv::Point2d(origin), up * (span / size.height),
             across * (span / size.width), {size.width / 2.0, size.height / 2.0}, size);
}

// --- Model -------------------------------------------------------------------------------

namespace {

// A network of convolutions then fully connected layers. OpenCV 4.6's convolution sums a
// small map (tens of outputs) in an order that depends on its thread count, so the last
// convolution (3x3, ReLU, 2x2 max-pooling) and the fully connected layers after it run here,
// in one fixed order: the probabilities must not depend on the machine. The convolutions
// before it, on larger maps, run in cv::dnn.
struct Network {
  cv::dnn::Net head;
  std::string head_output;          // the layer whose output the tail takes
  cv::Mat conv_weights, conv_bias;  // K x C x 3 x 3, K
  // The same weights tap by tap, C x 3 x 3 x K: the kernels of one tap side by side, so
  // that all K outputs of a pixel are summed together (vectorised), each in the order below.
  std::vector<float> weights_by_tap;
  std::vector<std::pair<cv::Mat, cv::Mat>> dense;  // weights (out x in) and bias, in order
};

Network load_network(const fs::path& file) {
  Network network;
  network.head = read_onnx_network(file, "a piece-type network");
  const auto unexpected = [&](const std::string& what) {
    return std::runtime_error(file.string() + ": not a piece-type network (" + what + ")");
  };
  const auto layers = network_layers(network.head);
  std::size_t last_conv = layers.size();
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].second->type == "Convolution") last_conv = i;
  }
  if (last_conv == layers.size() || last_conv == 0) throw unexpected("no second convolution");
  const cv::dnn::Layer& conv = *layers[last_conv].second;
  if (conv.blobs.size() != 2 || conv.blobs[0].dims != 4 || conv.blobs[0].size[2] != 3 ||
      conv.blobs[0].size[3] != 3) {
    throw unexpected("the last convolution is not 3x3 with a bias");
  }
  network.head_output = layers[last_conv - 1].first;
  network.conv_weights = conv.blobs[0].clone();
  network.conv_bias = conv.blobs[1].clone();
  const int kernels = network.conv_weights.size[0];
  const int taps = network.conv_weights.size[1] * 9;
  if (kernels > kMaxKernels) throw unexpected("more kernels in the last convolution than fit");
  const float* w = network.conv_weights.ptr<float>();
  // Padded with zero kernels to whole vectors.
  const int padded = padded_kernels(kernels);
  network.weights_by_tap.assign(static_cast<std::size_t>(padded * taps), 0.0f);
  for (int k = 0; k < kernels; ++k) {
    for (int tap = 0; tap < taps; ++tap) {
      network.weights_by_tap[static_cast<std::size_t>(tap * padded + k)] = w[k * taps + tap];
    }
  }
  for (std::size_t i = last_conv + 1; i < layers.size(); ++i) {
    if (layers[i].second->type != "InnerProduct") continue;
    if (layers[i].second->blobs.size() != 2)
      throw unexpected("a fully connected layer without bias");
    network.dense.emplace_back(layers[i].second->blobs[0].clone(),
                               layers[i].second->blobs[1].clone());
  }
  if (network.dense.empty()) throw unexpected("no fully connected layer");
  return network;
}

// The last convolution (ReLU, 2x2 max-pooling), flattened, then the fully connected layers
// (ReLU between them): the logits.
std::vector<float> tail(const Network& network, const cv::Mat& map) {
  const int channels = map.size[1], height = map.size[2], width = map.size[3];
  const int kernels = network.conv_weights.size[0];
  if (network.conv_weights.size[1] != channels) {
    throw std::runtime_error("piece-type network: the last convolution's input does not fit");
  }
  const float* in = map.ptr<float>();
  const float* bias = network.conv_bias.ptr<float>();
  // Each output sums its bias, then the input channels in order, each over the 3x3 kernel
  // row by row (taps off the map skipped): one fixed order, whatever the machine.
  std::vector<float> conv(static_cast<std::size_t>(kernels * height * width));
  const int padded = padded_kernels(kernels);
  constexpr int lanes = cv::v_float32x4::nlanes;
  alignas(16) std::array<float, kMaxKernels> sums{};
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      std::copy(bias, bias + kernels, sums.begin());
      for (int c = 0; c < channels; ++c) {
        const float* plane = in + static_cast<std::ptrdiff_t>(c * height * width);
        for (int dy = -1; dy <= 1; ++dy) {
          if (y + dy < 0 || y + dy >= height) continue;
          for (int dx = -1; dx <= 1; ++dx) {
            if (x + dx < 0 || x + dx >= width) continue;
            const float v = plane[(y + dy) * width + x + dx];
            const float* w = network.weights_by_tap.data() +
                             static_cast<std::ptrdiff_t>(((c * 3 + dy + 1) * 3 + dx + 1) * padded);
            // A multiply then an add (no fused multiply-add): the same rounding as the
            // plain sum, lane by lane.
            const cv::v_float32x4 value = cv::v_setall_f32(v);
            for (int k = 0; k < padded; k += lanes) {
              float* sum = sums.data() + k;
              cv::v_store_aligned(sum, cv::v_load_aligned(sum) + cv::v_load(w + k) * value);
            }
          }
        }
      }
      for (int k = 0; k < kernels; ++k) {
        conv[static_cast<std::size_t>((k * height + y) * width + x)] =
            std::max(sums[static_cast<std::size_t>(k)], 0.0f);
      }
    }
  }
  const int pooled_h = height / 2, pooled_w = width / 2;
  std::vector<float> values;
  for (int k = 0; k < kernels; ++k) {
    for (int y = 0; y < pooled_h; ++y) {
      for (int x = 0; x < pooled_w; ++x) {
        const auto at = [&](int yy, int xx) {
          return conv[static_cast<std::size_t>((k * height + yy) * width + xx)];
        };
        values.push_back(std::max(std::max(at(2 * y, 2 * x), at(2 * y, 2 * x + 1)),
                                  std::max(at(2 * y + 1, 2 * x), at(2 * y + 1, 2 * x + 1))));
      }
    }
  }
  for (std::size_t layer = 0; layer < network.dense.size(); ++layer) {
    const cv::Mat& w = network.dense[layer].first;
    const float* b = network.dense[layer].second.ptr<float>();
    if (w.cols != static_cast<int>(values.size())) {
      throw std::runtime_error("piece-type network: a fully connected layer does not fit");
    }
    std::vector<float> out(static_cast<std::size_t>(w.rows));
    for (int o = 0; o < w.rows; ++o) {
      const float* row = w.ptr<float>(o);
      float sum = b[o];
      for (std::size_t i = 0; i < values.size(); ++i) sum += row[i] * values[i];
      out[static_cast<std::size_t>(o)] =
          layer + 1 < network.dense.size() ? std::max(sum, 0.0f) : sum;
    }
    values = std::move(out);
  }
  return values;
}

// The 1x1xHxW input of a network: the grey patch standardised.
cv::Mat input_of(const cv::Mat& patch) {
  cv::Mat grey;
  patch.convertTo(grey, CV_32F);
  cv::Scalar mean, stddev;
  cv::meanStdDev(grey, mean, stddev);
  grey = (grey - mean[0]) * (1.0 / std::max(stddev[0], kMinStddev));
  return cv::dnn::blobFromImage(grey);
}

}  // namespace

struct PieceTypeModel::Networks {
  // cv::dnn::Net::forward changes the net's buffers: one caller at a time.
  std::mutex running;
  Network board;
  Network holding;
};

namespace {

TypeProbabilities run(Network& network, std::mutex& running, const cv::Mat& patch, int classes) {
  const cv::Mat input = input_of(patch);
  cv::Mat map;
  {
    const std::scoped_lock lock(running);
    network.head.setInput(input);
    map = network.head.forward(network.head_output).clone();
  }
  const std::vector<float> logits = tail(network, map);
  if (logits.size() != static_cast<std::size_t>(classes)) {
    throw std::runtime_error("piece-type network: " + std::to_string(logits.size()) +
                             " outputs, expected " + std::to_string(classes));
  }
  return softmax(logits, classes);
}

}  // namespace

PieceTypeModel::PieceTypeModel(const fs::path& dir) : networks_(std::make_unique<Networks>()) {
  networks_->board = load_network(dir / kBoardModelFile);
  networks_->holding = load_network(dir / kHoldingModelFile);
}

PieceTypeModel::~PieceTypeModel() = default;

fs::path PieceTypeModel::bundled_dir() {
  std::vector<fs::path> candidates;
#ifdef BUGCAM_VISION_MODELS_DIR
  candidates.emplace_back(BUGCAM_VISION_MODELS_DIR);
#endif
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (!error) candidates.push_back(executable.parent_path().parent_path() / "share/bugcam/models");
  for (const fs::path& dir : candidates) {
    if (fs::is_regular_file(dir / kBoardModelFile, error)) return dir;
  }
  return {};
}

std::shared_ptr<const PieceTypeModel> PieceTypeModel::load_bundled() {
  const fs::path dir = bundled_dir();
  if (dir.empty()) return nullptr;
  return std::make_shared<const PieceTypeModel>(dir);
}

TypeProbabilities PieceTypeModel::board_piece(const cv::Mat& patch) const {
  return run(networks_->board, networks_->running, patch, 6);
}

TypeProbabilities PieceTypeModel::holding_piece(const cv::Mat& patch) const {
  // Five types: no king is ever held.
  return run(networks_->holding, networks_->running, patch, 5);
}

TypeProbabilities PieceTypeModel::board_piece_looks(const cv::Mat& patch) const {
  // Scaled about the piece's base: the patch's middle column (mirroring keeps it in place, so
  // mirroring and scaling commute) and the row of the footprint (0.2 of the patch up).
  const auto scaled = [&](double scale) {
    const double x = (patch.cols - 1) / 2.0, y = 0.8 * (patch.rows - 1);
    const cv::Matx23d m(scale, 0, x * (1 - scale), 0, scale, y * (1 - scale));
    cv::Mat out;
    cv::warpAffine(patch, out, cv::Mat(m), patch.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    return out;
  };
  TypeProbabilities sum{};
  for (const cv::Mat& look : {patch, scaled(0.9), scaled(1.1)}) {
    cv::Mat mirror;
    cv::flip(look, mirror, 1);
    const TypeProbabilities a = board_piece(look), b = board_piece(mirror);
    // Each pair summed alone: a mirrored patch gives the same pairs, so the same sum.
    for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += a[k] + b[k];
  }
  for (float& p : sum) p /= 6.0f;
  return sum;
}

std::optional<TypeProbabilities> square_piece_types(const cv::Mat& frame_bgr,
                                                    const calibration::Calibration& calibration,
                                                    const std::string& board_name, int square,
                                                    std::string_view candidates,
                                                    const PieceTypeModel& model) {
  const calibration::Board* board = calibration.board(board_name);
  if (board == nullptr || square < 0 || square > 63 || frame_bgr.empty()) return std::nullopt;
  const cv::Size image_size =
      calibration.image_size.area() > 0 ? calibration.image_size : frame_bgr.size();
  const TypeProbabilities all =
      model.board_piece_looks(square_patch(frame_bgr, *board, image_size, square));
  TypeProbabilities out{};
  float sum = 0;
  for (const char c : candidates) {
    const std::size_t i = kPieceTypeLetters.find(static_cast<char>(std::toupper(c)));
    if (i == std::string_view::npos) continue;
    out[i] = all[i];
    sum += all[i];
  }
  if (sum <= 0) return std::nullopt;
  for (float& v : out) v /= sum;
  return out;
}

}  // namespace bugcam::vision
