// Per-board evidence over time: the hand visits that an unpressed sequence of moves needs, and
// when a square's change began.
#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <utility>

#include "evidence.hpp"

namespace {

using bugcam::tracker::detail::SquareState;

using bugcam::tracker::BoardObservation;
using bugcam::tracker::detail::BoardEvidence;

// 30 frames a second; `covered` squares covered (the first ones), the rest empty.
BoardObservation frame_at(int frame, int covered) {
  BoardObservation o;
  o.frame = frame;
  o.t = frame / 30.0;
  for (int s = 0; s < covered; ++s) o.squares[static_cast<std::size_t>(s)].occluded = true;
  return o;
}

// Feeds frames [from, to) with `covered` squares covered.
void feed(BoardEvidence& evidence, int from, int to, int covered) {
  for (int f = from; f < to; ++f) evidence.add(frame_at(f, covered));
}

TEST(HandVisits, EachHandOverTheBoardCountsOnce) {
  BoardEvidence evidence;
  feed(evidence, 0, 30, 3);     // pieces' shadows: three squares covered all along
  feed(evidence, 30, 45, 8);    // a hand: 0.5 s
  feed(evidence, 45, 46, 3);    // one frame clear: the same visit
  feed(evidence, 46, 60, 7);    //
  feed(evidence, 60, 90, 3);    // gone for a second
  feed(evidence, 90, 105, 9);   // a second hand
  feed(evidence, 105, 150, 3);  //
  feed(evidence, 150, 160, 4);  // one square more: a shadow moving, no hand
  feed(evidence, 160, 200, 3);
  EXPECT_EQ(evidence.hand_visits(0.0, 200 / 30.0), 2);
  EXPECT_EQ(evidence.hand_visits(0.0, 2.5), 1);  // up to the gap
  EXPECT_EQ(evidence.hand_visits(2.5, 200 / 30.0), 1);
  EXPECT_EQ(evidence.hand_visits(3.6, 200 / 30.0), 0);
  // Forgetting old runs keeps the visits a board's press may look back to.
  evidence.forget_before(5.0);
  EXPECT_EQ(evidence.hand_visits(0.0, 200 / 30.0), 2);
}

TEST(HandVisits, MeasuredFromTheFewestCoveredLately) {
  BoardEvidence evidence;
  feed(evidence, 0, 30, 0);
  // A tall piece put down now covers five squares for good: one visit, not one that lasts.
  feed(evidence, 30, 40, 9);
  feed(evidence, 40, 400, 5);
  feed(evidence, 400, 410, 9);  // the next hand, well after the floor rose to five
  feed(evidence, 410, 440, 5);
  EXPECT_EQ(evidence.hand_visits(0.0, 440 / 30.0), 2);
  EXPECT_EQ(evidence.hand_visits(5.0, 12.0), 0);
}

// Square 20 read as `symbol` ('.', 'w' or '?' for covered) in frames [from, to), the rest
// empty.
void feed_square(BoardEvidence& evidence, int from, int to, char symbol) {
  for (int f = from; f < to; ++f) {
    BoardObservation o = frame_at(f, 0);
    auto& square = o.squares[20];
    square.occluded = symbol == '?';
    square.empty = symbol == '.' ? 0.9f : 0.05f;
    square.white = symbol == 'w' ? 0.9f : 0.05f;
    square.black = 0.05f;
    evidence.add(o);
  }
}

// When square 20's change to a white piece began, read at `t`, after `spans` of frames
// (end frame, reading) from frame 0.
std::optional<double> white_began(std::initializer_list<std::pair<int, char>> spans,
                                  double t = 6.0) {
  BoardEvidence evidence;
  int from = 0;
  for (const auto& [to, symbol] : spans) {
    feed_square(evidence, from, to, symbol);
    from = to;
  }
  return evidence.change_began(20, bugcam::tracker::detail::SquareState::kWhite, t, 20.0);
}

// A square that flickers to a piece with no hand over it (a tall neighbour's body) and then
// gets one put on it by hand: the change began when the hand came (frame 120), not at the
// flicker (frame 60), which made a drop after the opponent's press pass for a premove
// (held-out 5005, h6). The same change under a hand only began when the hand came too.
TEST(ChangeBegan, AReadingWithNoHandOverTheSquareIsNoStart) {
  const auto flicker_first = white_began({{60, '.'}, {120, 'w'}, {150, '?'}, {210, 'w'}});
  ASSERT_TRUE(flicker_first.has_value());
  EXPECT_NEAR(*flicker_first, 119 / 30.0, 0.05);
  const auto hand_only = white_began({{120, '.'}, {150, '?'}, {210, 'w'}});
  ASSERT_TRUE(hand_only.has_value());
  EXPECT_NEAR(*hand_only, 119 / 30.0, 0.05);
  // Under the hand longer than a move takes (3 s), the change may have come at any time in
  // it: the latest, when the hand left.
  const auto long_hand = white_began({{60, '.'}, {120, 'w'}, {210, '?'}, {270, 'w'}}, 8.5);
  ASSERT_TRUE(long_hand.has_value());
  EXPECT_NEAR(*long_hand, 210 / 30.0, 0.05);
}

// Square a4 (24) reads empty, then white from frame `white_from` on, never covered; its
// neighbour b5 (33) is covered in frames [hand_from, hand_to). Returns the changes a press at
// 4.9 s sees since one at 1 s.
BoardEvidence::Changes a4_changes(int white_from, int hand_from, int hand_to) {
  BoardEvidence evidence;
  for (int f = 0; f < 150; ++f) {
    BoardObservation o = frame_at(f, 0);
    auto& a4 = o.squares[24];
    a4.empty = f < white_from ? 0.9f : 0.05f;
    a4.white = f < white_from ? 0.05f : 0.9f;
    a4.black = 0.05f;
    o.squares[33].occluded = f >= hand_from && f < hand_to;
    evidence.add(o);
  }
  return evidence.changes(1.0, 4.9, 20.0);
}

// A piece put on a square at the board's edge by a hand vision sees over a neighbour only
// (held-out 11206: B@a4, the hand read over b5): the square's new reading is a touched change,
// not one without a hand (which counts as a misread). Not when the neighbour's hand left long
// before or well after, nor without one.
TEST(Changes, AReadingChangedAsAHandLeftANeighbourIsTouched) {
  constexpr std::uint64_t a4 = std::uint64_t{1} << 24;
  const BoardEvidence::Changes beside_hand = a4_changes(84, 60, 85);
  EXPECT_NE(beside_hand.touched & a4, 0u);
  EXPECT_NE(beside_hand.changed & a4, 0u);
  const BoardEvidence::Changes no_hand = a4_changes(84, 0, 0);
  EXPECT_EQ(no_hand.touched & a4, 0u);
  const BoardEvidence::Changes hand_long_before = a4_changes(120, 60, 70);
  EXPECT_EQ(hand_long_before.touched & a4, 0u);
  const BoardEvidence::Changes hand_left_after = a4_changes(84, 60, 100);
  EXPECT_EQ(hand_left_after.touched & a4, 0u);
}

// When a player's arm left the board after the visit that made a move (the time an unpressed
// move would have been pressed follows it): the visit begun by the time asked, a frame or two
// without the arm inside it joined, another visit after a longer gap not.
TEST(OwnArmLeft, TheVisitBegunByTheTimeWithItsShortGapsJoined) {
  const bugcam::tracker::Seat white{bugcam::rules::BoardId::kA, bugcam::rules::Color::kWhite};
  const bugcam::tracker::Seat black{bugcam::rules::BoardId::kA, bugcam::rules::Color::kBlack};
  BoardEvidence evidence;
  for (int f = 0; f < 300; ++f) {
    BoardObservation o = frame_at(f, 0);
    // White's arm over frames 30-59 but for frame 45, and 61-69 (one frame out: joined);
    // again over 150-179 (another visit).
    const bool over = (f >= 30 && f < 70 && f != 45 && f != 60) || (f >= 150 && f < 180);
    if (over) o.own_arms.push_back(white);
    evidence.add(o);
  }
  const double gap = 0.2;
  EXPECT_FALSE(evidence.own_arm_left(white, 0.5, gap));  // no visit begun by then
  ASSERT_TRUE(evidence.own_arm_left(white, 1.2, gap));
  EXPECT_NEAR(*evidence.own_arm_left(white, 1.2, gap), 69 / 30.0, 1e-9);  // after the time
  EXPECT_NEAR(*evidence.own_arm_left(white, 4.0, gap), 69 / 30.0, 1e-9);
  EXPECT_NEAR(*evidence.own_arm_left(white, 5.5, gap), 179 / 30.0, 1e-9);
  // Without joining, the visit ends at its first gap.
  EXPECT_NEAR(*evidence.own_arm_left(white, 1.2, 0.0), 44 / 30.0, 1e-9);
  EXPECT_FALSE(evidence.own_arm_left(black, 9.0, gap));
}

// Square `square` reads empty, then white from frame `white_from` on, never covered, nor
// any square beside it; `arm`'s arm is named over the board in frames [arm_from, arm_to).
// Returns the changes a press at 4.9 s sees since one at 1 s.
BoardEvidence::Changes changes_with_arm(int square, int white_from, bugcam::tracker::Seat arm,
                                        int arm_from, int arm_to) {
  BoardEvidence evidence;
  for (int f = 0; f < 150; ++f) {
    BoardObservation o = frame_at(f, 0);
    auto& read = o.squares[static_cast<std::size_t>(square)];
    read.empty = f < white_from ? 0.9f : 0.05f;
    read.white = f < white_from ? 0.05f : 0.9f;
    read.black = 0.05f;
    if (f >= arm_from && f < arm_to) o.own_arms.push_back(arm);
    evidence.add(o);
  }
  return evidence.changes(1.0, 4.9, 20.0);
}

// A piece put on a player's first rank by a hand vision sees over neither the square nor a
// neighbour, while it names that player's arm over the board (held-out 11435: 18A. Bf1): the
// square's new reading is a touched change. Not on a side edge or the other player's rank,
// nor without the arm, nor with the arm gone over a second before.
TEST(Changes, AReadingChangedOnAPlayersFirstRankWithTheirArmOverTheBoardIsTouched) {
  const bugcam::tracker::Seat white{bugcam::rules::BoardId::kA, bugcam::rules::Color::kWhite};
  const bugcam::tracker::Seat black{bugcam::rules::BoardId::kA, bugcam::rules::Color::kBlack};
  constexpr int f1 = 5;
  constexpr int f8 = 61;
  constexpr int a4 = 24;
  const auto touched = [](const BoardEvidence::Changes& c, int s) {
    return (c.touched & (std::uint64_t{1} << s)) != 0;
  };
  EXPECT_TRUE(touched(changes_with_arm(f1, 84, white, 60, 85), f1));
  EXPECT_NE(changes_with_arm(f1, 84, white, 60, 85).changed & (std::uint64_t{1} << f1), 0u);
  EXPECT_TRUE(touched(changes_with_arm(f8, 84, black, 60, 85), f8));
  EXPECT_FALSE(touched(changes_with_arm(f8, 84, white, 60, 85), f8));
  EXPECT_FALSE(touched(changes_with_arm(a4, 84, white, 60, 85), a4));
  EXPECT_FALSE(touched(changes_with_arm(f1, 84, white, 0, 0), f1));
  EXPECT_FALSE(touched(changes_with_arm(f1, 120, white, 60, 70), f1));
}

// Square 20 read `spans` of frames (end frame, reading) from frame 0; the changes a press at
// 10.9 s sees since one at 1 s.
BoardEvidence::Changes square_20_changes(std::initializer_list<std::pair<int, char>> spans) {
  BoardEvidence evidence;
  int from = 0;
  for (const auto& [to, symbol] : spans) {
    feed_square(evidence, from, to, symbol);
    from = to;
  }
  return evidence.changes(1.0, 10.9, 20.0);
}

// A piece put on a square and taken away again between two presses, each by hand (fresh
// 11332: 7a. Bg6 unpressed, then 8a. Bxf7 left g6 empty as before): the square changed,
// though it reads as at the previous press; also when an arm passing over split the piece's
// stay. Not when the other reading was a flicker, nor when it went back with no hand.
TEST(Changes, APieceThatCameAndWentAgainIsAChange) {
  constexpr std::uint64_t square = std::uint64_t{1} << 20;
  const BoardEvidence::Changes came_and_went =
      square_20_changes({{60, '.'}, {70, '?'}, {150, 'w'}, {160, '?'}, {330, '.'}});
  EXPECT_NE(came_and_went.changed & square, 0u);
  EXPECT_NE(came_and_went.revisited & square, 0u);
  const BoardEvidence::Changes split = square_20_changes(
      {{60, '.'}, {70, '?'}, {95, 'w'}, {100, '?'}, {125, 'w'}, {135, '?'}, {330, '.'}});
  EXPECT_NE(split.revisited & square, 0u);
  const BoardEvidence::Changes back_without_hand =
      square_20_changes({{60, '.'}, {70, '?'}, {150, 'w'}, {330, '.'}});
  EXPECT_EQ(back_without_hand.revisited & square, 0u);
  const BoardEvidence::Changes flicker =
      square_20_changes({{60, '.'}, {70, '?'}, {80, 'w'}, {90, '?'}, {330, '.'}});
  EXPECT_NE(flicker.touched & square, 0u);
  EXPECT_EQ(flicker.changed & square, 0u);
  const BoardEvidence::Changes hand_only = square_20_changes({{60, '.'}, {70, '?'}, {330, '.'}});
  EXPECT_EQ(hand_only.changed & square, 0u);
}

// A press's evidence is in when the hand has left the board, and a square it just left has
// been seen for a few frames: a reading of one frame counts next to nothing (fresh clip 7000:
// e4 seen one frame before the press was decided, so a misread of b1 decided 11A. Nb1 for Ne4).
TEST(HandStillOver, UntilTheSquaresItLeftHaveBeenSeenAWhile) {
  BoardEvidence evidence;
  feed_square(evidence, 0, 60, '.');
  feed_square(evidence, 60, 90, '?');
  EXPECT_TRUE(evidence.hand_still_over(1.0));
  feed_square(evidence, 90, 91, 'w');
  EXPECT_TRUE(evidence.hand_still_over(1.0));
  feed_square(evidence, 91, 96, 'w');
  EXPECT_FALSE(evidence.hand_still_over(1.0));
  // A square uncovered before `since` does not hold the press back.
  feed_square(evidence, 96, 126, '?');
  feed_square(evidence, 126, 127, 'w');
  EXPECT_FALSE(evidence.hand_still_over(127 / 30.0));
}

// An empty square under a piece's body reads as that piece (square 20, e3, under a pawn on
// e2, 12): learning shadows beside pieces from it gave every piece around e3 the pawn's rate,
// and a black pawn two files off then "explained" a black reading (held-out 10704: 2a. e5 for
// e6). A square the pieces may hide is left out of what shadows beside pieces are learned
// from; a3 (16), empty and read so under the pawn on a2 (8), still teaches the same offset.
TEST(BesideRate, NotLearnedOnSquaresAPieceHides) {
  std::array<SquareState, 64> states{};
  states[12] = SquareState::kWhite;
  states[8] = SquareState::kWhite;
  const std::size_t below = bugcam::tracker::detail::beside_cell(20, 12, false);
  ASSERT_EQ(below, bugcam::tracker::detail::beside_cell(16, 8, false));
  for (const std::uint64_t leaned_over : {std::uint64_t{0}, std::uint64_t{1} << 20}) {
    BoardEvidence evidence;
    for (int f = 0; f < 400; ++f) {  // enough frames to learn from (kBesideMinReadings)
      BoardObservation o = frame_at(f, 0);
      for (auto& square : o.squares) square = {0.9f, 0.05f, 0.05f};
      o.squares[8] = {0.05f, 0.9f, 0.05f};
      o.squares[12] = {0.05f, 0.9f, 0.05f};
      o.squares[20] = {0.05f, 0.9f, 0.05f};  // e3 reads as the pawn's colour
      evidence.add(o);
    }
    evidence.learn(-1.0, 14.0, states, 0, 0, {leaned_over, 0, 0, 0}, 0);
    const std::optional<double> rate = evidence.beside_rate(SquareState::kWhite, below);
    ASSERT_TRUE(rate.has_value());
    if (leaned_over == 0) {
      EXPECT_GT(*rate, 0.4);  // e3 counted: half the squares at that offset read white
    } else {
      EXPECT_LT(*rate, 0.01);  // only a3 counted, and it read empty
    }
  }
}

}  // namespace
