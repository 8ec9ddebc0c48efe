// Arms over the boards, attributed to the seats they come from (partner_board_touched): a
// coarse grid of the frame against a still view of the table; what differs and reaches over a
// board is followed back to where it leaves the picture, and the seat in that direction is
// the arm's.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <queue>

#include <opencv2/imgproc.hpp>

#include "bugcam/vision.hpp"
#include "colour.hpp"

namespace bugcam::vision {

namespace {

// Grid cells along a square's side (the smallest square of the calibration).
constexpr double kCellsPerSquare = 4.0;
// Colour distance (BGR levels) from the still view from which a cell shows something new.
constexpr float kForegroundDistance = 34.0f;
// Colour distance from the previous frame below which a cell counts as still.
constexpr float kStillDistance = 10.0f;
// A cell that differs from the still view but stays still this many frames becomes part of
// it (a piece put down), unless it belongs to something reaching in from the picture's
// border: an arm at rest stays an arm, or it would leave its ghost when it goes.
constexpr int kAbsorbFrames = 30;
// Anything still this long joins it (an arm left resting; a sleeve at the picture's edge).
constexpr int kAbsorbReachingFrames = 300;
// How fast cells showing the table follow slow changes of light; cells further than this
// from the still view (a shadow, skin much like the table) do not follow.
constexpr float kAdaptRate = 0.05f;
constexpr float kAdaptDistance = 16.0f;
// A player reaches with their right arm: the shoulder is this many squares to the player's
// right of the middle of their board edge, this many beyond it and this high above the table
// (about 14 cm, 40 cm and 30 cm with 5.3 cm squares).
constexpr double kShoulderAside = 2.5;
constexpr double kShoulderOut = 7.5;
constexpr double kShoulderHeight = 5.5;
// Something counts as an arm over a board when it covers at least this many squares' worth
// of the board and its far end (the hand) is at least this far inside the board's edge.
// The hand is taken to be this high above the board (squares): a hand held over a board is
// seen displaced away from the camera, by more the farther it is from the point under it.
constexpr double kArmOverSquares = 0.25;
constexpr double kReachSquares = 1.5;
constexpr double kHandHeightSquares = 2.5;
// Cells smaller than this many squares' worth are noise or pieces.
constexpr double kArmSquares = 2.0;
// The arm's direction (hand to where it leaves the picture) must point at a seat within this
// angle, and the next seat must be this much further off: an arm between two seats is
// nobody's.
constexpr double kSeatAngle = 32.0 * std::numbers::pi / 180.0;
constexpr double kSeatMargin = 15.0 * std::numbers::pi / 180.0;
// Where an arm leaves the picture: cells on the image border; when they spread wider than
// this many squares either side of their middle, two arms have merged there and neither is
// attributed. A sleeve seen close by spreads over 7 squares or more (seed 11500: at 3.5, White
// B's touch over board A was attributed in 2 of its 42 frames, and missed).
constexpr double kRootSpreadSquares = 4.5;
// Border cells of one component this many squares apart going round the border are where two
// arms leave the picture (sleeves side by side leave a gap of a square or more).
constexpr double kRootGapSquares = 0.75;
// A border cell that is the table darkened evenly, to this share of its light and with its
// hue kept this closely (a share of its brightness, plus levels), is a shadow, not where an
// arm leaves the picture. Tighter than shade elsewhere: a dark grey sleeve on a pale grey
// table is the table darkened with a hue off by 6 % of its brightness (test seed 4021), a
// shadow beyond the picture by under 1 % (held-out 5104).
constexpr float kRootShadowMinScale = 0.35f;
constexpr float kRootShadowMaxScale = 0.9f;
constexpr float kRootShadowHueTolerance = 0.03f;
constexpr float kRootShadowHueFloor = 3.0f;
// Going from where an arm leaves the picture to the cells it holds, a step through shade
// counts as this many through what changed.
constexpr int kShadeStepCost = 4;

float distance(const cv::Vec3b& a, const cv::Vec3f& b) {
  return calibration::colour_distance(cv::Vec3f(a[0], a[1], a[2]), b);
}

// Shadows of arms and pieces on the table are not arms: the table darkened the way a shadow
// darkens the boards at the start (as learnt), else darkened with its hue kept. Skin much
// like the table in a darker shade passes the plain test, so the learnt one is preferred.
constexpr float kShadowMaxScale = 0.85f;
constexpr float kLearnedShadowDepth = 1.4f;

double angle_between(cv::Point2d a, cv::Point2d b) {
  const double na = std::hypot(a.x, a.y), nb = std::hypot(b.x, b.y);
  if (na <= 0 || nb <= 0) return std::numbers::pi;
  return std::acos(std::clamp((a.x * b.x + a.y * b.y) / (na * nb), -1.0, 1.0));
}

}  // namespace

struct ArmWatch::Impl {
  struct Seat {
    std::string name;  // "A:white"
    std::size_t board = 0;
    cv::Point2d at;  // the shoulder's foot on the table, in image pixels
  };

