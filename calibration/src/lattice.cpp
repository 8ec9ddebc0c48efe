// Finding boards: checkerboard X-corners, grown into 7x7 lattices of inner corners, then
// placed in the 8x8 playing area by the checker pattern of the squares: the 64 cells must
// alternate in the board's two colours and the ring of cells around them must not.
#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <tuple>
#include <utility>

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include "bugcam/calibration.hpp"
#include "geometry.hpp"

namespace bugcam::calibration {

namespace {

// Boards are searched for in an image no larger than this on its long side; X-corners are
// scale-free near their centre, so this costs little accuracy and bounds the time.
constexpr int kWorkingLongSide = 1280;
constexpr int kMaxCandidates = 4000;
// A lattice corner this far (in squares) from where the others put it is a stray: subpixel
// X-corners sit within a few hundredths of a square, lens distortion bends a lattice less.
constexpr double kStrayCornerSquares = 0.04;

// The ChESS response (Bennett and Lasenby, 2014) on a ring of 16 samples: large where
// opposite sectors agree and neighbouring sectors differ, as at the meeting point of four
// squares, and small on edges, blobs and T-junctions.
cv::Mat chess_response(const cv::Mat& gray_float, int radius) {
  CV_Assert(gray_float.type() == CV_32FC1);
  cv::Mat padded;
  cv::copyMakeBorder(gray_float, padded, radius, radius, radius, radius, cv::BORDER_REPLICATE);
  // Each ring sample's offset in the padded picture, from the pixel's own place there.
  std::array<std::ptrdiff_t, 16> ring_offset{};
  const auto padded_step = static_cast<std::ptrdiff_t>(padded.step1());
  for (std::size_t n = 0; n < 16; ++n) {
    const double angle = 2.0 * std::numbers::pi * static_cast<double>(n) / 16.0;
    const long dx = std::lround(radius * std::cos(angle));
    const long dy = std::lround(radius * std::sin(angle));
    ring_offset[n] = dy * padded_step + dx;
  }
  cv::Mat local_mean;
  cv::blur(gray_float, local_mean, cv::Size(3, 3));
  // Pixel by pixel, with the sums in the order whole-picture arithmetic would take them:
  // that made some thirty picture-sized temporaries a call.
  cv::Mat response(gray_float.size(), CV_32F);
  for (int y = 0; y < gray_float.rows; ++y) {
    const float* centre = padded.ptr<float>(y + radius) + radius;
    const float* mean = local_mean.ptr<float>(y);
    float* out = response.ptr<float>(y);
    for (int x = 0; x < gray_float.cols; ++x) {
      std::array<float, 16> ring;
      for (std::size_t n = 0; n < 16; ++n) ring[n] = centre[x + ring_offset[n]];
      float sum_response = 0;
      for (std::size_t n = 0; n < 4; ++n) {
        sum_response += std::fabs(ring[n] + ring[n + 8] - ring[n + 4] - ring[n + 12]);
      }
      float diff_response = 0;
      for (std::size_t n = 0; n < 8; ++n) diff_response += std::fabs(ring[n] - ring[n + 8]);
      float ring_sum = 0;
      for (std::size_t n = 0; n < 16; ++n) ring_sum += ring[n];
      const float mean_response = std::fabs(ring_sum * (1.0f / 16.0f) - mean[x]) * 16.0f;
      out[x] = sum_response - diff_response - mean_response;
    }
  }
  return response;
}

float sample(const cv::Mat& gray_float, cv::Point2d p) {
  const int x = std::clamp(static_cast<int>(std::lround(p.x)), 0, gray_float.cols - 1);
  const int y = std::clamp(static_cast<int>(std::lround(p.y)), 0, gray_float.rows - 1);
  return gray_float.at<float>(y, x);
}

bool inside(const cv::Mat& image, cv::Point2d p) {
  return p.x >= 0 && p.y >= 0 && p.x < image.cols && p.y < image.rows;
}

// Which diagonal pair of quadrants is bright at an X-corner, given the local lattice axes:
// +1 or -1, alternating from one corner to the next along either axis; 0 when the four
// quadrants do not alternate (an edge, or a T-junction where the board meets its border).
// The samples sit a quarter square from the corner, inside the gap that pieces leave.
int polarity(const cv::Mat& gray_float, cv::Point2d p, cv::Point2d u, cv::Point2d v) {
  const cv::Point2d d1 = 0.18 * (u + v);
  const cv::Point2d d2 = 0.18 * (u - v);
  const float a1 = sample(gray_float, p + d1);
  const float a2 = sample(gray_float, p - d1);
  const float b1 = sample(gray_float, p + d2);
  const float b2 = sample(gray_float, p - d2);
  const float margin = 0.15f * (std::max({a1, a2, b1, b2}) - std::min({a1, a2, b1, b2}));
  if (std::min(a1, a2) > std::max(b1, b2) + margin) return 1;
  if (std::min(b1, b2) > std::max(a1, a2) + margin) return -1;
  return 0;
}

double norm(cv::Point2d p) {
  return std::hypot(p.x, p.y);
}

// Candidate X-corners with a coarse grid for nearest-neighbour look-ups.
class CornerIndex {
 public:
  CornerIndex(const std::vector<cv::Point2f>& points, cv::Size size, int cell)
      : points_(points), cell_(cell), cols_(size.width / cell + 1), rows_(size.height / cell + 1) {
    buckets_.resize(static_cast<size_t>(cols_) * static_cast<size_t>(rows_));
    for (size_t i = 0; i < points.size(); ++i) buckets_[bucket(points[i])].push_back(i);
  }

