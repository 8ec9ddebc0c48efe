#include "timeline.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace bugcam::samples {

namespace {

constexpr const char* kIncidentNames[] = {
    "hidden_piece", "capture_not_passed", "premove",
    "illegal_move", "move_without_press", "press_without_move",
    "flag_fall",    "position_disturbed", "partner_board_touched"};

const char* player_name(int player) {
  static constexpr const char* kNames[] = {"White A", "Black A", "White B", "Black B"};
  return kNames[player];
}

float smoothstep(float x) {
  return x * x * (3 - 2 * x);
}

// A hand action built in its own time (0 = leaving the rest position), then shifted.
struct ActionDraft {
  std::vector<HandKey> keys;
  std::vector<PieceEvent> events;
  double t = 0;
  Vec3 pos;
  float grip = 0;

  void start(Vec3 rest) {
    pos = rest;
    keys.push_back({0, rest, 0});
  }
  void go(Vec3 p, float g, double speed = 110.0) {
    t += std::max(0.08, static_cast<double>(length(p - pos)) / speed);
    pos = p;
    grip = g;
    keys.push_back({t, p, g});
  }
  void wait(double dt, float g) {
    t += dt;
    grip = g;
    keys.push_back({t, pos, g});
  }
  void shift(double dt) {
    for (HandKey& k : keys) k.t += dt;
    for (PieceEvent& e : events) e.t += dt;
  }
};

struct HeldPiece {
  int uid = 0;
  int type = 0;
  int slot = -1;         // -1 when hidden off the table
  double available = 0;  // when it arrived
  Vec3 position;
};

}  // namespace

const char* incident_name(IncidentType type) {
  return kIncidentNames[static_cast<int>(type)];
}

std::optional<IncidentType> parse_incident_name(const std::string& name) {
  for (int i = 0; i < 9; ++i) {
    if (name == kIncidentNames[i]) return static_cast<IncidentType>(i);
  }
  return std::nullopt;
}

class TimelineBuilder {
 public:
  // `waits`: extra seconds the mover of a ply thinks, so that the premover after it has time.
  TimelineBuilder(Timeline& tl, const TimelineOptions& options, const std::map<int, double>& waits)
      : tl_(tl), opt_(options), waits_(waits) {}

  void build();
  // For each ply whose press came too early for the premove after it, by how much.
  const std::map<int, double>& premove_shortfalls() const { return shortfalls_; }

 private:
  bool wants(IncidentType type, int ply) const {
    for (const IncidentRequest& r : opt_.incidents) {
      if (r.type == type && r.ply == ply) return true;
    }
    return false;
  }
  PlacedPiece& piece(int uid) { return pieces_[static_cast<std::size_t>(uid)]; }
  Vec3 rest(int player) const {
    const float side = seat_side(player);
    const Vec3 c = tl_.layout_.board_center[static_cast<std::size_t>(board_of_player(player))];
    return {c.x - side * 10, side * (tl_.layout_.frame_half + 18), 14};
  }
  float carry_height(int type) const {
    return tl_.layout_.board_top + tl_.style_.design.king_height + grasp(type) + 1.5f;
  }
  float grasp(int type) const { return tl_.grasp_offset_[static_cast<std::size_t>(type)]; }
  Vec3 above(Vec3 base, int type) const { return {base.x, base.y, carry_height(type)}; }
  Vec3 at(Vec3 base, int type) const { return {base.x, base.y, base.z + grasp(type)}; }