  calibration::Calibration calibration;
  cv::Size grid;
  cv::Point2d cell_px;            // image pixels per grid cell
  double cells_per_square = 4.0;  // grid cells along a square's side
  std::vector<int> board_of;      // per cell: the board it lies over, -1 none
  // Per cell: the boards (bit per board) it shows at a hand's height (see attribute_arm); with
  // the camera well off to one side, one board's may reach over the other's.
  std::vector<std::uint8_t> lifted_boards_of;
  std::vector<Seat> seats;
  std::vector<Viewpoint> views;  // per board
  std::size_t boards = 0;
  cv::Mat small;       // this frame, CV_8UC3
  cv::Mat previous;    // CV_8UC3
  cv::Mat still_view;  // CV_32FC3
  // The still view without what an arm left resting, or a shadow that stayed, laid over it
  // (CV_32FC3): such an arm joins still_view after kAbsorbReachingFrames, and when it goes,
  // the cells it uncovers take this view back at once rather than show the arm's ghost, which
  // reaches in from the border as an arm would (clip 11628: Black B's arm, resting by board
  // B's near edge from 50 s, taken for White A's over board B three times after it left).
  // Pieces put down join it as they join still_view. Cells it covers do not follow the light
  // meanwhile, so after a long rest under a light that changed the ghost may come back.
  cv::Mat uncovered_view;
  std::vector<std::uint16_t> still;  // per cell: frames still in a row
  // Per cell: kTable, kShade (darker as under a shadow: an arm's shadow, or skin in a shade
  // much like the table's: it joins an arm's parts but is not taken for the arm), kChanged.
  static constexpr std::uint8_t kTable = 0, kShade = 1, kChanged = 2;
  cv::Mat mask;  // CV_8U
  cv::Mat any;   // CV_8U, 255 where mask is not kTable
  cv::Mat labels, stats, centroids;
  cv::Vec3f shadow_ratio{0, 0, 0};  // learnt, per channel; 0 when not learnt

