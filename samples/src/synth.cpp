// bugcam synth: a BPGN game through the timeline and the renderer into video and truth.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "bugcam/samples.hpp"
#include "postprocess.hpp"
#include "timeline.hpp"

namespace bugcam::samples {

namespace {

using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

// Times as the clock log writes them: milliseconds, fixed three decimals.
std::string seconds_text(double t) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", t);
  return buf;
}

double round3(double v) {
  return std::round(v * 1000.0) / 1000.0;
}
double round2(double v) {
  return std::round(v * 100.0) / 100.0;
}

std::string ply_name(const rules::ReplayedPly& ply) {
  const bool white = ply.before.side_to_move() == rules::Color::kWhite;
  char letter = rules::board_letter(ply.board);
  if (!white) letter = static_cast<char>(letter - 'A' + 'a');
  return std::to_string(ply.before.fullmove_number()) + letter;
}

int initial_seconds(const rules::BpgnGame& game) {
  if (const auto tc = game.tag("TimeControl")) {
    try {
      const int v = std::stoi(*tc);
      if (v > 0) return v;
    } catch (const std::exception&) {
    }
  }
  return 180;
}

// Resolves "TYPE@PLY" against the replayed plies.
IncidentRequest parse_incident(const std::string& text,
                               const std::vector<rules::ReplayedPly>& plies) {
  const auto at = text.find('@');
  if (at == std::string::npos) {
    throw SynthError("incident '" + text +
                     "': expected TYPE@PLY, such as premove@12 or hidden_piece@14b");
  }
  const std::string type_name = text.substr(0, at), where = text.substr(at + 1);
  const auto type = parse_incident_name(type_name);
  if (!type) {
    throw SynthError("incident '" + text + "': unknown type '" + type_name +
                     "' (hidden_piece, capture_not_passed, premove, illegal_move, "
                     "move_without_press, press_without_move, flag_fall, position_disturbed, "
                     "partner_board_touched)");
  }
  int index = -1;
  if (!where.empty() && std::all_of(where.begin(), where.end(), ::isdigit)) {
    index = std::stoi(where) - 1;
  } else {
    for (std::size_t i = 0; i < plies.size(); ++i) {
      if (ply_name(plies[i]) == where) index = static_cast<int>(i);
    }
  }
  if (index < 0 || index >= static_cast<int>(plies.size())) {
    throw SynthError("incident '" + text + "': no ply '" + where + "' among the " +
                     std::to_string(plies.size()) + " plies rendered");
  }
  return {*type, index};
}

PlyInput make_ply_input(const rules::ReplayedPly& rp, double think) {
  PlyInput in;
  const rules::Position& pos = rp.before;
  const rules::Move m = rp.move;
  in.board = static_cast<int>(rp.board);
  in.color = static_cast<int>(pos.side_to_move());
  in.to = m.to();
  in.san = rp.san;
  in.think = think;
  if (m.is_drop()) {
    in.piece = static_cast<int>(m.piece());
  } else {
    in.from = m.from();
    in.piece = static_cast<int>(pos.piece_at(m.from()).type);
    if (m.kind() == rules::Move::Kind::kEnPassant) {
      in.captured = static_cast<int>(rules::PieceType::kPawn);
      in.captured_square = m.to() + (in.color == 0 ? -8 : 8);
    } else if (!pos.piece_at(m.to()).empty()) {
      in.captured = pos.is_promoted(m.to()) ? static_cast<int>(rules::PieceType::kPawn)
                                            : static_cast<int>(pos.piece_at(m.to()).type);
      in.captured_square = m.to();
    }
    if (m.kind() == rules::Move::Kind::kCastle) {
      const bool king_side = m.to() > m.from();
      in.rook_from = king_side ? m.from() + 3 : m.from() - 4;
      in.rook_to = king_side ? m.from() + 1 : m.from() - 1;
    }
  }
  return in;
}

// An empty square near the real target that the piece may not go to.
int illegal_target(const rules::ReplayedPly& rp) {
  const rules::Position& pos = rp.before;
  const int to = rp.move.to();
  int best = -1, best_distance = 100;
  for (int sq = 0; sq < 64; ++sq) {
    if (!pos.piece_at(sq).empty() || sq == to) continue;
    const rules::Move m = rp.move.is_drop() ? rules::Move::drop(rp.move.piece(), sq)
                                            : rules::Move::normal(rp.move.from(), sq);
    if (pos.is_legal(m, rules::otb_rules())) continue;
    const int d = std::max(std::abs(sq % 8 - to % 8), std::abs(sq / 8 - to / 8));
    if (d < best_distance) {
      best_distance = d;
      best = sq;
    }
  }
  return best;
}

// Why an incident cannot be staged at its ply (a capture that is not there, a premove with no
// press before it, ...), or nullopt when it can.
std::optional<std::string> misfit(const IncidentRequest& req,
                                  const std::vector<rules::ReplayedPly>& plies) {
  const rules::ReplayedPly& rp = plies[static_cast<std::size_t>(req.ply)];
  switch (req.type) {
    case IncidentType::kHiddenPiece:
      if (make_ply_input(rp, 0.0).captured < 0) return "ply " + rp.san + " captures nothing";
      break;
    case IncidentType::kCaptureNotPassed: {
      const int captured = make_ply_input(rp, 0.0).captured;
      if (captured < 0) return "ply " + rp.san + " captures nothing";
      // The piece is passed after the capturer's next move: the partner cannot drop one of
      // its type before (held-out seed 10507's render failed so).
      const rules::Color capturer = rp.before.side_to_move();
      for (std::size_t k = static_cast<std::size_t>(req.ply) + 1; k < plies.size(); ++k) {
        const rules::ReplayedPly& later = plies[k];
        const rules::Color mover = later.before.side_to_move();
        if (later.board == rp.board && mover == capturer) break;
        if (later.board != rp.board && mover != capturer && later.move.is_drop() &&
            static_cast<int>(later.move.piece()) == captured) {
          return "the partner drops " + later.san + " before " + rp.san + "'s piece is passed";
        }
      }
      break;
    }
    case IncidentType::kPremove: {
      int previous = -1;  // the opponent's move the premove follows
      for (int k = 0; k < req.ply; ++k) {
        if (plies[static_cast<std::size_t>(k)].board == rp.board) previous = k;
      }
      if (previous < 0) return "the first move on a board cannot be a premove";
      // The premover's hand starts before the opponent lets go, so it cannot take the piece
      // the opponent is still putting down (fresh 11333's 7B. Qxd2 after 6b. Nxd2: the
      // knight stayed on d2 and the queen in the hand for 50 s).
      const PlyInput opponent = make_ply_input(plies[static_cast<std::size_t>(previous)], 0.0);
      const PlyInput premove = make_ply_input(rp, 0.0);
      if (premove.captured >= 0 &&
          (premove.captured_square == opponent.to || premove.captured_square == opponent.rook_to)) {
        return "premove " + rp.san + " takes the piece the opponent's move puts down";
      }
      // A premove is made as the opponent lets go, before the plies the game lists between
      // the two: a drop needs its piece held by then, not captured on the other board
      // meanwhile (held-out 11558's 7A. N@h5 took the knight of 6b. Nxe4 ten seconds early,
      // and the rendering moved that knight between the boards).
      const rules::Position& then = plies[static_cast<std::size_t>(previous)].before;
      if (rp.move.is_drop() && then.holding(rp.before.side_to_move(), rp.move.piece()) == 0) {
        return "premove " + rp.san + " drops a piece captured after the opponent's move";
      }
      break;
    }
    case IncidentType::kIllegalMove:
      if (illegal_target(rp) < 0) return "no illegal square found for ply " + rp.san;
      break;
    case IncidentType::kPositionDisturbed: {
      // The mover knocks over a piece beside the moved one's square.
      rules::Position after = rp.before;
      after.make(rp.move, rules::otb_rules());
      const int to = rp.move.to();
      bool neighbour = false;
      for (int d : {1, -1, 8, -8, 9, -9, 7, -7}) {
        const int sq = to + d;
        if (sq < 0 || sq >= 64 || std::abs(sq % 8 - to % 8) > 1) continue;
        neighbour |= !after.piece_at(sq).empty();
      }
      if (!neighbour) return "no piece beside ply " + rp.san + " to knock over";
      break;
    }
    default:
      break;
  }
  return std::nullopt;
}

Json point_json(cv::Point2d p) {
  return Json::array({round2(p.x), round2(p.y)});
}

Json polygon_json(const Camera& cam, const std::vector<Vec3>& pts) {
  Json out = Json::array();
  for (const Vec3& p : pts) {
    cv::Point2d px;
    cam.project(p, px);
    out.push_back(point_json(px));
  }
  return out;
}

std::string player_key(int player) {
  return std::string(1, board_of_player(player) == 0 ? 'A' : 'B') +
         (color_of_player(player) == 0 ? ":white" : ":black");
}

// Occupancy strings of one board (rank 8 first) and holdings, from a world.
Json board_state_json(const World& w, int board) {
  std::array<std::string, 8> rows;
  rows.fill("........");
  std::array<std::string, 8> pieces = rows;
  std::vector<std::string> knocked;
  for (const PlacedPiece& p : w.pieces) {
    if (p.place != PiecePlace::kBoard || p.board != board) continue;
    const auto r = static_cast<std::size_t>(7 - p.square / 8);
    const auto f = static_cast<std::size_t>(p.square % 8);
    rows[r][f] = p.color == 0 ? 'w' : 'b';
    const char letter = "PNBRQK"[p.type];
    pieces[r][f] = p.color == 0 ? letter : static_cast<char>(letter - 'A' + 'a');
    if (p.knocked > 0) knocked.push_back(rules::square_name(p.square));
  }
  Json j;
  j["occupancy"] = rows;
  j["pieces"] = pieces;
  j["knocked_over"] = knocked;
  return j;
}

Json holdings_json(const World& w) {
  Json j = Json::object();
  for (int p = 0; p < kPlayerCount; ++p) {
    std::map<std::string, int> visible, hidden;
    for (const PlacedPiece& pc : w.pieces) {
      if (pc.player != p) continue;
      const std::string letter(1, "PNBRQK"[pc.type]);
      if (pc.place == PiecePlace::kHolding) ++visible[letter];
      if (pc.place == PiecePlace::kHidden) ++hidden[letter];
    }
    Json e;
    e["visible"] = visible;
    e["hidden"] = hidden;
    j[player_key(p)] = e;
  }
  return j;
}

}  // namespace

