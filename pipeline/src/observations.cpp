// Vision's observations as the tracker's inputs. The tracker does not depend on vision, so
// the two vocabularies meet here.
#include <numeric>

#include "bugcam/pipeline.hpp"

namespace bugcam::pipeline {

namespace {

// The probability from which a held piece counts as possibly of a type.
constexpr float kPlausibleType = 0.15f;

std::optional<rules::BoardId> board_named(const std::string& name) {
  if (name == "A") return rules::BoardId::kA;
  if (name == "B") return rules::BoardId::kB;
  return std::nullopt;
}

// "A:white" -> seat A, White.
std::optional<tracker::Seat> seat_named(const std::string& player) {
  const std::size_t colon = player.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const std::optional<rules::BoardId> board = board_named(player.substr(0, colon));
  const std::string colour = player.substr(colon + 1);
  if (!board || (colour != "white" && colour != "black")) return std::nullopt;
  return tracker::Seat{*board, colour == "white" ? rules::Color::kWhite : rules::Color::kBlack};
}

}  // namespace

TrackerInputs to_tracker_inputs(const vision::FrameObservation& observation, int frame, double t,
                                bool with_holdings) {
  TrackerInputs inputs;
  for (const vision::BoardObservation& seen : observation.boards) {
    const std::optional<rules::BoardId> board = board_named(seen.name);
    if (!board) continue;
    tracker::BoardObservation out;
    out.board = *board;
    out.t = t;
    out.frame = frame;
    for (std::size_t sq = 0; sq < 64; ++sq) {
      const vision::SquareObservation& s = seen.squares[sq];
      out.squares[sq] = {s.p_empty, s.p_white, s.p_black, s.occluded, s.altered, s.restored};
    }
    // Arms from the other board's seats are the tracker's hands (partner_board_touched). A
    // player's own arm is attributed only once the hand is well inside the board, so its
    // stretches end before the hand leaves and would date the tracker's reading of a move
    // (hand_left) too early: the board's own players' arms go apart (own_arms), to tell that
    // the presser reached over the board at all.
    for (const std::string& player : seen.arms) {
      const std::optional<tracker::Seat> seat = seat_named(player);
      if (!seat) continue;
      (seat->board != *board ? out.hands : out.own_arms).push_back(*seat);
    }
    inputs.boards.push_back(std::move(out));
  }
  // The tracker compares what it knows a player holds with the visible pieces type by type,
  // and with their count whatever their types.
  // Pieces whose type vision did not read ('?', no model) would look like missing pieces, and
  // an empty area beside them would be taken at its word while the others are not: the
  // holding areas of a frame go to the tracker only when vision read the type of everything
  // it saw there.
  bool untyped = !with_holdings;
  for (const vision::HoldingObservation& seen : observation.holdings) {
    untyped = untyped || seen.counts.contains('?');
  }
  for (const vision::HoldingObservation& seen : observation.holdings) {
    if (untyped) break;
    const std::optional<tracker::Seat> seat = seat_named(seen.player);
    if (!seat) continue;
    tracker::HoldingsObservation out;
    out.seat = *seat;
    out.t = t;
    out.frame = frame;
    out.occluded = seen.occluded;
    // Every piece found, whatever vision made of its type (or counted by type alone).
    int counted = 0;
    for (const auto& [letter, count] : seen.counts) {
      const std::optional<rules::PieceType> type = rules::piece_from_letter(letter);
      if (letter == '?' || (type && *type != rules::PieceType::kKing)) counted += count;
    }
    out.pieces = seen.pieces.empty() ? counted : static_cast<int>(seen.pieces.size());
    if (!seen.pieces.empty()) {
      // A piece counts for every type vision finds plausible for it: a shortfall of a type
      // is then one that no visible piece could make up for, so a misread type does not
      // become a hidden_piece; a missing piece still shows.
      for (const vision::HeldPiece& piece : seen.pieces) {
        for (std::size_t type = 0; type < out.visible.size(); ++type) {
          if (piece.probabilities[type] >= kPlausibleType) ++out.visible[type];
        }
      }
    } else {
      for (const auto& [letter, count] : seen.counts) {
        const std::optional<rules::PieceType> type = rules::piece_from_letter(letter);
        if (!type || *type == rules::PieceType::kKing || *type == rules::PieceType::kNone) continue;
        out.visible[static_cast<std::size_t>(*type)] += count;
      }
    }
    inputs.holdings.push_back(out);
  }
  for (const vision::ClockObservation& seen : observation.clocks) {
    const std::optional<rules::BoardId> board = board_named(seen.board);
    if (!board) continue;
    tracker::LeverObservation out;
    out.board = *board;
    out.t = t;
    out.frame = frame;
    if (seen.lever_down == vision::Lever::kWhite) out.down = rules::Color::kWhite;
    if (seen.lever_down == vision::Lever::kBlack) out.down = rules::Color::kBlack;
    out.touched = seen.touched;
    if (seen.travel) out.travel = *seen.travel;
    out.half_change = {seen.half_change[0], seen.half_change[1]};
    out.display_seconds = seen.display_seconds;
    inputs.levers.push_back(out);
  }
  return inputs;
}

// Two classes: kings and queens stand far taller than the rest (1.5 to 1.8 squares against
// 0.9 to 1.3) and are wider; the middle of the square is where vision reads it.
std::array<tracker::PieceLeans, 2> tracker_leans(const calibration::Calibration& calibration,
                                                 const HidingSizes& sizes) {
  std::array<tracker::PieceLeans, 2> leans{};
  const std::vector<vision::Viewpoint> views = vision::estimate_viewpoints(calibration);
  for (std::size_t i = 0; i < views.size() && i < calibration.boards.size(); ++i) {
    const std::string& name = calibration.boards[i].name;
    if (name != "A" && name != "B") continue;
    tracker::PieceLeans& board = leans[name == "A" ? 0 : 1];
    board.short_pieces = vision::leaned_over(views[i], sizes.short_height, sizes.radius);
    board.tall_pieces = vision::leaned_over(views[i], sizes.tall_height, sizes.tall_radius);
  }
  return leans;
}

std::array<tracker::ShadowSides, 2> tracker_shadow_sides(
    const calibration::Calibration& calibration) {
  std::array<tracker::ShadowSides, 2> sides{};
  for (const calibration::Board& board : calibration.boards) {
    if ((board.name != "A" && board.name != "B") || !board.looks.learned) continue;
    sides[board.name == "A" ? 0 : 1] = {board.looks.shadow_rank_side, board.looks.shadow_file_side};
  }
  return sides;
}

}  // namespace bugcam::pipeline
