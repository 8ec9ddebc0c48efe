// Runs the tracker again on the inputs a recording gave it (CLIP/observations.bin, written by
// `record_eval --save-observations`), records into CLIP/replayed and scores that against the
// clip's truth as record_eval does, in seconds instead of minutes: for tuning the tracker.
// Piece types come from the answers vision gave in the original run; a question it was not
// asked then gets no answer.
//
//   tracker_replay CLIP_DIR... [--out NAME] [--trace] [--without-holdings] [--without-leans]
//                [--lean SHORT,TALL,RADIUS[,TALL_RADIUS]] [--square BOARD:SQUARE]
//                [--hidden-seconds S] [--altered] [--symbols] [--no-knocks] [--beam N]
//                [--without-beside] [--without-shadow-sides]
// --trace writes the tracker's scoring of every press to CLIP/NAME/trace.txt, with each
// holding area's reading where it changes (in logs saved with `record_eval --holdings`), and
// at each press where the true history (truth.bpgn) ranks and whether the beam kept it;
// --square A:e4 writes what vision reported for that square in every frame to
// CLIP/NAME/square-A-e4.txt (time, frame, empty/white/black, occluded, altered, restored, the
// seats whose arm is over the board, the board's own players' marked "own:");
// --altered writes every stretch of frames in which vision saw a square altered (unlike its
// still view, reading the same) to CLIP/NAME/altered.txt: board, square, first and last time,
// frames, and whether a cover ended it; --symbols writes every board's squares in every frame
// to CLIP/NAME/symbols.txt, one line a board and frame: time, frame, board, then a1..h8 as
// '.', 'w', 'b', '?' for a square flagged covered and '~' for one read unsure, upper case
// where altered; --no-knocks leaves out pieces seen knocked over and put back
// (position_disturbed from TrackerConfig::disturbed_when_restored, on in `bugcam record`);
// --without-holdings leaves out the holding areas of a log saved with them (`record_eval`
// by default, as `bugcam record` runs; `--no-holdings` saves none), as
// `bugcam record --no-holdings-to-tracker` runs.
// The squares pieces hide from the camera (TrackerConfig::leans_over) come from the calibration the
// recording used, CLIP/recorded/calibration.pbtxt; --without-leans leaves them out, --lean sets the
// height of the short pieces (pawns to rooks) and the tall ones (kings, queens) and the radius
// around a square's centre they count from, for all or (a fourth value) the tall ones alone
// (for tuning);
// --hidden-seconds sets how long a held piece must go unseen to be a hidden_piece (for
// tuning, on logs saved with `record_eval --holdings`); --beam sets how many game histories
// the tracker keeps (TrackerConfig::beam_width, for tuning); --without-beside leaves out what
// the tracker learns of shadows beside pieces (TrackerConfig::learn_shadows_beside);
// --without-shadow-sides leaves out the side the start position's shadows fell on, from the
// recorded calibration (TrackerConfig::shadow_sides).
// The last line gives how long after their presses moves were committed over all the clips
// (median, 90th and 99th percentiles, the longest and its move): until then the live page
// shows them provisional, and game.bpgn does not hold them.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bugcam/calibration.hpp"
#include "bugcam/evaluation.hpp"
#include "bugcam/observation_log.hpp"
#include "bugcam/pipeline.hpp"
#include "bugcam/recorder.hpp"
#include "bugcam/tracker.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bugcam;

[[noreturn]] void usage(const std::string& what) {
  std::cerr
      << "tracker_replay: " << what
      << "\nusage: tracker_replay CLIP_DIR... [--out NAME] [--trace] [--without-holdings] "
         "[--without-leans] [--without-shadow-sides] [--lean SHORT,TALL,RADIUS[,TALL_RADIUS]] "
         "[--square BOARD:SQUARE] [--hidden-seconds S] [--altered] [--symbols] "
         "[--no-knocks] [--beam N] [--without-beside]\n";
  std::exit(2);
}

// A square whose readings are written out frame by frame.
struct WatchedSquare {
  rules::BoardId board = rules::BoardId::kA;
  rules::Square square = 0;
};