  explicit Impl(const calibration::Calibration& calibration_in)
      : calibration(calibration_in), views(estimate_viewpoints(calibration)) {
    boards = calibration.boards.size();
    for (const calibration::Board& board : calibration.boards) {
      if (board.looks.learned && board.looks.shadow_ratio != cv::Vec3f(0, 0, 0)) {
        shadow_ratio = board.looks.shadow_ratio;
        break;
      }
    }
    double square_px = 0;
    for (const calibration::Board& board : calibration.boards) {
      const double s = board.square_size_px();
      square_px = square_px == 0 ? s : std::min(square_px, s);
    }
    const int cell = std::max(2, static_cast<int>(std::floor(square_px / kCellsPerSquare)));
    grid = cv::Size(std::max(1, calibration.image_size.width / cell),
                    std::max(1, calibration.image_size.height / cell));
    cell_px = {static_cast<double>(calibration.image_size.width) / grid.width,
               static_cast<double>(calibration.image_size.height) / grid.height};
    cells_per_square = square_px / cell_px.x;
    const std::size_t cells = static_cast<std::size_t>(grid.area());
    board_of.assign(cells, -1);
    lifted_boards_of.assign(cells, 0);
    still.assign(cells, 0);
    const auto inside = [](cv::Point2d p) { return p.x >= 0 && p.x <= 8 && p.y >= 0 && p.y <= 8; };
    for (int y = 0; y < grid.height; ++y) {
      for (int x = 0; x < grid.width; ++x) {
        const cv::Point2d centre((x + 0.5) * cell_px.x, (y + 0.5) * cell_px.y);
        const std::size_t i = static_cast<std::size_t>(y * grid.width + x);
        for (std::size_t b = 0; b < calibration.boards.size(); ++b) {
          const cv::Point2d p = calibration.boards[b].to_board(centre);
          if (inside(p)) board_of[i] = static_cast<int>(b);
          if (inside(at_hand_height(b, p))) lifted_boards_of[i] |= std::uint8_t(1u << b);
        }
      }
    }
    for (std::size_t b = 0; b < calibration.boards.size(); ++b) {
      const calibration::Board& board = calibration.boards[b];
      // Board coordinates: White sits below rank 1 facing +y, so White's right is +x;
      // Black sits beyond rank 8 facing -y, their right is -x. The shoulder is seen where the
      // board point under it leans to, away from the point under the camera.
      const auto shoulder = [&](cv::Point2d foot) {
        const Viewpoint& view = views[b];
        if (view.camera_height > kShoulderHeight * 1.5) foot += view.lean(foot, kShoulderHeight);
        return board.to_image(foot);
      };
      seats.push_back({board.name + ":white", b, shoulder({4 + kShoulderAside, -kShoulderOut})});
      seats.push_back({board.name + ":black", b, shoulder({4 - kShoulderAside, 8 + kShoulderOut})});
    }
  }

  // The point of board `b` under a hand seen where the board point `seen` is, the hand held
  // kHandHeightSquares above the board.
  cv::Point2d at_hand_height(std::size_t b, cv::Point2d seen) const {
    const Viewpoint& view = views[b];
    if (view.camera_height <= kHandHeightSquares) return seen;
    return view.nadir +
           (seen - view.nadir) * ((view.camera_height - kHandHeightSquares) / view.camera_height);
  }

  std::vector<std::vector<std::string>> read(const cv::Mat& frame_bgr) {
    std::vector<std::vector<std::string>> out(boards);
    if (frame_bgr.empty() || seats.empty()) return out;
    cv::resize(frame_bgr, small, grid, 0, 0, cv::INTER_AREA);
    if (previous.empty()) {  // the first frame only starts the still view
      small.convertTo(still_view, CV_32FC3);
      still_view.copyTo(uncovered_view);
      small.copyTo(previous);
      mask = cv::Mat::zeros(grid, CV_8U);
      return out;
    }
    update_mask();
    cv::compare(mask, kTable, any, cv::CMP_NE);
    const int count = cv::connectedComponentsWithStats(any, labels, stats, centroids, 8, CV_32S);
    const double cell_area = cells_per_square * cells_per_square;
    for (int label = 1; label < count; ++label) {
      if (stats.at<int>(label, cv::CC_STAT_AREA) < kArmSquares * cell_area) continue;
      attribute(label, out);
    }
    update_still_view(count);
    small.copyTo(previous);
    for (std::vector<std::string>& names : out) {
      std::sort(names.begin(), names.end());
      names.erase(std::unique(names.begin(), names.end()), names.end());
    }
    return out;
  }

