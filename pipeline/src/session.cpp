// One recording: frame source -> calibration -> vision -> tracker -> recorder.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <tuple>
#include <variant>

#include <sys/resource.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "bugcam/capture.hpp"
#include "bugcam/observation_log.hpp"
#include "bugcam/pipeline.hpp"
#include "bugcam/recorder.hpp"
#include "bugcam/vision.hpp"

namespace bugcam::pipeline {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// CPU seconds the calling thread has used.
double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// The session file in the output directory: what `--resume DIR` needs to continue.
constexpr const char* kSessionFile = "session.json";
// Calibration is searched on the first frames: every this many frames...
constexpr int kCalibrationStep = 30;
// ... over this many seconds of video.
constexpr double kCalibrationSeconds = 10.0;
// Snapshots: every n-th frame is kept as a JPEG for this long, so that an incident decided
// some presses after its moment still gets the picture of that moment.
constexpr int kSnapshotEvery = 3;
constexpr double kSnapshotSeconds = 90.0;
constexpr int kSnapshotQuality = 85;
// A piece's type is read from the kept frames of this long after the press that placed it.
constexpr double kTypeLookSeconds = 0.6;
// Type readings remembered (see type_readings in record()); a game asks a few hundred.
constexpr std::size_t kTypeReadingsKept = 256;
// Frames read ahead of vision, and boards read ahead of the tracker: with both queues full
// about 25 frames are held (70 MB at 1280x720).
constexpr std::size_t kPrefetchDepth = 12;
// The reading thread's nice value (0 is the default, 19 the lowest priority).
constexpr int kReadingNice = 10;
// The drift watch looks at the lattice every this many frames; this many misses in a row
// recalibrate.
constexpr int kDriftCheckEvery = 30;
constexpr int kDriftPatience = 4;
// With --clocks vision, the tracker gets presses and observations this long after their
// frame, in the order of their times: longer than a lever press takes to be found (a hand
// resting on the clock).
constexpr double kLeverReorderSeconds = 2.0;

// Lowers the calling thread's priority to kReadingNice (Linux gives each thread its own nice
// value); failing changes nothing else.
void lower_priority() {
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kReadingNice);
}

// A frame as read, with its snapshot JPEG when it is one of the frames kept for snapshots.
struct ReadFrame {
  capture::Frame frame;
  std::vector<uchar> jpeg;
};

// Makes items on a thread of its own (`produce`, called until it gives nullopt), up to `depth`
// ahead of the caller, who takes them in order: a stage of the recording that then runs beside
// the next. What `produce` throws is rethrown by next() after the items made before it.
// `background`: the thread runs at lower priority (a stage with time to spare).
template <typename Item>
class ProducedAhead {
 public:
  ProducedAhead(std::function<std::optional<Item>()> produce, std::size_t depth, bool background)
      : produce_(std::move(produce)), depth_(depth), background_(background) {
    thread_ = std::thread([this] { run(); });
  }
  ~ProducedAhead() {
    {
      const std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }
  ProducedAhead(const ProducedAhead&) = delete;
  ProducedAhead& operator=(const ProducedAhead&) = delete;

  // CPU seconds the thread used (known once it has made the last item).
  double cpu_seconds() {
    const std::lock_guard lock(mutex_);
    return cpu_seconds_;
  }

  // The next item, or nullopt at the end; rethrows what making it threw.
  std::optional<Item> next() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !queue_.empty() || done_; });
    if (queue_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return std::nullopt;
    }
    Item item = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    changed_.notify_all();
    return item;
  }

 private:
  void run() {
    if (background_) lower_priority();
    try {
      while (true) {
        {
          std::unique_lock lock(mutex_);
          changed_.wait(lock, [this] { return queue_.size() < depth_ || stop_; });
          if (stop_) break;
        }
        std::optional<Item> item = produce_();
        if (!item) break;
        {
          const std::lock_guard lock(mutex_);
          queue_.push_back(std::move(*item));
        }
        changed_.notify_all();
      }
    } catch (...) {
      const std::lock_guard lock(mutex_);
      error_ = std::current_exception();
    }
    {
      const std::lock_guard lock(mutex_);
      done_ = true;
      cpu_seconds_ = thread_cpu_seconds();
    }
    changed_.notify_all();
  }

  const std::function<std::optional<Item>()> produce_;
  const std::size_t depth_;
  const bool background_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item> queue_;
  bool done_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  double cpu_seconds_ = 0.0;
  std::thread thread_;  // last: starts once the members it uses exist
};

// Reads the next frame of `source`, encoding its snapshot JPEG when it is one of those kept.
std::optional<ReadFrame> read_frame(capture::FrameSource& source) {
  std::optional<capture::Frame> frame = source.next();
  if (!frame) return std::nullopt;
  ReadFrame item;
  if (frame->index % kSnapshotEvery == 0) {
    cv::imencode(".jpg", frame->image, item.jpeg, {cv::IMWRITE_JPEG_QUALITY, kSnapshotQuality});
  }
  item.frame = std::move(*frame);
  return item;
}

// A frame as read, with its boards read ahead (when it is one vision reads) through the
// calibration of number `calibration`.
struct AheadFrame {
  ReadFrame read;
  std::optional<vision::BoardsReading> boards;
  std::exception_ptr boards_error;  // what reading the boards threw instead
  int calibration = 0;
};

