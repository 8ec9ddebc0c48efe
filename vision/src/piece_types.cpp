// Piece types: where a piece's body is in the image, the patch cut around it, its features and
// the two networks that read them.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include <opencv2/imgproc.hpp>
#include <opencv2/ml.hpp>
#include <opencv2/objdetect.hpp>

#include "bugcam/vision.hpp"
#include "piece_geometry.hpp"

namespace bugcam::vision {

namespace {

namespace fs = std::filesystem;

constexpr const char* kBoardModelFile = "piece_types_board.yml.gz";
constexpr const char* kHoldingModelFile = "piece_types_holding.yml.gz";
// The networks' outputs (about -1.7..1.7) become probabilities through a softmax of this
// sharpness.
constexpr float kSoftmaxGain = 1.5f;
// Height (squares) up to which a standing piece's body is cut out: a tall king.
constexpr double kPieceHeight = 1.9;

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

TypeProbabilities softmax(const cv::Mat& outputs, int classes) {
  TypeProbabilities p{};
  float top = -1e9f;
  for (int i = 0; i < classes; ++i) top = std::max(top, outputs.at<float>(0, i));
  float sum = 0;
  for (int i = 0; i < classes; ++i) {
    p[static_cast<std::size_t>(i)] = std::exp(kSoftmaxGain * (outputs.at<float>(0, i) - top));
    sum += p[static_cast<std::size_t>(i)];
  }
  for (float& v : p) v /= sum;
  return p;
}

}  // namespace

// --- Geometry ----------------------------------------------------------------------------

ViewGeometry::ViewGeometry(const calibration::Board& board, cv::Size image_size) {
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
  if (std::abs(q[2]) < 1e-12) return {q[0], q[1]};
  return {q[0] / q[2], q[1] / q[2]};
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

std::vector<float> patch_features(const cv::Mat& patch) {
  // Gradient histograms of 8-pixel cells in 16-pixel blocks, plus the coarse brightness
  // pattern (normalised), which tells a piece's outline from the board behind it.
  const cv::HOGDescriptor hog(patch.size(), {16, 16}, {8, 8}, {8, 8}, 9);
  std::vector<float> features;
  hog.compute(patch, features);
  cv::Mat coarse;
  cv::resize(patch, coarse, {patch.cols / 4, patch.rows / 4}, 0, 0, cv::INTER_AREA);
  coarse.convertTo(coarse, CV_32F);
  cv::Scalar mean, stddev;
  cv::meanStdDev(coarse, mean, stddev);
  const float scale = 1.0f / static_cast<float>(std::max(stddev[0], 4.0));
  for (int y = 0; y < coarse.rows; ++y) {
    for (int x = 0; x < coarse.cols; ++x) {
      features.push_back((coarse.at<float>(y, x) - static_cast<float>(mean[0])) * scale * 0.25f);
    }
  }
  return features;
}

// --- Model -------------------------------------------------------------------------------

struct PieceTypeModel::Networks {
  cv::Ptr<cv::ml::ANN_MLP> board;
  cv::Ptr<cv::ml::ANN_MLP> holding;
};

namespace {

cv::Ptr<cv::ml::ANN_MLP> load_network(const fs::path& file) {
  if (!fs::is_regular_file(file)) throw std::runtime_error(file.string() + ": no such file");
  cv::Ptr<cv::ml::ANN_MLP> network;
  try {
    network = cv::ml::ANN_MLP::load(file.string());
  } catch (const cv::Exception& e) {
    throw std::runtime_error(file.string() + ": cannot read the network: " + e.what());
  }
  if (network.empty() || !network->isTrained()) {
    throw std::runtime_error(file.string() + ": not a trained network");
  }
  return network;
}

TypeProbabilities run(const cv::ml::ANN_MLP& network, const cv::Mat& patch) {
  const std::vector<float> features = patch_features(patch);
  const cv::Mat input(1, static_cast<int>(features.size()), CV_32F,
                      const_cast<float*>(features.data()));
  cv::Mat outputs;
  network.predict(input, outputs);
  return softmax(outputs, std::min(outputs.cols, 6));
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
  return run(*networks_->board, patch);
}

TypeProbabilities PieceTypeModel::holding_piece(const cv::Mat& patch) const {
  TypeProbabilities p = run(*networks_->holding, patch);
  p[5] = 0;  // no king is ever held
  return p;
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
      model.board_piece(square_patch(frame_bgr, *board, image_size, square));
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
