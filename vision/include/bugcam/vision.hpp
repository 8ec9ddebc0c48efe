// Vision: what one camera frame shows, given the calibration. Per board and square, the
// probabilities of empty / white piece / black piece and whether something (a hand, an arm,
// a piece in flight) covers it; per holding area, the visible pieces; per clock, which
// lever is down. Knows nothing of chess rules.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <opencv2/core.hpp>

#include "bugcam/calibration.hpp"

namespace bugcam::vision {

struct SquareObservation {
  float p_empty = 1.0f;
  float p_white = 0.0f;
  float p_black = 0.0f;
  bool occluded = false;
  // BoardTracker only: the square looks different from before the hand last over it left,
  // though it reads the same (something was put there or taken away that vision misreads:
  // a pale piece on a pale square). Until a hand covers it again or a new reading is
  // confirmed.
  bool altered = false;
  // BoardTracker only, in one frame: after a hand, the square looks again as it did before
  // it was last altered, soon after (a piece knocked over or pushed aside, then put back).
  bool restored = false;

  // '.', 'w', 'b', or '?' when occluded or unsure (SPEC section 7).
  char symbol() const;
  // As symbol(), whatever the occlusion flag: a tall piece leaning over a corner raises the
  // flag as a hand does, so readers that tell the two apart otherwise read through it.
  char probable_symbol() const;
};

struct BoardObservation {
  std::string name;                           // "A" or "B"
  std::array<cv::Point2d, 4> corners{};       // a1, h1, h8, a8 in image pixels
  std::array<SquareObservation, 64> squares;  // rank * 8 + file, a1 = 0
  // Seats ("A:white" ...) whose arm reaches over this board, by where the arm comes from
  // (ArmWatch; TrackingReader only, empty from FrameReader).
  std::vector<std::string> arms;
  // Eight strings, rank 8 first, files a to h (SPEC section 7).
  std::array<std::string, 8> occupancy() const;
};

// One piece seen lying in a holding area.
struct HeldPiece {
  char letter = '?';     // 'P' 'N' 'B' 'R' 'Q' for white, lower case for black; '?' unread
  cv::Point2d at;        // image pixel of its middle
  float confidence = 0;  // probability of the type read
  std::array<float, 6> probabilities{};  // of P N B R Q K (K always 0); all 0 when unread
};

struct HoldingObservation {
  std::string player;  // "A:white" ...
  // Piece letter (P N B R Q, upper case whatever the colour) -> how many are visible; '?'
  // counts pieces whose type is not read (no piece-type model found).
  std::map<char, int> counts;
  int white_pieces = 0;  // visible pieces by colour, whatever their type
  int black_pieces = 0;
  std::vector<HeldPiece> pieces;
  float confidence = 0.0f;
  // Something large reaches over the area from beyond its outer edges (an arm, a sleeve):
  // the counts then say nothing about what lies there. Set only when the area is read
  // against its empty look (EmptyHoldingLook), where an arm stands out whole.
  bool occluded = false;
};

// What a holding area's strip looks like with nothing in it, pixel by pixel. A piece as pale
// as the table hardly differs from the table's median colour, but it does from the grain and
// print it covers, and its shading does. Learnt from the first frame read (a game starts with
// nothing held) where that frame shows plain table, well away from anything the table test
// flags and not in shadow; where something lay, reached over or cast a shadow then (a hand,
// the tops of the pieces on the nearest rank), the table test goes on reading the strip. It
// follows slow changes of light where the strip shows table close to it. TrackingReader keeps
// one per area, learnt afresh whenever one is made: a recording resumed, or renewed after the
// camera moved, learns it mid-game, pale pieces lying there then taken for table.
struct EmptyHoldingLook {
  cv::Mat look;   // CV_32FC3, strip pixels; empty until the first frame
  cv::Mat known;  // CV_8U, 255 where `look` was learnt from the table itself
};

// One piece the holding network finds: the middle of its silhouette, in strip pixels.
struct HoldingNetPiece {
  cv::Point2d middle;
  bool white = true;
  float confidence = 0;  // the network's probability of a piece's middle there
};

// The holding network's last reading of an area, and the strip it read. The network and the
// piece types are most of the cost of reading the four areas, and most frames find an area as
// it was: held pieces stay put for seconds while the hands are on the boards. So the network
// reads the strip again only when more than a tenth of a piece's base has changed by more than
// the video's noise since it last did (slow changes, the light, add up until they count), and
// until then a piece found where one was typed keeps that piece's type. The readings are of
// the models read_holding was given: a memory is for one pair of models.
struct HoldingNetworkReading {
  cv::Mat strip;  // CV_8UC3: the strip the network read; empty until it has read one
  std::vector<HoldingNetPiece> pieces;
  std::vector<HeldPiece> typed_pieces;  // typed since, on strips found as this one
};

// What read_holding keeps of one holding area from frame to frame.
struct HoldingAreaMemory {
  EmptyHoldingLook empty_look;
  HoldingNetworkReading network;
  // Where recent frames counted a piece of the network's on no blob (strip pixels), and how
  // many frames read since did not count one there: a piece lying still stays counted while
  // the network is less sure of it. Kept while an arm covers the area: a piece taken from a
  // place leaves table there, which the empty look tells from a piece.
  struct CountedAlone {
    cv::Point2d at;
    int frames_missed = 0;
  };
  std::vector<CountedAlone> counted_alone;
};

enum class Lever { kWhite, kBlack, kUnknown };
const char* lever_name(Lever lever);  // "white", "black", "unknown"

struct ClockObservation {
  std::string board;
  Lever lever_down = Lever::kUnknown;  // whose side of the clock is pressed
  float confidence = 0.0f;
  // Something moves over the clock (a hand coming to press it): LeverReader only.
  bool touched = false;
  // How far the lever stands from Black's side down (0) to White's side down (1), once
  // LeverReader has learnt both its positions: a frame during a flip shows it part way.
  std::optional<float> travel;
  // Share of White's and of Black's half of the clock's area that changed since the last
  // frame (LeverReader only): a display's digits changing, a lever flipping, a hand.
  std::array<float, 2> half_change{};
  // What the display shows, White's and Black's seconds (LeverReader only, on some of the
  // frames where nothing moves over the clock; see read_clock_display).
  std::array<std::optional<int>, 2> display_seconds{};
};

struct FrameObservation {
  std::vector<BoardObservation> boards;
  std::vector<HoldingObservation> holdings;
  std::vector<ClockObservation> clocks;
};

// --- Piece types (issue 4) ---------------------------------------------------------------

// Probabilities of pawn, knight, bishop, rook, queen, king (the order of kPieceTypeLetters).
inline constexpr std::string_view kPieceTypeLetters = "PNBRQK";
using TypeProbabilities = std::array<float, 6>;

// The piece-type classifiers: two small convolutional networks (ONNX, run by OpenCV's dnn)
// over a piece's grey patch, one for pieces standing on a square, one for pieces in a
// holding area (standing, lying, touching). Trained on synthetic stills by
// scripts/train-piece-types.sh; the trained files live in vision/models/. Thread-safe: one
// network runs at a time.
class PieceTypeModel {
 public:
  // Loads piece_types_board.onnx and piece_types_holding.onnx from `dir`. Throws
  // std::runtime_error naming the file when one is missing or unreadable.
  explicit PieceTypeModel(const std::filesystem::path& dir);
  ~PieceTypeModel();
  PieceTypeModel(const PieceTypeModel&) = delete;
  PieceTypeModel& operator=(const PieceTypeModel&) = delete;

