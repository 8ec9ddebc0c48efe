// Scoring a recording against a synthetic clip's truth.
#include "bugcam/evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/rules.hpp"

namespace bugcam::pipeline {

namespace {

namespace fs = std::filesystem;

// Incidents match when their times lie within this many seconds of each other.
constexpr double kIncidentSlack = 3.0;

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error(file.string() + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Ply {
  rules::BoardId board = rules::BoardId::kA;
  std::string label;  // "14b"
  std::string san;    // as the engine writes it (as written when the game does not replay)
  std::optional<double> t;
  std::optional<double> clock;
};

// The plies of every game in the file, in order: a recording continues in a new game, set
// up from the position seen, after an illegal move or a disturbed position.
std::vector<Ply> read_plies(const fs::path& file) {
  const std::vector<rules::BpgnGame> games = rules::parse_bpgn(read_text(file), file.string());
  if (games.empty()) throw std::runtime_error(file.string() + ": no game in it");
  std::vector<Ply> plies;
  for (const rules::BpgnGame& game : games) {
    const rules::Replay replayed = rules::replay(game);
    for (std::size_t i = 0; i < game.moves.size(); ++i) {
      const rules::BpgnMove& m = game.moves[i];
      Ply ply;
      ply.board = m.board;
      ply.label = std::to_string(m.number) +
                  (m.color == rules::Color::kWhite
                       ? rules::board_letter(m.board)
                       : static_cast<char>(rules::board_letter(m.board) - 'A' + 'a'));
      ply.san = i < replayed.plies.size() ? replayed.plies[i].san : m.san;
      ply.t = m.timestamp;
      ply.clock = m.clock;
      plies.push_back(ply);
    }
  }
  return plies;
}

struct IncidentSpan {
  IncidentMatch what;
  double t_end = 0.0;
};

std::vector<IncidentSpan> read_incidents(const nlohmann::json& list) {
  std::vector<IncidentSpan> out;
  for (const nlohmann::json& j : list) {
    IncidentSpan span;
    span.what.type = j.value("type", "");
    span.what.board = j.value("board", "");
    span.what.ply = j.contains("ply") && j["ply"].is_string() ? j["ply"].get<std::string>() : "";
    span.what.t = j.value("t", 0.0);
    span.t_end = std::max(span.what.t, j.value("t_end", span.what.t));
    out.push_back(span);
  }
  return out;
}

}  // namespace

Accuracy evaluate(const fs::path& recorded_dir, const fs::path& truth_dir) {
  Accuracy a;
  const std::vector<Ply> truth = read_plies(truth_dir / "truth.bpgn");
  const std::vector<Ply> recorded = read_plies(recorded_dir / "game.bpgn");
  a.truth_moves = static_cast<int>(truth.size());
  a.recorded_moves = static_cast<int>(recorded.size());

  double press_error_sum = 0.0;
  bool all_right = truth.size() == recorded.size();
  for (rules::BoardId board : {rules::BoardId::kA, rules::BoardId::kB}) {
    std::vector<const Ply*> t_board, r_board;
    for (const Ply& p : truth) {
      if (p.board == board) t_board.push_back(&p);
    }
    for (const Ply& p : recorded) {
      if (p.board == board) r_board.push_back(&p);
    }
    const std::size_t n = std::max(t_board.size(), r_board.size());
    a.moves_compared += static_cast<int>(n);
    // The longest common subsequence of the two SAN sequences: a move missed or added
    // costs itself, not every move after it.
    const std::size_t nt = t_board.size(), nr = r_board.size();
    std::vector<std::vector<int>> common(nt + 1, std::vector<int>(nr + 1, 0));
    for (std::size_t i = nt; i-- > 0;) {
      for (std::size_t j = nr; j-- > 0;) {
        common[i][j] = t_board[i]->san == r_board[j]->san
                           ? common[i + 1][j + 1] + 1
                           : std::max(common[i + 1][j], common[i][j + 1]);
      }
    }
    bool first_error = true;
    std::size_t i = 0, j = 0;
    while (i < nt || j < nr) {
      if (i < nt && j < nr && t_board[i]->san == r_board[j]->san &&
          common[i][j] == common[i + 1][j + 1] + 1) {
        const Ply* t = t_board[i++];
        const Ply* r = r_board[j++];
        ++a.moves_right;
        if (t->t && r->t) {
          const double e = std::abs(*t->t - *r->t);
          press_error_sum += e;
          a.press_error_max = std::max(a.press_error_max, e);
        }
        if (t->clock && r->clock) {
          a.clock_error_max = std::max(a.clock_error_max, std::abs(*t->clock - *r->clock));
        } else if (t->clock) {
          ++a.clocks_missing;
        }
        continue;
      }
      all_right = false;
      if (first_error) {
        first_error = false;
        const Ply* t = i < nt ? t_board[i] : nullptr;
        const Ply* r = j < nr ? r_board[j] : nullptr;
        a.first_errors.push_back(std::string(1, rules::board_letter(board)) + " " +
                                 (t ? t->label : r->label) + ": " + (r ? r->san : "(none)") +
                                 " for " + (t ? t->san : "(none)"));
      }
      // Skip the move the common subsequence does not use.
      if (j >= nr || (i < nt && common[i + 1][j] >= common[i][j + 1])) {
        ++i;
      } else {
        ++j;
      }
    }
  }
  if (a.moves_right > 0) a.press_error_mean = press_error_sum / a.moves_right;
  // Exact also needs the order across boards: the order of the presses (SPEC section 3, the
  // order completed). A synthetic truth lists its moves in the source game's order, which a
  // premove breaks: its press comes right after the opponent's, before presses on the other
  // board that the game lists first.
  std::vector<const Ply*> truth_pressed;
  for (const Ply& p : truth) truth_pressed.push_back(&p);
  if (std::all_of(truth.begin(), truth.end(), [](const Ply& p) { return p.t.has_value(); })) {
    std::stable_sort(truth_pressed.begin(), truth_pressed.end(),
                     [](const Ply* x, const Ply* y) { return *x->t < *y->t; });
  }
  for (std::size_t i = 0; all_right && i < truth_pressed.size(); ++i) {
    if (truth_pressed[i]->board != recorded[i].board || truth_pressed[i]->san != recorded[i].san)
      all_right = false;
  }
  a.exact = all_right;

  nlohmann::json truth_json, recorded_json;
  try {
    truth_json = nlohmann::json::parse(read_text(truth_dir / "truth.json"));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error((truth_dir / "truth.json").string() + ": " + e.what());
  }
  try {
    recorded_json = nlohmann::json::parse(read_text(recorded_dir / "incidents.json"));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error((recorded_dir / "incidents.json").string() + ": " + e.what());
  }
  const std::vector<IncidentSpan> expected =
      read_incidents(truth_json.value("incidents", nlohmann::json::array()));
  const std::vector<IncidentSpan> reported = read_incidents(recorded_json);
  a.incidents_true = static_cast<int>(expected.size());
  std::vector<bool> used(reported.size(), false);
  for (const IncidentSpan& e : expected) {
    bool found = false;
    for (std::size_t i = 0; i < reported.size() && !found; ++i) {
      const IncidentSpan& r = reported[i];
      if (used[i] || r.what.type != e.what.type || r.what.board != e.what.board) continue;
      if (r.what.t > e.t_end + kIncidentSlack || r.t_end < e.what.t - kIncidentSlack) continue;
      used[i] = true;
      found = true;
    }
    if (found) {
      ++a.incidents_found;
    } else {
      a.incidents_missed.push_back(e.what);
    }
  }
  for (std::size_t i = 0; i < reported.size(); ++i) {
    if (!used[i]) a.incidents_false.push_back(reported[i].what);
  }
  return a;
}

SquareMisreads::SquareMisreads(double fps) : fps_(fps > 0 ? fps : 30.0) {}

void SquareMisreads::add(int frame, const std::string& board, int square, char seen, char truth) {
  const bool wrong = seen != truth;
  if (wrong) {
    if (seen == '?') {
      ++kinds_.unsure;
    } else if (truth == '.') {
      ++kinds_.phantom;
    } else if (seen == '.') {
      ++kinds_.missed;
    } else {
      ++kinds_.colour;
    }
  }
  if (seen == '?') return;  // no evidence either way: a run goes on over it
  const auto open = std::find_if(open_.begin(), open_.end(), [&](const Run& r) {
    return r.board == board && r.square == square;
  });
  if (open != open_.end()) {
    if (wrong && open->seen == seen && open->truth == truth) {
      open->last_frame = frame;
      return;
    }
    ended_.push_back(*open);
    open_.erase(open);
  }
  if (wrong) open_.push_back({board, square, seen, truth, frame, frame, 0.0});
}

std::vector<SquareMisreads::Run> SquareMisreads::runs_at_least(double min_seconds) const {
  std::vector<Run> out;
  for (const std::vector<Run>* runs : {&ended_, &open_}) {
    for (Run r : *runs) {
      r.from_seconds = r.first_frame / fps_;
      r.seconds = (r.last_frame - r.first_frame + 1) / fps_;
      if (r.seconds >= min_seconds) out.push_back(r);
    }
  }
  std::sort(out.begin(), out.end(), [](const Run& a, const Run& b) {
    if (a.seconds != b.seconds) return a.seconds > b.seconds;
    if (a.board != b.board) return a.board < b.board;
    if (a.square != b.square) return a.square < b.square;
    return a.first_frame < b.first_frame;
  });
  return out;
}

std::string to_text(const Accuracy& a) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << "moves right: " << a.moves_right << "/" << a.moves_compared << " ("
      << 100.0 * a.moves_right_fraction() << " %), " << a.recorded_moves << " recorded, "
      << a.truth_moves << " true; game " << (a.exact ? "exactly right" : "not exact") << "\n";
  out.precision(3);
  out << "press time error: mean " << a.press_error_mean << " s, max " << a.press_error_max
      << " s; clock error max " << a.clock_error_max << " s";
  if (a.clocks_missing > 0) out << " (" << a.clocks_missing << " clocks missing)";
  out << "\n";
  out << "incidents: " << a.incidents_found << "/" << a.incidents_true << " found, "
      << a.incidents_false.size() << " false\n";
  for (const std::string& e : a.first_errors) out << "  first wrong move on board " << e << "\n";
  out.precision(1);
  for (const IncidentMatch& m : a.incidents_missed) {
    out << "  missed " << m.type << " on " << m.board << " at " << m.t << " s"
        << (m.ply.empty() ? "" : " (" + m.ply + ")") << "\n";
  }
  for (const IncidentMatch& m : a.incidents_false) {
    out << "  false " << m.type << " on " << m.board << " at " << m.t << " s"
        << (m.ply.empty() ? "" : " (" + m.ply + ")") << "\n";
  }
  return out.str();
}

ImagePoint TruthLens::undistort(ImagePoint pixel) const {
  const double x = (pixel.x - cx) / fx;
  const double y = (pixel.y - cy) / fy;
  const double r2 = x * x + y * y;
  const double scale = 1.0 + k1 * r2 + k2 * r2 * r2;
  return {cx + fx * x * scale, cy + fy * y * scale};
}

ImagePoint TruthLens::distort(ImagePoint pixel) const {
  const double x = (pixel.x - cx) / fx;
  const double y = (pixel.y - cy) / fy;
  const double undistorted_r = std::hypot(x, y);
  if (undistorted_r == 0.0) return pixel;
  const double scale = calibration::seen_radius(undistorted_r, k1, k2) / undistorted_r;
  return {cx + fx * x * scale, cy + fy * y * scale};
}

std::array<ImagePoint, 81> true_lattice(const std::array<ImagePoint, 4>& corners,
                                        const TruthLens& lens) {
  const std::array<cv::Point2f, 4> board_corners{cv::Point2f(0, 0), cv::Point2f(8, 0),
                                                 cv::Point2f(8, 8), cv::Point2f(0, 8)};
  std::array<cv::Point2f, 4> undistorted_corners{};
  for (std::size_t i = 0; i < 4; ++i) {
    const ImagePoint u = lens.undistort(corners[i]);
    undistorted_corners[i] = cv::Point2f(static_cast<float>(u.x), static_cast<float>(u.y));
  }
  const cv::Matx33d h(
      cv::getPerspectiveTransform(board_corners.data(), undistorted_corners.data()));
  std::array<ImagePoint, 81> lattice{};
  for (int rank_line = 0; rank_line <= 8; ++rank_line) {
    for (int file_line = 0; file_line <= 8; ++file_line) {
      const cv::Vec3d p = h * cv::Vec3d(file_line, rank_line, 1.0);
      lattice[static_cast<std::size_t>(rank_line * 9 + file_line)] =
          lens.distort({p[0] / p[2], p[1] / p[2]});
    }
  }
  return lattice;
}

std::optional<ShownClocks> shown_clocks(const std::vector<capture::ClockEvent>& log,
                                        rules::BoardId board, double t) {
  std::optional<std::array<double, 2>> ms;
  int running = -1;  // the side whose clock runs; -1: none
  double since = 0.0;
  for (const capture::ClockEvent& e : log) {
    if (e.board != board || e.t > t) continue;
    if (ms && running >= 0) ms->at(static_cast<std::size_t>(running)) -= (e.t - since) * 1000.0;
    since = e.t;
    if (e.kind == capture::ClockEvent::Kind::kStart) {
      ms = std::array<double, 2>{static_cast<double>(e.white_ms.value_or(0)),
                                 static_cast<double>(e.black_ms.value_or(0))};
      running = 0;
    } else if (e.kind == capture::ClockEvent::Kind::kPress && ms) {
      if (e.white_ms) (*ms)[0] = *e.white_ms;
      if (e.black_ms) (*ms)[1] = *e.black_ms;
      running = e.side == rules::Color::kWhite ? 1 : 0;
    } else {
      running = -1;
    }
  }
  if (!ms) return std::nullopt;
  ShownClocks out;
  out.running = running;
  if (running >= 0) {
    ms->at(static_cast<std::size_t>(running)) -= (t - since) * 1000.0;
    const double left = ms->at(static_cast<std::size_t>(running));
    out.to_tick = std::min(std::fmod(std::max(0.0, left), 1000.0),
                           1000.0 - std::fmod(std::max(0.0, left), 1000.0)) /
                  1000.0;
  }
  for (std::size_t side = 0; side < 2; ++side) {
    out.seconds[side] = static_cast<int>(std::max(0.0, (*ms)[side]) / 1000.0);
  }
  return out;
}

}  // namespace bugcam::pipeline
