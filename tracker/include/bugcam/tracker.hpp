// The tracker follows a bughouse game from evidence: per-square occupancy and colour seen
// on both boards, what is visible in the four holding areas, and clock presses. At each
// press it scores every legal move and drop by how well the position it leads to matches
// what was seen, keeps a beam of game histories over both boards, commits moves a few
// presses late (publishing corrections of what it showed provisionally), and reports
// incidents (SPEC.md section 6) instead of skipping what no legal move explains.
//
// Inputs must be given in time order (ties in any order). Output is deterministic.
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "bugcam/capture.hpp"
#include "bugcam/rules.hpp"

namespace bugcam::tracker {

using capture::ClockEvent;
using rules::BoardId;
using rules::Color;

// ---------------------------------------------------------------------------
// Inputs (what vision reports)

// One square in one frame: probabilities of empty / a white piece / a black piece (they
// need not be normalised), or covered by a hand (then the probabilities are ignored).
struct SquareEvidence {
  float empty = 1.0f;
  float white = 0.0f;
  float black = 0.0f;
  bool occluded = false;
  // The square looks different from before the last hand over it, though it reads the same
  // (vision::SquareObservation::altered): something was put there or taken away.
  bool altered = false;
  // In this frame the square looks again as before it was last altered, soon after
  // (vision::SquareObservation::restored): a piece knocked over or pushed, put back.
  bool restored = false;
};

// A player's seat: the board they play on and their colour.
struct Seat {
  BoardId board = BoardId::kA;
  Color color = Color::kWhite;
  friend bool operator==(const Seat&, const Seat&) = default;
};

// One board in one frame, in board coordinates (index = rules::Square, a1 = 0).
struct BoardObservation {
  BoardId board = BoardId::kA;
  double t = 0.0;
  int frame = 0;
  std::array<SquareEvidence, 64> squares{};
  // Seats whose arm reaches over this board in this frame, as vision attributes arms by
  // where they enter the image. An arm from a seat of the other board is
  // `partner_board_touched`. Empty when vision does not attribute arms.
  std::vector<Seat> hands;
  // This board's own seats whose arm vision attributes over it in this frame. Vision names a
  // player's own arm only once the hand is well inside the board, so these say whose hand is
  // surely there, not when it came or left (`hands` times the presser's hand instead, where
  // a source attributes it exactly).
  std::vector<Seat> own_arms;
};

// What one player's holding area shows: visible pieces by type (pawn..queen).
struct HoldingsObservation {
  Seat seat;
  double t = 0.0;
  int frame = 0;
  std::array<int, 5> visible{};
  bool occluded = false;  // a hand covers the area: no evidence
  // Every piece seen there whatever its type, where known: vision counts the pieces far
  // more surely than it reads their types.
  std::optional<int> pieces;
};

// A clock's lever as vision sees it: whose side is down (who pressed last), if known.
// Used with `--clocks vision`; see LeverPressDetector.
struct LeverObservation {
  BoardId board = BoardId::kA;
  double t = 0.0;
  int frame = 0;
  std::optional<Color> down;
  // Something moves over the clock (a hand coming to press it), whether or not the lever
  // can be read.
  bool touched = false;
  // How far the lever stands from Black's side down (0) to White's (1), where vision can
  // tell: part way during a flip.
  std::optional<double> travel;
  // Share of White's and of Black's half of the clock that changed since the last frame
  // (a display's digits, a lever, a hand).
  std::array<double, 2> half_change{};
  // The seconds White's and Black's displays show, where vision read them in this frame.
  std::array<std::optional<int>, 2> display_seconds{};
};

// Probabilities of a piece's type, indexed by rules::PieceType (pawn..king).
using PieceTypeScores = std::array<float, 6>;

// Asked only when doubt remains about a piece's type (a drop or a promotion that later
// moves have not decided, or moves of different pieces to one square, a king's among them):
// the probabilities of each type for the piece on `square` of `board` in frame `frame`, or
// nullopt when it cannot tell.
using PieceTypeOracle =
    std::function<std::optional<PieceTypeScores>(BoardId board, rules::Square square, int frame)>;

// ---------------------------------------------------------------------------
// Outputs

enum class IncidentType : std::uint8_t {
  kIllegalMove,
  kHiddenPiece,
  kCaptureNotPassed,
  kPremove,
  kMoveWithoutPress,
  kPressWithoutMove,
  kFlagFall,
  kPositionDisturbed,
  kPartnerBoardTouched,
};
std::string_view incident_name(IncidentType type);  // "illegal_move", ...
std::optional<IncidentType> incident_from_name(std::string_view name);

struct Incident {
  IncidentType type = IncidentType::kIllegalMove;
  BoardId board = BoardId::kA;  // the board of the player concerned
  Color side = Color::kWhite;   // that player's colour
  double t = 0.0;
  double t_end = 0.0;
  std::string ply;          // "14b" where a move is concerned, else empty
  std::string detail;       // one sentence for the arbiter
  std::vector<int> frames;  // frame numbers worth a snapshot
  // illegal_move and position_disturbed: both boards as the recording continues from them
  // (BFEN, each board with "halfmove fullmove" after it as PGN FEN tags have them), for a
  // record writer that must restart its game record from a set-up position (a piece knocked
  // over and put back changes none: empty).
  std::string position;
  // The recording continues from a position no game can be set up from, so `position` is
  // empty: an illegal move left its mover's own king in check (on this board, or on the
  // other, not answered yet). TrackedMove::record_continues_from follows.
  bool position_unsettable = false;
};

// A move as the tracker decided it. `provisional` moves are the best guess right after the
// press (for live display); committed moves are final and come in press order.
struct TrackedMove {
  BoardId board = BoardId::kA;
  Color side = Color::kWhite;
  int number = 1;   // move number on its board
  std::string ply;  // "14b"
  std::string san;  // as the engine writes it
  rules::Move move;
  // The press that completed it (seconds on the video's timeline); for a move no press timed
  // (made without a press, or pressed while the clock stood), when it would have been
  // pressed: a reach after the mover's arm left the board, where vision named the arm, else
  // when the board first showed it made (its move_without_press incident begins then).
  double t = 0.0;
  std::optional<double> clock;  // mover's remaining time in seconds after the press
  int press = 0;                // index of that press among all presses (both boards)
  bool provisional = false;
  // A drop made before the partner's capture that gave its piece was recorded (the capture
  // pressed after the drop, or made without a press), and that capture: a record lists the
  // capture first.
  bool dropped_on_credit = false;
  bool repays_credit = false;
  // A move that breaks the rules (an illegal_move incident comes with it): `san` is then its
  // long form as seen ("Bf1-f3", "Nxe5" as "Nc4xe5", "P@h8"), which no SAN reader accepts,
  // and the game continues from the position seen (Incident::position).
  bool illegal = false;
  // On the first move committed after an incident that gave no position (Incident::position),
  // once a game can be set up again: both boards after this move, as Incident::position has
  // them, for the record to continue from.
  std::string record_continues_from;
};

// A provisional move that the committed history replaced (or dropped: `now` empty).
struct Correction {
  BoardId board = BoardId::kA;
  int press = 0;
  std::string ply;
  std::string was;  // SAN shown provisionally
  std::string now;  // SAN committed
  double t = 0.0;
};

using TrackerEvent = std::variant<TrackedMove, Correction, Incident>;

// ---------------------------------------------------------------------------

// Per square, the other squares (bit per square) a standing piece there hides from the
// camera (vision::leaned_over): a tilted camera sees a piece's body over the square behind
// it, which vision may then read as that piece. Kings and queens stand taller and are wider
// than the rest, so their bodies reach further.
struct PieceLeans {
  std::array<std::uint64_t, 64> short_pieces{};  // pawns, knights, bishops, rooks
  std::array<std::uint64_t, 64> tall_pieces{};   // kings, queens
};

// Which way a board's pieces cast shadows that may read as pieces (TrackerConfig::shadow_sides).
struct ShadowSides {
  int rank = 0;
  int file = 0;
};

struct TrackerConfig {
  const rules::RuleSet* rules = &rules::otb_rules();
  rules::Position start_a = rules::Position::start();
  rules::Position start_b = rules::Position::start();
  // Time control, to derive remaining clocks where clock events do not carry them.
  std::optional<double> base_seconds;
  double increment_seconds = 0.0;
  // Hypotheses kept, and how many presses (both boards) a move waits before it is final
  // unless every hypothesis already agrees on it.
  int beam_width = 24;
  int commit_lag = 8;
  // Seconds after a press when its evidence is taken to be in.
  double settle_seconds = 0.5;
  // Log-priors of the hypotheses that mean an incident (natural log).
  double prior_press_without_move = -9.0;
  // ... and of the opponent pressing back right after one, the usual way to put it right
  // (both are press_without_move incidents).
  double prior_press_back = -3.0;
  // Added to both where vision saw the presser's own arm well inside the board since the
  // previous press on it (BoardObservation::own_arms): a player reaches over the board to
  // move, not to press without moving (on the dev clips the arms of the injected presses
  // without a move were never named; 10823's 14A. B@d2, read empty, tied with a press without
  // a move, 0.003 apart).
  double own_arm_against_press_without_move = -3.0;
  // A press by the side whose opponent is to move: a clock does not flip for it (a player
  // pressing their own pressed button, a misread lever), so it changes nothing and is no
  // incident. (The opponent's press missed with a move made is a move without a press.)
  double prior_repeated_press = -9.0;
  // The opponent moved before the presser's press (premove).
  double prior_premove = -9.0;
  double prior_move_without_press = -9.0;
  // The board changed in a way no legal move explains (position_disturbed) ...
  double prior_resync = -16.0;
  // ... or as one piece of the presser moved against the rules (illegal_move). Each
  // square's readings count once (not again at every press), so a move's two squares
  // must be able to outweigh this.
  double prior_illegal_move = -8.0;
  // ... which at the game's last press, the game stopping right after it (the footage ending
  // or the clock stopped within 3 s, no clock run out), gains this: an illegal move ends the
  // game (rules-docs 000, art. 1.14), which a legal move there does not explain. On the 86
  // development clips 4 of the 10 illegal moves, all game-ending, were recorded as legal
  // moves with one square unread; 6 took 2 of them back, 4 and 8 did the same.
  double game_ending_illegal_move = 6.0;
  // A shortfall in a holding area is hidden_piece when it lasts this long. A player hides a
  // piece until they drop it (the renderer's hidden pieces, in the 50 development clips:
  // 27, 61 and 104 s), while vision misses a piece that lies there for seconds at a time (a
  // pale piece on a pale table): of the 12 shortfalls reported at 3 s on those clips, the 9
  // false ones lasted 3.7-43 s and the 3 true ones 16-28 s; 10 s drops four false ones, none
  // true. A piece dropped without having been visible since it came is reported at its drop
  // unless a shortfall this long already covers it (Tracker's check of each drop).
  double hidden_piece_seconds = 10.0;
  // An arm over the partner's board counts when it stays this long: a hand held there, not an
  // arm passing or one whose seat vision tells only now and then where it joins another arm
  // (bench/arm_eval on clips 10300-10509: the false stretches lasted 0.30-0.43 s, the staged
  // touches found 0.80 and 1.27 s).
  double partner_touch_seconds = 0.6;
  // Report a piece vision saw knocked over and put back beside a move as position_disturbed
  // (SquareEvidence::restored, or a square read as another piece after a hand and as before
  // after the next). Not where a piece leaning over the square came or went meanwhile. On 27
  // clips with 10 knocks, 8 found and no false knock (README, stop 40); off for comparison.
  bool disturbed_when_restored = true;
  // A square vision saw altered and then restored within this long is a piece disturbed and
  // put back: the renderer stands a knocked-over piece up about 1.3 s after the knock.
  double disturbed_restored_within_seconds = 5.0;
  PieceTypeOracle piece_types;
  // Where nothing but the players' habits can tell, at commit, which of the drops the beam
  // holds was made (the type reading in doubt, or a square vision read alike before and
  // after), prefer one that gives check (see checking_drop_prior in tracker.cpp); off for
  // comparison.
  bool prefer_checking_drops = true;
  // Among drops that fit the squares equally (a piece vision reads empty, under an arm that
  // covered several empty squares), prefer the square furthest from the dropper's edge of the
  // board that a hand touched since the previous press: the arm's far end, where the hand put
  // the piece (see Candidate::reach in tracker.cpp); off for comparison.
  bool prefer_drops_at_arms_reach = true;
  // Tell a capture from a move that took nothing by the captured piece's arrival in the
  // capturer's partner's holding area around the press (see weigh_capture_arrivals in
  // tracker.cpp); off for comparison.
  bool capture_arrivals = true;
  // Move a drop vision did not see, while it is not committed, to another square its drop
  // tied with once a hand covers that square or it reads as the dropper's piece, the board's moves
  // since played again (see relocate_unseen_drops in tracker.cpp); off, only at the board's
  // next press and where the square reads as the dropper's piece, for comparison.
  bool relocate_drops_later = true;
  // Learn where on each board an empty square beside a piece reads as a piece (its shadow)
  // and take such readings for that (see BesideCosts in tracker.cpp); off for comparison.
  bool learn_shadows_beside = true;
  // Per board (A, B): the rank and the file offset from an empty square to a piece whose
  // shadow may read as a piece there (calibration::BoardLooks::shadow_rank_side: +1, the piece
  // one rank up; -1, one rank down; shadow_file_side: +1, one file toward h; -1, toward a;
  // 0, none seen). Until the tracker has learned the board's shadows, and where it learned
  // them rarer, such a reading costs kShadowSideRate, or kShadowFileSideRate along the ranks
  // (see BesideCosts). Only with learn_shadows_beside.
  std::array<ShadowSides, 2> shadow_sides{};
  // Per board (A, B): which squares the pieces hide from the camera. All 0: no lean.
  std::array<PieceLeans, 2> leans_over{};
  // Where to write the scoring of every press, for tuning; nullptr for none.
  std::ostream* debug = nullptr;
  // With `debug`: the game's true moves per board (A, B) in SAN, for tuning. The trace then
  // says at each press where the true history ranks among the candidates and whether the
  // beam kept it.
  std::array<std::vector<std::string>, 2> debug_truth;
};

class Tracker {
 public:
  explicit Tracker(TrackerConfig config = {});
  ~Tracker();
  Tracker(const Tracker&) = delete;
  Tracker& operator=(const Tracker&) = delete;