  void pick(ActionDraft& a, int uid, int hand) {
    const PlacedPiece& p = piece(uid);
    a.go(above(p.position, p.type), 0.15f);
    a.go(at(p.position, p.type), 0.15f, 35);
    a.wait(0.1, 1.0f);
    PieceEvent e;
    e.t = a.t;
    e.uid = uid;
    e.kind = PieceEvent::kAttach;
    e.hand = hand;
    a.events.push_back(e);
    a.go(above(p.position, p.type), 1.0f, 35);
  }
  // Carries the held piece to `placement` and lets go there.
  void put(ActionDraft& a, const PlacedPiece& placement,
           PieceEvent::Kind kind = PieceEvent::kPlace) {
    a.go(above(placement.position, placement.type), 1.0f);
    a.go(at(placement.position, placement.type), 1.0f, 35);
    a.wait(0.1, 0.2f);
    PieceEvent e;
    e.t = a.t;
    e.uid = placement.uid;
    e.kind = kind;
    e.placement = placement;
    a.events.push_back(e);
    piece(placement.uid) = placement;
    a.go(above(placement.position, placement.type), 0.2f, 35);
  }
  PlacedPiece on_square(int uid, int board, int square) {
    PlacedPiece p = piece(uid);
    p.board = board;
    p.square = square;
    p.player = -1;
    p.knocked = 0;
    settle_on_square(tl_.style_, tl_.layout_, p);
    return p;
  }
  PlacedPiece in_holding(int uid, int player, int slot) {
    PlacedPiece p = piece(uid);
    p.place = PiecePlace::kHolding;
    p.board = p.square = -1;
    p.player = player;
    p.knocked = 0;
    p.position = tl_.layout_.holding_slot(player, slot);
    Random rng(tl_.style_.seed ^ static_cast<std::uint64_t>(uid * 977 + slot * 13 + player));
    p.position = p.position + Vec3{rng.uniformf(-0.5f, 0.5f), rng.uniformf(-0.5f, 0.5f), 0};
    p.yaw = rng.uniformf(0, 2 * kPi);
    return p;
  }
  int free_slot(int player) const {
    for (int s = 0; s < 16; ++s) {
      bool used = false;
      for (const HeldPiece& h : holdings_[static_cast<std::size_t>(player)]) used |= h.slot == s;
      if (!used) return s;
    }
    return 15;
  }
  void press(ActionDraft& a, int player, double& press_offset) {
    const Vec3 b = tl_.layout_.clock_button(player);
    a.go(b + Vec3{0, 0, 6}, 0.3f);
    a.go(b, 0.3f, 40);
    press_offset = a.t;
    a.go(b + Vec3{0, 0, 6}, 0.3f, 40);
  }
  void finish(ActionDraft& a, int player) { a.go(rest(player), 0.0f, 120); }

  // Commits a drafted action to start at `start`.
  void commit(ActionDraft& a, int player, double start) {
    a.shift(start);
    Timeline::Action act;
    act.player = player;
    act.keys = a.keys;
    tl_.actions_.push_back(act);
    for (const PieceEvent& e : a.events) tl_.piece_events_.push_back(e);
    hand_free_[static_cast<std::size_t>(player)] = a.keys.back().t + 0.05;
  }
  void log_press(double t, int board, int side) { presses_.push_back({t, board, side}); }

  Timeline& tl_;
  const TimelineOptions& opt_;
  const std::map<int, double>& waits_;
  std::map<int, double> shortfalls_;
  std::vector<PlacedPiece> pieces_;
  std::array<std::array<int, 64>, 2> board_uid_{};
  std::array<std::vector<HeldPiece>, kPlayerCount> holdings_;
  std::array<double, kPlayerCount> hand_free_{};
  struct Press {
    double t;
    int board, side;
  };
  std::vector<Press> presses_;
  // Captures left with the capturer, to be passed after the capturer's next move.
  struct Unpassed {
    int uid, capturer, ply;
    double since;
  };
  std::vector<Unpassed> unpassed_;
  std::map<int, std::size_t> hidden_incident_;  // hidden piece uid -> its incident
};

