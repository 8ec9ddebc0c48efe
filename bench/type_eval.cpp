// The piece types vision gave the tracker in recorded clips, against the clips' truth: every
// answer in CLIP/observations.bin (written by `record_eval --save-observations`) with the
// type truth.json has on that square at that frame, then per type the share whose argmax is
// right, and the confusions.
//
//   type_eval CLIP_DIR... [--verbose] [--recompute] [--drops] [--patches DIR]
// --verbose lists every answer; --recompute reads the video again and types each answer's
// square in each kept frame the recording read (every third frame, JPEG as kept, over the
// look after the asked frame), printing each view's argmax and the answer vision gives now
// (after a change to vision, what it would answer: "looks", as vision::square_piece_types
// reads a patch) and what the network alone reads in the patch ("plain"); --drops asks instead
// about every drop and promotion of the truth, at its true press (needs no observations.bin;
// implies --recompute); --patches DIR (with --recompute) writes, for each question read wrong now,
// those views' patches and the frame around the square as PNG.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "bugcam/calibration.hpp"
#include "bugcam/capture.hpp"
#include "bugcam/observation_log.hpp"
#include "bugcam/vision.hpp"

namespace {

using namespace bugcam;
namespace fs = std::filesystem;

// As recording keeps and reads frames (pipeline/src/session.cpp): every third frame as JPEG
// of quality 85, a type read over the kept frames of 0.6 s after the asked frame.
constexpr int kSnapshotEvery = 3;
constexpr int kSnapshotQuality = 85;
constexpr double kLookSeconds = 0.6;
constexpr std::string_view kTypes = "PNBRQK";

[[noreturn]] void usage(const std::string& what) {
  std::cerr << "type_eval: " << what
            << "\nusage: type_eval CLIP_DIR... [--verbose] [--recompute] [--patches DIR]\n";
  std::exit(2);
}

// Type index (kTypes) of a truth letter; -1 for an empty square.
int type_index(char letter) {
  const std::size_t i = kTypes.find(static_cast<char>(std::toupper(letter)));
  return i == std::string_view::npos ? -1 : static_cast<int>(i);
}

template <typename Scores>
int argmax(const Scores& p) {
  return static_cast<int>(std::max_element(p.begin(), p.end()) - p.begin());
}

struct Truth {
  nlohmann::json json;
  std::vector<int> state_frames;

  explicit Truth(const fs::path& clip) {
    std::ifstream in(clip / "truth.json");
    if (!in) throw std::runtime_error((clip / "truth.json").string() + ": cannot open");
    json = nlohmann::json::parse(in);
    for (const nlohmann::json& s : json["states"]) state_frames.push_back(s["frame"].get<int>());
  }

  // The piece letter on `square` (a1 = 0) of `board` at `frame` ('.' when empty).
  char piece(const std::string& board, int square, int frame) const {
    const auto after = std::upper_bound(state_frames.begin(), state_frames.end(), frame);
    const std::size_t s = after == state_frames.begin()
                              ? 0
                              : static_cast<std::size_t>(after - state_frames.begin() - 1);
    const std::string row = json["states"][s][board]["pieces"][7 - square / 8];
    return row[static_cast<std::size_t>(square % 8)];
  }