// The frame reader the boards are read ahead through, and its calibration's number: set by
// the recording's thread when the calibration is renewed, read by the thread reading ahead.
class AheadReader {
 public:
  AheadReader(std::shared_ptr<const vision::FrameReader> reader, int number)
      : reader_(std::move(reader)), number_(number) {}
  void set(std::shared_ptr<const vision::FrameReader> reader, int number) {
    const std::lock_guard lock(mutex_);
    reader_ = std::move(reader);
    number_ = number;
  }
  std::pair<std::shared_ptr<const vision::FrameReader>, int> get() {
    const std::lock_guard lock(mutex_);
    return {reader_, number_};
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<const vision::FrameReader> reader_;
  int number_ = 0;
};

// The next frame from `frames` with its boards read (the single-frame part of vision, most of
// its cost) when vision reads it. A frame's boards depend on the frame and the calibration
// alone, and each reading carries the number of the calibration it used: one made through a
// calibration renewed since is read again by the caller, so the recording is the same at any
// speed.
std::optional<AheadFrame> read_boards_ahead(ProducedAhead<ReadFrame>& frames, AheadReader& through,
                                            int vision_every) {
  std::optional<ReadFrame> read = frames.next();
  if (!read) return std::nullopt;
  AheadFrame item;
  const auto [reader, number] = through.get();
  item.calibration = number;
  if (read->frame.index % vision_every == 0) {
    // Kept for the caller, who rethrows it only if it uses this reading (not if the
    // calibration was renewed since).
    try {
      item.boards = reader->read_boards(read->frame.image);
    } catch (...) {
      item.boards_error = std::current_exception();
    }
  }
  item.read = std::move(*read);
  return item;
}

// Recent snapshot JPEGs, keyed by frame number.
class SnapshotRing {
 public:
  explicit SnapshotRing(std::size_t capacity) : capacity_(capacity) {}

  void add(int frame, std::vector<uchar> jpeg) {
    if (jpeg.empty()) return;
    stored_.push_back({frame, std::move(jpeg)});
    while (stored_.size() > capacity_) stored_.pop_front();
  }

  // The kept frames from `first` to `last` (frame numbers), decoded, oldest first. The
  // tracker asks for the same frames several times at one press (once per hypothesis, and
  // per square in doubt), so the last few decoded are kept: a frame's JPEG never changes.
  // The images share their pixels with those kept: readers must not write into them.
  std::vector<cv::Mat> decode(int first, int last) {
    std::vector<cv::Mat> out;
    for (const Stored& s : stored_) {
      if (s.index < first || s.index > last) continue;
      const auto cached = std::find_if(decoded_.begin(), decoded_.end(),
                                       [&](const auto& d) { return d.first == s.index; });
      if (cached != decoded_.end()) {
        out.push_back(cached->second);
        continue;
      }
      out.push_back(cv::imdecode(s.jpeg, cv::IMREAD_COLOR));
      decoded_.emplace_back(s.index, out.back());
      if (decoded_.size() > kDecodedKept) decoded_.pop_front();
    }
    return out;
  }

  // The frame numbers kept from `first` to `last`, oldest first: what decode() would give.
  std::vector<int> kept(int first, int last) const {
    std::vector<int> out;
    for (const Stored& s : stored_) {
      if (s.index >= first && s.index <= last) out.push_back(s.index);
    }
    return out;
  }

  // Writes the kept frame nearest to `frame` (the oldest kept when it is older). Throws
  // RecordError when the file cannot be written.
  void write(int frame, const fs::path& file) const {
    if (stored_.empty()) return;
    const Stored* best = &stored_.front();
    for (const Stored& s : stored_) {
      if (std::abs(s.index - frame) < std::abs(best->index - frame)) best = &s;
    }
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(best->jpeg.data()),
              static_cast<std::streamsize>(best->jpeg.size()));
    if (!out) throw RecordError(file.string() + ": cannot write snapshot", false);
  }

 private:
  struct Stored {
    int index = 0;
    std::vector<uchar> jpeg;
  };
  // About two type readings' worth (kTypeLookSeconds at 30 fps, every kSnapshotEvery-th
  // frame), 2.7 MB each at 1280x720.
  static constexpr std::size_t kDecodedKept = 16;
  std::size_t capacity_;
  std::deque<Stored> stored_;
  std::deque<std::pair<int, cv::Mat>> decoded_;  // (frame, image), oldest first
};

// The piece types read on `square` of `board` in `frames`, averaged over the frames where the
// square could be read.
std::optional<tracker::PieceTypeScores> read_piece_types(
    const std::vector<cv::Mat>& frames, const calibration::Calibration& calibration,
    rules::BoardId board, rules::Square square, const vision::PieceTypeModel& model) {
  tracker::PieceTypeScores sum{};
  int seen = 0;
  for (const cv::Mat& image : frames) {
    const std::optional<vision::TypeProbabilities> p = vision::square_piece_types(
        image, calibration, std::string(1, rules::board_letter(board)), square, "PNBRQK", model);
    if (!p) continue;
    for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += (*p)[k];
    ++seen;
  }
  if (seen == 0) return std::nullopt;
  for (float& v : sum) v /= static_cast<float>(seen);
  return sum;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw RecordError(file.string() + ": cannot open", false);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(const fs::path& file, const std::string& text) {
  const fs::path temporary = file.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw RecordError(temporary.string() + ": cannot write", false);
  }
  std::error_code error;
  fs::rename(temporary, file, error);
  if (error) throw RecordError(file.string() + ": cannot replace: " + error.message(), false);
}

