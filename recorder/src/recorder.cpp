#include "bugcam/recorder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
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

// Every whole event of an events.pb; a record cut short at the end (a killed writer) is
// left out. Throws RecorderError naming the file and the byte offset of a damaged record.
std::vector<events::Event> read_events(const fs::path& events_file) {
  const std::string bytes = read_text(events_file);
  std::vector<events::Event> out;
  google::protobuf::io::ArrayInputStream stream(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&stream);
  while (!coded.ExpectAtEnd()) {
    const int offset = coded.CurrentPosition();
    std::uint32_t size = 0;
    if (!coded.ReadVarint32(&size)) break;  // cut short at the end
    if (static_cast<std::size_t>(coded.CurrentPosition()) + size > bytes.size()) break;
    const auto limit = coded.PushLimit(static_cast<int>(size));
    events::Event event;
    if (!event.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
      throw RecorderError(events_file.string() + ": damaged event at byte " +
                          std::to_string(offset));
    }
    coded.PopLimit(limit);
    out.push_back(std::move(event));
  }
  return out;
}

// The boards a game record starts from: its FEN tag (with the move numbers of its trailing
// "halfmove fullmove" fields, as the FEN tags of FICS and pychess have them), else the
// start position.
std::array<rules::Position, 2> start_boards(const rules::BpgnGame& game, const fs::path& file) {
  std::array<rules::Position, 2> boards{rules::Position::start(), rules::Position::start()};
  const std::optional<std::string> fen = game.tag("FEN");
  if (!fen || fen->empty()) return boards;
  try {
    const rules::Bfen bfen = rules::parse_bfen(*fen, game.where);
    if (!bfen.b) throw RecorderError(file.string() + ": FEN tag: expected two boards");
    const std::array<const rules::BoardFen*, 2> both{&bfen.a, &*bfen.b};
    for (std::size_t b = 0; b < 2; ++b) {
      boards[b] = both[b]->position;
      const std::vector<std::string>& counters = both[b]->trailing;
      if (counters.size() == 2) {
        boards[b].set_move_counters(std::stoi(counters[0]), std::max(1, std::stoi(counters[1])));
      }
    }
  } catch (const rules::ParseError& e) {
    throw RecorderError(file.string() + ": FEN tag: " + e.what());
  } catch (const std::logic_error&) {  // a number too large for stoi
    throw RecorderError(file.string() + ": FEN tag: move counters out of range");
  }
  return boards;
}

// A FEN tag for a set-up game record: both boards, each with "halfmove fullmove" after it.
std::string fen_tag(const std::array<rules::Position, 2>& boards) {
  std::string out;
  for (const rules::Position& p : boards) {
    if (!out.empty()) out += " | ";
    out +=
        rules::to_fen(p, {std::to_string(p.halfmove_clock()), std::to_string(p.fullmove_number())});
  }
  return out;
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", seconds);
  return text;
}

// An event logged by a recording that was killed, met again by the run that resumes it.
struct Logged {
  std::string kind;  // what must be equal: the event's identity without its time
  double t = 0.0;
};
// Events whose times differ by less than this are the same event read twice.
constexpr double kSameEventSeconds = 0.05;

std::string clock_identity(const events::ClockEvent& e) {
  return std::to_string(e.board()) + " " + e.kind() + " " + std::to_string(e.side());
}
std::string incident_identity(const std::string& type, const std::string& board,
                              const std::string& side, const std::string& ply) {
  return type + " " + board + " " + side + " " + ply;
}
std::string move_identity(const std::string& ply, const std::string& san) {
  return ply + " " + san;
}

// A move the record keeps as a comment: "7a. Kf8-f7 (`why`; pressed at 10.172 s, clock ...)".
std::string move_comment(const TrackedMove& move, std::string_view why) {
  std::string text = move.ply + ". " + move.san + " (" + std::string(why) + "; pressed at " +
                     seconds_text(move.t) + " s";
  if (move.clock) text += ", clock " + seconds_text(*move.clock) + " s";
  return text + ")";
}

// The tag of a game set up after a move that made one possible again (Impl::broken_off): that
// move's press time, where a resumed run starts.
constexpr std::string_view kContinuesAtTag = "ContinuesAt";
// How a game broken off (Impl::broken_off) ends its closing comment, which a resumed run
// reads back.
constexpr std::string_view kBrokenOff =
    "No game can be set up from the position the recording continues from, so this game ends "
    "here; the moves recorded after it follow as comments until one can.";

}  // namespace