  void add(const ClockEvent& event);
  void add(const BoardObservation& observation);
  void add(const HoldingsObservation& observation);

  // Resuming a recording: plays moves already committed (in order) before any input, from
  // the config's start boards; `clock` is the mover's remaining time after it, where known.
  void replay_committed(BoardId board, rules::Move move, double t,
                        std::optional<double> clock = std::nullopt);

  // A new calibration (the camera or a board moved): the squares pieces hide from now on,
  // as TrackerConfig::leans_over.
  void set_leans(const std::array<PieceLeans, 2>& leans_over);

  // End of input: decides and commits everything still pending.
  void finish();

  // Events since the last call, in the order they happened.
  std::vector<TrackerEvent> take_events();

  // The boards after the committed moves.
  const rules::Position& committed_board(BoardId board) const;
  int presses_seen() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Turns lever observations into clock events: the clocks' start, a flag fall, and a press when the
// lever comes down on the other side and stays there for `stable_frames` readings (unknown ones
// neither confirm nor break), a hand having come to the clock. Timed by what was seen of it: the
// lever's raised end coming up in the other half of the clock from the pressing hand's; else the
// frames that show the lever part way through its flip; else the flip between two frames; else the
// hand's visit to the clock. Four readings (0.13 s at 30 fps): a lever misread during a hand's pass
// rarely holds that long, and a real press always does (bench/lever_eval: 9 spurious presses in 335
// where two readings gave 23, for 4 fewer found within 0.2 s).
class LeverPressDetector {
 public:
  explicit LeverPressDetector(int stable_frames = 4) : stable_frames_(stable_frames) {}
  // A press is returned once the lever has settled on the other side and the hand that
  // pressed it has left the clock (at most kLongestWait after), timed by what was seen (see
  // the class comment; the hand's visit is timed a lead before its middle).
  // Before a board's first press, its clock's start (kStart) is returned at the first tick
  // of White's display: a small change of White's half of the clock, far less of Black's,
  // after kTickQuietFrames observations without change or touch and before one without
  // change. A display that shows whole seconds rounded down ticks at the start; one that
  // rounds up ticks a second later. A hand at the clock before a start was seen ends the
  // search (it may have started the clock; the next tick would be a second late), and the
  // clocks count from the first frame, as when no tick is seen: a clock started by a hand on
  // its button. One already running when the footage begins and first ticking after a third
  // of a second counts from that tick.
  // A flag fall (kFlag) is returned when a display that was ticking every second stops:
  // kFlagTicks ticks of the running side's display a second apart up to its last one, then
  // kFlagSilenceSeconds with no change of the clock at all, no press and no hand at the
  // clock (a clock stops when a side's time runs out; a tick merely missed, under a hand's
  // shadow, still changes the picture). Its time is a second after that last tick, when a
  // display that rounds down reached zero (one that rounds up would make it a second late).
  // The first flag ends the game: the clocks stopped after it are no more flags.
  std::optional<ClockEvent> add(const LeverObservation& observation);
  // The presses still waiting for their hand to leave, at the end of the footage.
  std::vector<ClockEvent> flush();
  // The clocks run already (a resumed recording has their start): look for no start, and
  // report no remaining times.
  void clocks_running() {
    resumed_ = true;
    for (PerBoard& board : boards_) board.awaiting_start = false;
  }
  // With the time control known, presses (and the start) carry both sides' remaining times:
  // the time control less the time each clock ran between the presses, set right at each
  // tick of the running side's display, when a whole number of seconds remained. Where vision
  // reads the displays (LeverObservation::display_seconds), a side whose display shows the
  // same time in kDisplayReadings readings in a row while its clock stands (Black's before the
  // start, White's being under the lever's raised end then; either while the opponent's runs)
  // and differs from the time counted by more than kDisplayDiffers (in kDisplaySetReadings
  // readings over kDisplaySetSeconds) is taken at the display's whole seconds: clocks set to
  // another time than the time control (a handicap, a game resumed), or any time control when none
  // is given. Each side's display settles its clock (the first such readings): agreeing, the
  // clock is confirmed and later readings that disagree are taken for misreads; setting it, the
  // setting stands only once the side's next stand bears it out. Where the display then agrees
  // with the time counted without the setting (as long held), the setting was a misread and is
  // undone; where it agrees with neither, held as long, the clock is set again.
  void set_time_control(double base_seconds, double increment_seconds) {
    base_seconds_ = base_seconds;
    increment_seconds_ = increment_seconds;
  }