  // The models shipped with bugcam: vision/models in the source tree this binary was built
  // from, else ../share/bugcam/models beside the executable. Empty when neither exists.
  static std::filesystem::path bundled_dir();
  // The bundled models, or nullptr when there are none (types then read '?').
  static std::shared_ptr<const PieceTypeModel> load_bundled();

  // Probabilities from a patch made by square_patch() / holding_patch().
  TypeProbabilities board_piece(const cv::Mat& patch) const;
  TypeProbabilities holding_piece(const cv::Mat& patch) const;
  // board_piece's mean over the patch and five variants of it: mirrored, and each of the two
  // scaled by 0.9 and 1.1 about the piece's base. The network learnt from such variants, so
  // each is as fair a look, and a piece misread in one is mostly read right in the others
  // (test stills 95.0 -> 96.5 %). The same, up to rounding, for a mirrored patch. Six times
  // board_piece's cost: for the few squares the tracker asks about.
  TypeProbabilities board_piece_looks(const cv::Mat& patch) const;

 private:
  struct Networks;
  std::unique_ptr<Networks> networks_;
};

// The image of the piece standing on `square` (a1 = 0) of `board`, cut out and turned so that
// the piece stands upright in it: the square's footprint at the bottom and, above it, where a
// standing piece's body goes in this view (a tilted camera sees pieces lean away from it;
// where, follows from the board's homography). Grey, kSquarePatchSize.
inline const cv::Size kSquarePatchSize{40, 80};
cv::Mat square_patch(const cv::Mat& frame_bgr, const calibration::Board& board, cv::Size image_size,
                     int square);
// The image around a piece lying in a holding area at `image_point`, turned the same way.
// Grey, kHoldingPatchSize.
inline const cv::Size kHoldingPatchSize{56, 56};
cv::Mat holding_patch(const cv::Mat& frame_bgr, const calibration::Board& board,
                      cv::Size image_size, cv::Point2d image_point);

// Probabilities of the piece types in `candidates` (letters of kPieceTypeLetters, e.g. "NB")
// for the piece on `square` of board `board_name` in this frame (read by board_piece_looks),
// the others 0; nullopt when the board is not calibrated or no candidate is given.
std::optional<TypeProbabilities> square_piece_types(const cv::Mat& frame_bgr,
                                                    const calibration::Calibration& calibration,
                                                    const std::string& board_name, int square,
                                                    std::string_view candidates,
                                                    const PieceTypeModel& model);

// --- Square reading network (issue 4) -----------------------------------------------------

// Empty / white piece / black piece, per square of one board (a1 = 0).
using SquareProbabilities = std::array<std::array<float, 3>, 64>;
struct Viewpoint;

// The network's view of a board: its top-down warp shrunk to kSquareNetPx pixels per square
// (INTER_AREA), colour, 8 * kSquareNetPx square, rank 8 at the top.
inline constexpr int kSquareNetPx = 8;
cv::Mat square_net_board(const cv::Mat& warped_bgr);
// The network's input for one board (5 x H x W floats written at `out`, H = W = 8 *
// kSquareNetPx + 2 * kSquareNetMargin): the board's colours minus their mean per channel,
// over their spread (at least kSquareNetMinSpread levels), zero on a margin of
// kSquareNetMargin pixels around; then, everywhere, how far and which way a piece one square
// tall leans at that point in this view (x right, y down, times kSquareNetLeanScale; zero
// when the camera's height is unknown). scripts/train_squares.py builds the same.
inline constexpr int kSquareNetMargin = 8;
inline constexpr int kSquareNetSide = 8 * kSquareNetPx + 2 * kSquareNetMargin;
inline constexpr float kSquareNetMinSpread = 8.0f;
inline constexpr float kSquareNetLeanScale = 2.0f;
void square_net_input(const cv::Mat& board_bgr, const Viewpoint& view, float* out);

// The square-reading network: a small fully convolutional network (ONNX, run by OpenCV's dnn)
// that reads all 64 squares of a board at once from square_net_input, each from the 5x5
// squares around it (a tilted camera shows pieces leaning over the squares behind them).
// Trained on synthetic clips by scripts/train-squares.sh. Thread-safe: one run at a time.
class SquareModel {
 public:
  // Throws std::runtime_error naming the file when it is missing or not such a network.
  explicit SquareModel(const std::filesystem::path& file);
  ~SquareModel();
  SquareModel(const SquareModel&) = delete;
  SquareModel& operator=(const SquareModel&) = delete;