  // Index of the nearest point within max_distance of p, if any, skipping used points.
  std::optional<size_t> nearest(cv::Point2d p, double max_distance,
                                const std::vector<char>& used) const {
    std::optional<size_t> best;
    double best_distance = max_distance;
    const int reach = static_cast<int>(std::ceil(max_distance / cell_));
    const int cx = static_cast<int>(std::floor(p.x / cell_));
    const int cy = static_cast<int>(std::floor(p.y / cell_));
    for (int y = cy - reach; y <= cy + reach; ++y) {
      if (y < 0 || y >= rows_) continue;
      for (int x = cx - reach; x <= cx + reach; ++x) {
        if (x < 0 || x >= cols_) continue;
        for (const size_t i : buckets_[static_cast<size_t>(y * cols_ + x)]) {
          if (used[i]) continue;
          const double d = norm(cv::Point2d(points_[i]) - p);
          if (d < best_distance) {
            best_distance = d;
            best = i;
          }
        }
      }
    }
    return best;
  }

  // The k nearest points to point i (excluding itself). Squares can be of any size, so
  // this looks at every point.
  std::vector<size_t> neighbours(size_t i, size_t k) const {
    std::vector<std::pair<double, size_t>> found;
    const cv::Point2d p(points_[i]);
    for (size_t j = 0; j < points_.size(); ++j) {
      if (j != i) found.emplace_back(norm(cv::Point2d(points_[j]) - p), j);
    }
    const size_t n = std::min(k, found.size());
    std::partial_sort(found.begin(), found.begin() + static_cast<long>(n), found.end());
    std::vector<size_t> result;
    for (size_t m = 0; m < n; ++m) result.push_back(found[m].second);
    return result;
  }

 private:
  size_t bucket(cv::Point2f p) const {
    const int x = std::clamp(static_cast<int>(p.x) / cell_, 0, cols_ - 1);
    const int y = std::clamp(static_cast<int>(p.y) / cell_, 0, rows_ - 1);
    return static_cast<size_t>(y * cols_ + x);
  }

  const std::vector<cv::Point2f>& points_;
  int cell_;
  int cols_;
  int rows_;
  std::vector<std::vector<size_t>> buckets_;
};

struct Lattice {
  std::map<std::pair<int, int>, size_t> members;  // lattice index (i, j) -> candidate
  cv::Matx33d lattice_to_image = cv::Matx33d::eye();
  int i_min = 0, i_max = 0, j_min = 0, j_max = 0;
  int polarity_at_origin = 1;