std::optional<std::string> fitting_incident(const rules::BpgnGame& game, int max_plies,
                                            const std::string& type, int near_ply) {
  const std::optional<IncidentType> kind = parse_incident_name(type);
  if (!kind) throw SynthError("incident '" + type + "': unknown type");
  std::vector<rules::ReplayedPly> plies = rules::replay(game).plies;
  if (max_plies >= 0 && static_cast<int>(plies.size()) > max_plies) {
    plies.resize(static_cast<std::size_t>(max_plies));
  }
  const int count = static_cast<int>(plies.size());
  // Outwards from the ply asked for: near_ply, near_ply - 1, near_ply + 1, ...
  for (int step = 0; step < 2 * count; ++step) {
    const int ply = near_ply - 1 + (step % 2 == 0 ? step / 2 : -(step + 1) / 2);
    if (ply < 0 || ply >= count) continue;
    if (!misfit({*kind, ply}, plies)) return type + "@" + std::to_string(ply + 1);
  }
  return std::nullopt;
}

fs::path bundled_sample_dir() {
  return fs::path(BUGCAM_SAMPLES_DIR) / "clip";
}

SynthResult synthesize(const rules::BpgnGame& game, const fs::path& out_dir,
                       const SynthOptions& options) {
  if (options.width < 64 || options.height < 36 || options.fps <= 0) {
    throw SynthError("frame size or rate out of range");
  }
  const rules::Replay replay = rules::replay(game);
  std::vector<rules::ReplayedPly> plies = replay.plies;
  if (options.max_plies >= 0 && static_cast<int>(plies.size()) > options.max_plies) {
    plies.resize(static_cast<std::size_t>(options.max_plies));
  }
  const bool whole_game = !replay.error && plies.size() == replay.plies.size();

  // Thinking times from the record's clocks.
  const int initial_s = initial_seconds(game);
  std::vector<PlyInput> inputs;
  {
    std::array<double, kPlayerCount> last_clock;
    last_clock.fill(initial_s);
    for (std::size_t i = 0; i < plies.size(); ++i) {
      const rules::ReplayedPly& rp = plies[i];
      const int player =
          player_index(static_cast<int>(rp.board), static_cast<int>(rp.before.side_to_move()));
      double think = 2.0;
      if (i < game.moves.size() && game.moves[i].clock) {
        think = std::max(0.0, last_clock[static_cast<std::size_t>(player)] - *game.moves[i].clock);
        last_clock[static_cast<std::size_t>(player)] = *game.moves[i].clock;
      }
      inputs.push_back(make_ply_input(rp, think));
    }
  }
  TimelineOptions topt;
  topt.initial_ms = initial_s * 1000;
  for (const std::string& text : options.incidents) {
    const IncidentRequest req = parse_incident(text, plies);
    if (const std::optional<std::string> why = misfit(req, plies)) {
      throw SynthError("incident '" + text + "': " + *why);
    }
    PlyInput& in = inputs[static_cast<std::size_t>(req.ply)];
    if (req.type == IncidentType::kIllegalMove) {
      in.illegal_to = illegal_target(plies[static_cast<std::size_t>(req.ply)]);
      in.captured = -1;
      in.rook_from = in.rook_to = -1;
    }
    topt.incidents.push_back(req);
  }

  const Style style =
      options.plain_camera ? Style::plain_top_down(options.seed) : Style::random(options.seed);
  const Layout layout(style);
  const Timeline timeline(style, layout, inputs, topt);
  const Camera camera = make_camera(style, layout, options.width, options.height);
  const Lighting lighting = make_lighting(style);

  fs::create_directories(out_dir);
  Renderer renderer(options.width, options.height, 1024);
  SceneAssets assets(renderer, style, layout);
  PostProcess post(camera, style, options.fps);

  // Video: H.264 in MP4 where OpenCV's FFmpeg has an encoder for it, else Motion JPEG.
  fs::path video_path = out_dir / "video.mp4";
  cv::VideoWriter writer(video_path.string(), cv::CAP_FFMPEG,
                         cv::VideoWriter::fourcc('a', 'v', 'c', '1'), options.fps,
                         cv::Size(options.width, options.height));
  if (!writer.isOpened()) {
    video_path = out_dir / "video.avi";
    writer.open(video_path.string(), cv::CAP_OPENCV_MJPEG,
                cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), options.fps,
                cv::Size(options.width, options.height));
  }
  if (!writer.isOpened()) throw SynthError("cannot open a video writer for " + video_path.string());

  const int frame_count = static_cast<int>(std::ceil(timeline.duration() * options.fps));
  Json frames = Json::array();
  Json states = Json::array();
  int last_event_count = -1;
  // Kept from frame to frame (see Renderer::render_frame): the writer has encoded a frame by
  // the time it returns.
  cv::Mat image;
  cv::Mat hand_ids;
  for (int f = 0; f < frame_count; ++f) {
    const double t = f / options.fps;
    int event_count = 0;
    const World world = timeline.world_at(t, &event_count);
    if (event_count != last_event_count) {
      renderer.set_static_scene(assets.static_items(world), camera.view_projection(), lighting);
      Json s;
      s["t"] = round3(t);
      s["frame"] = f;
      s["A"] = board_state_json(world, 0);
      s["B"] = board_state_json(world, 1);
      s["holdings"] = holdings_json(world);
      states.push_back(s);
      last_event_count = event_count;
    }
    assets.update_clock_displays(renderer, world);
    renderer.render_frame(assets.moving_items(world), assets.shadow_plane(), image);
    bool any_hand = false;
    for (const HandPose& h : world.hands) any_hand |= h.present;
    Json frame;
    frame["f"] = f;
    if (any_hand) {
      renderer.render_ids(assets.hand_items(world), camera.view_projection(),
                          PostProcess::kMaskScale, hand_ids);
      const World earlier = timeline.world_at(std::max(0.0, t - 0.5 / options.fps));
      post.motion_blur(image, hand_ids, world, earlier);
      const auto occluded = post.occluded_squares(hand_ids, layout);
      Json occ = Json::object();
      for (int b = 0; b < 2; ++b) {
        std::vector<std::string> names;
        for (int sq : occluded[static_cast<std::size_t>(b)])
          names.push_back(rules::square_name(sq));
        if (!names.empty()) occ[b == 0 ? "A" : "B"] = names;
      }
      std::vector<std::string> hands;
      for (int p = 0; p < kPlayerCount; ++p) {
        if (world.hands[static_cast<std::size_t>(p)].present) hands.push_back(player_key(p));
      }
      frame["hands"] = hands;
      if (!occ.empty()) frame["occluded"] = occ;
    }
    post.finish(image, f);
    if (f == 0) {
      cv::imwrite((out_dir / "first_frame.png").string(), image);
      if (options.write_id_frame) {
        const cv::Mat ids = post.distort_ids(
            renderer.render_ids(assets.all_items(world), camera.view_projection(), 1.0f));
        cv::Mat packed(ids.rows, ids.cols, CV_8UC3);
        for (int y = 0; y < ids.rows; ++y) {
          for (int x = 0; x < ids.cols; ++x) {
            const auto v = static_cast<std::uint32_t>(ids.at<std::int32_t>(y, x));
            // Stored as B = low byte, G = middle, R = high (OpenCV's BGR order).
            packed.at<cv::Vec3b>(y, x) = {static_cast<std::uint8_t>(v & 255),
                                          static_cast<std::uint8_t>((v >> 8) & 255),
                                          static_cast<std::uint8_t>((v >> 16) & 255)};
          }
        }
        cv::imwrite((out_dir / "truth_ids.png").string(), packed);
      }
    }
    writer.write(image);
    if (frame.size() > 1) frames.push_back(frame);
  }
  writer.release();

  // clocks.jsonl (SPEC section 4).
  {
    std::ofstream out(out_dir / "clocks.jsonl", std::ios::binary);
    for (const ClockEvent& e : timeline.clock_events()) {
      out << "{\"t\": " << seconds_text(e.t) << ", \"board\": \"" << (e.board == 0 ? 'A' : 'B')
          << "\", \"event\": \"";
      switch (e.kind) {
        case ClockEvent::kStart:
          out << "start\", \"white_ms\": " << e.white_ms << ", \"black_ms\": " << e.black_ms;
          break;
        case ClockEvent::kPress:
          out << "press\", \"side\": \"" << (e.side == 0 ? "white" : "black")
              << "\", \"white_ms\": " << e.white_ms << ", \"black_ms\": " << e.black_ms;
          break;
        case ClockEvent::kFlag:
          out << "flag\", \"side\": \"" << (e.side == 0 ? "white" : "black") << "\"";
          break;
        case ClockEvent::kStop:
          out << "stop\", \"white_ms\": " << e.white_ms << ", \"black_ms\": " << e.black_ms;
          break;
      }
      out << "}\n";
    }
  }

  // truth.bpgn: the plies shown, with the clocks and press times of this footage.
  rules::BpgnGame truth;
  for (const char* tag :
       {"Event", "Site", "Date", "Time", "WhiteA", "BlackA", "WhiteB", "BlackB"}) {
    truth.set_tag(tag, game.tag(tag).value_or("?"));
  }
  truth.set_tag("TimeControl", game.tag("TimeControl").value_or(std::to_string(initial_s) + "+0"));
  truth.set_tag("Variant", "Bughouse");
  truth.comments.push_back("bugcam synth seed " + std::to_string(options.seed));
  for (const TimedPly& tp : timeline.timed_plies()) {
    const rules::ReplayedPly& rp = plies[static_cast<std::size_t>(tp.index)];
    if (inputs[static_cast<std::size_t>(tp.index)].illegal_to >= 0) break;
    rules::BpgnMove m;
    m.board = rp.board;
    m.color = rp.before.side_to_move();
    m.number = rp.before.fullmove_number();
    m.san = rp.san;
    m.clock = round3(tp.clock_ms / 1000.0);
    m.timestamp = round3(tp.press);
    truth.moves.push_back(m);
  }
  if (const auto ending = timeline.ending()) {
    const int loser = ending->second;
    const int losing_team = rules::team_of(static_cast<rules::BoardId>(board_of_player(loser)),
                                           static_cast<rules::Color>(color_of_player(loser)));
    truth.result = losing_team == 1 ? "0-1" : "1-0";
    truth.result_comment = ending->first;
  } else if (whole_game) {
    truth.result = game.result;
    truth.result_comment = game.result_comment;
  } else {
    truth.result = "*";
  }
  truth.set_tag("Result", truth.result);
  {
    std::ofstream out(out_dir / "truth.bpgn", std::ios::binary);
    out << rules::write_bpgn(truth);
  }

  // truth.json.
  Json j;
  j["generator"] = "bugcam synth";
  j["seed"] = options.seed;
  j["video"] = video_path.filename().string();
  j["width"] = options.width;
  j["height"] = options.height;
  j["fps"] = options.fps;
  j["frames"] = frame_count;
  j["duration"] = round3(frame_count / options.fps);
  {
    Json c;
    c["eye_cm"] = {camera.eye.x, camera.eye.y, camera.eye.z};
    c["fx"] = camera.fx;
    c["fy"] = camera.fy;
    c["cx"] = camera.cx;
    c["cy"] = camera.cy;
    c["k1"] = camera.k1;
    c["k2"] = camera.k2;
    c["distortion_model"] =
        "x_undistorted = x_distorted * (1 + k1 r^2 + k2 r^4), normalised by fx, fy about cx, cy";
    c["world_to_camera"] = camera.view.m;
    c["tilt_deg"] = style.tilt * 180 / kPi;
    c["roll_deg"] = style.roll * 180 / kPi;
    j["camera"] = c;
  }
  {
    Json s;
    s["board_kind"] = style.board_kind == BoardKind::kWood
                          ? "wood"
                          : (style.board_kind == BoardKind::kPlastic ? "plastic" : "vinyl");
    s["square_cm"] = style.square_size;
    s["king_height_cm"] = style.design.king_height;
    s["piece_family"] = style.design.family;
    s["noise_sigma"] = style.noise_sigma;
    j["style"] = s;
  }
  Json boards = Json::array();
  for (int b = 0; b < 2; ++b) {
    Json bj;
    bj["name"] = b == 0 ? "A" : "B";
    const auto corners = layout.playing_corners(b);
    bj["corners"] = polygon_json(camera, {corners.begin(), corners.end()});
    bj["corner_order"] = "a1 h1 h8 a8 (outer corners of the playing area)";
    bj["white_edge"] = polygon_json(camera, {corners[0], corners[1]});
    cv::Point2d centre_a1h1, centre_a8h8;
    camera.project((corners[0] + corners[1]) * 0.5f, centre_a1h1);
    camera.project((corners[2] + corners[3]) * 0.5f, centre_a8h8);
    bj["white_side"] = centre_a1h1.y > centre_a8h8.y ? "bottom" : "top";
    Json squares = Json::object();
    for (int sq = 0; sq < 64; ++sq) {
      cv::Point2d px;
      camera.project(layout.square_center(b, sq), px);
      squares[rules::square_name(sq)] = point_json(px);
    }
    bj["square_centers"] = squares;
    boards.push_back(bj);
  }
  j["boards"] = boards;
  Json holdings = Json::object();
  for (int p = 0; p < kPlayerCount; ++p) {
    const Vec3 c = layout.holding_center[static_cast<std::size_t>(p)];
    const Vec2 h = layout.holding_half;
    holdings[player_key(p)] = polygon_json(camera, {{c.x - h.x, c.y - h.y, 0},
                                                    {c.x + h.x, c.y - h.y, 0},
                                                    {c.x + h.x, c.y + h.y, 0},
                                                    {c.x - h.x, c.y + h.y, 0}});
  }
  j["holding_areas"] = holdings;
  Json clocks = Json::object();
  for (int b = 0; b < 2; ++b) {
    const Vec3 c = layout.clock_center[static_cast<std::size_t>(b)];
    const Vec3 h = layout.clock_half;
    const float top = 2 * h.z;
    Json cj;
    cj["polygon"] = polygon_json(camera, {{c.x - h.x, c.y - h.y, top},
                                          {c.x + h.x, c.y - h.y, top},
                                          {c.x + h.x, c.y + h.y, top},
                                          {c.x - h.x, c.y + h.y, top}});
    cv::Point2d w, k;
    camera.project(layout.clock_button(player_index(b, 0)), w);
    camera.project(layout.clock_button(player_index(b, 1)), k);
    cj["white_end"] = point_json(w);
    cj["black_end"] = point_json(k);
    clocks[b == 0 ? "A" : "B"] = cj;
  }
  j["clocks"] = clocks;
  j["initial_ms"] = {{"A:white", timeline.initial_ms(0)},
                     {"A:black", timeline.initial_ms(1)},
                     {"B:white", timeline.initial_ms(2)},
                     {"B:black", timeline.initial_ms(3)}};
  Json ply_list = Json::array();
  for (const TimedPly& tp : timeline.timed_plies()) {
    const rules::ReplayedPly& rp = plies[static_cast<std::size_t>(tp.index)];
    Json pj;
    pj["ply"] = ply_name(rp);
    pj["san"] = rp.san;
    const PlyInput& in = inputs[static_cast<std::size_t>(tp.index)];
    if (in.illegal_to >= 0) {
      pj["illegal_to"] = rules::square_name(in.illegal_to);
    }
    pj["t_release"] = round3(tp.release);
    pj["t_press"] = round3(tp.press);
    pj["pressed"] = tp.pressed;
    pj["clock_ms"] = tp.clock_ms;
    ply_list.push_back(pj);
  }
  j["plies"] = ply_list;
  Json incidents = Json::array();
  for (const Incident& inc : timeline.incidents()) {
    Json ij;
    ij["type"] = incident_name(inc.type);
    ij["board"] = inc.board == 0 ? "A" : "B";
    ij["side"] = inc.side == 0 ? "white" : "black";
    ij["t"] = round3(inc.t);
    ij["t_end"] = round3(inc.t_end);
    if (inc.ply >= 0) ij["ply"] = ply_name(plies[static_cast<std::size_t>(inc.ply)]);
    ij["detail"] = inc.detail;
    incidents.push_back(ij);
  }
  j["incidents"] = incidents;
  j["id_encoding"] =
      "truth_ids.png pixel (B,G,R) = id bytes low to high; id>>16: 1 table, 2 playing area "
      "(id>>8&255 board), 3 board frame, 4 piece (low 16 bits: uid), 5 hand (player), 6 clock";
  j["states"] = states;
  j["frame_notes"] = frames;
  {
    std::ofstream out(out_dir / "truth.json", std::ios::binary);
    out << j.dump(1) << "\n";
  }

  SynthResult result;
  result.frames = frame_count;
  result.duration = frame_count / options.fps;
  result.plies = static_cast<int>(timeline.timed_plies().size());
  result.video = video_path;
  return result;
}