  // What differs from the still view, and whether as a shadow would; counts how long each cell
  // is still. A cell that shows uncovered_view again takes it back into the still view first.
  void update_mask() {
    for (int y = 0; y < grid.height; ++y) {
      const cv::Vec3b* now = small.ptr<cv::Vec3b>(y);
      const cv::Vec3b* before = previous.ptr<cv::Vec3b>(y);
      cv::Vec3f* view = still_view.ptr<cv::Vec3f>(y);
      const cv::Vec3f* uncovered = uncovered_view.ptr<cv::Vec3f>(y);
      std::uint8_t* m = mask.ptr<std::uint8_t>(y);
      for (int x = 0; x < grid.width; ++x) {
        const std::size_t i = static_cast<std::size_t>(y * grid.width + x);
        const cv::Vec3f before_f(before[x][0], before[x][1], before[x][2]);
        const bool is_still = distance(now[x], before_f) < kStillDistance;
        still[i] = is_still ? static_cast<std::uint16_t>(std::min(still[i] + 1, 60000)) : 0;
        if (distance(now[x], uncovered[x]) < kAdaptDistance) view[x] = uncovered[x];
        const bool differs = distance(now[x], view[x]) > kForegroundDistance;
        // Where arms leave the picture, shade must be the table darkened evenly: a grey sleeve
        // there passes the looser test and its arm would have no root.
        const bool on_border = x == 0 || y == 0 || x == grid.width - 1 || y == grid.height - 1;
        const bool shade = shadow(now[x], view[x]) && (!on_border || shadow_at_border(x, y));
        m[x] = !differs ? kTable : shade ? kShade : kChanged;
      }
    }
  }

  bool shadow(const cv::Vec3b& now, const cv::Vec3f& lit) const {
    const cv::Vec3f now_f(now[0], now[1], now[2]);
    if (shadow_ratio != cv::Vec3f(0, 0, 0)) {
      return detail::is_learned_shadow(now_f, lit, shadow_ratio, kLearnedShadowDepth);
    }
    return detail::is_shadow(now_f, lit, kShadowMaxScale);
  }

  // The table follows slow changes of light; what stays still and does not reach in from the
  // border joins the still view.
  void update_still_view(int count) {
    std::vector<bool> reaches_in(static_cast<std::size_t>(count), false);
    for (int x = 0; x < grid.width; ++x) {
      reaches_in[static_cast<std::size_t>(labels.at<int>(0, x))] = true;
      reaches_in[static_cast<std::size_t>(labels.at<int>(grid.height - 1, x))] = true;
    }
    for (int y = 0; y < grid.height; ++y) {
      reaches_in[static_cast<std::size_t>(labels.at<int>(y, 0))] = true;
      reaches_in[static_cast<std::size_t>(labels.at<int>(y, grid.width - 1))] = true;
    }
    for (int y = 0; y < grid.height; ++y) {
      const cv::Vec3b* now = small.ptr<cv::Vec3b>(y);
      const int* label = labels.ptr<int>(y);
      cv::Vec3f* view = still_view.ptr<cv::Vec3f>(y);
      cv::Vec3f* uncovered = uncovered_view.ptr<cv::Vec3f>(y);
      for (int x = 0; x < grid.width; ++x) {
        const std::size_t i = static_cast<std::size_t>(y * grid.width + x);
        const cv::Vec3f now_f(now[x][0], now[x][1], now[x][2]);
        const bool reaching = reaches_in[static_cast<std::size_t>(label[x])];
        const bool shade = mask.at<std::uint8_t>(y, x) == kShade;
        if (label[x] != 0 && still[i] >= kAbsorbFrames && !reaching) {
          view[x] = now_f;  // a piece put down or taken away, or a shadow that stays
          if (!shade) uncovered[x] = now_f;
        } else if (label[x] != 0 && still[i] >= kAbsorbReachingFrames) {
          view[x] = now_f;  // an arm left resting: uncovered_view keeps what it covers
        } else if (label[x] == 0 && distance(now[x], view[x]) < kAdaptDistance) {
          view[x] += kAdaptRate * (now_f - view[x]);
          if (distance(now[x], uncovered[x]) < kAdaptDistance) uncovered[x] = view[x];
        }
      }
    }
  }