  // squares.onnx beside the piece-type models (PieceTypeModel::bundled_dir()); empty when
  // there is none.
  static std::filesystem::path bundled_file();
  // The bundled network, or nullptr when there is none.
  static std::shared_ptr<const SquareModel> load_bundled();

  // Each board's squares, from its top-down warp (any square_px) and viewpoint; one batch.
  std::vector<SquareProbabilities> read(const std::vector<cv::Mat>& warped_bgr,
                                        const std::vector<Viewpoint>& views) const;

 private:
  struct Network;
  std::unique_ptr<Network> network_;
};

// Who reads a board's squares empty / white / black. The network reads the dev clips' squares
// better than the hand-written reader (98.2 against 96.8 % single frame) but some looks it did
// not learn from worse (rendered stills of other seeds, the labelled real photos: 787 against
// at least 823 of 832); the hand-written reader fails whole boards on others (held-out 9806:
// white pieces on white squares read empty). kAsCalibrated takes each board's
// calibration::Board::squares_by_network, chosen on the start position
// (choose_square_readers). kChecked is kAsCalibrated with the pieces the hand-written
// reader sees checked by the network: where it sees a piece (occlusion flag or not) and the
// network is sure the square is empty (kCheckedEmptyAtLeast), the network's reading is
// taken. The hand-written reader takes a light square's shadow, or a pale piece's body
// leaning over it, for a white piece; the network rarely does (7 clips of stops 34-35: 8066
// such square-frames -> 1319). kFused (the default) is broader but stricter: on a board read
// by hand, wherever the network is very sure (kFusedSureAtLeast) of another state than the
// hand-written reader's probable one (flagged covered or not; the flag stays), the network's
// reading is taken, pieces as well as empties (a pale piece on a light square the
// hand-written reader takes for the square, the network often sees); only on boards
// network_fuses_start allows (where the network misread more of the start position, beyond a
// square, it also missed pieces in play: 10703's white pieces, read empty). Where the network finds
// another state than the hand-written reader's probable one likely, but not surely
// (kFusedDoubtAtLeast), the square is in doubt: it takes the mean of the two readings, so that
// the hand-written reader's sure misreads weigh little (the mean may still read its state,
// and reads the network's surely only where the hand-written reader was unsure).
// Likewise on a board the calibration gave the network (any reader but kNetwork), where it finds a
// square empty at least as likely as not but below kFusedSureAtLeast and the hand-written reader
// finds a piece, the square is in doubt: the mean of the two, the piece made no likelier than
// empty (the network was chosen there as the better reader). The network misses pale pieces
// on light squares in some looks (held-out 11420: B's bishop on d3 read empty for 8 s, and
// 5B. Be2 was recorded for Bd3; 11422: B's king on e2); the 7 clips with such boards,
// recorded again: 11420 and 11422 exact in moves (19/20 and 63/72 before), the rest unchanged.
enum class SquareReader { kAsCalibrated, kHand, kNetwork, kChecked, kFused };
// Sure, not merely likelier: the network misses more pieces than the hand-written reader
// (7 clips: 1251 against 1151 square-frames), so only its confident empties overrule.
inline constexpr float kCheckedEmptyAtLeast = 0.9f;
// Where the network is this sure and the hand-written reader reads otherwise, unflagged, on
// single frames of 19 clips with no hand over the board (every 10th), the network was right
// and the hand-written reader wrong in 4376 square-frames, the reverse in 339 (at 0.9: 5044
// and 1059; at 0.999: 3449 and 94).
inline constexpr float kFusedSureAtLeast = 0.99f;
// Where the network finds another state than the hand-written reader's probable one at least
// this likely (as likely as not) but below kFusedSureAtLeast, the square is in doubt. Between
// 0.9 and 0.99 the two readers were each right about as often (the counts above: the network
// alone right in 668 square-frames, the hand-written reader alone in 720; below 0.9 not
// counted so), and the hand-written reader's sure misreads decided moves (10802's white rook
// on e8 read empty, network 0.78 white; its rook's shadow on b1 read as a white piece,
// network 0.89 empty).
// 19 clips recorded again: 1087 of 1111 moves right -> 1097 of 1109, 11 -> 13 games exact;
// 6 new ones 338 -> 340 of 351, 3 -> 4 (README, stop 51).
inline constexpr float kFusedDoubtAtLeast = 0.5f;
// "auto", "hand", "network", "checked", "fused" (the command line's --squares); nullopt for
// another name.
std::optional<SquareReader> square_reader_named(std::string_view name);
// The names square_reader_named takes, in the order above.
std::vector<std::string> square_reader_names();
// What --squares does, for the command line's help.
inline constexpr const char* kSquareReadersHelp =
    "Who reads squares empty / white / black: auto (per board, the reader the calibration "
    "chose on the start position), hand (the hand-written reader), network (the square "
    "network; the hand-written reader when its file is missing), checked (as auto, but a piece "
    "the hand-written reader sees where the network is sure of an empty square reads empty) or "
    "fused (the default: as auto, but on a board read by hand where the network misread no "
    "more of the start position than the hand-written reader, or one square at most, wherever "
    "the network is sure at p >= 0.99 of another reading, the network's is taken, and where it "
    "finds another than the hand-written reader's at p >= 0.5 but less surely, the square is in "
    "doubt: the mean of the two readings)";
// The name square_reader_named takes for `reader`.
std::string_view square_reader_name(SquareReader reader);

class HoldingModel;

struct VisionOptions {
  // Pixels per square of the top-down warp the squares are read from.
  int square_px = 32;
  // Types of the pieces in holding areas; nullptr: the bundled model when
  // bundled_piece_types, else counted by colour only ('?').
  std::shared_ptr<const PieceTypeModel> piece_types;
  bool bundled_piece_types = true;
  // Whether the holding areas are read at all: counting and typing their pieces is a good
  // part of a frame's cost, wasted where nothing uses them.
  bool read_holdings = true;
  // TrackingReader reads the holding areas on every this-many-th frame only (the first
  // included): what lies there changes at a player's pace, not a frame's, and reading the
  // areas costs more than the rest of TrackingReader's part of a frame. Below 1 counts as 1.
  int holdings_every = 1;
  // Whether the clock levers are read (read_clock, and TrackingReader's LeverReader): a
  // recording whose presses come from a clock log has no use for them, and they cost about a
  // tenth of its main thread.
  bool read_clocks = true;
  // Whether TrackingReader attributes arms over the boards to seats (ArmWatch).
  bool watch_arms = true;
  // Who reads each square's empty / white / black (see SquareReader). The square network is
  // square_model, else the bundled one; the hand-written reader, with a warning on stderr,
  // when there is none. The occlusion flag is the hand-written reader's either way.
  SquareReader squares = SquareReader::kFused;
  std::shared_ptr<const SquareModel> square_model = nullptr;
  // Whether the holding network finds the held pieces (read_holding): holding_model, else the
  // bundled one; the blobs, with a warning on stderr, when there is none. 19 clips of stop 44,
  // areas whose own player's hand is away, every 10th frame, counted exactly: see README
  // (stop 47).
  bool holdings_by_network = true;
  std::shared_ptr<const HoldingModel> holding_model = nullptr;
};

// --- Where the camera stands -----------------------------------------------------------

// The camera over one board, in board coordinates (squares). A standing piece rises toward
// the camera, so on the board plane (in the top-down warp) its body lies beyond its base,
// away from the point under the camera: a point h squares above board point p is seen
// where p + lean(p, h) is.
struct Viewpoint {
  cv::Point2d nadir{4, 4};   // the board-plane point under the camera
  double camera_height = 0;  // above the board plane; 0 when unknown (no lean)
  cv::Point2d lean(cv::Point2d board_point, double height_squares) const;
  bool operator==(const Viewpoint&) const = default;
};
// The focal length in pixels, from the boards' homographies (principal point at the image
// centre); a typical webcam's when the boards are seen too nearly straight down to tell.
double estimate_focal_px(const calibration::Calibration& calibration);
Viewpoint estimate_viewpoint(const calibration::Board& board, double focal_px, cv::Size image_size);
// One per board of the calibration, in its order.
std::vector<Viewpoint> estimate_viewpoints(const calibration::Calibration& calibration);
// For each square (a1 = 0), the other squares (bit per square) whose centre a piece standing
// there, `height_squares` tall, hides in this view: its body, from its base up, passes within
// `radius` squares of their centres. All 0 for a camera straight overhead or unknown.
std::array<std::uint64_t, 64> leaned_over(const Viewpoint& view, double height_squares,
                                          double radius);

// Where each square of a board's top-down warp (square_px per square, rank 8 at the top) is
// read, given the viewpoint: pixel indices (y * width + x) of the warp.
struct SquareSampling {
  int square_px = 0;
  // Where the square's own piece shows: its base and lower body, along the lean.
  std::array<std::vector<int>, 64> base;
  // The square's four corner patches, each with the squares (bit per square) whose piece
  // could lean over it: with those squares empty it shows the board's colour unless
  // something else (a hand) covers it.
  struct Patch {
    std::vector<int> pixels;
    std::uint64_t reached_from = 0;
  };
  std::array<std::array<Patch, 4>, 64> corners;
  // Per pixel of `base`, the other squares (bit per square) whose piece can cover it.
  std::array<std::vector<std::uint64_t>, 64> base_reached_from;
  // Per pixel of `base`, the square it lies on (a1 = 0): a body leaning over the edge.
  std::array<std::vector<std::uint8_t>, 64> base_on;
  // The squares ordered from the nearest the point under the camera to the farthest.
  std::array<int, 64> front_to_back{};
};
SquareSampling plan_sampling(const Viewpoint& view, int square_px);
// What each square looks like, read where `plan` says: a square's base region is read
// without the pixels a piece on an occupied square in front of it can cover, and without
// shadows (its colour darkened, hue kept) unless it shows a piece anyway. Squares are read
// front to back; one whose region differs over more than kSamplingPieceFraction counts as
// occupied for the squares behind it.
// With learnt looks, pixels like a shadow of the start position's light count as shadow too.
inline constexpr float kSamplingPieceFraction = 0.07f;
calibration::BoardAppearance measure_board(const cv::Mat& warped_bgr, const SquareSampling& plan,
                                           const calibration::BoardLooks& looks = {});

// Which way the light cast the pieces' shadows along the files, from a top-down view of the
// start position (calibration::warp_board's layout, `square_px` pixels per square), as
// calibration::BoardLooks::shadow_rank_side: +1 where the light squares of rank 6 (under the
// shadows of rank 7 when they fall toward rank 1) are more than kShadowLumaDrop luma
// levels darker in their middle than both ranks 4 and 5 (where no piece casts) and the line
// through them, -1 where rank 3 is, 0 where neither or both are (a hot spot in the board's
// middle). On the first frames of the 35 rendered clips 10 of the 70 boards showed a side, by
// 5 to 32 levels; replays gave the same moves with a drop of 2 and 5 as with 3.
// The pieces of a camera's far side lean over rank 6 (or 3) as their shadows would; the
// tracker's leans explain those readings anyway. `a1_is_dark`: the board's parity
// (calibration::BoardAppearance::a1_is_dark). Throws std::invalid_argument for another view.
inline constexpr double kShadowLumaDrop = 3.0;
int shadow_rank_side(const cv::Mat& warped_bgr, int square_px, bool a1_is_dark);

// Which way the light cast the pieces' shadows along the ranks, from a frame of the start
// position, as calibration::BoardLooks::shadow_file_side: +1 where the strip just beyond the
// a-file's edge is more than kShadowLumaDrop luma levels darker beside both ends' two
// ranks (under the shadows of the a- and b-file pieces when they fall toward the a-file) than
// beside ranks 3 to 6, -1 where the strip beyond the h-file is, 0 where neither or both are,
// or a strip lies outside the frame. Those are the only shadows of the start position that
// fall off its pieces sideways: the squares beside them all hold pieces. A strip that a piece
// as tall as the tallest on its corner squares would lean over in `view` is not read, and the
// other side decides alone: their bodies darken it as a shadow would (dev 11532: both boards'
// outer strips, beyond their a-files). Throws std::invalid_argument for another frame.
int shadow_file_side(const cv::Mat& frame_bgr, const calibration::Board& board,
                     const Viewpoint& view, int square_px);

// Learns each board's looks (calibration::BoardLooks: its pieces' colours, its shadows) from a
// frame of the start position, ranks 1-2 white, 7-8 black, 3-6 empty, in the calibration's
// orientation. A board whose squares do not show that position keeps what it had. Returns
// how many boards learnt.
int learn_looks(const cv::Mat& frame_bgr, calibration::Calibration& calibration,
                int square_px = 32);

// Chooses who reads each board's squares (calibration::Board::squares_by_network) on a frame
// of the start position, where the truth is known: the network where it misreads at least
// kNetworkClearlyFewer fewer squares than the hand-written reader (with the board's looks,
// where learnt), and at most kNetworkStartMisreadsAtMost (else the board may not show the
// start position). Both counts are kept in the board. Returns how many boards chose the
// network.
inline constexpr int kNetworkClearlyFewer = 3;
inline constexpr int kNetworkStartMisreadsAtMost = 8;
// That rule, on the two counts.
bool network_reads_start_better(int hand_misreads, int network_misreads);
// Whether a board read by hand is fused (SquareReader::kFused): both readers were tried on
// the start position, the network misread no more of its squares than the hand-written reader or at
// most kNetworkStartMisreadsTolerated, and at most kNetworkStartMisreadsAtMost (more: the frame may
// not show the start position).
bool network_fuses_start(int hand_misreads, int network_misreads);
// One square of 64 misread on the start position says little of a reader: boards the
// hand-written reader read whole and the network but for one were left unfused (10704's board
// A, whose hand-written reader then took an arm's shadow on d3 for a white pawn for 1.6 s,
// the network 1.00 sure of an empty square: 3A. d3 recorded for d4). More are not: fused,
// 10703's board A (network 3, hand 2) lost its track at 9a.
inline constexpr int kNetworkStartMisreadsTolerated = 1;
int choose_square_readers(const cv::Mat& start_frame_bgr, calibration::Calibration& calibration,
                          const SquareModel& model, int square_px = 32);
// All a calibration learns from a frame of the start position: the looks (learn_looks) and,
// with a square network, each board's square reader (choose_square_readers). Returns how
// many boards learnt looks.
int learn_start_position(const cv::Mat& start_frame_bgr, calibration::Calibration& calibration,
                         const SquareModel* square_model);

// The squares of several boards seen in the same frame (classify_squares).
struct SquareClassification {
  std::vector<std::array<SquareObservation, 64>> boards;
  float white_black_luma = 128.0f;  // the luma that splits white from black pieces
};

// The boards of one frame as that frame alone shows them (FrameReader::read_boards). Reading
// them needs no other frame, so it may be done ahead, on another thread.
struct BoardsReading {
  SquareClassification classified;  // the squares, per board of the calibration
  std::vector<cv::Mat> warps;       // each board's top-down warp (8 * square_px square)
};

// Reads frames against one calibration. Holds only the calibration and buffers: the same
// frame always gives the same observation.
class FrameReader {
 public:
  explicit FrameReader(calibration::Calibration calibration, VisionOptions options = {});