  // The polarity of the X-corner at lattice index (i, j): it flips with every step.
  int polarity_at(int i, int j) const {
    return (i + j) % 2 == 0 ? polarity_at_origin : -polarity_at_origin;
  }
};

cv::Matx33d fit_homography(const Lattice& lattice, const std::vector<cv::Point2f>& points) {
  std::vector<cv::Point2f> from;
  std::vector<cv::Point2f> to;
  for (const auto& [ij, index] : lattice.members) {
    from.emplace_back(static_cast<float>(ij.first), static_cast<float>(ij.second));
    to.push_back(points[index]);
  }
  const cv::Mat h = cv::findHomography(from, to, 0);
  if (h.empty()) return lattice.lattice_to_image;
  return cv::Matx33d(h);
}

void update_bounds(Lattice& lattice) {
  bool first = true;
  for (const auto& [ij, index] : lattice.members) {
    if (first) {
      lattice.i_min = lattice.i_max = ij.first;
      lattice.j_min = lattice.j_max = ij.second;
      first = false;
    }
    lattice.i_min = std::min(lattice.i_min, ij.first);
    lattice.i_max = std::max(lattice.i_max, ij.first);
    lattice.j_min = std::min(lattice.j_min, ij.second);
    lattice.j_max = std::max(lattice.j_max, ij.second);
  }
}

// Starts a lattice at candidate `seed`: finds the two shortest lattice axes among its
// neighbours that predict a 3x3 block of corners with alternating polarity.
std::optional<Lattice> seed_lattice(size_t seed, const std::vector<cv::Point2f>& points,
                                    const CornerIndex& index, const cv::Mat& gray,
                                    const std::vector<char>& used) {
  const cv::Point2d p(points[seed]);
  const std::vector<size_t> near = index.neighbours(seed, 10);
  int best_support = 0;
  double best_length = 0;
  std::optional<Lattice> best;
  for (size_t a = 0; a < near.size(); ++a) {
    if (used[near[a]]) continue;
    for (size_t b = a + 1; b < near.size(); ++b) {
      if (used[near[b]]) continue;
      const cv::Point2d u = cv::Point2d(points[near[a]]) - p;
      const cv::Point2d v = cv::Point2d(points[near[b]]) - p;
      const double lu = norm(u);
      const double lv = norm(v);
      if (lu < 5 || lv < 5 || lu > 2.5 * lv || lv > 2.5 * lu) continue;
      if (std::abs(u.dot(v)) / (lu * lv) > 0.75) continue;
      const int pol = polarity(gray, p, u, v);
      if (pol == 0) continue;
      const double tolerance = 0.2 * std::min(lu, lv);
      Lattice lattice;
      lattice.polarity_at_origin = pol;
      for (int j = -1; j <= 1; ++j) {
        for (int i = -1; i <= 1; ++i) {
          const cv::Point2d q = p + i * u + j * v;
          const auto found = index.nearest(q, tolerance, used);
          if (!found) continue;
          const int expected = ((i + j) % 2 == 0) ? pol : -pol;
          if (polarity(gray, cv::Point2d(points[*found]), u, v) != expected) continue;
          lattice.members[{i, j}] = *found;
        }
      }
      const int support = static_cast<int>(lattice.members.size());
      const double length = lu + lv;
      if (support >= 7 && lattice.members.count({0, 0}) == 1 &&
          (support > best_support || (support == best_support && length < best_length))) {
        best_support = support;
        best_length = length;
        best = std::move(lattice);
      }
    }
  }
  return best;
}

// Grows a lattice with its homography until no predicted corner finds a candidate. A
// board's inner corners span at most 7 along each axis.
void grow_lattice(Lattice& lattice, const std::vector<cv::Point2f>& points,
                  const CornerIndex& index, const cv::Mat& gray, std::vector<char>& used) {
  for (const auto& [ij, i] : lattice.members) used[i] = 1;
  for (int round = 0; round < 30; ++round) {
    lattice.lattice_to_image = fit_homography(lattice, points);
    update_bounds(lattice);
    std::vector<std::pair<std::pair<int, int>, size_t>> additions;
    std::vector<std::pair<int, int>> gap_lines;
    for (int j = lattice.j_max - 6; j <= lattice.j_min + 6; ++j) {
      for (int i = lattice.i_max - 6; i <= lattice.i_min + 6; ++i) {
        if (lattice.members.count({i, j}) != 0) continue;
        // Only neighbours of corners already in the lattice, so that growth is local.
        const bool adjacent =
            lattice.members.count({i - 1, j}) || lattice.members.count({i + 1, j}) ||
            lattice.members.count({i, j - 1}) || lattice.members.count({i, j + 1});
        // Across one missing line: the hinge of a folding board, a row of tall pieces.
        const bool across_gap =
            lattice.members.count({i - 2, j}) || lattice.members.count({i + 2, j}) ||
            lattice.members.count({i, j - 2}) || lattice.members.count({i, j + 2});
        if (!adjacent && !across_gap) continue;
        const cv::Matx33d& h = lattice.lattice_to_image;
        const cv::Point2d q = apply(h, {double(i), double(j)});
        const cv::Point2d u = apply(h, {double(i) + 1, double(j)}) - q;
        const cv::Point2d v = apply(h, {double(i), double(j) + 1}) - q;
        const double step = std::min(norm(u), norm(v));
        const auto found = index.nearest(q, 0.22 * step, used);
        if (!found) continue;
        if (polarity(gray, cv::Point2d(points[*found]), u, v) != lattice.polarity_at(i, j)) {
          continue;
        }
        additions.push_back({{i, j}, *found});
        if (!adjacent) gap_lines.push_back({i, j});
      }
    }
    // A corner across a gap joins only with others on its line: three or more of them.
    std::erase_if(additions, [&](const auto& addition) {
      const std::pair<int, int>& ij = addition.first;
      const bool gap = std::find(gap_lines.begin(), gap_lines.end(), ij) != gap_lines.end();
      if (!gap) return false;
      const long same_row = std::count_if(gap_lines.begin(), gap_lines.end(),
                                          [&](const auto& g) { return g.second == ij.second; });
      const long same_column = std::count_if(gap_lines.begin(), gap_lines.end(),
                                             [&](const auto& g) { return g.first == ij.first; });
      return std::max(same_row, same_column) < 3;
    });
    if (additions.empty()) break;
    for (const auto& [ij, i] : additions) {
      if (used[i]) continue;  // claimed twice in this round
      used[i] = 1;
      lattice.members[ij] = i;
    }
  }
  lattice.lattice_to_image = fit_homography(lattice, points);
  update_bounds(lattice);
}

// Drops outer rows and columns of the lattice that hold only a stray corner or two (a
// piece's highlight, the board's printed border) where the others hold many: they would
// wrongly fix where the playing area ends.
void prune_sparse_edges(Lattice& lattice, const std::vector<cv::Point2f>& points) {
  for (int round = 0; round < 4; ++round) {
    std::map<int, int> per_i;
    std::map<int, int> per_j;
    for (const auto& [ij, index] : lattice.members) {
      ++per_i[ij.first];
      ++per_j[ij.second];
    }
    int fullest = 0;
    for (const auto& [line, count] : per_i) fullest = std::max(fullest, count);
    for (const auto& [line, count] : per_j) fullest = std::max(fullest, count);
    const int needed = std::max(2, (fullest + 2) / 3);
    std::vector<std::pair<int, int>> drop;
    for (const auto& [ij, index] : lattice.members) {
      const bool sparse_i =
          (ij.first == lattice.i_min || ij.first == lattice.i_max) && per_i[ij.first] < needed;
      const bool sparse_j =
          (ij.second == lattice.j_min || ij.second == lattice.j_max) && per_j[ij.second] < needed;
      if (sparse_i || sparse_j) drop.push_back(ij);
    }
    if (drop.empty() || drop.size() + 4 >= lattice.members.size()) break;
    for (const auto& ij : drop) lattice.members.erase(ij);
    lattice.lattice_to_image = fit_homography(lattice, points);
    update_bounds(lattice);
  }
}

cv::Vec3f sample_colour(const cv::Mat& bgr, cv::Point2d p) {
  const int x = std::clamp(static_cast<int>(std::lround(p.x)), 0, bgr.cols - 1);
  const int y = std::clamp(static_cast<int>(std::lround(p.y)), 0, bgr.rows - 1);
  return cv::Vec3f(bgr.at<cv::Vec3b>(y, x));
}

// The board's light and dark square colours, seen a quarter square diagonally off each
// lattice corner (between the pieces, which stand on the squares' centres).
std::pair<cv::Vec3f, cv::Vec3f> lattice_colours(const Lattice& lattice, const cv::Mat& bgr) {
  std::vector<cv::Vec3f> light;
  std::vector<cv::Vec3f> dark;
  const cv::Matx33d& h = lattice.lattice_to_image;
  for (const auto& [ij, index] : lattice.members) {
    const int pol = lattice.polarity_at(ij.first, ij.second);
    for (const double di : {-0.25, 0.25}) {
      for (const double dj : {-0.25, 0.25}) {
        const cv::Point2d p = apply(h, {ij.first + di, ij.second + dj});
        if (!inside(bgr, p)) continue;
        // The (+, +) and (-, -) quadrants are the bright ones where the polarity is +1.
        const bool bright = (di * dj > 0) == (pol > 0);
        (bright ? light : dark).push_back(sample_colour(bgr, p));
      }
    }
  }
  return {channel_median(light), channel_median(dark)};
}

// Per cell of the lattice (the square whose low corner is lattice point (i, j)): how much
// it looks like a light square rather than a dark one, -1..1, from a grid of samples over
// the whole cell. Pieces, hands, the board's frame and the table match neither colour or
// match one colour on both parities, so along a row of cells they cancel; only squares
// alternate with the lattice's polarity.
class CellColours {
 public:
  CellColours(const Lattice& lattice, const cv::Mat& bgr) : lattice_(lattice), bgr_(bgr) {
    std::tie(light_, dark_) = lattice_colours(lattice, bgr);
    match_distance_ = 0.3f * colour_distance(light_, dark_);
  }