 private:
  // A display reading counts once this many readings in a row agree (LeverReader reads one
  // frame in six: 0.4 s at 30 fps).
  static constexpr int kDisplayReadings = 3;
  // A clock counted otherwise is set only after this many (1 s at 30 fps): a digit misread
  // (part of it hidden or too faint: a 5 or a 0 read as a 1) held for five readings in
  // development 11494.
  static constexpr int kDisplaySetReadings = 6;
  // ... and over at least this long, whatever the frame rate.
  static constexpr double kDisplaySetSeconds = 1.0;
  // A clock counted this far from what its display shows is set to it; nearer, the ticks
  // set it right, and a standing display bounds it (kDisplayFloorAgrees; a press is reported
  // up to a second after it, while the model still counts the other side's clock as running).
  static constexpr double kDisplayDiffers = 2.5;
  // A standing clock's display, held as long as a setting, that agrees this well with the time
  // counted (its second's middle) bounds that time: the display rounds down (as the start's
  // first tick and a setting from the display take it here), so the clock has the seconds shown
  // and less than one more. (A clock rounding up would be held up to a second low.) The running
  // display is hidden under the raised end of its lever, so that its ticks, which set the time
  // counted right, are seen now and then only, and presses seen a few frames late add up until
  // then (held-out 11676, `--clocks vision`: Black A's presses 0.14 s late, White A's clock
  // 1.0 s high from its 8th move on, where a tick's nearest whole was the wrong one). A digit
  // misread by one segment (9 for 8) passes; it moves the clock less than a second, and the
  // next stand's reading bounds it again.
  static constexpr double kDisplayFloorAgrees = 1.5;
  // A touch that began this long before the last reading of the old side still counts.
  static constexpr double kTouchLookback = 1.0;
  // A press waits at most this long (after the lever settled) for the hand to leave.
  static constexpr double kLongestWait = 1.0;
  // A press and a press back (press_and_back): the other side read by the lever's learnt
  // positions in at least this many readings (fewer than stable_frames), between readings of
  // the settled side by them too, a hand at the clock.
  static constexpr int kPressBackReadings = 2;
  // ... the press back timed at least this long after the press.
  static constexpr double kPressBackLeast = 0.05;
  // The lever reads its new side about halfway through its flip, this long after the press.
  static constexpr double kFlipReadLag = 0.03;
  // The lever's flip counts as seen when its two sides were read at most this far apart.
  static constexpr double kFlipSeenGap = 0.05;
  // Read by the learnt positions at most this far apart, the flip lies between the two
  // readings even where no frame caught it part way (the 27 presses with such a gap that fresh
  // 11350-11369 timed by the hand's visit: error mean 0.083 s, max 0.144 s by the visit; 0.013
  // s, 0.041 s by the middle).
  static constexpr double kFlipGlimpsedGap = 0.25;
  // The press comes this long before the middle of the hand's visit to the clock (the hand
  // rests on the button and leaves more slowly than it came).
  static constexpr double kTouchMiddleLead = 0.15;
  // A flip read this far from the hand's visit's timing was a reading the hand disturbed.
  static constexpr double kFlipTouchAgree = 0.15;
  // A lever takes this long to flip (the synthetic clips' levers; a real one about as
  // long): a frame that shows it a share of the way through puts the press that share of
  // the flip earlier.
  static constexpr double kLeverFlipSeconds = 0.08;
  // Travel within this of either end is the lever at rest (and reading noise).
  static constexpr double kPartWay = 0.1;
  // How far a start from the travel may lie outside what the two sides' readings allow.
  static constexpr double kTravelSlack = 0.01;
  // Travel readings kept per board.
  static constexpr double kTravelKeptSeconds = 1.5;
  // The raised end of the lever shows its flip in the other half of the clock from the
  // pressing hand's: a change of at least kFreeHalfLeast of that half between two frames,
  // lasting at most kFreeHalfLongest. More than kFreeHalfMost there is a hand (or its
  // shadow) over that half too, and says nothing of the lever.
  static constexpr double kFreeHalfLeast = 0.008;
  static constexpr double kFreeHalfMost = 0.1;
  static constexpr double kFreeHalfLongest = 0.15;
  // Looked for from this long before the last reading of the old side to this long after the
  // first of the new (a hand over the lever, or its shadow, moves the readings either way),
  // and taken nearest the timing from the hand's visit (else the middle of the two readings),
  // within kFreeHalfAgree of it: other changes of that half (the opponent's display starting
  // to tick, the hand's edge) lie further off.
  static constexpr double kFreeHalfReach = 0.3;
  static constexpr double kFreeHalfAgree = 0.15;
  // A change of that half within this of one over kFreeHalfMost is the hand's.
  static constexpr double kFreeHalfHandGap = 0.1;
  // Half changes are kept back to where a waiting press may look, but no longer than this (a
  // lever hidden for long).
  static constexpr double kHalfChangesKeptSeconds = 10.0;
  // A hand's shadow reaches the lever before the hand: the visit that began up to this long
  // after the lever read its new side is the press's.
  static constexpr double kTouchAfterRead = 0.3;
  // A tick of a display: at least this share of its half of the clock changed (the renders'
  // digits change 2-3 % at the start, 0.4 % and more for one digit; compression noise leaves
  // none), at most kTickMost (a lever or a hand changes far more), and the other half at most
  // kTickOtherShare as much. The tick's own observation may be flagged touched (a bright
  // display's change alone can pass the clock's touch threshold).
  static constexpr double kTickLeast = 0.005;
  static constexpr double kTickMost = 0.06;
  static constexpr double kTickOtherShare = 0.5;
  // A tick counts after this many observations without change or touch: a hand leaving the
  // clock after a press that was missed also ends in a small change.
  static constexpr int kTickQuietFrames = 10;
  // A tick sets the running clock's remaining time to the nearest whole second when that
  // is at most this far from the time counted from the presses (else it was no tick).
  static constexpr double kTickSnapSeconds = 0.3;
  // A flag fall: kFlagTicks ticks of one side a second apart (within kFlagTickSpread), then
  // no change for kFlagSilenceSeconds (two ticks missed in a row would take 2 s). Two ticks:
  // a player may flag a few seconds into a turn.
  static constexpr int kFlagTicks = 2;
  static constexpr double kFlagTickSpread = 0.1;
  static constexpr double kFlagSilenceSeconds = 2.0;
  // Any change of the clock: a tick too small to count as one (some digits change only a
  // segment or two: 0.2 % of the half) is still far above compression noise (none).
  static constexpr double kFlagChangeLeast = 0.001;
  struct Waiting {
    ClockEvent press;
    double last_old_t = 0.0;   // the last reading of the old side
    double first_new_t = 0.0;  // the first reading of the new side
    double settled_t = 0.0;    // when the new side had held stable_frames
    // Both readings by the lever's learnt positions (with its travel): sure of their side.
    bool by_positions = false;
  };
  struct PerBoard {
    std::optional<Color> settled;
    double settled_last_t = 0.0;
    bool settled_last_by_positions = false;  // that reading had the lever's travel
    std::optional<Color> candidate;
    double candidate_first_t = 0.0;
    bool candidate_first_by_positions = false;
    int candidate_frames = 0;
    double candidate_last_t = 0.0;
    bool candidate_all_by_positions = false;  // every reading of it had the lever's travel
    // A press and a press back (press_and_back) waiting for a second sure reading of the
    // settled side.
    std::optional<std::pair<ClockEvent, ClockEvent>> press_back_pending;
    bool touching = false;
    std::optional<double> touch_start;  // of the latest touch
    double touch_end = 0.0;             // its last touched frame
    std::optional<Waiting> waiting;
    std::deque<std::pair<double, double>> travels;  // (t, travel) of the last readings
    // Of the last observations: when their half_change happened (between the observation and
    // the one before), and what it was.
    struct HalfChange {
      double t = 0.0;
      std::array<double, 2> change{};
    };
    std::deque<HalfChange> half_changes;
    // Until the clock's start or the board's first press: looking for the start.
    bool awaiting_start = true;
    std::optional<double> first_t;     // of the first observation
    std::optional<double> start_t;     // the clocks' start, where seen
    std::optional<double> previous_t;  // of the last observation
    // A tick (side, time) seen in the last observation: a tick if neither half changes in
    // this one (a hand coming to the clock goes on changing it).
    std::optional<std::pair<int, double>> pending_tick;
    int quiet_frames = 0;                     // observations in a row without change or touch
    std::array<std::deque<double>, 2> ticks;  // per side, since the last press
    // Per side (White, Black): what its display showed in the latest readings, and how many
    // readings in a row showed it.
    std::array<std::optional<int>, 2> shown;
    std::array<int, 2> shown_readings{};
    // The first time each display showed in readings that agreed, before the clock started.
    std::array<std::optional<int>, 2> shown_at_start;
    // Per side: the display has settled the time counted (agreed with it, or set it, then
    // looked at again while `set_unconfirmed`); later readings that disagree are misreads (a
    // hand or the lever hiding part of a digit makes a 5 or a 0 a 1).
    std::array<bool, 2> display_settled{};
    // Per side, while a display set the clock and no tick has shown the fraction of a second
    // since: the least it can have (it has less than a second more; counted halfway).
    std::array<std::optional<double>, 2> display_floor;
    // Per side: its display set its clock since its last press (the next press by the other
    // side says so, ClockEvent::sets_opponents_clock).
    std::array<bool, 2> set_since_press{};
    // Per side, while a setting from its display awaits the next stand to bear it out: the time
    // counted without it (none without a time control), counted on as the clock runs.
    std::array<bool, 2> set_unconfirmed{};
    std::array<std::optional<double>, 2> remaining_unset;
    // Per side: its clock ran since the setting (a later reading is of another stand).
    std::array<bool, 2> ran_since_set{};
    // Per side: when the readings that agree began.
    std::array<double, 2> shown_since{};
    // Remaining times (White's, Black's) when the running clock started; the running side.
    std::array<std::optional<double>, 2> remaining;
    std::optional<Color> running;
    double running_since = 0.0;
    std::deque<ClockEvent> outgoing;  // found, not yet returned
    // The last few ticks (time, side) and the last press, for flag falls.
    std::deque<std::pair<double, int>> recent_ticks;
    double tick_confirmed_t = 0.0;  // the still observation that confirmed the last tick
    std::optional<double> last_press_t;
    std::optional<double> last_pressed_visit;  // touch_start of the visit at the last press
    double last_change_t = 0.0;                // the last observation with a change or a touch
  };
  std::optional<ClockEvent> ticks_from(PerBoard& board, const LeverObservation& observation);
  ClockEvent with_remaining(PerBoard& board, ClockEvent press) const;
  // Both clocks at the time control, or at what their displays showed where that differs,
  // White's running from `t`.
  void start_clocks(PerBoard& board, double t) const;
  // The display readings of an observation; a clock that stands still showing a time far
  // from the one counted is set to it.
  void note_display(PerBoard& board, const LeverObservation& observation) const;
  // The presses an observation completes, in time order: a press that waited for the hand to
  // leave, then the observation's own press or a press and the opponent's press back.
  std::vector<ClockEvent> press_from(PerBoard& board, const LeverObservation& observation);
  // A press and a press back within stable_frames readings of the lever (press_from), if the
  // reading of the settled side `observation` ends such a glimpse.
  std::optional<std::pair<ClockEvent, ClockEvent>> press_and_back(
      const PerBoard& board, const LeverObservation& observation) const;
  std::optional<ClockEvent> flag_from(const PerBoard& board,
                                      const LeverObservation& observation) const;
  // `by_touch`: the hand's visit to the clock may time it (not for a press and a press back,
  // whose hands' visit spans both).
  ClockEvent timed(const PerBoard& board, const Waiting& waiting, bool by_touch = true) const;
  static std::optional<double> flip_start_from_travel(const PerBoard& board,
                                                      const Waiting& waiting);
  static std::optional<double> flip_start_from_free_half(const PerBoard& board,
                                                         const Waiting& waiting, double around);
  int stable_frames_;
  std::optional<double> base_seconds_;
  double increment_seconds_ = 0.0;
  bool resumed_ = false;
  bool flag_fallen_ = false;
  std::array<PerBoard, 2> boards_{};
};

// The ply label of SPEC.md: move number, then the board letter, upper case for White
// ("14A"), lower case for Black ("14a").
std::string ply_label(BoardId board, Color side, int number);

}  // namespace bugcam::tracker
