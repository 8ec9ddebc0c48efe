// The truth matches the pixels: board corners in truth.json lie on the rendered board edges,
// and every square's truth occupancy matches what the ID pass shows there.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "bugcam/samples.hpp"
#include "postprocess.hpp"
#include "scene.hpp"
#include "timeline.hpp"

namespace bugcam::samples {
namespace {

namespace fs = std::filesystem;

std::uint32_t id_at(const cv::Mat& ids, cv::Point2d p) {
  const int x = static_cast<int>(std::lround(p.x)), y = static_cast<int>(std::lround(p.y));
  if (x < 0 || y < 0 || x >= ids.cols || y >= ids.rows) return 0;
  return static_cast<std::uint32_t>(ids.at<std::int32_t>(y, x));
}

// For points along each edge of a board's playing area as truth.json gives them (projected
// through the camera, distortion included), the distance from the point to where the
// rendered ID image changes from board frame to playing area, searched along the edge's
// normal. The ID image is the renderer's undistorted one: each truth point goes back through
// the same map that builds the output frame (output pixel -> rendered pixel), so the test
// measures projection, distortion and rasterisation together without resampling IDs. Returns the
// largest distance and how many points were measured (points hidden by pieces are skipped).
struct EdgeFit {
  double worst = 0;
  int measured = 0;
};

EdgeFit edge_fit(const cv::Mat& ids, const Camera& cam, const std::array<Vec3, 4>& corners,
                 int board) {
  const std::uint32_t inside = object_id::kSquare | static_cast<std::uint32_t>(board << 8);
  const std::uint32_t outside = object_id::kFrame | static_cast<std::uint32_t>(board << 8);
  EdgeFit fit;
  cv::Point2d centre;
  cam.project((corners[0] + corners[2]) * 0.5f, centre);
  for (int e = 0; e < 4; ++e) {
    const Vec3 a = corners[static_cast<std::size_t>(e)];
    const Vec3 b = corners[static_cast<std::size_t>((e + 1) % 4)];
    for (int k = 1; k < 40; ++k) {
      const float u = static_cast<float>(k) / 40;
      cv::Point2d p, p0, p1;
      cam.project(lerp(a, b, u), p);
      cam.project(lerp(a, b, u - 0.01f), p0);
      cam.project(lerp(a, b, u + 0.01f), p1);
      p = cam.undistort(p);
      p0 = cam.undistort(p0);
      p1 = cam.undistort(p1);
      cv::Point2d n{-(p1.y - p0.y), p1.x - p0.x};
      const double len = std::hypot(n.x, n.y);
      n *= 1.0 / len;
      if ((centre - p).dot(n) < 0) n = -n;  // n points into the playing area
      // Walk from 3 px outside to 3 px inside; the IDs must be frame then playing area.
      double change = 1e9;
      bool clean = true;
      std::uint32_t previous = 0;
      for (int s = -60; s <= 60; ++s) {
        const std::uint32_t id = id_at(ids, p + n * (s * 0.05));
        if (id != inside && id != outside) clean = false;
        if (s > -60 && previous == outside && id == inside) {
          change = std::min(change, std::fabs(s * 0.05 - 0.025));
        }
        previous = id;
      }
      if (!clean || change > 1e8) continue;
      fit.worst = std::max(fit.worst, change);
      ++fit.measured;
    }
  }
  return fit;
}

TEST(TruthPixels, CornersLieOnRenderedBoardEdgesForVariedCameras) {
  for (std::uint64_t seed : {2u, 5u, 11u, 21u}) {
    const Style style = Style::random(seed);
    const Layout layout(style);
    const Camera cam = make_camera(style, layout, 960, 540);
    Renderer renderer(960, 540, 512);
    SceneAssets assets(renderer, style, layout);
    const World world = starting_world(style, layout);
    const cv::Mat ids = renderer.render_ids(assets.all_items(world), cam.view_projection(), 1.0f);
    for (int b = 0; b < 2; ++b) {
      const EdgeFit fit = edge_fit(ids, cam, layout.playing_corners(b), b);
      SCOPED_TRACE("seed " + std::to_string(seed) + " board " + std::to_string(b) + " tilt " +
                   std::to_string(style.tilt * 180 / kPi) + " k1 " + std::to_string(style.k1));
      std::cout << "seed " << seed << " board " << b << ": " << fit.measured
                << " edge points, worst distance " << fit.worst << " px\n";
      EXPECT_GT(fit.measured, 60);  // most of the 156 edge points are not hidden by pieces
      EXPECT_LE(fit.worst, 1.0);
    }
  }
}

// A hand-made sequence on both boards: moves, a capture passed to the partner, a drop and a
// knocked-over piece; squares as a1 = 0.
std::vector<PlyInput> scripted_plies() {
  auto ply = [](int board, int color, int from, int to, int piece, int captured = -1) {
    PlyInput p;
    p.board = board;
    p.color = color;
    p.from = from;
    p.to = to;
    p.piece = piece;
    p.captured = captured;
    p.captured_square = captured >= 0 ? to : -1;
    p.think = 1.0;
    p.san = "x";
    return p;
  };
  return {ply(0, 0, 12, 28, 0),    ply(1, 0, 11, 27, 0), ply(0, 1, 52, 36, 0),
          ply(1, 1, 51, 35, 0),    ply(0, 0, 6, 21, 1),  ply(0, 1, 57, 42, 1),
          ply(0, 0, 21, 36, 1, 0), ply(1, 0, 10, 26, 0), ply(1, 1, -1, 44, 0),
          ply(0, 1, 42, 36, 1, 1)};
}

TEST(TruthPixels, OccupancyOfEverySquareMatchesTheIdPass) {
  const std::vector<PlyInput> plies = scripted_plies();
  TimelineOptions opt;
  opt.incidents.push_back({IncidentType::kPositionDisturbed, 7});
  for (std::uint64_t seed : {3u, 8u}) {
    const Style style = Style::plain_top_down(seed);
    const Layout layout(style);
    const Timeline tl(style, layout, plies, opt);
    const Camera cam = make_camera(style, layout, 960, 540);
    Renderer renderer(960, 540, 512);
    SceneAssets assets(renderer, style, layout);
    int checked = 0, with_piece = 0;
    for (double t = 0; t < tl.duration(); t += 1.7) {
      const World w = tl.world_at(t);
      const cv::Mat ids = renderer.render_ids(assets.all_items(w), cam.view_projection(), 1.0f);
      for (int b = 0; b < 2; ++b) {
        std::array<int, 64> truth;
        truth.fill(-1);
        for (const PlacedPiece& p : w.pieces) {
          if (p.place == PiecePlace::kBoard && p.board == b && p.knocked == 0) {
            truth[static_cast<std::size_t>(p.square)] = p.uid;
          }
        }
        for (int sq = 0; sq < 64; ++sq) {
          cv::Point2d px;
          cam.project(layout.square_center(b, sq) + Vec3{0, 0, 0.2f}, px);
          const std::uint32_t id = id_at(ids, px);
          // A hand or a knocked-over piece over the square hides it: no evidence there.
          if (object_id::kind(id) == object_id::kHand) continue;
          if (object_id::kind(id) == object_id::kPiece &&
              w.pieces[id & 0xffffu].place == PiecePlace::kHand) {
            continue;  // a piece being carried over the square
          }
          const bool knocked_nearby =
              std::any_of(w.pieces.begin(), w.pieces.end(), [&](const PlacedPiece& p) {
                return p.knocked > 0 && p.board == b && std::abs(p.square % 8 - sq % 8) <= 2 &&
                       std::abs(p.square / 8 - sq / 8) <= 2;
              });
          if (knocked_nearby) continue;
          SCOPED_TRACE("seed " + std::to_string(seed) + " t " + std::to_string(t) + " board " +
                       std::to_string(b) + " square " + std::to_string(sq));
          const int expected = truth[static_cast<std::size_t>(sq)];
          if (expected >= 0) {
            EXPECT_EQ(id, object_id::kPiece | static_cast<std::uint32_t>(expected));
            ++with_piece;
          } else {
            EXPECT_EQ(id, object_id::kSquare | static_cast<std::uint32_t>(b << 8));
          }
          ++checked;
        }
      }
    }
    std::cout << "seed " << seed << ": " << checked << " squares checked, " << with_piece
              << " with a piece\n";
    EXPECT_GT(checked, 500);
    EXPECT_GT(with_piece, 200);
  }
}

}  // namespace
}  // namespace bugcam::samples