  // Frames from `first` to `last` in which a hand covers `square` or a square next to it.
  int hand_frames(const std::string& board, int square, int first, int last) const {
    std::set<std::string> near;
    for (int df = -1; df <= 1; ++df) {
      for (int dr = -1; dr <= 1; ++dr) {
        const int f = square % 8 + df, r = square / 8 + dr;
        if (f < 0 || f > 7 || r < 0 || r > 7) continue;
        near.insert(std::string{static_cast<char>('a' + f), static_cast<char>('1' + r)});
      }
    }
    int n = 0;
    for (const nlohmann::json& note : json["frame_notes"]) {
      const int f = note["f"].get<int>();
      if (f < first || f > last || !note.contains("occluded")) continue;
      const auto covered = note["occluded"].find(board);
      if (covered == note["occluded"].end()) continue;
      if (std::any_of(covered->begin(), covered->end(),
                      [&](const nlohmann::json& s) { return near.count(s.get<std::string>()); })) {
        ++n;
      }
    }
    return n;
  }
};

// A question about a square's piece type: one the tracker asked (with vision's answer then),
// or one made up from a truth drop or promotion at its press.
struct Question {
  std::string board;
  int square = 0;
  int frame = 0;
  std::optional<vision::TypeProbabilities> logged;
  char truth = '.';
  std::string label;  // the truth ply for --drops
  int hands = 0;
  // With --recompute: each kept frame over the look, and per variant its probabilities.
  std::vector<int> view_frames;
  std::vector<std::vector<vision::TypeProbabilities>> views;  // [variant][view]
  std::vector<cv::Mat> patches;                               // with --patches
};

// How a patch is read: as the network sees it alone, and as vision answers the tracker.
struct Variant {
  const char* name;
  std::function<vision::TypeProbabilities(const vision::PieceTypeModel&, const cv::Mat&)> read;
};

std::vector<Variant> variants() {
  return {
      {"plain", [](const vision::PieceTypeModel& m, const cv::Mat& p) { return m.board_piece(p); }},
      {"looks",
       [](const vision::PieceTypeModel& m, const cv::Mat& p) { return m.board_piece_looks(p); }},
  };
}

vision::TypeProbabilities mean_of(const std::vector<vision::TypeProbabilities>& all) {
  vision::TypeProbabilities m{};
  for (const vision::TypeProbabilities& p : all) {
    for (std::size_t k = 0; k < 6; ++k) m[k] += p[k] / static_cast<float>(all.size());
  }
  return m;
}

struct Tally {
  std::array<int, 6> asked{}, right{};
  std::vector<std::array<int, 6>> right_now;        // per variant
  std::map<std::pair<char, char>, int> confusions;  // (truth, read)
  std::vector<std::map<std::pair<char, char>, int>> confusions_now;
  int no_piece = 0;
  int views = 0, views_right = 0;
};

std::string square_name(int square) {
  return {static_cast<char>('a' + square % 8), static_cast<char>('1' + square / 8)};
}

// Each question's views, read again from the video as recording kept them.
void recompute(const fs::path& clip, std::vector<Question>& questions, int look, bool patches) {
  const calibration::Calibration calibration =
      calibration::load_calibration((clip / "recorded" / "calibration.pbtxt").string());
  const std::shared_ptr<const vision::PieceTypeModel> model =
      vision::PieceTypeModel::load_bundled();
  if (!model) throw std::runtime_error("no bundled piece-type model");
  const std::vector<Variant> kinds = variants();
  std::map<int, std::vector<std::size_t>> wanted;  // frame -> questions reading it
  for (std::size_t i = 0; i < questions.size(); ++i) {
    questions[i].views.assign(kinds.size(), {});
    for (int f = questions[i].frame; f <= questions[i].frame + look; ++f) {
      if (f % kSnapshotEvery == 0) wanted[f].push_back(i);
    }
  }
  std::unique_ptr<capture::FrameSource> source =
      capture::open_frame_source((clip / "video.mp4").string());
  while (!wanted.empty()) {
    std::optional<capture::Frame> frame = source->next();
    if (!frame) break;
    const auto found = wanted.find(frame->index);
    if (found == wanted.end()) continue;
    std::vector<uchar> jpeg;
    cv::imencode(".jpg", frame->image, jpeg, {cv::IMWRITE_JPEG_QUALITY, kSnapshotQuality});
    const cv::Mat image = cv::imdecode(jpeg, cv::IMREAD_COLOR);
    const cv::Size size = calibration.image_size.area() > 0 ? calibration.image_size : image.size();
    for (const std::size_t i : found->second) {
      Question& q = questions[i];
      const calibration::Board* board = calibration.board(q.board);
      if (board == nullptr) continue;
      const cv::Mat patch = vision::square_patch(image, *board, size, q.square);
      q.view_frames.push_back(frame->index);
      for (std::size_t v = 0; v < kinds.size(); ++v) {
        q.views[v].push_back(kinds[v].read(*model, patch));
      }
      if (patches) {
        q.patches.push_back(patch);
        if (frame->index + kSnapshotEvery > q.frame + look) {
          // The last view: the frame around the square, for the patches' context.
          const cv::Point2d centre = board->to_image({q.square % 8 + 0.5, q.square / 8 + 0.5});
          const int r = 70;
          const cv::Rect box =
              cv::Rect(cvRound(centre.x) - r, cvRound(centre.y) - 2 * r, 2 * r, 3 * r) &
              cv::Rect(0, 0, image.cols, image.rows);
          cv::Mat context;
          cv::cvtColor(image(box), context, cv::COLOR_BGR2GRAY);
          q.patches.push_back(context);
        }
      }
    }
    wanted.erase(found);
  }
}

void write_patches(const fs::path& clip, const Question& q, char read, const fs::path& dir) {
  if (q.patches.empty()) return;
  fs::create_directories(dir);
  // Side by side at three times their size, the context scaled to the patches' height.
  const int height = 3 * vision::kSquarePatchSize.height;
  std::vector<cv::Mat> scaled;
  for (const cv::Mat& image : q.patches) {
    cv::Mat s;
    const double scale = static_cast<double>(height) / image.rows;
    cv::resize(image, s, {cvRound(image.cols * scale), height}, 0, 0, cv::INTER_NEAREST);
    scaled.push_back(s);
  }
  cv::Mat strip;
  cv::hconcat(scaled, strip);
  const std::string name = clip.filename().string() + "_" + q.board + square_name(q.square) + "_" +
                           std::to_string(q.frame) + "_" + q.truth + "_as_" + read + ".png";
  cv::imwrite((dir / name).string(), strip);
}

void print_scores(const vision::TypeProbabilities& p) {
  for (std::size_t k = 0; k < 6; ++k) std::printf(" %c=%.2f", kTypes[k], p[k]);
}

// The truth's drops and promotions, each asked about at its press.
std::vector<Question> truth_drops(const Truth& truth, double fps) {
  std::vector<Question> out;
  for (const nlohmann::json& ply : truth.json["plies"]) {
    const std::string san = ply["san"];
    const std::size_t at = san.find('@'), promotion = san.find('=');
    if (at == std::string::npos && promotion == std::string::npos) continue;
    const std::string label = ply["ply"];
    Question q;
    q.board = std::string(1, static_cast<char>(std::toupper(label.back())));
    const bool white = std::isupper(static_cast<unsigned char>(label.back())) != 0;
    const std::size_t square_at = at != std::string::npos ? at + 1 : promotion - 2;
    q.square = (san[square_at] - 'a') + 8 * (san[square_at + 1] - '1');
    const char type = at != std::string::npos ? san[0] : san[promotion + 1];
    q.truth = white ? type : static_cast<char>(std::tolower(type));
    q.frame = static_cast<int>(std::lround(ply["t_press"].get<double>() * fps));
    q.label = label + " " + san;
    out.push_back(std::move(q));
  }
  return out;
}

void evaluate(const fs::path& clip, bool verbose, bool again, bool drops, const fs::path& patches,
              Tally& tally) {
  const Truth truth(clip);
  const double fps = truth.json.value("fps", 30.0);
  const int look = static_cast<int>(std::lround(kLookSeconds * fps));
  std::vector<Question> questions;
  if (drops) {
    questions = truth_drops(truth, fps);
  } else {
    // The tracker may ask the same question again (vision answers it the same): counted once.
    std::set<std::tuple<int, int, int>> asked;
    for (const pipeline::LoggedInput& input :
         pipeline::read_observation_log(clip / "observations.bin")) {
      const auto* logged = std::get_if<pipeline::PieceTypeAnswer>(&input);
      if (logged == nullptr || !logged->types) continue;
      if (!asked.insert({static_cast<int>(logged->board), logged->square, logged->frame}).second) {
        continue;
      }
      Question q;
      q.board = logged->board == rules::BoardId::kA ? "A" : "B";
      q.square = logged->square;
      q.frame = logged->frame;
      vision::TypeProbabilities p{};
      for (std::size_t k = 0; k < 6; ++k) p[k] = (*logged->types)[k];
      q.logged = p;
      // The piece there at the end of the look: the one the views mostly show.
      q.truth = truth.piece(q.board, q.square, q.frame + look);
      questions.push_back(std::move(q));
    }
  }
  for (Question& q : questions)
    q.hands = truth.hand_frames(q.board, q.square, q.frame, q.frame + look);
  if (again) recompute(clip, questions, look, !patches.empty());
  const std::vector<Variant> kinds = variants();
  if (tally.right_now.empty()) {
    tally.right_now.assign(kinds.size(), {});
    tally.confusions_now.assign(kinds.size(), {});
  }
  for (const Question& q : questions) {
    const int t = type_index(q.truth);
    const std::size_t truth_k = static_cast<std::size_t>(std::max(t, 0));
    const int read = q.logged ? argmax(*q.logged) : -1;
    std::vector<vision::TypeProbabilities> now;
    for (const auto& views : q.views) now.push_back(mean_of(views));
    const int read_now = now.empty() ? -1 : argmax(now.back());
    if (verbose) {
      std::printf("%s %s %s frame %d truth %c", clip.filename().c_str(), q.board.c_str(),
                  square_name(q.square).c_str(), q.frame, q.truth);
      if (!q.label.empty()) std::printf(" (%s)", q.label.c_str());
      if (read >= 0) std::printf(" read %c", kTypes[static_cast<std::size_t>(read)]);
      std::printf("%s hands %d:", t >= 0 && (read >= 0 ? read : read_now) != t ? " WRONG" : "",
                  q.hands);
      if (q.logged) print_scores(*q.logged);
      if (again && !now.empty()) {
        std::printf(" | now");
        print_scores(now.back());
        for (std::size_t v = 0; v + 1 < kinds.size(); ++v) {
          std::printf(" %s %c%.2f", kinds[v].name, kTypes[static_cast<std::size_t>(argmax(now[v]))],
                      t >= 0 ? now[v][truth_k] : 0.0f);
        }
        std::printf(" views");
        for (std::size_t i = 0; i < q.views.back().size(); ++i) {
          const auto& p = q.views.back()[i];
          std::printf(" %d:%c%.2f", q.view_frames[i], kTypes[static_cast<std::size_t>(argmax(p))],
                      t >= 0 ? p[truth_k] : 0.0f);
        }
      }
      std::printf("\n");
    }
    if (t < 0) {
      ++tally.no_piece;
      continue;
    }
    ++tally.asked[truth_k];
    if (read >= 0) {
      if (read == t) {
        ++tally.right[truth_k];
      } else {
        ++tally.confusions[{kTypes[truth_k], kTypes[static_cast<std::size_t>(read)]}];
      }
    }
    for (std::size_t v = 0; v < now.size(); ++v) {
      const int r = argmax(now[v]);
      if (r == t) {
        ++tally.right_now[v][truth_k];
      } else {
        ++tally.confusions_now[v][{kTypes[truth_k], kTypes[static_cast<std::size_t>(r)]}];
      }
    }
    if (!q.views.empty()) {
      for (const auto& p : q.views.back()) {
        ++tally.views;
        if (argmax(p) == t) ++tally.views_right;
      }
    }
    if (read_now >= 0 && read_now != t) {
      write_patches(clip, q, kTypes[static_cast<std::size_t>(read_now)], patches);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> clips;
  bool verbose = false, again = false, drops = false;
  fs::path patches;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--verbose") {
      verbose = true;
    } else if (arg == "--recompute") {
      again = true;
    } else if (arg == "--drops") {
      drops = again = true;
    } else if (arg == "--patches") {
      if (i + 1 >= argc) usage("--patches needs a directory");
      patches = argv[++i];
    } else if (arg.starts_with("--")) {
      usage("unknown argument " + arg);
    } else {
      clips.emplace_back(arg);
    }
  }
  if (clips.empty()) usage("no clip directory");
  if (!patches.empty() && !again) usage("--patches needs --recompute");
  Tally tally;
  for (const fs::path& clip : clips) {
    try {
      evaluate(clip, verbose, again, drops, patches, tally);
    } catch (const std::exception& e) {
      std::cerr << clip.string() << ": " << e.what() << "\n";
      return 1;
    }
  }
  const std::vector<Variant> kinds = variants();
  const auto percent = [](int n, int of) { return of ? 100.0 * n / of : 0.0; };
  std::printf("type  asked");
  if (!drops) std::printf("  answered");
  if (again) {
    for (const Variant& v : kinds) std::printf("  %12s", v.name);
  }
  std::printf("\n");
  int asked = 0, right = 0;
  std::vector<int> right_now(kinds.size(), 0);
  for (std::size_t k = 0; k < 6; ++k) {
    asked += tally.asked[k];
    right += tally.right[k];
    std::printf("%c     %5d", kTypes[k], tally.asked[k]);
    if (!drops)
      std::printf("  %4d %5.1f%%", tally.right[k], percent(tally.right[k], tally.asked[k]));
    for (std::size_t v = 0; again && v < kinds.size(); ++v) {
      right_now[v] += tally.right_now[v][k];
      std::printf("  %4d %5.1f%%", tally.right_now[v][k],
                  percent(tally.right_now[v][k], tally.asked[k]));
    }
    std::printf("\n");
  }
  std::printf("all   %5d", asked);
  if (!drops) std::printf("  %4d %5.1f%%", right, percent(right, asked));
  for (std::size_t v = 0; again && v < kinds.size(); ++v) {
    std::printf("  %4d %5.1f%%", right_now[v], percent(right_now[v], asked));
  }
  std::printf("\nasked about an empty square: %d\n", tally.no_piece);
  if (again) {
    std::printf("single views right (looks): %d/%d = %.1f%%\n", tally.views_right, tally.views,
                percent(tally.views_right, tally.views));
  }
  const auto print_confusions = [](const char* what, const auto& confusions) {
    std::printf("confusions %s (truth>read):", what);
    for (const auto& [pair, n] : confusions) std::printf(" %c>%c %d", pair.first, pair.second, n);
    std::printf("\n");
  };
  if (!drops) print_confusions("answered", tally.confusions);
  for (std::size_t v = 0; again && v < kinds.size(); ++v) {
    print_confusions(kinds[v].name, tally.confusions_now[v]);
  }
  return 0;
}