  FrameObservation read(const cv::Mat& frame_bgr) const;
  // The same, also handing out each board's top-down warp (8 * square_px square, rank 8 at
  // the top), in the order of calibration().boards.
  // With `holding_memories` (one per holding area of the calibration, in its order), the
  // holding areas are read against their empty looks, which this learns and keeps up, and the
  // holding network reads only the areas that changed (HoldingNetworkReading).
  FrameObservation read(const cv::Mat& frame_bgr, std::vector<cv::Mat>* warped_boards,
                        std::vector<HoldingAreaMemory>* holding_memories = nullptr) const;
  // The same in two steps: the boards (thread-safe), then the rest of the frame given them.
  // The boards must be read through a reader of this calibration (a copy of this one); the
  // second step throws std::invalid_argument when their number differs from the calibration's.
  BoardsReading read_boards(const cv::Mat& frame_bgr) const;
  // `read_holdings_now`: whether this frame's holding areas are read (where
  // options().read_holdings).
  FrameObservation read(const cv::Mat& frame_bgr, BoardsReading boards,
                        std::vector<cv::Mat>* warped_boards,
                        std::vector<HoldingAreaMemory>* holding_memories = nullptr,
                        bool read_holdings_now = true) const;
  const calibration::Calibration& calibration() const { return calibration_; }
  const VisionOptions& options() const { return options_; }
  // Whether board `board` (index in calibration().boards) has its squares read by the network.
  bool reads_by_network(std::size_t board) const;
  // Whether board `board`'s pieces read by hand are checked by the network (kChecked).
  bool checks_by_network(std::size_t board) const;
  // Whether board `board`'s readings by hand give way to the network's sure ones, and are in
  // doubt where it finds others likely (kFused).
  bool fuses_with_network(std::size_t board) const;