  // A changed cell of an arm (shade only links an arm's parts).
  struct Cell {
    int x, y, board;
    std::uint8_t lifted_boards;
    bool root;  // where the arm leaves the picture
  };
  // The component's cells on the picture's border in runs where arms leave it, and those of
  // runs that are shadows.
  struct BorderRuns {
    std::vector<std::vector<cv::Point>> arms;
    std::vector<cv::Point> shadows;
  };

  // The seats of the arms in component `label`, added to the boards they reach over. Where the
  // component leaves the picture in places apart (two arms whose hands or sleeves touch over
  // the table, as when a player reaches over the partner's board while its players move),
  // each cell goes to the place it is nearest along the component, and each part is an arm.
  void attribute(int label, std::vector<std::vector<std::string>>& out) const {
    const cv::Rect box(
        stats.at<int>(label, cv::CC_STAT_LEFT), stats.at<int>(label, cv::CC_STAT_TOP),
        stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT));
    // Only an arm that leaves the picture is followed to a seat: a blob inside is a hand whose
    // arm is hidden, or something else.
    const BorderRuns runs = border_runs(label, box);
    const std::vector<std::vector<cv::Point>>& roots = runs.arms;
    if (roots.empty()) return;
    // A shadow's border cells link parts as shade does, and belong to no arm.
    cv::Mat shadow(box.size(), CV_8U, cv::Scalar(0));
    for (const cv::Point& p : runs.shadows) shadow.at<std::uint8_t>(p - box.tl()) = 1;
    const auto changed = [&](cv::Point p) {
      return mask.at<std::uint8_t>(p) == kChanged && shadow.at<std::uint8_t>(p - box.tl()) == 0;
    };
    // Per cell of the box: the root it is nearest along the component, -1 outside it. A step
    // through shade costs more than one through what changed: the shadow of one arm often
    // joins the other, where the arm itself does not.
    cv::Mat root_of(box.size(), CV_32S, cv::Scalar(-1));
    cv::Mat cost(box.size(), CV_32S, cv::Scalar(std::numeric_limits<int>::max()));
    using Step = std::pair<int, cv::Point>;  // cost so far, cell
    const auto later = [](const Step& a, const Step& b) { return a.first > b.first; };
    std::priority_queue<Step, std::vector<Step>, decltype(later)> queue(later);
    for (std::size_t r = 0; r < roots.size(); ++r) {
      for (const cv::Point& p : roots[r]) {
        root_of.at<int>(p - box.tl()) = static_cast<int>(r);
        cost.at<int>(p - box.tl()) = 0;
        queue.emplace(0, p);
      }
    }
    while (!queue.empty()) {
      const auto [so_far, p] = queue.top();
      queue.pop();
      if (so_far > cost.at<int>(p - box.tl())) continue;
      const int r = root_of.at<int>(p - box.tl());
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dx = -1; dx <= 1; ++dx) {
          const cv::Point q(p.x + dx, p.y + dy);
          if (!box.contains(q) || labels.at<int>(q) != label) continue;
          const int step = changed(q) ? 1 : kShadeStepCost;
          int& best = cost.at<int>(q - box.tl());
          if (so_far + step >= best) continue;
          best = so_far + step;
          root_of.at<int>(q - box.tl()) = r;
          queue.emplace(best, q);
        }
      }
    }
    std::vector<std::vector<Cell>> arms(roots.size());
    for (int y = box.y; y < box.y + box.height; ++y) {
      for (int x = box.x; x < box.x + box.width; ++x) {
        const int r = root_of.at<int>(y - box.y, x - box.x);
        if (r < 0 || !changed({x, y})) continue;
        arms[static_cast<std::size_t>(r)].push_back(
            {x, y, board_of[static_cast<std::size_t>(y * grid.width + x)],
             lifted_boards_of[static_cast<std::size_t>(y * grid.width + x)],
             cost.at<int>(y - box.y, x - box.x) == 0});
      }
    }
    for (const std::vector<Cell>& arm : arms) attribute_arm(arm, out);
  }

  // Whether a border cell is the table darkened evenly: the shadow of something beyond the
  // picture (an arm's, a body's), deeper than the start position's shadows, which reaches over
  // a board as an arm would (held-out 5104: five false touches of Black A over board B). Only
  // where an arm leaves the picture: over the table, skin much like the table in a darker shade
  // would pass too. A border cell is shade only if it passes (update_mask), and a run of
  // changed border cells is a shadow where most of them pass, as a sleeve's folds may.
  bool shadow_at_border(int x, int y) const {
    const cv::Vec3b now = small.at<cv::Vec3b>(y, x);
    return detail::is_shadow(cv::Vec3f(now[0], now[1], now[2]), still_view.at<cv::Vec3f>(y, x),
                             kRootShadowMinScale, kRootShadowMaxScale, kRootShadowHueTolerance,
                             kRootShadowHueFloor);
  }

  // The component's changed cells on the picture's border, in runs along it: cells of one run
  // are at most kRootGapSquares apart going round the border. A run whose cells are mostly
  // the table darkened evenly is a shadow.
  BorderRuns border_runs(int label, const cv::Rect& box) const {
    // Each border cell's place going round the picture clockwise from the top left corner.
    const int w = grid.width, h = grid.height, perimeter = 2 * (w + h) - 4;
    std::vector<std::pair<int, cv::Point>> cells;
    const auto consider = [&](int x, int y, int place) {
      if (box.contains({x, y}) && labels.at<int>(y, x) == label &&
          mask.at<std::uint8_t>(y, x) == kChanged) {
        cells.emplace_back(place, cv::Point(x, y));
      }
    };
    for (int x = 0; x < w; ++x) consider(x, 0, x);
    for (int y = 1; y < h; ++y) consider(w - 1, y, w - 1 + y);
    for (int x = w - 2; x >= 0; --x) consider(x, h - 1, w - 1 + h - 1 + (w - 1 - x));
    for (int y = h - 2; y >= 1; --y) consider(0, y, 2 * (w - 1) + h - 1 + (h - 1 - y));
    BorderRuns out;
    if (cells.empty()) return out;
    std::sort(cells.begin(), cells.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    const int gap = std::max(1, static_cast<int>(std::lround(kRootGapSquares * cells_per_square)));
    // Start after the widest gap, so that a run across the first corner is not cut in two.
    std::size_t first = 0;
    int widest = cells.front().first + perimeter - cells.back().first;
    for (std::size_t i = 1; i < cells.size(); ++i) {
      if (cells[i].first - cells[i - 1].first > widest) {
        widest = cells[i].first - cells[i - 1].first;
        first = i;
      }
    }
    std::vector<std::vector<cv::Point>> runs;
    for (std::size_t k = 0; k < cells.size(); ++k) {
      const std::size_t i = (first + k) % cells.size();
      const std::size_t before = (i + cells.size() - 1) % cells.size();
      const int step = (cells[i].first - cells[before].first + perimeter) % perimeter;
      if (k == 0 || step > gap) runs.emplace_back();
      runs.back().push_back(cells[i].second);
    }
    for (std::vector<cv::Point>& run : runs) {
      const auto shaded = std::count_if(
          run.begin(), run.end(), [&](const cv::Point& p) { return shadow_at_border(p.x, p.y); });
      if (2 * static_cast<std::size_t>(shaded) > run.size()) {
        out.shadows.insert(out.shadows.end(), run.begin(), run.end());
      } else {
        out.arms.push_back(std::move(run));
      }
    }
    return out;
  }

  // The seat of one arm (its changed cells), added to the boards it reaches over.
  void attribute_arm(const std::vector<Cell>& cells,
                     std::vector<std::vector<std::string>>& out) const {
    std::vector<int> over(boards, 0);
    std::vector<int> lifted_over(boards, 0);
    cv::Point2d border_sum(0, 0);
    int border_cells = 0;
    for (const Cell& cell : cells) {
      if (cell.board >= 0) ++over[static_cast<std::size_t>(cell.board)];
      for (std::size_t b = 0; b < boards; ++b) lifted_over[b] += (cell.lifted_boards >> b) & 1u;
      if (cell.root) {
        border_sum += cv::Point2d(cell.x, cell.y);
        ++border_cells;
      }
    }
    if (border_cells == 0) return;
    const cv::Point2d root = border_sum / border_cells;
    const double spread_limit = kRootSpreadSquares * cells_per_square;
    for (const Cell& cell : cells) {
      if (cell.root && std::hypot(cell.x - root.x, cell.y - root.y) > spread_limit) {
        return;  // two arms merged where they leave the picture
      }
    }
    const double min_over = kArmOverSquares * cells_per_square * cells_per_square;
    for (std::size_t b = 0; b < boards; ++b) {
      // Over the board, or else over where it shows at a hand's height: a hand held above the
      // board's far side is seen beyond it, away from the point under the camera (seed 11353:
      // two cells over board B). Only else: where the arm is over the board, the cells beyond
      // are more often another arm joined to it than this hand (seed 2007).
      const bool lifted = over[b] < min_over;
      if ((lifted ? lifted_over[b] : over[b]) < min_over) continue;
      // The hand: the arm's cell over this board farthest from where the arm leaves.
      cv::Point2d hand(-1, -1);
      double farthest = -1;
      for (const Cell& cell : cells) {
        if (lifted ? ((cell.lifted_boards >> b) & 1u) == 0 : cell.board != static_cast<int>(b)) {
          continue;
        }
        const double d = std::hypot(cell.x - root.x, cell.y - root.y);
        if (d > farthest) {
          farthest = d;
          hand = {static_cast<double>(cell.x), static_cast<double>(cell.y)};
        }
      }
      const cv::Point2d hand_px((hand.x + 0.5) * cell_px.x, (hand.y + 0.5) * cell_px.y);
      // Where the hand is over the board, taken at a hand's height above it.
      const cv::Point2d reach = at_hand_height(b, calibration.boards[b].to_board(hand_px));
      const double reach_depth = std::min({reach.x, 8 - reach.x, reach.y, 8 - reach.y});
      if (reach_depth < kReachSquares) continue;
      const cv::Point2d root_px((root.x + 0.5) * cell_px.x, (root.y + 0.5) * cell_px.y);
      const cv::Point2d arm = root_px - hand_px;
      double best = std::numbers::pi, second = std::numbers::pi;
      const Seat* chosen = nullptr;
      for (const Seat& seat : seats) {
        const double a = angle_between(arm, seat.at - hand_px);
        if (a < best) {
          second = best;
          best = a;
          chosen = &seat;
        } else if (a < second) {
          second = a;
        }
      }
      if (chosen == nullptr || best > kSeatAngle || second - best < kSeatMargin) continue;
      out[b].push_back(chosen->name);
    }
  }
};

ArmWatch::ArmWatch(const calibration::Calibration& calibration)
    : impl_(std::make_unique<Impl>(calibration)) {}
ArmWatch::~ArmWatch() = default;
ArmWatch::ArmWatch(ArmWatch&&) noexcept = default;
ArmWatch& ArmWatch::operator=(ArmWatch&&) noexcept = default;

std::vector<std::vector<std::string>> ArmWatch::read(const cv::Mat& frame_bgr) {
  return impl_->read(frame_bgr);
}

}  // namespace bugcam::vision