struct Recorder::Impl {
  RecorderOptions options;
  fs::path bpgn_file;
  fs::path incidents_file;
  std::unique_ptr<File> events;
  // The record: one game, or, where an illegal move or a disturbed position made the
  // recording continue from a position no legal move leads to, one game per stretch, each
  // after the first set up (SetUp, FEN) from where the previous one broke off (or from the
  // first position after it that a game can be set up from: see broken_off). Every one
  // replays under the rules.
  std::vector<rules::BpgnGame> games{1};
  std::vector<TrackedMove> moves;
  // The boards the last game starts from, and the index in `moves` of its first move.
  std::array<rules::Position, 2> last_game_start{rules::Position::start(),
                                                 rules::Position::start()};
  std::size_t last_game_first_move = 0;
  // Where the last game was set up after the move that made a game possible again (see
  // broken_off), that move's time (its kContinuesAtTag): a resumed run starts there.
  double last_game_set_up_t = 0.0;
  // A drop on credit (TrackedMove::dropped_on_credit) and the moves committed after it, in
  // order, until the capture that gave its piece is committed: in events.pb at once, in the
  // game after that capture (and after the held moves of its board, which came before it).
  std::vector<TrackedMove> waiting;
  // Where an illegal move left its mover's king in check, no game can be set up from the
  // position after it (Incident::position_unsettable): the last game ends there, and the moves
  // committed after it follow it as comments, so that the record still replays and loses none
  // of them, until one can be set up again (TrackedMove::record_continues_from, mostly the
  // opponent's answer) or an incident gives a position.
  bool broken_off = false;
  // Resuming: move events the killed run logged after its last move in the record (those it
  // wrote as comments while broken off); the resumed run commits them again.
  std::vector<Logged> logged_moves;
  nlohmann::json incidents = nlohmann::json::array();
  // Resuming: clock events and incidents the killed run logged; the resumed run goes over
  // the time after its last committed move again and must not log them twice.
  std::vector<Logged> logged_clock_events;
  std::vector<Logged> logged_incidents;

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

  void write_game() {
    std::string text;
    for (const rules::BpgnGame& game : games) {
      if (!text.empty()) text += '\n';
      text += rules::write_bpgn(game);
    }
    write_atomically(bpgn_file, text);
  }
  void write_incidents() { write_atomically(incidents_file, incidents.dump(1) + "\n"); }

  // Whether `kind` at `t` is among `logged`; if so it is taken out (met once).
  static bool take_logged(std::vector<Logged>& logged, const std::string& kind, double t) {
    for (auto it = logged.begin(); it != logged.end(); ++it) {
      if (it->kind == kind && std::abs(it->t - t) < kSameEventSeconds) {
        logged.erase(it);
        return true;
      }
    }
    return false;
  }

  // Whether the capture `capture` on the other board passed a piece of type `type` to the
  // player of colour `dropper` (the capturer's partner plays the other colour; a promoted
  // piece goes as a pawn), as the rules play it (rules::replay's rules).
  static bool gives_piece(const rules::ReplayedPly& capture, rules::Color dropper,
                          rules::PieceType type) {
    if (capture.before.side_to_move() == dropper) return false;
    rules::Position after = capture.before;
    const rules::Position::Undo undo = after.make(capture.move, rules::otb_rules());
    if (undo.captured.empty()) return false;
    return (undo.captured_promoted ? rules::PieceType::kPawn : undo.captured.type) == type;
  }

  // Adds a committed move to the record and rewrites the game.
  void write_move(const TrackedMove& move) {
    rules::BpgnMove record;
    record.board = move.board;
    record.color = move.side;
    record.number = move.number;
    record.san = move.san;
    // To the millisecond, as clock logs have them.
    if (move.clock) record.clock = std::round(*move.clock * 1000.0) / 1000.0;
    record.timestamp = std::round(move.t * 1000.0) / 1000.0;
    // In the order completed: a move made without a press, timed without one, is
    // committed with the later press that recorded it, after moves of the other board
    // completed meanwhile (held-out 10207: 5a. e6 and 6A. Qxf7+ came after 8b. N@e6). A drop
    // stays after the other board's captures that may have given its piece.
    std::vector<rules::BpgnMove>& listed = games.back().moves;
    const bool drop = record.san.find('@') != std::string::npos;
    std::size_t at = listed.size();
    std::optional<rules::Replay> replayed;  // the game so far, where a drop meets a capture
    while (at > 0 && listed[at - 1].board != record.board &&
           listed[at - 1].timestamp.value_or(0.0) > *record.timestamp) {
      if (drop && listed[at - 1].san.find('x') != std::string::npos) {
        if (!move.move.is_drop()) break;  // which piece is not known
        if (!replayed) replayed = rules::replay(games.back());
        if (at - 1 >= replayed->plies.size() ||
            gives_piece(replayed->plies[at - 1], move.side, move.move.piece())) {
          break;
        }
      }
      --at;
    }
    listed.insert(listed.begin() + static_cast<std::ptrdiff_t>(at), record);
    // The last game's moves are the tail of `moves`, from last_game_first_move.
    moves.insert(moves.begin() + static_cast<std::ptrdiff_t>(last_game_first_move + at), move);
    write_game();
  }