// "A:e4" or "B:h1".
std::optional<WatchedSquare> parse_watched(const std::string& text) {
  if (text.size() < 3 || (text[0] != 'A' && text[0] != 'B') || text[1] != ':') return std::nullopt;
  const std::optional<rules::Square> square = rules::parse_square(text.substr(2));
  if (!square) return std::nullopt;
  return WatchedSquare{text[0] == 'A' ? rules::BoardId::kA : rules::BoardId::kB, *square};
}

// Writes each stretch of consecutive frames in which a square was seen altered, as it ends.
class AlteredStretches {
 public:
  explicit AlteredStretches(const fs::path& file) : out_(file) {
    out_ << "# board square first_t last_t frames ended_by\n";
  }
  void add(const tracker::BoardObservation& seen) {
    const int b = static_cast<int>(seen.board);
    for (std::size_t s = 0; s < 64; ++s) {
      Stretch& open = open_[static_cast<std::size_t>(b)][s];
      const tracker::SquareEvidence& square = seen.squares[s];
      if (square.altered) {
        if (open.frames == 0) open.first_t = seen.t;
        open.last_t = seen.t;
        ++open.frames;
      } else if (open.frames > 0) {
        write(seen.board, s, open, square.occluded ? "cover" : "reading");
        open = Stretch{};
      }
    }
  }
  void finish() {
    for (int b = 0; b < 2; ++b) {
      for (std::size_t s = 0; s < 64; ++s) {
        const Stretch& open = open_[static_cast<std::size_t>(b)][s];
        if (open.frames > 0) write(static_cast<rules::BoardId>(b), s, open, "end");
      }
    }
  }

 private:
  struct Stretch {
    double first_t = 0.0;
    double last_t = 0.0;
    int frames = 0;
  };
  void write(rules::BoardId board, std::size_t square, const Stretch& stretch,
             const char* ended_by) {
    char line[128];
    std::snprintf(line, sizeof line, "%c %s %.3f %.3f %d %s\n", rules::board_letter(board),
                  rules::square_name(static_cast<rules::Square>(square)).c_str(), stretch.first_t,
                  stretch.last_t, stretch.frames, ended_by);
    out_ << line;
  }
  std::ofstream out_;
  std::array<std::array<Stretch, 64>, 2> open_{};
};

// A square's reading as one character (see --symbols).
char evidence_symbol(const tracker::SquareEvidence& square) {
  char c = '~';
  if (square.occluded) {
    c = '?';
  } else if (square.empty >= 0.7) {
    c = '.';
  } else if (square.white >= 0.7) {
    c = 'w';
  } else if (square.black >= 0.7) {
    c = 'b';
  }
  return square.altered ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
}

// How long after its press each move was committed (the live page shows it provisional until
// then): the time of the latest clock event or board observation when the tracker committed
// it, less the move's time. A move committed only when the footage ends counts until the last.
struct CommitLatency {
  double seconds = 0.0;
  std::string ply;
};

struct Result {
  pipeline::Accuracy accuracy;
  int committed = 0;
  std::vector<CommitLatency> latencies;
};

int seat_slot(const tracker::Seat& seat) {
  return 2 * static_cast<int>(seat.board) + (seat.color == rules::Color::kWhite ? 0 : 1);
}

// A holding area's reading in the trace, each time it differs from the last one traced.
void trace_holdings(std::ostream& out, const tracker::HoldingsObservation& seen,
                    std::optional<tracker::HoldingsObservation>& last) {
  if (last && last->visible == seen.visible && last->occluded == seen.occluded &&
      last->pieces == seen.pieces) {
    return;
  }
  last = seen;
  out << "holdings " << rules::board_letter(seen.seat.board)
      << (seen.seat.color == rules::Color::kWhite ? 'w' : 'b') << " t=" << seen.t << " frame "
      << seen.frame << (seen.occluded ? " occluded" : "");
  static constexpr char kLetters[] = "PNBRQ";
  for (int type = 0; type < 5; ++type) out << ' ' << kLetters[type] << seen.visible[type];
  if (seen.pieces) out << " pieces " << *seen.pieces;
  out << '\n';
}