 private:
  calibration::Calibration calibration_;
  VisionOptions options_;
  std::vector<SquareSampling> sampling_;  // per board
  std::vector<Viewpoint> views_;          // per board
  enum class BoardReader { kHand, kNetwork, kHandChecked, kHandFused };
  std::vector<BoardReader> board_readers_;  // per board
  // Whether the network reads board `board` at all (kNetwork, kHandChecked or kHandFused).
  bool runs_network(std::size_t board) const;
  std::vector<calibration::BoardWarp> warps_;  // per board: its top-down warp
};

// --- Temporal evidence ------------------------------------------------------------------

struct TrackerOptions {
  // A square's appearance is compared at this many pixels per square (the warp is shrunk).
  int compare_px = 16;
  // Frames a new reading must hold, with nothing moving nearby, before it replaces the
  // confirmed one.
  int confirm_frames = 2;
  // Frames without motion nearby after which a covered square that stopped matching its
  // still view may be read again; override_frames when the single frame flags it covered
  // (a hand at rest, or a tall piece leaning over the square's corners).
  int release_frames = 2;
  // Frames a confident single-frame reading must disagree with the confirmed one, on a
  // square whose still view barely changed, before the confirmed one is replaced (a black
  // piece put on a dark square can look like a shadow to the still-view comparison).
  int override_frames = 12;
  // Frames after a square was altered within which its looking as before again is a
  // restoration (SquareObservation::restored): a knocked-over piece is stood up again within
  // a second or two; a piece moved away and another like it put there takes longer.
  int restore_frames = 150;
  // Unsure frames with no hand over them that lean clearly to a piece (white or black by a
  // margin) count towards that piece as a new reading, and release a square covered since
  // the hand once calm this long: with this many frames of it in all, sure or leaning, it is
  // confirmed. Where the two square readers disagree for good the fused reading stays
  // unsure, and a piece seen sure only now and then was otherwise never confirmed (held-out
  // 11477: a black knight on d4, black by the hand-written reader and empty by the network,
  // unsure for 36 s, and the move that put it there was lost).
  int leaning_confirm_frames = 15;
};

// Follows one board through a video. Each square keeps a reference "still view" and its
// last confirmed reading. A square is covered ('?') from the frame something new moves over
// it (differs from both the previous frame and its still view) until it matches its still
// view again or, nothing having moved nearby, the single-frame reading sees it clear (or,
// calm for longer, leans clearly to a new piece: leaning_confirm_frames). A
// square that stopped matching its still view with nothing over it changes its reading once
// the new reading has held for a few frames. An empty square a hand has left that reads as
// a piece is unsure ('?') until the new reading is confirmed, even where its still view
// barely changed (a pale piece on a pale square, whose body stands over the next square
// under a tilted camera). Shadows (the still view darkened, hue kept) are not changes.
// Deterministic: the same frames in the same order give the same output.
class BoardTracker {
 public:
  explicit BoardTracker(TrackerOptions options = {});