  // Writes the moves of one board that wait, keeping the others waiting.
  void write_waiting_of(tracker::BoardId board) {
    std::vector<TrackedMove> others;
    for (const TrackedMove& held : waiting) {
      if (held.board == board) {
        write_move(held);
      } else {
        others.push_back(held);
      }
    }
    waiting = std::move(others);
  }

  // Writes the moves waiting: after the capture that repaid the drop, or, where the capture did
  // not come before the game broke off, as they are.
  void write_waiting() {
    for (const TrackedMove& held : waiting) write_move(held);
    waiting.clear();
  }

  // A comment after the last game's last move, or before its first where it has none. A
  // resumed run goes over the time after its last recorded move again: a comment the killed
  // run wrote there is not written twice.
  void comment_after_last(const std::string& text) {
    rules::BpgnGame& game = games.back();
    const auto has = [&](const std::vector<std::string>& comments) {
      return std::find(comments.begin(), comments.end(), text) != comments.end();
    };
    if (has(game.comments) ||
        std::any_of(game.moves.begin(), game.moves.end(),
                    [&](const rules::BpgnMove& m) { return has(m.comments); })) {
      return;
    }
    (game.moves.empty() ? game.comments : game.moves.back().comments).push_back(text);
    write_game();
  }

  static std::string incident_summary(const Incident& incident) {
    return std::string(tracker::incident_name(incident.type)) +
           (incident.ply.empty() ? "" : " at " + incident.ply) + " (" +
           seconds_text(incident.t_end) + " s)";
  }

  // The game so far ends at `incident`, with no game after it (see broken_off). A game
  // broken off already keeps its first reason.
  void break_off(const Incident& incident) {
    rules::BpgnGame& ended = games.back();
    ended.result = "*";
    ended.set_tag("Result", "*");
    std::string before;
    if (broken_off) {
      const std::size_t at = ended.result_comment.find(kBrokenOff);
      before =
          at == std::string::npos ? ended.result_comment + " " : ended.result_comment.substr(0, at);
    }
    ended.result_comment = before + incident_summary(incident) + ": " + incident.detail + " " +
                           std::string(kBrokenOff);
    broken_off = true;
  }