// What `--resume` needs: the source and the clock source of the original run, and the
// settings it read the footage with, so that the resumed run goes over it as the first one
// did.
struct Session {
  std::string source;
  std::string clocks;
  std::string rules = "otb";
  int vision_every = 1;
  bool holdings_to_tracker = true;
  bool partner_touches = true;
  std::string squares = "fused";
  std::vector<std::pair<std::string, std::string>> tags;
};

// A session.json as read: a setting it does not have (a file of a version that kept only
// source and clocks) is unknown, and the resumed run takes it as given.
struct SavedSession {
  std::string source;
  std::string clocks;
  std::optional<std::string> rules;
  std::optional<int> vision_every;
  std::optional<bool> holdings_to_tracker;
  std::optional<bool> partner_touches;
  std::optional<std::string> squares;
  std::vector<std::pair<std::string, std::string>> tags;
};

template <typename T>
std::optional<T> optional_field(const nlohmann::ordered_json& j, const char* name) {
  if (!j.contains(name)) return std::nullopt;
  return j.at(name).get<T>();
}

SavedSession read_session(const fs::path& dir) {
  const fs::path file = dir / kSessionFile;
  const auto wrong = [&](const std::string& what) {
    return RecordError(file.string() + ": " + what, true);
  };
  try {
    const nlohmann::ordered_json j = nlohmann::ordered_json::parse(read_text(file));
    SavedSession saved;
    saved.source = j.at("source").get<std::string>();
    saved.clocks = j.at("clocks").get<std::string>();
    saved.rules = optional_field<std::string>(j, "rules");
    saved.vision_every = optional_field<int>(j, "vision_every");
    saved.holdings_to_tracker = optional_field<bool>(j, "holdings_to_tracker");
    saved.partner_touches = optional_field<bool>(j, "partner_touches");
    saved.squares = optional_field<std::string>(j, "squares");
    if (j.contains("tags")) {
      if (!j.at("tags").is_object()) throw wrong("tags: expected an object of NAME: VALUE");
      for (const auto& [name, value] : j.at("tags").items()) {
        saved.tags.emplace_back(name, value.get<std::string>());
      }
    }
    if (saved.rules && rules::find_rule_set(*saved.rules) == nullptr) {
      throw wrong("rules: unknown rule set '" + *saved.rules + "'");
    }
    if (saved.vision_every &&
        (*saved.vision_every < 1 || *saved.vision_every > kVisionEveryAtMost)) {
      throw wrong("vision_every: expected 1 to " + std::to_string(kVisionEveryAtMost) + ", got " +
                  std::to_string(*saved.vision_every));
    }
    if (saved.squares && !vision::square_reader_named(*saved.squares)) {
      throw wrong("squares: unknown reader '" + *saved.squares + "'");
    }
    return saved;
  } catch (const nlohmann::json::exception& e) {
    throw wrong(e.what());
  }
}

void write_session(const fs::path& dir, const Session& session) {
  nlohmann::ordered_json j;
  j["source"] = session.source;
  j["clocks"] = session.clocks;
  j["rules"] = session.rules;
  j["vision_every"] = session.vision_every;
  j["holdings_to_tracker"] = session.holdings_to_tracker;
  j["partner_touches"] = session.partner_touches;
  j["squares"] = session.squares;
  j["tags"] = nlohmann::ordered_json::object();
  for (const auto& [name, value] : session.tags) j["tags"][name] = value;
  write_text(dir / kSessionFile, j.dump(1) + "\n");
}

std::string setting_text(const std::string& value) {
  return value;
}
std::string setting_text(int value) {
  return std::to_string(value);
}
std::string setting_text(bool value) {
  return value ? "on" : "off";
}

// A resume given `option` as `given` where the recording was made with `saved`: a usage error
// (the resumed run would read the footage differently from the run it continues).
RecordError made_otherwise(const std::string& option, const std::string& given,
                           const std::string& saved, const fs::path& dir) {
  return RecordError(option + given + ": " + (dir / kSessionFile).string() +
                         " says the recording was made with " + saved + "; resume without " +
                         option + " or with the same",
                     false);
}

// The setting a run goes with: the saved one when resuming (giving another is an error),
// else as given.
template <typename T>
T session_setting(const std::optional<T>& given, const std::optional<T>& saved, const T& fallback,
                  const fs::path& dir, const std::string& option) {
  if (given && saved && *given != *saved) {
    throw made_otherwise(option, " " + setting_text(*given), setting_text(*saved), dir);
  }
  return saved ? *saved : given.value_or(fallback);
}