// The clip's true moves per board in the engine's SAN, for the trace (none without a truth).
std::array<std::vector<std::string>, 2> true_moves(const fs::path& truth_file) {
  std::array<std::vector<std::string>, 2> moves;
  std::ifstream in(truth_file);
  if (!in) return moves;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::vector<rules::BpgnGame> games = rules::parse_bpgn(text, truth_file.string());
  if (games.empty()) return moves;
  for (const rules::ReplayedPly& ply : rules::replay(games.front()).plies) {
    moves[static_cast<std::size_t>(ply.board)].push_back(ply.san);
  }
  return moves;
}

// What the command line asks of every replay.
struct ReplayOptions {
  std::string out_name = "replayed";
  bool trace = false;
  bool holdings = true;
  bool leans = true;
  bool shadow_sides = true;
  pipeline::HidingSizes sizes;
  std::optional<WatchedSquare> watched;
  std::optional<double> hidden_seconds;
  std::optional<int> beam_width;
  bool beside = true;
  bool altered = false;
  bool symbols = false;
  bool knocked = true;
};

Result replay(const fs::path& clip, const ReplayOptions& options) {
  const std::vector<pipeline::LoggedInput> inputs =
      pipeline::read_observation_log(clip / "observations.bin");
  tracker::TrackerConfig config;
  if (options.hidden_seconds) config.hidden_piece_seconds = *options.hidden_seconds;
  if (options.beam_width) config.beam_width = *options.beam_width;
  config.learn_shadows_beside = options.beside;
  config.disturbed_when_restored = options.knocked;
  if (options.leans || options.shadow_sides) {
    const calibration::Calibration recorded =
        calibration::load_calibration((clip / "recorded" / "calibration.pbtxt").string());
    if (options.leans) config.leans_over = pipeline::tracker_leans(recorded, options.sizes);
    if (options.shadow_sides) config.shadow_sides = pipeline::tracker_shadow_sides(recorded);
  }
  std::map<std::tuple<int, int, int>, std::optional<tracker::PieceTypeScores>> answers;
  for (const pipeline::LoggedInput& input : inputs) {
    if (const auto* e = std::get_if<capture::ClockEvent>(&input)) {
      if (!config.base_seconds && e->kind == capture::ClockEvent::Kind::kStart && e->white_ms) {
        config.base_seconds = *e->white_ms / 1000.0;
      }
    } else if (const auto* a = std::get_if<pipeline::PieceTypeAnswer>(&input)) {
      answers[{static_cast<int>(a->board), static_cast<int>(a->square), a->frame}] = a->types;
    }
  }
  config.piece_types = [&answers](rules::BoardId board, rules::Square square,
                                  int frame) -> std::optional<tracker::PieceTypeScores> {
    const auto found = answers.find({static_cast<int>(board), static_cast<int>(square), frame});
    return found == answers.end() ? std::nullopt : found->second;
  };
  const fs::path out = clip / options.out_name;
  fs::remove_all(out);
  recorder::RecorderOptions ro;
  ro.dir = out;
  recorder::Recorder recorder(ro);
  std::ofstream trace_file;
  if (options.trace) {
    trace_file.open(out / "trace.txt");
    config.debug = &trace_file;
    config.debug_truth = true_moves(clip / "truth.bpgn");
  }
  std::ofstream square_file;
  if (options.watched) {
    square_file.open(out /
                     ("square-" + std::string(1, rules::board_letter(options.watched->board)) +
                      "-" + rules::square_name(options.watched->square) + ".txt"));
    square_file << "# t frame empty white black occluded altered restored arms\n";
  }
  std::optional<AlteredStretches> altered_stretches;
  if (options.altered) altered_stretches.emplace(out / "altered.txt");
  std::ofstream symbols_file;
  if (options.symbols) symbols_file.open(out / "symbols.txt");
  tracker::Tracker tracker(config);
  std::array<std::optional<tracker::HoldingsObservation>, 4> last_traced;
  Result result;
  double input_t = 0.0;  // of the latest clock event or board observation
  const auto drain = [&] {
    for (const tracker::TrackerEvent& event : tracker.take_events()) {
      if (const auto* m = std::get_if<tracker::TrackedMove>(&event); m && !m->provisional) {
        ++result.committed;
        result.latencies.push_back(
            {input_t - m->t, std::string(1, rules::board_letter(m->board)) + " " + m->ply});
      }
      recorder.record(event);
    }
  };
  for (const pipeline::LoggedInput& input : inputs) {
    if (const auto* e = std::get_if<capture::ClockEvent>(&input)) {
      input_t = std::max(input_t, e->t);
      tracker.add(*e);
      recorder.record(*e);
    } else if (const auto* b = std::get_if<tracker::BoardObservation>(&input)) {
      input_t = std::max(input_t, b->t);
      if (options.watched && b->board == options.watched->board) {
        const tracker::SquareEvidence& seen =
            b->squares[static_cast<std::size_t>(options.watched->square)];
        char line[96];
        std::snprintf(line, sizeof line, "%.3f %d %.3f %.3f %.3f %d %d %d", b->t, b->frame,
                      seen.empty, seen.white, seen.black, seen.occluded ? 1 : 0,
                      seen.altered ? 1 : 0, seen.restored ? 1 : 0);
        square_file << line;
        // The other board's arms as "Bw", the board's own players' as "own:Aw".
        for (const auto& [seats, prefix] : {std::pair{&b->hands, ""}, {&b->own_arms, "own:"}}) {
          for (const tracker::Seat& seat : *seats) {
            square_file << ' ' << prefix << rules::board_letter(seat.board)
                        << (seat.color == rules::Color::kWhite ? 'w' : 'b');
          }
        }
        square_file << '\n';
      }
      if (altered_stretches) altered_stretches->add(*b);
      if (options.symbols) {
        char line[64];
        std::snprintf(line, sizeof line, "%.3f %d %c ", b->t, b->frame,
                      rules::board_letter(b->board));
        symbols_file << line;
        for (const tracker::SquareEvidence& square : b->squares) {
          symbols_file << evidence_symbol(square);
        }
        symbols_file << '\n';
      }
      tracker.add(*b);
    } else if (const auto* h = std::get_if<tracker::HoldingsObservation>(&input);
               h && options.holdings) {
      if (options.trace) trace_holdings(trace_file, *h, last_traced[seat_slot(h->seat)]);
      tracker.add(*h);
    }
    drain();
  }
  tracker.finish();
  drain();
  if (altered_stretches) altered_stretches->finish();
  result.accuracy = pipeline::evaluate(out, clip);
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> clips;
  ReplayOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--out") {
      if (i + 1 >= argc) usage("--out needs a value");
      options.out_name = argv[++i];
    } else if (arg == "--trace") {
      options.trace = true;
    } else if (arg == "--altered") {
      options.altered = true;
    } else if (arg == "--symbols") {
      options.symbols = true;
    } else if (arg == "--no-knocks") {
      options.knocked = false;
    } else if (arg == "--without-holdings") {
      options.holdings = false;
    } else if (arg == "--without-beside") {
      options.beside = false;
    } else if (arg == "--without-leans") {
      options.leans = false;
    } else if (arg == "--without-shadow-sides") {
      options.shadow_sides = false;
    } else if (arg == "--lean") {
      pipeline::HidingSizes& sizes = options.sizes;
      const char* text = i + 1 < argc ? argv[++i] : "";
      int end = -1;  // where the values end: the whole argument, or it is rejected
      const int read =
          std::sscanf(text, "%lf,%lf,%lf%n,%lf%n", &sizes.short_height, &sizes.tall_height,
                      &sizes.radius, &end, &sizes.tall_radius, &end);
      if (read == 3) sizes.tall_radius = sizes.radius;
      if ((read != 3 && read != 4) || end < 0 || text[end] != '\0' || !(sizes.short_height > 0) ||
          !(sizes.tall_height > 0) || !(sizes.radius > 0) || !(sizes.radius < 1.0) ||
          !(sizes.tall_radius > 0) || !(sizes.tall_radius < 1.0)) {
        usage(
            "--lean needs SHORT,TALL,RADIUS[,TALL_RADIUS]: heights above 0 and radii between 0 "
            "and 1 (from 1 on, a square's neighbours count as hidden with no lean)");
      }
    } else if (arg == "--hidden-seconds") {
      char rest = 0;
      double seconds = 0.0;
      if (i + 1 >= argc || std::sscanf(argv[++i], "%lf%c", &seconds, &rest) != 1 ||
          !(seconds > 0)) {
        usage("--hidden-seconds needs a number of seconds above 0");
      }
      options.hidden_seconds = seconds;
    } else if (arg == "--beam") {
      char rest = 0;
      int width = 0;
      if (i + 1 >= argc || std::sscanf(argv[++i], "%d%c", &width, &rest) != 1 || width < 1) {
        usage("--beam needs a number of histories from 1 on");
      }
      options.beam_width = width;
    } else if (arg == "--square") {
      if (i + 1 >= argc || !(options.watched = parse_watched(argv[++i]))) {
        usage("--square needs BOARD:SQUARE, such as A:e4");
      }
    } else if (arg.starts_with("--")) {
      usage("unknown argument " + arg);
    } else {
      clips.emplace_back(arg);
    }
  }
  if (clips.empty()) usage("no clip directory");
  int right = 0, compared = 0, exact = 0, found = 0, truth = 0, failed = 0;
  std::map<std::string, int> false_by_type;
  double press_error_max = 0.0;
  std::vector<double> latencies;
  CommitLatency latest;
  std::string latest_clip;
  for (const fs::path& clip : clips) {
    try {
      const Result r = replay(clip, options);
      const pipeline::Accuracy& a = r.accuracy;
      for (const CommitLatency& l : r.latencies) {
        latencies.push_back(l.seconds);
        if (l.seconds > latest.seconds) {
          latest = l;
          latest_clip = clip.filename().string();
        }
      }
      right += a.moves_right;
      compared += a.moves_compared;
      exact += a.exact ? 1 : 0;
      found += a.incidents_found;
      truth += a.incidents_true;
      press_error_max = std::max(press_error_max, a.press_error_max);
      std::string notes = a.first_errors.empty() ? "" : a.first_errors.front();
      for (const pipeline::IncidentMatch& m : a.incidents_missed) notes += " missed " + m.type;
      for (const pipeline::IncidentMatch& m : a.incidents_false) {
        ++false_by_type[m.type];
        notes += " false " + m.type + "(" + m.board + " " + m.ply + ")";
      }
      std::printf("%-12s %3d/%-3d %5.1f%% %-3s press %.3fs incidents %d/%d+%zu %s\n",
                  clip.filename().c_str(), a.moves_right, a.moves_compared,
                  100.0 * a.moves_right_fraction(), a.exact ? "yes" : "no", a.press_error_max,
                  a.incidents_found, a.incidents_true, a.incidents_false.size(), notes.c_str());
    } catch (const std::exception& e) {
      std::printf("%-12s failed: %s\n", clip.filename().c_str(), e.what());
      ++failed;
    }
  }
  int false_total = 0;
  for (const auto& [type, n] : false_by_type) false_total += n;
  std::printf("moves right %d/%d = %.2f%%, exact %d/%zu, incidents %d/%d found, %d false:", right,
              compared, compared ? 100.0 * right / compared : 0.0, exact,
              clips.size() - static_cast<std::size_t>(failed), found, truth, false_total);
  for (const auto& [type, n] : false_by_type) std::printf(" %s %d", type.c_str(), n);
  std::printf(", press error max %.3fs\n", press_error_max);
  if (!latencies.empty()) {
    std::sort(latencies.begin(), latencies.end());
    const auto at = [&](double q) {
      return latencies[static_cast<std::size_t>(q * static_cast<double>(latencies.size() - 1))];
    };
    std::printf("commit latency median %.1fs, 90%% %.1fs, 99%% %.1fs, max %.1fs (%s %s)\n", at(0.5),
                at(0.9), at(0.99), latest.seconds, latest_clip.c_str(), latest.ply.c_str());
  }
  return failed == 0 ? 0 : 1;
}