  // The recording continues from `position`: the game so far ends there, with `reason` (an
  // incident's summary and detail; none where it was broken off and says why already), and a
  // new one, whose first comment is `first_comment`, starts from that position.
  void continue_from(const std::string& position, const std::string& reason,
                     const std::string& first_comment,
                     std::optional<double> set_up_at = std::nullopt) {
    rules::BpgnGame& ended = games.back();
    std::array<rules::Position, 2> boards;
    try {
      const rules::Bfen bfen = rules::parse_bfen(position);
      if (!bfen.b) throw rules::ParseError({}, "expected two boards");
      rules::BpgnGame probe;
      probe.set_tag("FEN", position);
      boards = start_boards(probe, bpgn_file);
    } catch (const rules::ParseError& e) {
      throw RecorderError(bpgn_file.string() + ": cannot continue the record from '" + position +
                          "': " + e.what());
    }
    ended.result = "*";
    ended.set_tag("Result", "*");
    const std::string continues =
        "The record continues in game " + std::to_string(games.size() + 1) + " of this file.";
    ended.result_comment =
        broken_off ? ended.result_comment + (reason.empty() ? "" : " " + reason) + " " + continues
                   : reason + " " + continues;
    broken_off = false;
    rules::BpgnGame next;
    next.tags = ended.tags;
    std::erase_if(next.tags, [](const auto& tag) { return tag.first == kContinuesAtTag; });
    next.set_tag("SetUp", "1");
    next.set_tag("FEN", fen_tag(boards));
    next.comments.push_back("Continues game " + std::to_string(games.size()) + " " + first_comment);
    games.push_back(std::move(next));
    if (set_up_at) games.back().set_tag(kContinuesAtTag, seconds_text(*set_up_at));
    last_game_start = boards;
    last_game_first_move = moves.size();
    last_game_set_up_t = set_up_at.value_or(0.0);
  }
  void continue_from(const Incident& incident) {
    const std::string what = incident_summary(incident);
    continue_from(incident.position, what + ": " + incident.detail,
                  "after the " + what + ", from the position the recording continued from.");
  }
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
    std::vector<rules::BpgnGame> games;
    try {
      games = rules::parse_bpgn(read_text(impl.bpgn_file), impl.bpgn_file.string());
    } catch (const rules::ParseError& e) {
      throw RecorderError(e.what());
    }
    if (games.empty()) throw RecorderError(impl.bpgn_file.string() + ": no game in it");
    impl.games = std::move(games);
    for (std::size_t g = 0; g < impl.games.size(); ++g) {
      const rules::BpgnGame& game = impl.games[g];
      const std::array<rules::Position, 2> start = start_boards(game, impl.bpgn_file);
      const rules::Replay replayed = rules::replay(game);
      if (replayed.error) {
        throw RecorderError(impl.bpgn_file.string() + ": game " + std::to_string(g + 1) + ": " +
                            replayed.error->what());
      }
      impl.last_game_start = start;
      impl.last_game_first_move = impl.moves.size();
      impl.last_game_set_up_t = 0.0;
      if (const std::optional<std::string> at = game.tag(kContinuesAtTag)) {
        try {
          impl.last_game_set_up_t = std::stod(*at);
        } catch (const std::logic_error&) {
          throw RecorderError(impl.bpgn_file.string() + ": game " + std::to_string(g + 1) + ": " +
                              std::string(kContinuesAtTag) + " tag '" + *at +
                              "' is not a number of seconds");
        }
      }
      for (std::size_t i = 0; i < replayed.plies.size(); ++i) {
        const rules::BpgnMove& record = game.moves[i];
        TrackedMove move;
        move.board = record.board;
        move.side = record.color;
        move.number = record.number;
        move.ply = tracker::ply_label(record.board, record.color, record.number);
        move.san = replayed.plies[i].san;
        move.move = replayed.plies[i].move;
        move.t = record.timestamp.value_or(0.0);
        move.clock = record.clock;
        move.press = static_cast<int>(impl.moves.size());
        impl.moves.push_back(move);
      }
    }
    if (fs::exists(impl.incidents_file)) {
      try {
        impl.incidents = nlohmann::json::parse(read_text(impl.incidents_file));
        for (const nlohmann::json& i : impl.incidents) {
          impl.logged_incidents.push_back(
              {incident_identity(i.value("type", ""), i.value("board", ""), i.value("side", ""),
                                 i.value("ply", "")),
               i.value("t", 0.0)});
        }
      } catch (const nlohmann::json::exception& e) {
        throw RecorderError(impl.incidents_file.string() + ": " + e.what());
      }
    }
    // A game broken off: the killed run wrote the moves after it as comments.
    impl.broken_off = impl.games.back().result_comment.find(kBrokenOff) != std::string::npos;
    if (fs::exists(dir / "events.pb")) {
      const double resumed_at = resume_time();
      for (const events::Event& event : read_events(dir / "events.pb")) {
        if (event.has_clock())
          impl.logged_clock_events.push_back({clock_identity(event.clock()), event.t()});
        if (event.has_move() && !event.move().provisional() && event.t() > resumed_at) {
          impl.logged_moves.push_back(
              {move_identity(event.move().ply(), event.move().san()), event.t()});
        }
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
      impl.games.back().set_tag(name, value);
    }
  }
  for (const auto& [name, value] : impl.options.tags) {
    for (rules::BpgnGame& game : impl.games) game.set_tag(name, value);
  }
  impl.events =
      std::make_unique<File>(dir / "events.pb", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
                                                    (impl.options.resume ? 0 : O_TRUNC));
  impl.write_game();
  impl.write_incidents();
  events::Event started;
  started.set_t(resume_time());
  for (const auto& [name, value] : impl.games.front().tags) {
    started.mutable_started()->add_tags(name + "=" + value);
  }
  started.mutable_started()->set_resumed(impl.options.resume);
  impl.append(started);
}

Recorder::~Recorder() = default;

