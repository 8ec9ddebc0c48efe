#include "bugcam/recorder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <nlohmann/json.hpp>

#include "bugcam/proto/events.pb.h"

namespace bugcam::recorder {
namespace {

namespace fs = std::filesystem;
using tracker::Incident;
using tracker::TrackedMove;

[[noreturn]] void fail(const fs::path& file, const std::string& what) {
  throw RecorderError(file.string() + ": " + what + ": " + std::strerror(errno));
}

// An open file descriptor, closed when it goes.
class File {
 public:
  File(const fs::path& path, int flags) : path_(path), fd_(::open(path.c_str(), flags, 0644)) {
    if (fd_ < 0) fail(path, "cannot open");
  }
  ~File() {
    if (fd_ >= 0) ::close(fd_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  void write_all(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        fail(path_, "cannot write");
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  void sync() {
    if (::fsync(fd_) != 0) fail(path_, "cannot sync");
  }

 private:
  fs::path path_;
  int fd_;
};

// Write to a temporary file, sync it, rename it over the old one, sync the directory: a
// reader (or a crash) sees the old content or the new, never a mix.
void write_atomically(const fs::path& file, const std::string& content) {
  const fs::path temporary = file.string() + ".tmp";
  {
    File out(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC);
    out.write_all(content);
    out.sync();
  }
  if (::rename(temporary.c_str(), file.c_str()) != 0) fail(file, "cannot replace");
  File dir(file.parent_path().empty() ? fs::path(".") : file.parent_path(),
           O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  dir.sync();
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail(file, "cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

events::Board board_of(rules::BoardId b) {
  return b == rules::BoardId::kA ? events::BOARD_A : events::BOARD_B;
}
events::Side side_of(rules::Color c) {
  return c == rules::Color::kWhite ? events::WHITE : events::BLACK;
}

}  // namespace

struct Recorder::Impl {
  RecorderOptions options;
  fs::path bpgn_file;
  fs::path incidents_file;
  std::unique_ptr<File> events;
  rules::BpgnGame game;
  std::vector<TrackedMove> moves;
  nlohmann::json incidents = nlohmann::json::array();

  void append(const events::Event& event) {
    std::string bytes;
    {
      google::protobuf::io::StringOutputStream stream(&bytes);
      google::protobuf::io::CodedOutputStream coded(&stream);
      coded.WriteVarint32(static_cast<std::uint32_t>(event.ByteSizeLong()));
      event.SerializeWithCachedSizes(&coded);
    }
    // One write per event, no user-space buffer: a killed process loses nothing written.
    events->write_all(bytes);
  }

  void write_game() { write_atomically(bpgn_file, rules::write_bpgn(game)); }
  void write_incidents() { write_atomically(incidents_file, incidents.dump(1) + "\n"); }
};

Recorder::Recorder(RecorderOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& impl = *impl_;
  impl.options = std::move(options);
  const fs::path& dir = impl.options.dir;
  std::error_code error;
  fs::create_directories(dir / "frames", error);
  if (error) throw RecorderError(dir.string() + ": cannot create: " + error.message());
  impl.bpgn_file = dir / "game.bpgn";
  impl.incidents_file = dir / "incidents.json";

  if (impl.options.resume && fs::exists(impl.bpgn_file)) {
    const std::vector<rules::BpgnGame> games =
        rules::parse_bpgn(read_text(impl.bpgn_file), impl.bpgn_file.string());
    if (games.size() != 1) throw RecorderError(impl.bpgn_file.string() + ": expected one game");
    impl.game = games[0];
    const rules::Replay replayed = rules::replay(impl.game);
    if (replayed.error) {
      throw RecorderError(impl.bpgn_file.string() + ": " + replayed.error->what());
    }
    for (std::size_t i = 0; i < replayed.plies.size(); ++i) {
      const rules::BpgnMove& record = impl.game.moves[i];
      TrackedMove move;
      move.board = record.board;
      move.side = record.color;
      move.number = record.number;
      move.ply = tracker::ply_label(record.board, record.color, record.number);
      move.san = replayed.plies[i].san;
      move.move = replayed.plies[i].move;
      move.t = record.timestamp.value_or(0.0);
      move.clock = record.clock;
      move.press = static_cast<int>(i);
      impl.moves.push_back(move);
    }
    if (fs::exists(impl.incidents_file)) {
      try {
        impl.incidents = nlohmann::json::parse(read_text(impl.incidents_file));
      } catch (const nlohmann::json::exception& e) {
        throw RecorderError(impl.incidents_file.string() + ": " + e.what());
      }
    }
  } else {
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char date[16];
    char time[16];
    std::strftime(date, sizeof date, "%Y.%m.%d", &utc);
    std::strftime(time, sizeof time, "%H:%M:%S", &utc);
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::string>>{{"Event", "?"},
                                                          {"Site", "?"},
                                                          {"Date", date},
                                                          {"Time", time},
                                                          {"WhiteA", "?"},
                                                          {"BlackA", "?"},
                                                          {"WhiteB", "?"},
                                                          {"BlackB", "?"},
                                                          {"TimeControl", "-"},
                                                          {"Result", "*"},
                                                          {"Variant", "Bughouse"}}) {
      impl.game.set_tag(name, value);
    }
  }
  for (const auto& [name, value] : impl.options.tags) impl.game.set_tag(name, value);
  impl.events =
      std::make_unique<File>(dir / "events.pb", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
                                                    (impl.options.resume ? 0 : O_TRUNC));
  impl.write_game();
  impl.write_incidents();
  events::Event started;
  started.set_t(resume_time());
  for (const auto& [name, value] : impl.game.tags) {
    started.mutable_started()->add_tags(name + "=" + value);
  }
  started.mutable_started()->set_resumed(impl.options.resume);
  impl.append(started);
}

Recorder::~Recorder() = default;

void Recorder::record(const tracker::TrackerEvent& event) {
  Impl& impl = *impl_;
  events::Event out;
  if (const auto* move = std::get_if<TrackedMove>(&event)) {
    out.set_t(move->t);
    events::Move& m = *out.mutable_move();
    m.set_board(board_of(move->board));
    m.set_side(side_of(move->side));
    m.set_number(move->number);
    m.set_ply(move->ply);
    m.set_san(move->san);
    m.set_uci(move->move.uci());
    if (move->clock) m.set_clock(*move->clock);
    m.set_press(move->press);
    m.set_provisional(move->provisional);
    if (!move->provisional) {
      rules::BpgnMove record;
      record.board = move->board;
      record.color = move->side;
      record.number = move->number;
      record.san = move->san;
      record.clock = move->clock;
      record.timestamp = move->t;
      impl.game.moves.push_back(record);
      impl.moves.push_back(*move);
      impl.write_game();
    }
  } else if (const auto* correction = std::get_if<tracker::Correction>(&event)) {
    out.set_t(correction->t);
    events::Correction& c = *out.mutable_correction();
    c.set_board(board_of(correction->board));
    c.set_press(correction->press);
    c.set_ply(correction->ply);
    c.set_was(correction->was);
    c.set_now(correction->now);
  } else if (const auto* incident = std::get_if<Incident>(&event)) {
    out.set_t(incident->t);
    events::Incident& i = *out.mutable_incident();
    i.set_type(std::string(tracker::incident_name(incident->type)));
    i.set_board(board_of(incident->board));
    i.set_side(side_of(incident->side));
    i.set_t_end(incident->t_end);
    i.set_ply(incident->ply);
    i.set_detail(incident->detail);
    nlohmann::json frames = nlohmann::json::array();
    for (int frame : incident->frames) {
      i.add_frames(frame_file_name(frame));
      frames.push_back(frame_file_name(frame));
    }
    nlohmann::json entry;
    entry["type"] = std::string(tracker::incident_name(incident->type));
    entry["board"] = std::string(1, rules::board_letter(incident->board));
    entry["side"] = incident->side == rules::Color::kWhite ? "white" : "black";
    entry["t"] = std::round(incident->t * 1000.0) / 1000.0;
    entry["t_end"] = std::round(incident->t_end * 1000.0) / 1000.0;
    entry["ply"] = incident->ply;
    entry["detail"] = incident->detail;
    entry["frames"] = frames;
    impl.incidents.push_back(entry);
    impl.write_incidents();
  }
  impl.append(out);
}

void Recorder::record(const capture::ClockEvent& event) {
  events::Event out;
  out.set_t(event.t);
  events::ClockEvent& c = *out.mutable_clock();
  c.set_board(board_of(event.board));
  c.set_kind(std::string(capture::kind_name(event.kind)));
  if (event.side) c.set_side(side_of(*event.side));
  if (event.white_ms) c.set_white_ms(*event.white_ms);
  if (event.black_ms) c.set_black_ms(*event.black_ms);
  impl_->append(out);
}

void Recorder::set_result(const std::string& result, const std::string& reason) {
  impl_->game.result = result;
  impl_->game.result_comment = reason;
  impl_->game.set_tag("Result", result);
  impl_->write_game();
}

void Recorder::write_calibration(const std::string& pbtxt) {
  write_atomically(impl_->options.dir / "calibration.pbtxt", pbtxt);
}

const std::vector<TrackedMove>& Recorder::moves() const {
  return impl_->moves;
}

double Recorder::resume_time() const {
  return impl_->moves.empty() ? 0.0 : impl_->moves.back().t;
}

std::string frame_file_name(int frame) {
  char name[32];
  std::snprintf(name, sizeof name, "frames/%04d.jpg", frame);
  return name;
}

std::vector<std::string> read_event_kinds(const std::filesystem::path& events_file) {
  const std::string bytes = read_text(events_file);
  std::vector<std::string> kinds;
  google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&stream);
  while (!coded.ExpectAtEnd()) {
    const int offset = coded.CurrentPosition();
    std::uint32_t size = 0;
    if (!coded.ReadVarint32(&size)) break;  // cut short at the end
    if (static_cast<std::size_t>(offset) + size > bytes.size()) break;
    const auto limit = coded.PushLimit(static_cast<int>(size));
    events::Event event;
    if (!event.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
      throw RecorderError(events_file.string() + ": damaged event at byte " +
                          std::to_string(offset));
    }
    coded.PopLimit(limit);
    switch (event.kind_case()) {
      case events::Event::kStarted:
        kinds.push_back("started");
        break;
      case events::Event::kClock:
        kinds.push_back("clock");
        break;
      case events::Event::kMove:
        kinds.push_back(event.move().provisional() ? "provisional" : "move");
        break;
      case events::Event::kCorrection:
        kinds.push_back("correction");
        break;
      case events::Event::kIncident:
        kinds.push_back("incident");
        break;
      case events::Event::KIND_NOT_SET:
        kinds.push_back("?");
        break;
    }
  }
  return kinds;
}

}  // namespace bugcam::recorder