// The tags a run goes with: the saved ones, with those given set over them; but the time
// control, which the clocks are derived from, as saved.
std::vector<std::pair<std::string, std::string>> session_tags(
    const std::vector<std::pair<std::string, std::string>>& given,
    const std::vector<std::pair<std::string, std::string>>& saved, const fs::path& dir) {
  std::vector<std::pair<std::string, std::string>> tags = saved;
  for (const auto& [name, value] : given) {
    const auto same_name = [&](const auto& tag) { return tag.first == name; };
    const auto old = std::find_if(tags.begin(), tags.end(), same_name);
    if (old == tags.end()) {
      tags.emplace_back(name, value);
      continue;
    }
    if (name == "TimeControl" && old->second != value) {
      throw made_otherwise("--tag TimeControl", "=" + value, old->second, dir);
    }
    old->second = value;
  }
  return tags;
}

// Whether two calibrations put every board in the same place: corners within half a square.
bool same_boards(const calibration::Calibration& a, const calibration::Calibration& b) {
  if (a.boards.size() != b.boards.size()) return false;
  for (std::size_t i = 0; i < a.boards.size(); ++i) {
    const std::array<cv::Point2d, 4> ca = a.boards[i].corners();
    const std::array<cv::Point2d, 4> cb = b.boards[i].corners();
    const double tolerance = 0.5 * a.boards[i].square_size_px();
    for (std::size_t k = 0; k < 4; ++k) {
      if (std::hypot(ca[k].x - cb[k].x, ca[k].y - cb[k].y) > tolerance) return false;
    }
  }
  return true;
}

// Finds the boards on the first seconds of `source`. One frame can mislead (a row of tall
// pieces hiding a lattice line shifts a board by a rank, a hand covers a corner), so several
// frames are calibrated and the placement most of them agree on wins (the earliest of
// those on a tie).
calibration::Calibration find_calibration(capture::FrameSource& source,
                                          const vision::SquareModel* square_model,
                                          const calibration::CalibrateOptions& options) {
  std::string last_error = "no frames";
  int last_index = 0;
  std::vector<capture::Frame> searched;
  while (std::optional<capture::Frame> frame = source.next()) {
    if (frame->t > kCalibrationSeconds) break;
    if (frame->index % kCalibrationStep != 0) continue;
    last_index = frame->index;
    searched.push_back(std::move(*frame));
  }
  // Each frame is calibrated on its own (a calibration or what went wrong), half of them on a
  // second thread; the results are taken in the frames' order.
  std::vector<std::variant<calibration::Calibration, std::string>> results(searched.size());
  const auto calibrate_frames = [&](std::size_t first) {
    for (std::size_t i = first; i < searched.size(); i += 2) {
      const cv::Mat& image = searched[i].image;
      try {
        calibration::Calibration candidate = calibration::calibrate(image, options);
        candidate.source = source.name();
        // Recording starts on the start position: learn what its pieces and shadows look
        // like, and which reader reads each board's squares better there.
        vision::learn_start_position(image, candidate, square_model);
        if (candidate.boards.size() == 2) {
          results[i] = std::move(candidate);
        } else {
          results[i] = "found " + std::to_string(candidate.boards.size()) + " board(s), expected 2";
        }
      } catch (const calibration::CalibrationError& e) {
        results[i] = std::string(e.what());
      } catch (const cv::Exception& e) {
        results[i] = std::string(e.what());
      }
    }
  };
  std::exception_ptr second_error;
  {
    const std::jthread second([&] {
      try {
        calibrate_frames(1);
      } catch (...) {
        second_error = std::current_exception();
      }
    });
    calibrate_frames(0);
  }
  if (second_error) std::rethrow_exception(second_error);
  std::vector<calibration::Calibration> found;
  for (auto& result : results) {
    if (auto* candidate = std::get_if<calibration::Calibration>(&result)) {
      found.push_back(std::move(*candidate));
    } else {
      last_error = std::get<std::string>(result);
    }
  }
  if (found.empty()) {
    throw RecordError(source.name() + ": frames 0-" + std::to_string(last_index) +
                          ": cannot find both boards: " + last_error,
                      true);
  }
  std::size_t best = 0;
  int best_votes = -1;
  for (std::size_t i = 0; i < found.size(); ++i) {
    int votes = 0;
    for (const calibration::Calibration& other : found) votes += same_boards(found[i], other);
    if (votes > best_votes) {
      best = i;
      best_votes = votes;
    }
  }
  // A square's own colour, or the side its shadows fell on, learnt from one frame, may be a
  // hand's: kept where most frames that placed the boards alike saw it.
  calibration::Calibration chosen = found[best];
  std::vector<const calibration::Calibration*> alike;
  for (const calibration::Calibration& other : found) {
    if (same_boards(chosen, other)) alike.push_back(&other);
  }
  for (std::size_t b = 0; b < chosen.boards.size(); ++b) {
    std::vector<const calibration::BoardLooks*> seen;
    for (const calibration::Calibration* other : alike) seen.push_back(&other->boards[b].looks);
    calibration::agree_square_colours(chosen.boards[b].looks, seen);
    calibration::agree_shadow_sides(chosen.boards[b].looks, seen);
    // The square reader as the earliest of those frames chose: recording starts on the start
    // position, and later frames show moves and hands that blur the two readers' difference
    // (held-out 9806, board B's misreads by hand and by network every 30 frames: 8 and 2, 8
    // and 2, then with hands and moves 1 and 2, 7 and 6, 8 and 3, 9 and 7...). A hand over
    // the first frame adds misreads for both, which at worst keeps the hand-written reader.
    // (Every frame has the counts, or, without a square network, none has.)
    const calibration::Board& first = alike.front()->boards[b];
    calibration::Board& board = chosen.boards[b];
    board.start_misreads_hand = first.start_misreads_hand;
    board.start_misreads_network = first.start_misreads_network;
    board.squares_by_network = first.squares_by_network;
  }
  return chosen;
}