void Recorder::record(const tracker::TrackerEvent& event) {
  Impl& impl = *impl_;
  events::Event out;
  bool logged = false;  // in events.pb already
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
    m.set_illegal(move->illegal);
    // Resuming: the killed run logged it already (as a comment, the record broken off).
    if (!move->provisional &&
        Impl::take_logged(impl.logged_moves, move_identity(move->ply, move->san), move->t)) {
      logged = true;
    }
    if (!move->provisional && move->illegal) {
      // No BPGN reader takes it as a move: the game it broke has ended at its incident, and
      // it follows as a comment, first in the next game, set up from the position after it,
      // or after the last move where none can be (broken_off).
      impl.comment_after_last(move_comment(*move, "breaks the rules"));
    } else if (!move->provisional && impl.broken_off) {
      impl.comment_after_last(move_comment(*move, "after the record broke off"));
      if (!move->record_continues_from.empty()) {
        impl.continue_from(move->record_continues_from, "",
                           "from the position after " + move->ply + ". " + move->san +
                               ", the first after it that a game can be set up from.",
                           move->t);
        impl.write_game();
      }
    } else if (!move->provisional) {
      // A drop on credit waits, with every move committed after it, for the capture that gave
      // its piece, which goes first: the game written must replay at every commit.
      if (move->repays_credit && !impl.waiting.empty()) {
        // Moves of the capture's board held since the drop came before the capture (one
        // made without a press, then the capture, both recorded at one press).
        impl.write_waiting_of(move->board);
        impl.write_move(*move);
        impl.write_waiting();
      } else if (move->dropped_on_credit || !impl.waiting.empty()) {
        impl.waiting.push_back(*move);
      } else {
        impl.write_move(*move);
      }
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
    const std::string type(tracker::incident_name(incident->type));
    const std::string board(1, rules::board_letter(incident->board));
    const std::string side = incident->side == rules::Color::kWhite ? "white" : "black";
    const double t = std::round(incident->t * 1000.0) / 1000.0;
    // Resuming: the killed run reported it already.
    if (Impl::take_logged(impl.logged_incidents,
                          incident_identity(type, board, side, incident->ply), t)) {
      return;
    }
    out.set_t(incident->t);
    events::Incident& i = *out.mutable_incident();
    i.set_type(type);
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
    entry["type"] = type;
    entry["board"] = board;
    entry["side"] = side;
    entry["t"] = t;
    entry["t_end"] = std::round(incident->t_end * 1000.0) / 1000.0;
    entry["ply"] = incident->ply;
    entry["detail"] = incident->detail;
    entry["frames"] = frames;
    impl.incidents.push_back(entry);
    impl.write_incidents();
    if (!incident->position.empty()) {
      impl.write_waiting();
      impl.continue_from(*incident);
      impl.write_game();
    } else if (incident->position_unsettable) {
      impl.write_waiting();
      impl.break_off(*incident);
      impl.write_game();
    }
  }
  if (!logged) impl.append(out);
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
  // Resuming: the killed run logged it already.
  if (Impl::take_logged(impl_->logged_clock_events, clock_identity(c), event.t)) return;
  impl_->append(out);
}

void Recorder::set_result(const std::string& result, const std::string& reason) {
  rules::BpgnGame& game = impl_->games.back();
  game.result = result;
  // A game broken off keeps saying why, and where its later moves are.
  game.result_comment = impl_->broken_off ? game.result_comment + " " + reason : reason;
  game.set_tag("Result", result);
  impl_->write_game();
}

void Recorder::write_calibration(const std::string& pbtxt) {
  write_atomically(impl_->options.dir / "calibration.pbtxt", pbtxt);
}

const std::vector<TrackedMove>& Recorder::moves() const {
  return impl_->moves;
}

double Recorder::resume_time() const {
  // The latest: a capture listed before the drop its piece gave may have been pressed after it.
  // A game set up after a move written as a comment starts after that move.
  double latest = impl_->last_game_set_up_t;
  for (const TrackedMove& move : impl_->moves) latest = std::max(latest, move.t);
  return latest;
}

const std::array<rules::Position, 2>& Recorder::resume_boards() const {
  return impl_->last_game_start;
}

std::span<const TrackedMove> Recorder::resume_moves() const {
  return std::span<const TrackedMove>(impl_->moves).subspan(impl_->last_game_first_move);
}

std::string frame_file_name(int frame) {
  char name[32];
  std::snprintf(name, sizeof name, "frames/%04d.jpg", frame);
  return name;
}

std::vector<std::string> read_event_kinds(const std::filesystem::path& events_file) {
  std::vector<std::string> kinds;
  for (const events::Event& event : read_events(events_file)) {
    switch (event.kind_case()) {
      case events::Event::kStarted:
        kinds.push_back("started");
        break;
      case events::Event::kClock:
        kinds.push_back("clock");
        break;
      case events::Event::kMove:
        kinds.push_back(event.move().provisional() ? "provisional"
                        : event.move().illegal()   ? "illegal"
                                                   : "move");
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
