// Binary log of the tracker's inputs (see observation_log.hpp). Each record is a tag byte
// and the fields in a fixed order.
#include "bugcam/observation_log.hpp"

#include <cstdint>
#include <stdexcept>

namespace bugcam::pipeline {

namespace {

// kTypes: logs before kings were asked about (pawn..queen); kTypesWithKing: pawn..king.
// kHoldings: a holding area's counts by type; kHoldingsCounted adds its pieces whatever
// their type (logs written before it read as ever). kBoard: a board whose squares' flag byte
// is 1 when occluded; kBoardFlagged: bit 0 occluded, bit 1 altered, bit 2 restored (a
// reader that knows only kBoard stops at it rather than take altered squares for occluded
// ones; logs from before restored squares have bit 2 clear). kBoardWithOwnArms: kBoardFlagged
// and then the board's own players' arms (older logs read with none).
enum Tag : char {
  kClock = 'C',
  kClockSettingOpponents = 'c',  // kClock with sets_opponents_clock
  kBoard = 'B',
  kBoardFlagged = 'b',
  kBoardWithOwnArms = 'o',
  kHoldings = 'H',
  kHoldingsCounted = 'h',
  kTypes = 'T',
  kTypesWithKing = 'K'
};
// An absent optional int.
constexpr std::int32_t kNone = INT32_MIN;

template <typename T>
void put(std::ofstream& out, T value) {
  out.write(reinterpret_cast<const char*>(&value), sizeof value);
}

class Reader {
 public:
  explicit Reader(const std::filesystem::path& file) : file_(file), in_(file, std::ios::binary) {
    if (!in_) throw std::runtime_error(file.string() + ": cannot open");
  }
  bool at_end() { return in_.peek() == std::char_traits<char>::eof(); }
  template <typename T>
  T get() {
    T value{};
    in_.read(reinterpret_cast<char*>(&value), sizeof value);
    if (!in_) throw std::runtime_error(file_.string() + ": cut short");
    return value;
  }