void write_contact_sheet(const fs::path& png, std::uint64_t first_seed, int count, int tile_width) {
  const int tile_height = tile_width * 9 / 16;
  const int columns = count >= 9 ? 4 : 3;
  const int rows = (count + columns - 1) / columns;
  cv::Mat sheet(rows * tile_height, columns * tile_width, CV_8UC3, cv::Scalar(30, 30, 30));
  for (int i = 0; i < count; ++i) {
    const std::uint64_t seed = first_seed + static_cast<std::uint64_t>(i);
    const Style style = Style::random(seed);
    const Layout layout(style);
    const Camera camera = make_camera(style, layout, tile_width, tile_height);
    Renderer renderer(tile_width, tile_height, 1024);
    SceneAssets assets(renderer, style, layout);
    World world = starting_world(style, layout);
    // A hand lifting a piece on each board, to show hands and pieces together.
    Random rng(seed);
    for (int b = 0; b < 2; ++b) {
      const int player = player_index(b, rng.integer(0, 1));
      const int square = color_of_player(player) == 0 ? rng.integer(8, 15) : rng.integer(48, 55);
      for (PlacedPiece& p : world.pieces) {
        if (p.board == b && p.square == square) {
          p.place = PiecePlace::kHand;
          p.moving = true;
          world.hands[static_cast<std::size_t>(player)] = {true, {}, 1.0f};
          const Vec3 c = layout.square_center(b, square);
          const float lift = rng.uniformf(2, 6);
          world.hands[static_cast<std::size_t>(player)].pinch =
              c + Vec3{0, -seat_side(player) * -layout.square * 1.2f, 0} +
              Vec3{0, 0, lift + style.design.king_height * 0.5f};
          p.position = world.hands[static_cast<std::size_t>(player)].pinch -
                       Vec3{0, 0, style.design.king_height * 0.5f * 0.8f};
        }
      }
    }
    assets.update_clock_displays(renderer, world);
    renderer.set_static_scene(assets.static_items(world), camera.view_projection(),
                              make_lighting(style));
    cv::Mat image = renderer.render_frame(assets.moving_items(world), assets.shadow_plane());
    PostProcess post(camera, style, 30);
    post.finish(image, 0);
    cv::putText(image, "seed " + std::to_string(seed), {8, 22}, cv::FONT_HERSHEY_SIMPLEX, 0.6,
                {255, 255, 255}, 2);
    image.copyTo(sheet(cv::Rect((i % columns) * tile_width, (i / columns) * tile_height, tile_width,
                                tile_height)));
  }
  if (!cv::imwrite(png.string(), sheet)) throw SynthError("cannot write " + png.string());
}

}  // namespace bugcam::samples