void TimelineBuilder::build() {
  Timeline& tl = tl_;
  pieces_ = tl.initial_.pieces;
  for (auto& b : board_uid_) b.fill(-1);
  for (const PlacedPiece& p : pieces_) {
    board_uid_[static_cast<std::size_t>(p.board)][static_cast<std::size_t>(p.square)] = p.uid;
  }
  hand_free_.fill(0);
  // What an earlier build (the constructor's retry) wrote starts again.
  tl.actions_.clear();
  tl.piece_events_.clear();
  tl.clock_events_.clear();
  tl.timed_.clear();
  tl.incidents_.clear();
  tl.ending_.reset();
  tl.initial_ms_.fill(opt_.initial_ms);
  std::array<double, 2> last_press{opt_.lead_in, opt_.lead_in};
  std::array<int, 2> last_press_ply{-1, -1};  // whose press last_press is (-1: the start)
  double last_global = opt_.lead_in;
  std::optional<int> flag_ply;

  for (std::size_t i = 0; i < tl.plies_.size(); ++i) {
    const PlyInput& ply = tl.plies_[i];
    const int ply_index = static_cast<int>(i);
    const int p = player_index(ply.board, ply.color);
    const int opponent = player_index(ply.board, 1 - ply.color);
    const int b = ply.board;
    auto& squares = board_uid_[static_cast<std::size_t>(b)];

    if (wants(IncidentType::kFlagFall, ply_index)) {
      flag_ply = ply_index;
      break;
    }
    if (wants(IncidentType::kPressWithoutMove, ply_index)) {
      // The mover presses without moving; the opponent presses back.
      ActionDraft a;
      a.start(rest(p));
      double off = 0;
      press(a, p, off);
      finish(a, p);
      const double ta =
          std::max({last_press[static_cast<std::size_t>(b)] + 0.8,
                    hand_free_[static_cast<std::size_t>(p)] + off, last_global + 0.05});
      commit(a, p, ta - off);
      log_press(ta, b, ply.color);
      ActionDraft o;
      o.start(rest(opponent));
      double off2 = 0;
      press(o, opponent, off2);
      finish(o, opponent);
      const double tb = std::max(ta + 0.6, hand_free_[static_cast<std::size_t>(opponent)] + off2);
      commit(o, opponent, tb - off2);
      log_press(tb, b, 1 - ply.color);
      tl.incidents_.push_back({IncidentType::kPressWithoutMove, b, ply.color, ta, ta, ply_index,
                               std::string(player_name(p)) + " pressed the clock without moving"});
      tl.incidents_.push_back(
          {IncidentType::kPressWithoutMove, b, 1 - ply.color, tb, tb, ply_index,
           std::string(player_name(opponent)) + " pressed the clock back without moving"});
      last_press[static_cast<std::size_t>(b)] = tb;
      last_press_ply[static_cast<std::size_t>(b)] = ply_index;
      last_global = tb;
    }

    ActionDraft a;
    a.start(rest(p));
    double touch_start = -1, touch_end = -1;
    if (wants(IncidentType::kPartnerBoardTouched, ply_index)) {
      const Vec3 c = tl.layout_.board_center[static_cast<std::size_t>(1 - b)];
      a.go({c.x, c.y + seat_side(p) * 6, tl.layout_.board_top + 14}, 0.1f);
      touch_start = a.t - 0.25;
      a.wait(0.9, 0.1f);
      touch_end = a.t + 0.25;
    }
    // Capture: lift the captured piece and pass it to the partner's holding area.
    int captured_uid = -1;
    double pass_time = -1;
    IncidentType pass_kind = IncidentType::kHiddenPiece;
    bool unusual_pass = false;
    if (ply.captured >= 0 && ply.illegal_to < 0) {
      captured_uid = squares[static_cast<std::size_t>(ply.captured_square)];
      if (captured_uid < 0) throw std::logic_error("timeline: no piece to capture");
      squares[static_cast<std::size_t>(ply.captured_square)] = -1;
      pick(a, captured_uid, p);
      const int partner = partner_of(p);
      piece(captured_uid).type = ply.captured;  // a promoted pawn goes back as a pawn
      if (wants(IncidentType::kHiddenPiece, ply_index)) {
        // Carried towards the partner but kept off the table, out of view.
        PlacedPiece hidden = piece(captured_uid);
        hidden.place = PiecePlace::kHidden;
        hidden.player = partner;
        const Vec3 h = tl.layout_.holding_center[static_cast<std::size_t>(partner)];
        hidden.position = {h.x, h.y + seat_side(partner) * 22, 0};
        a.go(above(hidden.position, hidden.type), 1.0f);
        a.wait(0.05, 1.0f);
        PieceEvent e;
        e.t = a.t;
        e.uid = captured_uid;
        e.kind = PieceEvent::kHide;
        e.placement = hidden;
        a.events.push_back(e);
        piece(captured_uid) = hidden;
        holdings_[static_cast<std::size_t>(partner)].push_back(
            {captured_uid, ply.captured, -1, 0, hidden.position});
        pass_time = a.t;
        pass_kind = IncidentType::kHiddenPiece;
        unusual_pass = true;
      } else if (wants(IncidentType::kCaptureNotPassed, ply_index)) {
        const int slot = free_slot(p);
        put(a, in_holding(captured_uid, p, slot));
        unpassed_.push_back({captured_uid, p, ply_index, 0});
        pass_time = a.t;
        pass_kind = IncidentType::kCaptureNotPassed;
        unusual_pass = true;
      } else {
        const int slot = free_slot(partner);
        put(a, in_holding(captured_uid, partner, slot));
        holdings_[static_cast<std::size_t>(partner)].push_back(
            {captured_uid, ply.captured, slot, 0, piece(captured_uid).position});
        pass_time = a.t;
      }
    }
    // The move itself.
    const int target = ply.illegal_to >= 0 ? ply.illegal_to : ply.to;
    int moving_uid = -1;
    int hidden_dropped = -1;
    double drop_pick_time = 0;
    double needed_available = 0;
    if (ply.from < 0) {
      auto& held = holdings_[static_cast<std::size_t>(p)];
      auto it = std::find_if(held.begin(), held.end(),
                             [&](const HeldPiece& h) { return h.type == ply.piece; });
      if (it == held.end()) throw std::logic_error("timeline: drop of a piece not held");
      moving_uid = it->uid;
      needed_available = it->available;
      held.erase(it);
      drop_pick_time = a.t;
      if (piece(moving_uid).place == PiecePlace::kHidden) {
        hidden_dropped = moving_uid;
        // Brought from out of view.
        a.go(above(piece(moving_uid).position, ply.piece), 0.15f);
        a.wait(0.12, 1.0f);
        PieceEvent e;
        e.t = a.t;
        e.uid = moving_uid;
        e.kind = PieceEvent::kAttach;
        e.hand = p;
        a.events.push_back(e);
      } else {
        pick(a, moving_uid, p);
      }
    } else {
      moving_uid = squares[static_cast<std::size_t>(ply.from)];
      if (moving_uid < 0) throw std::logic_error("timeline: no piece on the from square");
      squares[static_cast<std::size_t>(ply.from)] = -1;
      pick(a, moving_uid, p);
    }
    if (target != ply.to && squares[static_cast<std::size_t>(target)] >= 0) {
      throw std::logic_error("timeline: illegal-move target is occupied");
    }
    put(a, on_square(moving_uid, b, target));
    squares[static_cast<std::size_t>(target)] = moving_uid;
    const double release_offset = a.t;
    if (ply.rook_from >= 0 && ply.illegal_to < 0) {
      const int rook = squares[static_cast<std::size_t>(ply.rook_from)];
      squares[static_cast<std::size_t>(ply.rook_from)] = -1;
      pick(a, rook, p);
      put(a, on_square(rook, b, ply.rook_to));
      squares[static_cast<std::size_t>(ply.rook_to)] = rook;
    }
    // A knocked-over neighbour, stood up again after the press.
    int knocked_uid = -1;
    double knock_offset = 0;
    if (wants(IncidentType::kPositionDisturbed, ply_index)) {
      for (int d : {1, -1, 8, -8, 9, -9, 7, -7}) {
        const int sq = target + d;
        if (sq < 0 || sq >= 64 || std::abs(sq % 8 - target % 8) > 1) continue;
        if (squares[static_cast<std::size_t>(sq)] >= 0) {
          knocked_uid = squares[static_cast<std::size_t>(sq)];
          break;
        }
      }
      if (knocked_uid >= 0) {
        PlacedPiece lying = piece(knocked_uid);
        lying.knocked = 1;
        lying.knock_direction = lying.yaw + 1.2f;
        knock_offset = a.t - 0.05;
        PieceEvent e;
        e.t = knock_offset;
        e.uid = knocked_uid;
        e.kind = PieceEvent::kKnock;
        e.placement = lying;
        a.events.push_back(e);
        piece(knocked_uid) = lying;
      }
    }
    const bool pressed = !wants(IncidentType::kMoveWithoutPress, ply_index);
    double press_offset = release_offset + 0.3;
    if (pressed) press(a, p, press_offset);
    double fix_offset = 0;
    if (knocked_uid >= 0) {
      const PlacedPiece lying = piece(knocked_uid);
      a.go(above(lying.position, lying.type), 0.2f);
      a.go(lying.position + Vec3{0, 0, 3}, 0.2f, 35);
      a.wait(0.15, 1.0f);
      PlacedPiece upright = lying;
      upright.knocked = 0;
      PieceEvent e;
      e.t = a.t;
      e.uid = knocked_uid;
      e.kind = PieceEvent::kPlace;
      e.placement = upright;
      a.events.push_back(e);
      piece(knocked_uid) = upright;
      fix_offset = a.t;
      a.go(above(lying.position, lying.type), 0.2f, 35);
    }
    finish(a, p);

    // When the press happens: after the opponent's press plus the (shortened) thinking time,
    // in the game's order across boards, with the hand free and the dropped piece there.
    const double think = std::clamp(ply.think, 0.0, opt_.max_think);
    double t_press = std::max(
        {last_press[static_cast<std::size_t>(b)] + std::max(think, press_offset + opt_.min_think),
         last_global + 0.05, hand_free_[static_cast<std::size_t>(p)] + press_offset});
    // The earliest press with the dropped piece there to pick.
    const double dropped_piece_there =
        ply.from < 0 ? needed_available + 0.2 + press_offset - drop_pick_time : 0.0;
    t_press = std::max(t_press, dropped_piece_there);
    if (const auto wait = waits_.find(ply_index); wait != waits_.end()) t_press += wait->second;
    // A premove's piece is let go before the opponent's press.
    const double before_press = last_press[static_cast<std::size_t>(b)] - 0.3;
    if (wants(IncidentType::kPremove, ply_index)) {
      // Not before its piece is there either (synth's misfit turns away a drop whose piece is
      // captured after the opponent's move): else the opponent must think longer, as below.
      t_press =
          std::max({before_press + press_offset - release_offset,
                    hand_free_[static_cast<std::size_t>(p)] + press_offset, dropped_piece_there});
    }
    const double start = t_press - press_offset;
    commit(a, p, start);
    const double release = start + release_offset;
    // A hand still busy (a long move of its own, a piece passed), or a dropped piece still to
    // come, lets go only after the press; the opponent must then think longer, and the builder
    // is run again.
    if (wants(IncidentType::kPremove, ply_index) && release - before_press > 1e-6 &&
        last_press_ply[static_cast<std::size_t>(b)] >= 0) {
      shortfalls_[last_press_ply[static_cast<std::size_t>(b)]] = release - before_press;
    }
    if (pressed) log_press(t_press, b, ply.color);
    if (hidden_dropped >= 0) {
      const auto it = hidden_incident_.find(hidden_dropped);
      if (it != hidden_incident_.end()) {
        tl.incidents_[it->second].t_end = start + drop_pick_time;
        tl.incidents_[it->second].detail +=
            ", dropped without having been visible (" + ply.san + ")";
      }
    }

    // Holding bookkeeping in absolute time.
    if (captured_uid >= 0) {
      const int partner = partner_of(p);
      for (HeldPiece& h : holdings_[static_cast<std::size_t>(partner)]) {
        if (h.uid == captured_uid) h.available = start + pass_time;
      }
      if (unusual_pass && pass_kind == IncidentType::kHiddenPiece) {
        hidden_incident_[captured_uid] = tl.incidents_.size();
        tl.incidents_.push_back({IncidentType::kHiddenPiece, 1 - b, color_of_player(partner),
                                 start + pass_time, -1, ply_index,
                                 "piece captured on " + std::string(1, b == 0 ? 'A' : 'B') + " (" +
                                     ply.san + ") not visible in " + player_name(partner) +
                                     "'s holdings"});
      }
      if (unusual_pass && pass_kind == IncidentType::kCaptureNotPassed) {
        unpassed_.back().since = start + pass_time;
      }
    }
    if (touch_start >= 0) {
      tl.incidents_.push_back(
          {IncidentType::kPartnerBoardTouched, 1 - b, ply.color, start + touch_start,
           start + touch_end, ply_index,
           std::string(player_name(p)) + "'s hand over board " + (b == 0 ? "B" : "A")});
    }
    if (knocked_uid >= 0) {
      tl.incidents_.push_back({IncidentType::kPositionDisturbed, b, ply.color, start + knock_offset,
                               start + fix_offset, ply_index,
                               std::string(player_name(p)) + " knocked over a piece"});
    }
    if (wants(IncidentType::kPremove, ply_index)) {
      tl.incidents_.push_back({IncidentType::kPremove, b, ply.color, release,
                               last_press[static_cast<std::size_t>(b)], ply_index,
                               std::string(player_name(p)) + " moved before " +
                                   player_name(opponent) + " pressed the clock"});
    }
    if (!pressed) {
      tl.incidents_.push_back(
          {IncidentType::kMoveWithoutPress, b, ply.color, release, -1, ply_index,
           std::string(player_name(p)) + " moved (" + ply.san + ") without pressing the clock"});
    }
    tl.timed_.push_back({ply_index, pressed ? t_press : release + 0.3, release, 0, pressed});
    last_press[static_cast<std::size_t>(b)] = pressed ? t_press : release + 0.3;
    last_press_ply[static_cast<std::size_t>(b)] = ply_index;
    last_global = std::max(last_global, last_press[static_cast<std::size_t>(b)]);

    // A capture kept back is passed after the capturer's next move.
    for (auto it = unpassed_.begin(); it != unpassed_.end();) {
      if (it->capturer == p && it->ply != ply_index) {
        ActionDraft pass;
        pass.start(rest(p));
        pick(pass, it->uid, p);
        const int partner = partner_of(p);
        const int slot = free_slot(partner);
        put(pass, in_holding(it->uid, partner, slot));
        const double delivered_offset = pass.t;
        finish(pass, p);
        const double pass_start = std::max(hand_free_[static_cast<std::size_t>(p)], t_press + 0.1);
        commit(pass, p, pass_start);
        // The piece left the capturer's holding: remove from there, add to the partner's.
        holdings_[static_cast<std::size_t>(partner)].push_back({it->uid, piece(it->uid).type, slot,
                                                                pass_start + delivered_offset,
                                                                piece(it->uid).position});
        tl.incidents_.push_back(
            {IncidentType::kCaptureNotPassed, b, ply.color, it->since,
             pass_start + delivered_offset, it->ply,
             std::string(player_name(p)) + " kept a captured piece until after their next move"});
        it = unpassed_.erase(it);
      } else {
        ++it;
      }
    }
    if (ply.illegal_to >= 0) {
      tl.incidents_.push_back({IncidentType::kIllegalMove, b, ply.color, t_press, t_press,
                               ply_index, std::string(player_name(p)) + " made an illegal move"});
      tl.ending_ = std::make_pair(std::string(player_name(p)) + " made an illegal move", p);
      break;
    }
  }

  // Captures never passed before the footage ends.
  for (const Unpassed& u : unpassed_) {
    const PlyInput& ply = tl.plies_[static_cast<std::size_t>(u.ply)];
    tl.incidents_.push_back({IncidentType::kCaptureNotPassed, ply.board, ply.color, u.since, -1,
                             u.ply,
                             std::string(player_name(player_index(ply.board, ply.color))) +
                                 " kept a captured piece (" + ply.san + ")"});
  }
  // Clock times from the presses: both clocks start at lead_in with White's time running.
  std::sort(presses_.begin(), presses_.end(),
            [](const Press& x, const Press& y) { return x.t < y.t; });
  double end = last_global + opt_.tail;
  std::optional<double> injected_flag_at;
  // Per board and colour, whether a clock has fallen (the injected flag, or one the game's own
  // pace runs out, below).
  std::array<std::array<bool, 2>, 2> fallen{};
  if (flag_ply) {
    // The flagging player's clock is set so that it runs out a few seconds into their turn.
    const PlyInput& ply = tl.plies_[static_cast<std::size_t>(*flag_ply)];
    const int b = ply.board;
    double used = 0, since = opt_.lead_in;
    int running = 0;
    for (const Press& pr : presses_) {
      if (pr.board != b || pr.side != running) continue;
      if (running == ply.color) used += pr.t - since;
      running = 1 - running;
      since = pr.t;
    }
    const double flag_at = last_press[static_cast<std::size_t>(b)] + 3.0;
    if (running == ply.color) used += flag_at - since;
    const int p = player_index(b, ply.color);
    tl.initial_ms_[static_cast<std::size_t>(p)] = static_cast<int>(std::lround(used * 1000));
    end = std::max(end, flag_at + opt_.tail);
    tl.ending_ = std::make_pair(std::string(player_name(p)) + " forfeits on time", p);
    tl.incidents_.push_back({IncidentType::kFlagFall, b, ply.color, flag_at, flag_at, *flag_ply,
                             std::string(player_name(p)) + "'s flag fell"});
    injected_flag_at = flag_at;
    fallen[static_cast<std::size_t>(b)][static_cast<std::size_t>(ply.color)] = true;
  }
  for (int b = 0; b < 2; ++b) {
    std::array<int, 2> ms{tl.initial_ms_[static_cast<std::size_t>(player_index(b, 0))],
                          tl.initial_ms_[static_cast<std::size_t>(player_index(b, 1))]};
    tl.clock_events_.push_back({opt_.lead_in, b, ClockEvent::kStart, 0, ms[0], ms[1]});
  }
  std::array<int, 2> running{0, 0};
  std::array<double, 2> since{opt_.lead_in, opt_.lead_in};
  std::array<std::array<int, 2>, 2> ms{};
  for (int b = 0; b < 2; ++b) {
    for (int c = 0; c < 2; ++c) {
      ms[static_cast<std::size_t>(b)][static_cast<std::size_t>(c)] =
          tl.initial_ms_[static_cast<std::size_t>(player_index(b, c))];
    }
  }
  // A clock the game's own pace runs out (the thinking times of a real game, shortened, can
  // still add up to more than the time control) falls like an injected flag, and the truth
  // says so; the clock goes on below zero, as the game does (clip 11417: White B at
  // -2.9 s, and the flag_fall recorded for it was counted false).
  const auto note_fall = [&](int b, int side, int left_ms, double from, double to) {
    auto& done = fallen[static_cast<std::size_t>(b)][static_cast<std::size_t>(side)];
    if (done || left_ms - (to - from) * 1000 >= 0) return;
    done = true;
    const double at = from + left_ms / 1000.0;
    // The ply: the flagged player's move completed after it, if any.
    int ply_index = -1;
    for (const TimedPly& tp : tl.timed_) {
      const PlyInput& ply = tl.plies_[static_cast<std::size_t>(tp.index)];
      if (ply.board == b && ply.color == side && tp.press >= at &&
          (ply_index < 0 || tp.index < ply_index)) {
        ply_index = tp.index;
      }
    }
    tl.incidents_.push_back(
        {IncidentType::kFlagFall, b, side, at, at, ply_index,
         std::string(player_name(player_index(b, side))) + "'s flag fell (the game's own pace)"});
  };
  for (const Press& pr : presses_) {
    const auto b = static_cast<std::size_t>(pr.board);
    // Pressing the side that is already down does nothing on a real clock.
    if (pr.side != running[b]) continue;
    auto& left = ms[b][static_cast<std::size_t>(pr.side)];
    note_fall(pr.board, pr.side, left, since[b], pr.t);
    left -= static_cast<int>(std::lround((pr.t - since[b]) * 1000));
    running[b] = 1 - pr.side;
    since[b] = pr.t;
    tl.clock_events_.push_back({pr.t, pr.board, ClockEvent::kPress, pr.side, ms[b][0], ms[b][1]});
  }
  if (flag_ply) {
    const PlyInput& ply = tl.plies_[static_cast<std::size_t>(*flag_ply)];
    const auto b = static_cast<std::size_t>(ply.board);
    const double flag_at = *injected_flag_at;
    ms[b][static_cast<std::size_t>(ply.color)] = 0;
    tl.clock_events_.push_back(
        {flag_at, ply.board, ClockEvent::kFlag, ply.color, ms[b][0], ms[b][1]});
    for (int bb = 0; bb < 2; ++bb) {
      const auto bs = static_cast<std::size_t>(bb);
      note_fall(bb, running[bs], ms[bs][static_cast<std::size_t>(running[bs])], since[bs],
                flag_at + 0.5);
      tl.clock_events_.push_back({flag_at + 0.5, bb, ClockEvent::kStop, 0, 0, 0});
    }
  } else {
    for (int bb = 0; bb < 2; ++bb) {
      const auto b = static_cast<std::size_t>(bb);
      note_fall(bb, running[b], ms[b][static_cast<std::size_t>(running[b])], since[b], end - 0.2);
      tl.clock_events_.push_back({end - 0.2, bb, ClockEvent::kStop, 0, 0, 0});
    }
  }
  std::stable_sort(tl.clock_events_.begin(), tl.clock_events_.end(),
                   [](const ClockEvent& x, const ClockEvent& y) { return x.t < y.t; });
  // Remaining times at stops, and each ply's clock after its move.
  {
    std::array<int, 2> run{0, 0};
    std::array<double, 2> last{opt_.lead_in, opt_.lead_in};
    std::array<std::array<int, 2>, 2> left{};
    for (ClockEvent& e : tl.clock_events_) {
      const auto b = static_cast<std::size_t>(e.board);
      if (e.kind == ClockEvent::kStart) {
        left[b] = {e.white_ms, e.black_ms};
        last[b] = e.t;
      } else if (e.kind == ClockEvent::kStop) {
        left[b][static_cast<std::size_t>(run[b])] -=
            static_cast<int>(std::lround((e.t - last[b]) * 1000));
        left[b][static_cast<std::size_t>(run[b])] =
            std::max(0, left[b][static_cast<std::size_t>(run[b])]);
        e.white_ms = left[b][0];
        e.black_ms = left[b][1];
        last[b] = e.t;
        run[b] = -1;
      } else if (e.kind == ClockEvent::kPress) {
        left[b] = {e.white_ms, e.black_ms};
        run[b] = 1 - e.side;
        last[b] = e.t;
      }
    }
  }
  for (TimedPly& tp : tl.timed_) {
    const PlyInput& ply = tl.plies_[static_cast<std::size_t>(tp.index)];
    // Remaining time of the mover at the moment the move was complete.
    int left = tl.initial_ms_[static_cast<std::size_t>(player_index(ply.board, ply.color))];
    int run = 0;
    double last = opt_.lead_in;
    for (const ClockEvent& e : tl.clock_events_) {
      if (e.board != ply.board || e.t > tp.press + 1e-9) continue;
      if (e.kind == ClockEvent::kPress) {
        left = ply.color == 0 ? e.white_ms : e.black_ms;
        run = 1 - e.side;
        last = e.t;
      }
    }
    if (run == ply.color) left -= static_cast<int>(std::lround((tp.press - last) * 1000));
    tp.clock_ms = left;
  }
  // Open-ended incidents end at the next press on the board, or at the end.
  for (Incident& inc : tl.incidents_) {
    if (inc.t_end >= 0) continue;
    inc.t_end = end;
    if (inc.type == IncidentType::kMoveWithoutPress) {
      for (const ClockEvent& e : tl.clock_events_) {
        if (e.board == inc.board && e.kind == ClockEvent::kPress && e.t > inc.t) {
          inc.t_end = e.t;
          break;
        }
      }
    }
  }
  for (const Timeline::Action& act : tl.actions_) end = std::max(end, act.keys.back().t + 0.3);
  tl.end_ = end;
  std::stable_sort(tl.piece_events_.begin(), tl.piece_events_.end(),
                   [](const PieceEvent& x, const PieceEvent& y) { return x.t < y.t; });
}

