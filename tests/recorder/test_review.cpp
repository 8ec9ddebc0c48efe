// review.html: every incident with its snapshots, the game, text escaped.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "bugcam/recorder.hpp"
#include "temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using namespace bugcam;

std::string read_review(const fs::path& dir) {
  std::ifstream in(dir / "review.html");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Review, ListsIncidentsWithTheirFramesAndTheGame) {
  const bugcam::test_support::TempDir dir_temp("review-incidents");
  const fs::path dir = dir_temp.path();
  {
    recorder::Recorder recorder({dir, {{"WhiteA", "Ann <A&B>"}}, false});
    tracker::Incident incident;
    incident.type = tracker::IncidentType::kPressWithoutMove;
    incident.board = rules::BoardId::kB;
    incident.side = rules::Color::kBlack;
    incident.t = 41.25;
    incident.t_end = 47.9;
    incident.ply = "14b";
    incident.detail = "BlackB pressed with no move on <board B>.";
    incident.frames = {412, 1500};
    recorder.record(incident);
  }
  recorder::write_review(dir);
  const std::string html = read_review(dir);
  EXPECT_NE(html.find("press_without_move"), std::string::npos);
  EXPECT_NE(html.find("BlackB"), std::string::npos);
  EXPECT_NE(html.find("41.2&ndash;47.9"), std::string::npos);
  EXPECT_NE(html.find("<img src=\"frames/0412.jpg\""), std::string::npos);
  EXPECT_NE(html.find("<img src=\"frames/1500.jpg\""), std::string::npos);
  EXPECT_NE(html.find("&lt;board B&gt;"), std::string::npos);
  EXPECT_NE(html.find("Ann &lt;A&amp;B&gt;"), std::string::npos);  // the game, escaped
  EXPECT_EQ(html.find("<board B>"), std::string::npos);
}

TEST(Review, SaysSoWhenThereAreNoIncidents) {
  const bugcam::test_support::TempDir dir_temp("review-none");
  const fs::path dir = dir_temp.path();
  { recorder::Recorder recorder({dir, {}, false}); }
  recorder::write_review(dir);
  EXPECT_NE(read_review(dir).find("No incidents."), std::string::npos);
}

TEST(Review, NamesTheMissingFile) {
  const bugcam::test_support::TempDir dir_temp("review-missing");
  const fs::path dir = dir_temp.path();
  try {
    recorder::write_review(dir);
    FAIL() << "expected RecorderError";
  } catch (const recorder::RecorderError& e) {
    EXPECT_NE(std::string(e.what()).find("incidents.json"), std::string::npos) << e.what();
  }
}

}  // namespace