std::string player_name(rules::BoardId board, rules::Color color) {
  return std::string(color == rules::Color::kWhite ? "White" : "Black") +
         rules::board_letter(board);
}

}  // namespace

std::optional<GameResult> game_result(const std::optional<GameEnding>& flag,
                                      const std::optional<GameEnding>& mate) {
  const bool on_time = flag && (!mate || flag->t < mate->t);
  const std::optional<GameEnding>& first = on_time ? flag : mate;
  if (!first) return std::nullopt;
  GameResult out;
  out.result = rules::team_of(first->board, first->loser) == 1 ? "0-1" : "1-0";
  out.reason =
      player_name(first->board, first->loser) + (on_time ? " forfeits on time" : " checkmated");
  return out;
}

std::string default_clocks(const std::string& source) {
  if (capture::is_camera(source)) return "vision";
  const fs::path path(source);
  if (fs::is_regular_file(path)) {
    const fs::path log = path.parent_path() / "clocks.jsonl";
    if (fs::is_regular_file(log)) return log.string();
  }
  return "vision";
}

fs::path default_out_dir() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char name[64];
  std::strftime(name, sizeof name, "bugcam-%Y%m%d-%H%M%S", &utc);
  return fs::path(".") / name;
}

RecordSummary record(const RecordOptions& options) {
  const auto started = Clock::now();
  const double cpu_started = thread_cpu_seconds();
  RecordSummary summary;
  summary.out = options.out;

  Session session;
  session.source = options.source;
  session.clocks = options.clocks;
  const SavedSession saved = options.resume ? read_session(options.out) : SavedSession{};
  if (options.resume) {
    if (session.source.empty()) session.source = saved.source;
    if (session.clocks.empty()) session.clocks = saved.clocks;
  }
  session.tags = session_tags(options.tags, saved.tags, options.out);
  const Session defaults;
  session.rules = session_setting<std::string>(
      options.rules ? std::optional<std::string>(options.rules->name) : std::nullopt, saved.rules,
      defaults.rules, options.out, "--rules");
  session.vision_every = session_setting(options.vision_every, saved.vision_every,
                                         defaults.vision_every, options.out, "--vision-every");
  session.holdings_to_tracker =
      session_setting(options.holdings_to_tracker, saved.holdings_to_tracker,
                      defaults.holdings_to_tracker, options.out, "--[no-]holdings-to-tracker");
  session.partner_touches =
      session_setting(options.partner_touches, saved.partner_touches, defaults.partner_touches,
                      options.out, "--[no-]partner-touches");
  session.squares = session_setting(
      options.squares ? std::optional<std::string>(vision::square_reader_name(*options.squares))
                      : std::nullopt,
      saved.squares, defaults.squares, options.out, "--squares");
  const rules::RuleSet& rule_set = *rules::find_rule_set(session.rules);
  const vision::SquareReader squares_by = *vision::square_reader_named(session.squares);
  if (session.source.empty()) throw RecordError("no source to record", false);
  if (session.clocks.empty()) session.clocks = default_clocks(session.source);

  // Clock events.
  std::vector<capture::ClockEvent> clock_log;
  const bool clocks_from_vision = session.clocks == "vision";
  if (session.clocks == "usb" || session.clocks.starts_with("usb:")) {
    throw RecordError("--clocks " + session.clocks + ": USB clocks are not supported yet", false);
  }
  if (session.clocks != "none" && !clocks_from_vision) {
    if (!fs::is_regular_file(session.clocks)) {
      throw RecordError(session.clocks + ": cannot open clock log", false);
    }
    try {
      clock_log = capture::read_clock_log(session.clocks);
    } catch (const capture::CaptureError& e) {
      throw RecordError(e.what(), true);
    }
    summary.clocks = "log " + session.clocks;
  } else {
    summary.clocks = session.clocks;
  }

  // The time control tag, where given, derives the remaining clocks that the clock events do
  // not carry (all of them with --clocks vision).
  std::optional<rules::TimeControl> time_control;
  for (const auto& [name, value] : session.tags) {
    if (name != "TimeControl" || value == "?" || value == "-") continue;
    time_control = rules::parse_time_control(value);
    if (!time_control) {
      throw RecordError(
          "--tag TimeControl=" + value + ": expected BASE or BASE+INCREMENT in seconds, e.g. 180+0",
          false);
    }
  }

  std::unique_ptr<capture::FrameSource> source;
  try {
    source = capture::open_frame_source(session.source);
  } catch (const capture::CaptureError& e) {
    // A file that is there but does not open is a bad video; a missing one an I/O error.
    throw RecordError(e.what(), fs::is_regular_file(session.source));
  }

  // Calibration: given, saved with an earlier run, or found on the first frames (of a second
  // reader for files, so that no frame is lost to the search).
  calibration::Calibration calibration;
  const std::string calibration_file = !options.calibration_file.empty() ? options.calibration_file
                                       : options.resume
                                           ? (options.out / "calibration.pbtxt").string()
                                           : std::string();
  // The square network, loaded once: it chooses the readers on the start position and reads
  // the boards it was chosen for. Without it (missing, or not a network) squares are read by
  // hand.
  std::shared_ptr<const vision::SquareModel> square_model;
  bool square_model_broken = false;
  try {
    square_model = vision::SquareModel::load_bundled();
  } catch (const std::runtime_error& e) {
    square_model_broken = true;
    std::cerr << "bugcam: warning: " << e.what()
              << "; squares are read by the hand-written reader\n";
  }
  calibration::CalibrateOptions calibrate_options;
  calibrate_options.fit_lens = options.fit_lens;
  try {
    if (!calibration_file.empty()) {
      calibration = calibration::load_calibration(calibration_file);
    } else if (capture::is_camera(session.source)) {
      calibration = find_calibration(*source, square_model.get(), calibrate_options);
    } else {
      std::unique_ptr<capture::FrameSource> search = capture::open_frame_source(session.source);
      calibration = find_calibration(*search, square_model.get(), calibrate_options);
    }
  } catch (const calibration::CalibrationError& e) {
    throw RecordError(e.what(), false);
  } catch (const capture::CaptureError& e) {
    throw RecordError(e.what(), false);
  }

  recorder::RecorderOptions recorder_options;
  recorder_options.dir = options.out;
  recorder_options.tags = session.tags;
  recorder_options.resume = options.resume;
  const bool has_time_control_tag =
      std::any_of(session.tags.begin(), session.tags.end(),
                  [](const auto& tag) { return tag.first == "TimeControl"; });
  tracker::TrackerConfig config;
  config.rules = &rule_set;
  config.leans_over = tracker_leans(calibration);
  config.shadow_sides = tracker_shadow_sides(calibration);
  if (time_control) {
    config.base_seconds = time_control->base_seconds;
    config.increment_seconds = time_control->increment_seconds;
  }
  for (const capture::ClockEvent& e : clock_log) {
    if (e.kind == capture::ClockEvent::Kind::kStart && e.white_ms) {
      if (!time_control) config.base_seconds = *e.white_ms / 1000.0;
      // PGN's sudden-death form: the base in seconds; the log does not tell the increment.
      if (!has_time_control_tag && !options.resume) {
        recorder_options.tags.emplace_back("TimeControl", std::to_string(*e.white_ms / 1000));
      }
      break;
    }
  }
  std::optional<recorder::Recorder> recorder;
  try {
    recorder.emplace(recorder_options);
    recorder->write_calibration(calibration::to_pbtxt(calibration));
    // On resume too: tags given now are kept, and an older file gets the settings.
    write_session(options.out, session);
  } catch (const recorder::RecorderError& e) {
    throw RecordError(e.what(), false);
  }

  // Piece types: the holding areas' pieces in every frame, and, when the tracker doubts a
  // drop's or a promotion's type, the piece on its square in the kept frames just after the
  // press (the mover's hand is then at the clock).
  const std::shared_ptr<const vision::PieceTypeModel> piece_model =
      vision::PieceTypeModel::load_bundled();
  vision::VisionOptions vision_options;
  vision_options.piece_types = piece_model;
  vision_options.bundled_piece_types = false;
  // The holding areas go to the tracker only when asked to, read on every kHoldingsEvery-th
  // frame of the footage.
  vision_options.read_holdings = session.holdings_to_tracker;
  vision_options.holdings_every = std::max(1, kHoldingsEvery / session.vision_every);
  vision_options.watch_arms = session.partner_touches;
  vision_options.read_clocks = clocks_from_vision;
  vision_options.squares = square_model_broken ? vision::SquareReader::kHand : squares_by;
  vision_options.square_model = square_model;
  const double fps = source->fps() > 0 ? source->fps() : 30.0;
  SnapshotRing snapshots(static_cast<std::size_t>(kSnapshotSeconds * fps / kSnapshotEvery));
  calibration::Calibration current_calibration = calibration;
  // Type readings already made: the tracker asks the same question once per hypothesis and
  // per first move of a re-synchronisation. A reading depends only on the board, the square,
  // the kept frames it reads and the calibration, so it is looked up by those (the frames kept
  // after a press grow while the footage is read, and a renewed calibration clears it).
  std::map<std::tuple<int, int, std::vector<int>>, std::optional<tracker::PieceTypeScores>>
      type_readings;
  if (piece_model) {
    const int look_frames = static_cast<int>(std::lround(kTypeLookSeconds * fps));
    config.piece_types = [&snapshots, &current_calibration, &type_readings, piece_model,
                          look_frames](rules::BoardId board, rules::Square square,
                                       int frame) -> std::optional<tracker::PieceTypeScores> {
      auto key = std::make_tuple(static_cast<int>(board), static_cast<int>(square),
                                 snapshots.kept(frame, frame + look_frames));
      if (const auto known = type_readings.find(key); known != type_readings.end()) {
        return known->second;
      }
      std::optional<tracker::PieceTypeScores> answer =
          read_piece_types(snapshots.decode(frame, frame + look_frames), current_calibration, board,
                           square, *piece_model);
      // Full: start again (most are of presses long past; one asked again is read again).
      if (type_readings.size() >= kTypeReadingsKept) type_readings.clear();
      type_readings.emplace(std::move(key), answer);
      return answer;
    };
  }
  std::optional<ObservationLogWriter> observations;
  if (!options.observations_log.empty()) {
    try {
      observations.emplace(options.observations_log);
    } catch (const std::runtime_error& e) {
      throw RecordError(e.what(), false);
    }
    if (config.piece_types) {
      config.piece_types = [&observations, ask = config.piece_types](
                               rules::BoardId board, rules::Square square,
                               int frame) -> std::optional<tracker::PieceTypeScores> {
        std::optional<tracker::PieceTypeScores> types = ask(board, square, frame);
        observations->write(PieceTypeAnswer{board, square, frame, types});
        return types;
      };
    }
  }
  // Resuming: the tracker starts where the record's last game starts (the start position, or
  // the position after an illegal move or a disturbance) and replays that game's moves.
  config.start_a = recorder->resume_boards()[0];
  config.start_b = recorder->resume_boards()[1];
  tracker::Tracker tracker(config);
  const double resume_t = recorder->resume_time();
  summary.resumed_moves = static_cast<int>(recorder->moves().size());
  for (const tracker::TrackedMove& move : recorder->resume_moves()) {
    tracker.replay_committed(move.board, move.move, move.t, move.clock);
  }
  if (options.resume && resume_t > 0.0) source->seek(resume_t);

  calibration::DriftWatch drift(calibration, kDriftCheckEvery, kDriftPatience);
  // Vision follows each board over time (still views, motion), not frame by frame, and reads
  // the levers with a watch for hands over the clocks (used with --clocks vision).
  std::optional<vision::TrackingReader> reader;
  reader.emplace(calibration, vision_options);
  tracker::LeverPressDetector levers;
  // A resumed recording has the clocks' start, unless it had no move yet (then the footage
  // plays again from its first frame).
  if (options.resume && resume_t > 0.0) {
    levers.clocks_running();
    reader->clocks_running();
  }
  if (config.base_seconds) levers.set_time_control(*config.base_seconds, config.increment_seconds);

  std::optional<capture::ClockEvent> flag;
  std::size_t next_clock = 0;
  // Clock events already in the recording when resuming are not fed again.
  // (The record has times to the millisecond.)
  while (options.resume && next_clock < clock_log.size() &&
         clock_log[next_clock].t <= resume_t + 0.0005) {
    ++next_clock;
  }
  const auto feed_clock = [&](const capture::ClockEvent& e) {
    if (e.kind == capture::ClockEvent::Kind::kFlag && !flag) flag = e;
    if (observations) observations->write(e);
    tracker.add(e);
    recorder->record(e);
  };
  const auto feed_observations = [&](const TrackerInputs& inputs) {
    for (const tracker::BoardObservation& board : inputs.boards) {
      if (observations) observations->write(board);
      tracker.add(board);
    }
    for (const tracker::HoldingsObservation& holding : inputs.holdings) {
      if (observations) observations->write(holding);
      tracker.add(holding);
    }
  };
  // Presses read from the levers are found after different delays (a hand resting on one
  // clock), some after frames later than the press. The tracker gets them as it gets a clock
  // log: in the order of their times, each before the observations of the frames from its
  // time on, so that it reads the same evidence either way, and a move a twentieth of a second
  // before the other board's is listed first.
  std::vector<capture::ClockEvent> lever_presses;
  std::deque<std::pair<double, TrackerInputs>> held_observations;
  const auto feed_presses_until = [&](double until) {
    std::size_t fed = 0;
    while (fed < lever_presses.size() && lever_presses[fed].t <= until) {
      feed_clock(lever_presses[fed++]);
    }
    lever_presses.erase(lever_presses.begin(), lever_presses.begin() + static_cast<long>(fed));
  };
  const auto release_held = [&](double until) {
    std::stable_sort(
        lever_presses.begin(), lever_presses.end(),
        [](const capture::ClockEvent& a, const capture::ClockEvent& b) { return a.t < b.t; });
    while (!held_observations.empty() && held_observations.front().first <= until) {
      feed_presses_until(held_observations.front().first);
      feed_observations(held_observations.front().second);
      held_observations.pop_front();
    }
    feed_presses_until(until);
  };
  const auto drain = [&] {
    for (const tracker::TrackerEvent& event : tracker.take_events()) {
      if (const auto* incident = std::get_if<tracker::Incident>(&event)) {
        for (int frame : incident->frames) {
          snapshots.write(frame, options.out / recorder::frame_file_name(frame));
        }
        ++summary.incidents;
      }
      recorder->record(event);
    }
  };

  double last_progress_t = -1.0;
  double last_t = resume_t;
  int frames = 0;
  try {
    {
      // Three stages on three threads: frames read and snapshots encoded (for a file, which
      // can wait, at lower priority: vision, the slowest stage, goes first for the CPU, but not
      // before the decoder's own threads, started at nice 0 when the file was opened); each
      // frame's boards read; then, on this thread, what earlier frames tell (TrackingReader),
      // the tracker and the recorder.
      ProducedAhead<ReadFrame> prefetcher([&source] { return read_frame(*source); }, kPrefetchDepth,
                                          !capture::is_camera(session.source));
      int calibration_number = 0;
      AheadReader ahead_reader(std::make_shared<const vision::FrameReader>(reader->frame_reader()),
                               calibration_number);
      ProducedAhead<AheadFrame> ahead(
          [&prefetcher, &ahead_reader, every = session.vision_every] {
            return read_boards_ahead(prefetcher, ahead_reader, every);
          },
          kPrefetchDepth, false);
      while (std::optional<AheadFrame> ahead_frame = ahead.next()) {
        ReadFrame* item = &ahead_frame->read;
        const capture::Frame* frame = &item->frame;
        ++frames;
        last_t = frame->t;
        while (next_clock < clock_log.size() && clock_log[next_clock].t <= frame->t) {
          feed_clock(clock_log[next_clock++]);
        }
        snapshots.add(frame->index, std::move(item->jpeg));
        const calibration::Calibration& current = drift.update(frame->image);
        if (drift.renewals() != summary.calibration_renewals) {
          // Observations read through the old calibration reach the tracker before its leans
          // change.
          release_held(std::numeric_limits<double>::infinity());
          summary.calibration_renewals = drift.renewals();
          reader.emplace(current, vision_options);
          // Its lever reader starts again where the game may be under way.
          reader->clocks_running();
          ahead_reader.set(std::make_shared<const vision::FrameReader>(reader->frame_reader()),
                           ++calibration_number);
          tracker.set_leans(tracker_leans(current));
          current_calibration = current;
          type_readings.clear();
          recorder->write_calibration(calibration::to_pbtxt(current));
        }
        if (frame->index % session.vision_every == 0) {
          // Boards read ahead through an older calibration are read again.
          const bool current_ahead = ahead_frame->calibration == calibration_number;
          if (current_ahead && ahead_frame->boards_error) {
            std::rethrow_exception(ahead_frame->boards_error);
          }
          const bool read_ahead = current_ahead && ahead_frame->boards;
          const TrackerInputs inputs = to_tracker_inputs(
              read_ahead ? reader->read(frame->image, std::move(*ahead_frame->boards))
                         : reader->read(frame->image),
              frame->index, frame->t, session.holdings_to_tracker);
          if (clocks_from_vision) {
            for (const tracker::LeverObservation& lever : inputs.levers) {
              if (std::optional<capture::ClockEvent> press = levers.add(lever)) {
                lever_presses.push_back(*press);
              }
            }
            held_observations.emplace_back(frame->t, inputs);
            release_held(frame->t - kLeverReorderSeconds);
          } else {
            feed_observations(inputs);
          }
        }
        drain();
        if (options.progress && frame->t - last_progress_t >= 0.5) {
          last_progress_t = frame->t;
          Progress progress;
          progress.frame = frames;
          progress.t = frame->t;
          progress.moves = static_cast<int>(recorder->moves().size());
          progress.incidents = summary.incidents;
          progress.elapsed = std::chrono::duration<double>(Clock::now() - started).count();
          progress.speed = progress.elapsed > 0 ? (frame->t - resume_t) / progress.elapsed : 0.0;
          options.progress(progress);
        }
      }
      summary.cpu_reader = prefetcher.cpu_seconds();
      summary.cpu_vision = ahead.cpu_seconds();
    }
    // Clock events after the last frame (a stop, a flag) still count.
    while (next_clock < clock_log.size()) feed_clock(clock_log[next_clock++]);
    if (clocks_from_vision) {
      for (const capture::ClockEvent& press : levers.flush()) lever_presses.push_back(press);
      release_held(std::numeric_limits<double>::infinity());
    }
    tracker.finish();
    drain();

    // The result, where the recording shows it: a flag, or a mate on a board.
    std::optional<GameEnding> flag_ending;
    if (flag && flag->side) flag_ending = GameEnding{flag->board, *flag->side, flag->t};
    std::optional<GameEnding> mate;
    for (rules::BoardId board : {rules::BoardId::kA, rules::BoardId::kB}) {
      const rules::Position& position = tracker.committed_board(board);
      if (rules::board_status(position, rule_set) != rules::BoardStatus::kCheckmate) {
        continue;
      }
      // Mated by the board's last move.
      double mated_at = 0.0;
      for (const tracker::TrackedMove& move : recorder->moves()) {
        if (move.board == board) mated_at = std::max(mated_at, move.t);
      }
      mate = GameEnding{board, position.side_to_move(), mated_at};
      break;
    }
    if (const std::optional<GameResult> ended = game_result(flag_ending, mate)) {
      summary.result = ended->result;
      summary.result_reason = ended->reason;
    }
    if (!summary.result.empty()) recorder->set_result(summary.result, summary.result_reason);
    recorder::write_review(options.out);
  } catch (const capture::CaptureError& e) {
    throw RecordError(e.what(), true);
  } catch (const recorder::RecorderError& e) {
    throw RecordError(e.what(), false);
  }
  if (summary.result.empty()) summary.result = "*";
  summary.frames = frames;
  summary.duration = last_t - resume_t;
  summary.moves = static_cast<int>(recorder->moves().size());
  summary.elapsed = std::chrono::duration<double>(Clock::now() - started).count();
  summary.cpu_main = thread_cpu_seconds() - cpu_started;
  return summary;
}

}  // namespace bugcam::pipeline