Timeline::Timeline(const Style& style, const Layout& layout, const std::vector<PlyInput>& plies,
                   const TimelineOptions& options)
    : style_(style), layout_(layout), plies_(plies), initial_(starting_world(style, layout)) {
  const auto meshes = make_piece_meshes(style.design);
  for (int t = 0; t < kPieceTypeCount; ++t) {
    grasp_offset_[static_cast<std::size_t>(t)] =
        meshes[static_cast<std::size_t>(t)].max_corner().z * 0.8f;
  }
  // Premoves are staged by letting the opponent think longer where the premover's hand would
  // otherwise come too late; each wait moves later presses, so the build is repeated.
  std::map<int, double> waits;
  for (int attempt = 0;; ++attempt) {
    TimelineBuilder builder(*this, options, waits);
    builder.build();
    if (builder.premove_shortfalls().empty()) break;
    if (attempt == 4) throw std::logic_error("timeline: a premove cannot be staged in time");
    for (const auto& [ply, seconds] : builder.premove_shortfalls()) waits[ply] += seconds + 0.05;
  }
  for (int b = 0; b < 2; ++b) {
    initial_.clocks[static_cast<std::size_t>(b)] = {
        1, 1, initial_ms_[static_cast<std::size_t>(player_index(b, 0))],
        initial_ms_[static_cast<std::size_t>(player_index(b, 1))]};
  }
}