 private:
  std::filesystem::path file_;
  std::ifstream in_;
};

std::optional<int> optional_int(std::int32_t v) {
  return v == kNone ? std::nullopt : std::optional<int>(v);
}

}  // namespace

ObservationLogWriter::ObservationLogWriter(const std::filesystem::path& file)
    : out_(file, std::ios::binary | std::ios::trunc) {
  if (!out_) throw std::runtime_error(file.string() + ": cannot create");
}

void ObservationLogWriter::write(const LoggedInput& input) {
  if (const auto* e = std::get_if<capture::ClockEvent>(&input)) {
    put(out_, e->sets_opponents_clock ? kClockSettingOpponents : kClock);
    put(out_, static_cast<std::uint8_t>(e->kind));
    put(out_, static_cast<std::uint8_t>(e->board));
    put(out_, static_cast<std::int8_t>(e->side ? static_cast<int>(*e->side) : -1));
    put(out_, e->t);
    put(out_, static_cast<std::int32_t>(e->white_ms.value_or(kNone)));
    put(out_, static_cast<std::int32_t>(e->black_ms.value_or(kNone)));
  } else if (const auto* b = std::get_if<tracker::BoardObservation>(&input)) {
    put(out_, kBoardWithOwnArms);
    put(out_, static_cast<std::uint8_t>(b->board));
    put(out_, b->t);
    put(out_, static_cast<std::int32_t>(b->frame));
    for (const tracker::SquareEvidence& s : b->squares) {
      put(out_, s.empty);
      put(out_, s.white);
      put(out_, s.black);
      put(out_, static_cast<std::uint8_t>((s.occluded ? 1 : 0) | (s.altered ? 2 : 0) |
                                          (s.restored ? 4 : 0)));
    }
    for (const std::vector<tracker::Seat>* seats : {&b->hands, &b->own_arms}) {
      put(out_, static_cast<std::uint8_t>(seats->size()));
      for (const tracker::Seat& seat : *seats) {
        put(out_, static_cast<std::uint8_t>(seat.board));
        put(out_, static_cast<std::uint8_t>(seat.color));
      }
    }
  } else if (const auto* h = std::get_if<tracker::HoldingsObservation>(&input)) {
    put(out_, kHoldingsCounted);
    put(out_, static_cast<std::uint8_t>(h->seat.board));
    put(out_, static_cast<std::uint8_t>(h->seat.color));
    put(out_, h->t);
    put(out_, static_cast<std::int32_t>(h->frame));
    for (int v : h->visible) put(out_, static_cast<std::int32_t>(v));
    put(out_, static_cast<std::uint8_t>(h->occluded));
    put(out_, static_cast<std::int32_t>(h->pieces.value_or(kNone)));
  } else if (const auto* a = std::get_if<PieceTypeAnswer>(&input)) {
    put(out_, kTypesWithKing);
    put(out_, static_cast<std::uint8_t>(a->board));
    put(out_, static_cast<std::uint8_t>(a->square));
    put(out_, static_cast<std::int32_t>(a->frame));
    put(out_, static_cast<std::uint8_t>(a->types.has_value()));
    if (a->types) {
      for (float p : *a->types) put(out_, p);
    }
  }
  out_.flush();
}

std::vector<LoggedInput> read_observation_log(const std::filesystem::path& file) {
  Reader in(file);
  std::vector<LoggedInput> out;
  while (!in.at_end()) {
    const char tag = in.get<char>();
    switch (tag) {
      case kClock:
      case kClockSettingOpponents: {
        capture::ClockEvent e;
        e.sets_opponents_clock = tag == kClockSettingOpponents;
        e.kind = static_cast<capture::ClockEvent::Kind>(in.get<std::uint8_t>());
        e.board = static_cast<rules::BoardId>(in.get<std::uint8_t>());
        const int side = in.get<std::int8_t>();
        if (side >= 0) e.side = static_cast<rules::Color>(side);
        e.t = in.get<double>();
        e.white_ms = optional_int(in.get<std::int32_t>());
        e.black_ms = optional_int(in.get<std::int32_t>());
        out.emplace_back(e);
        break;
      }
      case kBoard:
      case kBoardFlagged:
      case kBoardWithOwnArms: {
        tracker::BoardObservation b;
        b.board = static_cast<rules::BoardId>(in.get<std::uint8_t>());
        b.t = in.get<double>();
        b.frame = in.get<std::int32_t>();
        for (tracker::SquareEvidence& s : b.squares) {
          s.empty = in.get<float>();
          s.white = in.get<float>();
          s.black = in.get<float>();
          const auto flags = in.get<std::uint8_t>();
          s.occluded = tag == kBoard ? flags != 0 : (flags & 1) != 0;
          s.altered = tag != kBoard && (flags & 2) != 0;
          s.restored = tag != kBoard && (flags & 4) != 0;
        }
        const auto read_seats = [&in](std::vector<tracker::Seat>& seats) {
          const int count = in.get<std::uint8_t>();
          for (int i = 0; i < count; ++i) {
            tracker::Seat seat;
            seat.board = static_cast<rules::BoardId>(in.get<std::uint8_t>());
            seat.color = static_cast<rules::Color>(in.get<std::uint8_t>());
            seats.push_back(seat);
          }
        };
        read_seats(b.hands);
        if (tag == kBoardWithOwnArms) read_seats(b.own_arms);
        out.emplace_back(std::move(b));
        break;
      }
      case kHoldings:
      case kHoldingsCounted: {
        tracker::HoldingsObservation h;
        h.seat.board = static_cast<rules::BoardId>(in.get<std::uint8_t>());
        h.seat.color = static_cast<rules::Color>(in.get<std::uint8_t>());
        h.t = in.get<double>();
        h.frame = in.get<std::int32_t>();
        for (int& v : h.visible) v = in.get<std::int32_t>();
        h.occluded = in.get<std::uint8_t>() != 0;
        if (tag == kHoldingsCounted) h.pieces = optional_int(in.get<std::int32_t>());
        out.emplace_back(h);
        break;
      }
      case kTypes:
      case kTypesWithKing: {
        PieceTypeAnswer a;
        a.board = static_cast<rules::BoardId>(in.get<std::uint8_t>());
        a.square = in.get<std::uint8_t>();
        a.frame = in.get<std::int32_t>();
        if (in.get<std::uint8_t>() != 0) {
          tracker::PieceTypeScores types{};
          const std::size_t count = tag == kTypes ? 5 : types.size();
          for (std::size_t i = 0; i < count; ++i) types[i] = in.get<float>();
          a.types = types;
        }
        out.emplace_back(a);
        break;
      }
      default:
        throw std::runtime_error(file.string() + ": unknown record");
    }
  }
  return out;
}

}  // namespace bugcam::pipeline