  // Light minus dark share of the cell, signed so that positive means "as the lattice's
  // checker pattern predicts".
  double agreement(int i, int j) {
    const auto key = std::make_pair(i, j);
    if (const auto found = cache_.find(key); found != cache_.end()) return found->second;
    constexpr int kGrid = 6;
    int light = 0;
    int dark = 0;
    int seen = 0;
    for (int a = 0; a < kGrid; ++a) {
      for (int b = 0; b < kGrid; ++b) {
        const cv::Point2d p =
            apply(lattice_.lattice_to_image, {i + (a + 0.5) / kGrid, j + (b + 0.5) / kGrid});
        if (!inside(bgr_, p)) continue;
        ++seen;
        const cv::Vec3f c = sample_colour(bgr_, p);
        const float to_light = colour_distance(c, light_);
        const float to_dark = colour_distance(c, dark_);
        if (to_light < match_distance_ && to_light < to_dark) ++light;
        if (to_dark < match_distance_ && to_dark < to_light) ++dark;
      }
    }
    double result = 0.0;
    if (2 * seen >= kGrid * kGrid) {
      result = lattice_.polarity_at(i, j) * double(light - dark) / seen;
    }
    cache_[key] = result;
    return result;
  }

 private:
  const Lattice& lattice_;
  const cv::Mat& bgr_;
  cv::Vec3f light_;
  cv::Vec3f dark_;
  float match_distance_ = 0;
  std::map<std::pair<int, int>, double> cache_;
};

// Places the 8x8 playing area over the lattice. The lattice may reach the board's edge
// lines (pieces leaning over the border make X-like corners there) or miss inner lines
// (tall pieces hide them), so every placement that keeps the lattice within the board,
// edges included, is tried: the one whose 64 cells follow the checker pattern best while
// the ring of cells around it does not (border, table) wins.
std::pair<int, int> place_board(const Lattice& lattice, const cv::Mat& bgr) {
  CellColours cells(lattice, bgr);
  std::pair<int, int> best{lattice.i_min - 1, lattice.j_min - 1};
  double best_score = -1e18;
  for (int j0 = lattice.j_max - 8; j0 <= lattice.j_min; ++j0) {
    for (int i0 = lattice.i_max - 8; i0 <= lattice.i_min; ++i0) {
      double score = 0;
      for (int j = j0 - 1; j <= j0 + 8; ++j) {
        for (int i = i0 - 1; i <= i0 + 8; ++i) {
          const bool on_board = i >= i0 && i < i0 + 8 && j >= j0 && j < j0 + 8;
          score += (on_board ? 1.0 : -1.0) * cells.agreement(i, j);
        }
      }
      // Ties go to the placement that keeps every lattice corner off the edges.
      const bool inner = i0 < lattice.i_min && i0 + 8 > lattice.i_max && j0 < lattice.j_min &&
                         j0 + 8 > lattice.j_max;
      if (inner) score += 1e-6;
      if (score > best_score) {
        best_score = score;
        best = {i0, j0};
      }
    }
  }
  return best;
}

// Lattice corners on or beyond the placed board's edges are not corners of four squares:
// they are dropped and the homography fitted again without them.
void drop_edge_corners(Lattice& lattice, std::pair<int, int> origin,
                       const std::vector<cv::Point2f>& points) {
  const auto [i0, j0] = origin;
  const size_t before = lattice.members.size();
  std::erase_if(lattice.members, [&](const auto& member) {
    const auto [i, j] = member.first;
    return i <= i0 || i >= i0 + 8 || j <= j0 || j >= j0 + 8;
  });
  if (lattice.members.size() != before && lattice.members.size() >= 4) {
    lattice.lattice_to_image = fit_homography(lattice, points);
    update_bounds(lattice);
  }
}

// Drops the corners that sit off the lattice the others make, worst first (a piece's edge
// taken for a corner next to a hidden one pulls the fit and, beyond it, the far edge), and
// fits again; at most a quarter of the corners, so that lens distortion, which bends the
// lattice smoothly, does not strip the board's edges.
void drop_stray_corners(Lattice& lattice, const std::vector<cv::Point2f>& points) {
  const size_t keep = std::max<size_t>(12, lattice.members.size() * 3 / 4);
  while (lattice.members.size() > keep) {
    const cv::Matx33d inverse = lattice.lattice_to_image.inv();
    double worst = 0;
    std::pair<int, int> worst_ij;
    for (const auto& [ij, index] : lattice.members) {
      const cv::Point2d q = apply(inverse, cv::Point2d(points[index]));
      const double off = norm(q - cv::Point2d(ij.first, ij.second));
      if (off > worst) {
        worst = off;
        worst_ij = ij;
      }
    }
    if (worst < kStrayCornerSquares) break;
    lattice.members.erase(worst_ij);
    lattice.lattice_to_image = fit_homography(lattice, points);
    update_bounds(lattice);
  }
}

}  // namespace

std::vector<cv::Point2f> find_x_corners(const cv::Mat& gray) {
  cv::Mat gray_float;
  gray.convertTo(gray_float, CV_32F);
  cv::GaussianBlur(gray_float, gray_float, cv::Size(0, 0), 1.0);
  cv::Mat response = cv::max(chess_response(gray_float, 4), chess_response(gray_float, 7));
  cv::Mat dilated;
  cv::dilate(response, dilated, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(7, 7)));
  double max_value = 0;
  cv::minMaxLoc(response, nullptr, &max_value);
  // Weak responses are texture; the board's own corners are among the strongest in view.
  const float threshold = static_cast<float>(std::max(25.0, 0.06 * max_value));
  std::vector<std::pair<float, cv::Point2f>> found;
  for (int y = 0; y < response.rows; ++y) {
    const float* r = response.ptr<float>(y);
    const float* d = dilated.ptr<float>(y);
    for (int x = 0; x < response.cols; ++x) {
      if (r[x] >= threshold && r[x] >= d[x]) {
        found.push_back({r[x], cv::Point2f(static_cast<float>(x), static_cast<float>(y))});
      }
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  if (found.size() > static_cast<size_t>(kMaxCandidates)) found.resize(kMaxCandidates);
  std::vector<cv::Point2f> points;
  for (const auto& [strength, p] : found) points.push_back(p);
  if (!points.empty()) {
    cv::cornerSubPix(gray, points, cv::Size(3, 3), cv::Size(-1, -1),
                     cv::TermCriteria(cv::TermCriteria::EPS + cv::TermCriteria::COUNT, 20, 0.01));
  }
  return points;
}

std::vector<FoundBoard> find_boards(const cv::Mat& frame_bgr, int max_boards) {
  cv::Mat gray;
  if (frame_bgr.channels() == 3) {
    cv::cvtColor(frame_bgr, gray, cv::COLOR_BGR2GRAY);
  } else {
    gray = frame_bgr;
  }
  const int long_side = std::max(gray.cols, gray.rows);
  const double scale = long_side > kWorkingLongSide ? double(kWorkingLongSide) / long_side : 1.0;
  cv::Mat work = gray;
  if (scale < 1.0) cv::resize(gray, work, cv::Size(), scale, scale, cv::INTER_AREA);
  const std::vector<cv::Point2f> points = find_x_corners(work);
  cv::Mat work_bgr;
  if (frame_bgr.channels() == 3) {
    work_bgr = frame_bgr;
    if (scale < 1.0) cv::resize(frame_bgr, work_bgr, cv::Size(), scale, scale, cv::INTER_AREA);
  } else {
    cv::cvtColor(work, work_bgr, cv::COLOR_GRAY2BGR);
  }
  cv::Mat work_float;
  work.convertTo(work_float, CV_32F);
  cv::GaussianBlur(work_float, work_float, cv::Size(0, 0), 1.0);

  const CornerIndex index(points, work.size(), 24);
  std::vector<char> used(points.size(), 0);
  std::vector<Lattice> lattices;
  for (size_t seed = 0; seed < points.size(); ++seed) {
    if (used[seed]) continue;
    std::optional<Lattice> lattice = seed_lattice(seed, points, index, work_float, used);
    if (!lattice) continue;
    std::vector<char> trial = used;
    grow_lattice(*lattice, points, index, work_float, trial);
    prune_sparse_edges(*lattice, points);
    const int width = lattice->i_max - lattice->i_min + 1;
    const int height = lattice->j_max - lattice->j_min + 1;
    if (lattice->members.size() < 12 || width < 3 || height < 3) {
      used[seed] = 1;
      continue;
    }
    used = std::move(trial);
    // Candidates inside this board cannot start another board.
    const cv::Matx33d inverse = lattice->lattice_to_image.inv();
    for (size_t i = 0; i < points.size(); ++i) {
      const cv::Point2d q = apply(inverse, cv::Point2d(points[i]));
      if (q.x > lattice->i_max - 8 && q.x < lattice->i_min + 8 && q.y > lattice->j_max - 8 &&
          q.y < lattice->j_min + 8) {
        used[i] = 1;
      }
    }
    lattices.push_back(std::move(*lattice));
  }
  std::stable_sort(lattices.begin(), lattices.end(), [](const Lattice& a, const Lattice& b) {
    return a.members.size() > b.members.size();
  });

  std::vector<FoundBoard> boards;
  const cv::Matx33d to_full(1 / scale, 0, 0, 0, 1 / scale, 0, 0, 0, 1);
  for (Lattice& lattice : lattices) {
    if (static_cast<int>(boards.size()) >= max_boards) break;
    const auto [i0, j0] = place_board(lattice, work_bgr);
    drop_edge_corners(lattice, {i0, j0}, points);
    drop_stray_corners(lattice, points);
    cv::Matx33d board_to_lattice(1, 0, i0, 0, 1, j0, 0, 0, 1);
    FoundBoard board;
    board.board_to_image = to_full * lattice.lattice_to_image * board_to_lattice;
    // Counter-clockwise in the image (as a1, h1, h8, a8 are seen from above): swap the axes
    // of a mirrored lattice.
    const cv::Point2d p00 = apply(board.board_to_image, {0, 0});
    const cv::Point2d p80 = apply(board.board_to_image, {8, 0});
    const cv::Point2d p08 = apply(board.board_to_image, {0, 8});
    const bool swapped = (p80 - p00).cross(p08 - p00) > 0;
    if (swapped) {
      const cv::Matx33d swap(0, 1, 0, 1, 0, 0, 0, 0, 1);
      board.board_to_image = board.board_to_image * swap;
    }
    board.inner_corners_seen = static_cast<int>(lattice.members.size());
    double squared = 0;
    for (const auto& [ij, i] : lattice.members) {
      const cv::Point2d on_board(ij.first - i0, ij.second - j0);
      board.lattice_points.push_back(swapped ? cv::Point2d(on_board.y, on_board.x) : on_board);
      board.image_points.push_back(cv::Point2d(points[i]) / scale);
      const cv::Point2d predicted =
          apply(lattice.lattice_to_image, {double(ij.first), double(ij.second)});
      const cv::Point2d d = predicted - cv::Point2d(points[i]);
      squared += d.dot(d);
    }
    board.rms_error_px = std::sqrt(squared / double(lattice.members.size())) / scale;
    boards.push_back(board);
  }
  return boards;
}

}  // namespace bugcam::calibration