HandPose Timeline::hand_at(int player, double t) const {
  HandPose h;
  for (const Action& a : actions_) {
    if (a.player != player || t < a.keys.front().t || t > a.keys.back().t) continue;
    h.present = true;
    for (std::size_t k = 0; k + 1 < a.keys.size(); ++k) {
      const HandKey& k0 = a.keys[k];
      const HandKey& k1 = a.keys[k + 1];
      if (t > k1.t) continue;
      const float u = k1.t > k0.t ? static_cast<float>((t - k0.t) / (k1.t - k0.t)) : 1.0f;
      const float s = smoothstep(std::clamp(u, 0.0f, 1.0f));
      h.pinch = lerp(k0.pinch, k1.pinch, s);
      h.grip = k0.grip + (k1.grip - k0.grip) * std::clamp(u, 0.0f, 1.0f);
      return h;
    }
    h.pinch = a.keys.back().pinch;
    return h;
  }
  return h;
}

World Timeline::world_at(double t, int* piece_event_count) const {
  World w = initial_;
  int count = 0;
  for (const PieceEvent& e : piece_events_) {
    if (e.t > t) break;
    ++count;
    PlacedPiece& p = w.pieces[static_cast<std::size_t>(e.uid)];
    if (e.kind == PieceEvent::kAttach) {
      p.place = PiecePlace::kHand;
      p.player = e.hand;
      p.moving = true;
      p.knocked = 0;
    } else {
      p = e.placement;
      p.moving = false;
    }
  }
  if (piece_event_count) *piece_event_count = count;
  for (int p = 0; p < kPlayerCount; ++p) w.hands[static_cast<std::size_t>(p)] = hand_at(p, t);
  for (PlacedPiece& p : w.pieces) {
    if (p.place != PiecePlace::kHand) continue;
    const HandPose& h = w.hands[static_cast<std::size_t>(p.player)];
    p.position = h.pinch - Vec3{0, 0, grasp_offset(p.type)};
  }
  // Clocks: remaining times and the lever, from the events so far.
  for (int b = 0; b < 2; ++b) {
    ClockFace& f = w.clocks[static_cast<std::size_t>(b)];
    int running = -1;
    double since = 0;
    double last_press = -10;
    int previous_down = 1;
    for (const ClockEvent& e : clock_events_) {
      if (e.board != b || e.t > t) continue;
      if (e.kind == ClockEvent::kStart) {
        f.white_ms = e.white_ms;
        f.black_ms = e.black_ms;
        running = 0;
        since = e.t;
      } else if (e.kind == ClockEvent::kPress) {
        f.white_ms = e.white_ms;
        f.black_ms = e.black_ms;
        previous_down = f.down < 0 ? 1 : f.down;
        f.down = e.side;
        running = 1 - e.side;
        since = e.t;
        last_press = e.t;
      } else {
        if (e.kind == ClockEvent::kFlag) (e.side == 0 ? f.white_ms : f.black_ms) = 0;
        running = -1;
      }
    }
    if (f.down < 0) f.down = 1;  // Black's side down before the start: White's time runs
    if (running >= 0) {
      int& left = running == 0 ? f.white_ms : f.black_ms;
      left = std::max(0, left - static_cast<int>(std::lround((t - since) * 1000)));
    }
    // Lever: -1 White's side down, +1 Black's; flips within 80 ms of a press.
    const float target = f.down == 0 ? -1.0f : 1.0f;
    const float from = previous_down == 0 ? -1.0f : 1.0f;
    const float u = static_cast<float>(std::clamp((t - last_press) / 0.08, 0.0, 1.0));
    f.lever = from + (target - from) * u;
  }
  return w;
}

}  // namespace bugcam::samples