  // warped_bgr: this frame's top-down warp of the board (as FrameReader hands out);
  // single_frame: this frame's per-square reading from its appearance alone. Returns the
  // squares as followed over time.
  std::array<SquareObservation, 64> update(const cv::Mat& warped_bgr,
                                           const std::array<SquareObservation, 64>& single_frame);
  // Forget everything (camera moved, new calibration).
  void reset();
  // The last confirmed reading of each square ('.', 'w', 'b', '?' before the first).
  const std::array<char, 64>& confirmed() const { return confirmed_; }

 private:
  TrackerOptions options_;
  cv::Mat previous_;   // last frame, CV_32FC3, compare_px per square
  cv::Mat reference_;  // still view, CV_32FC3
  std::array<char, 64> confirmed_{};
  std::array<bool, 64> covered_{};
  // Covered since its reading was last confirmed or seen as before: what a hand left there
  // is not known yet.
  std::array<bool, 64> visited_{};
  // Seen unlike its still view, reading the same, once the hand that visited it had left
  // (SquareObservation::altered).
  std::array<bool, 64> altered_{};
  // Per square: its still view before it was last altered (empty when none is kept), and
  // the frame it was altered in.
  std::array<cv::Mat, 64> before_altered_{};
  std::array<long, 64> altered_frame_{};
  long frame_ = 0;                      // frames seen since the last reset
  std::array<int, 64> still_frames_{};  // frames since something moved in the 3x3 around
  std::array<char, 64> candidate_{};
  std::array<int, 64> candidate_frames_{};
  std::array<int, 64> candidate_leaning_{};  // unsure frames leaning to the candidate
  bool started_ = false;
};

// Reads the clock levers of a video frame by frame (`--clocks vision`). It learns each
// lever's two positions from where the lever shows along the clock in still frames, and reads
// each frame by the nearer (the first position seen is the start's, Black's side down, until
// the second is seen; unknown before the first); read_clock where that cannot tell. A frame where
// something covers part of the clock (a hand pressing it or reaching past) reads unknown, since the
// covered lever end then looks lower than it is. Covered means: much of the clock's area differs
// from how it looked in the last uncovered frames, or far more or fewer lever pixels show than in
// the lever's position. A position whose look changes for good (seen still elsewhere, much
// nearer it than the other, for 1.5 s) is learnt again there. Feed frames in order.
class LeverReader {
 public:
  explicit LeverReader(calibration::Calibration calibration);
  ~LeverReader();
  LeverReader(LeverReader&&) noexcept;
  LeverReader& operator=(LeverReader&&) noexcept;
  // One observation per calibrated clock, in calibration order.
  std::vector<ClockObservation> read(const cv::Mat& frame_bgr);
  // The same for levers already read from this frame by read_clock, one per calibrated
  // clock in calibration order (as FrameReader hands them out): only the watch is added.
  std::vector<ClockObservation> read(const cv::Mat& frame_bgr,
                                     std::vector<ClockObservation> levers);
  // The game may be under way (a resumed recording): the lever's first position seen is not
  // taken for the start's (Black's side down).
  void clocks_running();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Which seats' arms reach over each board, frame by frame: a coarse grid of the frame is
// compared with a still view of the table (what stays still long enough joins it); a blob of
// change that covers part of a board and leaves the picture is an arm, and it belongs to the
// seat it points at from the hand (its cell over the board farthest from where it leaves the
// picture). Seats are where players' right shoulders are: to the right of the middle of their
// board edge, well out and above the table, seen as the viewpoint puts them. A blob that leaves
// the picture in places apart is that many arms joined over the table (hands touching, or by a
// shadow): each cell goes to the place nearest along the blob. Where the blob leaves the picture
// as the table darkened evenly, it is a shadow from beyond the picture, no arm. Nothing is
// attributed when the hand stays near the board's edge, the arm points between two seats, or
// two arms leave the picture together: an arm put on the wrong seat would be a false
// partner_board_touched. Feed frames in order; the first only starts the still view.
class ArmWatch {
 public:
  explicit ArmWatch(const calibration::Calibration& calibration);
  ~ArmWatch();
  ArmWatch(ArmWatch&&) noexcept;
  ArmWatch& operator=(ArmWatch&&) noexcept;
  // Per board of the calibration, in its order: the seats whose arm reaches over it, sorted.
  std::vector<std::vector<std::string>> read(const cv::Mat& frame_bgr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Reads a video frame by frame against one calibration: FrameReader plus one BoardTracker
// per board, and the clock levers through a LeverReader (unknown while something covers the
// clock, `touched` while something moves over it), as `record --clocks vision` reads them,
// and the arms over the boards through an ArmWatch. Feed frames in order; the state makes the
// output depend on the frames before.
class TrackingReader {
 public:
  explicit TrackingReader(calibration::Calibration calibration, VisionOptions options = {},
                          TrackerOptions tracker_options = {});

  FrameObservation read(const cv::Mat& frame_bgr);
  // The same with the frame's boards already read by frame_reader().read_boards (elsewhere,
  // ahead of this frame's turn).
  FrameObservation read(const cv::Mat& frame_bgr, BoardsReading boards);
  // Forget all frames read so far (the lever reader too: call clocks_running again where the
  // game is under way).
  void reset();
  // The game may be under way: LeverReader::clocks_running.
  void clocks_running() { levers_.clocks_running(); }
  const calibration::Calibration& calibration() const { return reader_.calibration(); }
  const FrameReader& frame_reader() const { return reader_; }

 private:
  FrameReader reader_;
  std::vector<BoardTracker> trackers_;
  LeverReader levers_;
  std::optional<ArmWatch> arms_;                     // none unless VisionOptions::watch_arms
  std::vector<HoldingAreaMemory> holding_memories_;  // per holding area of the calibration
  std::int64_t frames_read_ = 0;                     // since the last reset: holdings_every
};

// Classifies the 64 squares of several boards seen in the same frame, from their
// appearance: the white/black split is learnt from the frame's own pieces (SquareClassification
// is declared above FrameReader).
SquareClassification classify_squares(const std::vector<calibration::BoardAppearance>& boards);

// Counts the pieces lying in a holding area, by colour: blobs that differ from the table,
// split by the frame's white/black luma threshold; blobs of several touching pieces are cut
// along their length. With a model, each piece's type is read too (`board` gives the view's
// geometry: which way pieces lean). With `memory`, pixels are compared with the area's
// empty look where it is known (and the look is learnt and kept up), and an arm over the area
// marks it occluded. With `holding_model`, the pieces and their colours are the network's
// (HoldingModel::read), not the blobs'; with both, the network reads the strip only when it
// changed since the network last read it (HoldingNetworkReading).
HoldingObservation read_holding(const cv::Mat& frame_bgr, const calibration::HoldingArea& area,
                                double square_px_in_image, float white_black_luma);
HoldingObservation read_holding(const cv::Mat& frame_bgr, const calibration::HoldingArea& area,
                                const calibration::Board& board, cv::Size image_size,
                                float white_black_luma, const PieceTypeModel* model,
                                HoldingAreaMemory* memory = nullptr,
                                const HoldingModel* holding_model = nullptr);

// --- Holding-area network (issue 4) --------------------------------------------------------

// A holding area as read_holding reads it: the area warped to kHoldingStripPx pixels per
// square, x along its region's first edge (region[0] to region[1]).
inline constexpr int kHoldingStripPx = 24;
struct HoldingStrip {
  cv::Mat bgr;           // CV_8UC3
  cv::Mat in_view;       // CV_8U: 255 where the strip shows the image, 2 pixels in from its edge
  cv::Matx33d to_image;  // strip pixel -> image pixel
};
// nullopt when the area has not four corners, or is under 4 strip pixels either way.
std::optional<HoldingStrip> holding_strip(const cv::Mat& frame_bgr,
                                          const calibration::HoldingArea& area,
                                          double square_px_in_image);

// The holding network's input, 1 x 4 x H x W floats (H and W the strip's, rounded up to
// kHoldingNetStride): its colours minus their median in view per channel (the table's), over
// their spread about it pooled over the three (at least kHoldingNetMinSpread levels); then 1
// where the strip is in view. Zero out of view and in the padding. scripts/train_holdings.py
// builds the same.
inline constexpr int kHoldingNetStride = 4;
inline constexpr float kHoldingNetMinSpread = 8.0f;
cv::Mat holding_net_input(const HoldingStrip& strip);

// A cell is a piece's middle where the network gives it at least this and no cell within three
// cells more.
inline constexpr float kHoldingNetPieceAtLeast = 0.5f;

// The holding network: a small fully convolutional network (ONNX, run by OpenCV's dnn) that
// marks, on a grid of kHoldingNetStride strip pixels, the cells holding the middle of a white
// or a black held piece's silhouette (standing, lying, touching others). Trained on synthetic
// stills by scripts/train-holdings.sh. Thread-safe: one run at a time.
class HoldingModel {
 public:
  // Throws std::runtime_error naming the file when it is missing or not such a network.
  explicit HoldingModel(const std::filesystem::path& file);
  ~HoldingModel();
  HoldingModel(const HoldingModel&) = delete;
  HoldingModel& operator=(const HoldingModel&) = delete;

  // holdings.onnx beside the piece-type models (PieceTypeModel::bundled_dir()); empty when
  // there is none.
  static std::filesystem::path bundled_file();
  // The bundled network, or nullptr when there is none.
  static std::shared_ptr<const HoldingModel> load_bundled();

  // The pieces in the strip: local maxima (within 7x7 cells) of the cells' piece probability
  // (white plus black) of at least kHoldingNetPieceAtLeast, each at the probability-weighted
  // middle of its 3x3 cells, white where the network's white outweighs its black there. In
  // raster order of the cells.
  std::vector<HoldingNetPiece> read(const HoldingStrip& strip) const;

 private:
  struct Network;
  std::unique_ptr<Network> network_;
};

// Which side of a clock is pressed down. The lever is a bar along the clock, tilted about
// its middle; beside the display only its raised end (the side not pressed) shows much of
// it. The two halves of the clock's area are mirrored onto each other across the middle:
// where they differ along a band of the clock's width, the half showing the rarer colour
// there (lever, not body, display or table) is the raised end. Any lever colour; a clock
// out of view, or halves alike, read unknown.
ClockObservation read_clock(const cv::Mat& frame_bgr, const calibration::Clock& clock);

// What a clock's display shows in one frame: each side's remaining time in whole seconds, as
// written (M:SS in seven-segment digits, White's time on White's end of the clock; ten
// minutes or more is not read).
// A side is unknown where its digits do not all read as digits (a hand over them, glare).
struct ClockDisplay {
  std::array<std::optional<int>, 2> seconds;  // White's, Black's
  // How the digits were found (the display upside down or not, its digits lit or dark), as
  // the `look` for the next frames; -1 where nothing was read.
  int look = -1;
};
// With `look` from an earlier reading only that look is tried (a failed reading tries all four
// otherwise). `canonical`, when given, receives the clock's area as read (White's end left,
// upright).
ClockDisplay read_clock_display(const cv::Mat& frame_bgr, const calibration::Clock& clock,
                                int look = -1, cv::Mat* canonical = nullptr);

// The observation as the JSON object of SPEC section 7.
std::string to_json(const FrameObservation& observation);
// The same for a person.
std::string to_text(const FrameObservation& observation);
// The observation drawn over the frame.
cv::Mat draw_observation(const cv::Mat& frame_bgr, const FrameObservation& observation,
                         const calibration::Calibration& calibration);

}  // namespace bugcam::vision
