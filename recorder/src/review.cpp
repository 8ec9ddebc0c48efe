// The arbiter's review page: one self-contained HTML file beside the recording, its images
// the snapshots in frames/.
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bugcam/recorder.hpp"

namespace bugcam::recorder {

namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw RecorderError(file.string() + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string seconds(double t) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  out << t;
  return out.str();
}

}  // namespace

void write_review(const fs::path& dir) {
  const fs::path incidents_file = dir / "incidents.json";
  nlohmann::json incidents;
  try {
    incidents = nlohmann::json::parse(read_file(incidents_file));
  } catch (const nlohmann::json::exception& e) {
    throw RecorderError(incidents_file.string() + ": " + e.what());
  }
  if (!incidents.is_array()) throw RecorderError(incidents_file.string() + ": expected an array");
  const std::string game = read_file(dir / "game.bpgn");

  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       << "<title>bugcam review: " << escape(dir.filename().string()) << "</title>\n"
       << "<style>body{font-family:sans-serif;margin:2em;max-width:80em}"
          "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;"
          "vertical-align:top;text-align:left}img{max-width:40em;display:block;margin:.2em 0}"
          "pre{background:#f6f6f6;padding:1em;white-space:pre-wrap}</style></head><body>\n"
       << "<h1>Review of " << escape(dir.filename().string()) << "</h1>\n"
       << "<h2>Incidents (" << incidents.size() << ")</h2>\n";
  if (incidents.empty()) {
    html << "<p>No incidents.</p>\n";
  } else {
    html << "<table><tr><th>#</th><th>type</th><th>player</th><th>time (s)</th><th>move</th>"
            "<th>what happened</th><th>frames</th></tr>\n";
    int number = 0;
    for (const nlohmann::json& incident : incidents) {
      const auto text = [&](const char* key) {
        return incident.contains(key) && incident[key].is_string()
                   ? incident[key].get<std::string>()
                   : std::string();
      };
      const auto number_at = [&](const char* key) {
        return incident.contains(key) && incident[key].is_number() ? incident[key].get<double>()
                                                                   : 0.0;
      };
      const std::string side = text("side");
      ++number;
      html << "<tr id=\"incident-" << number << "\"><td>" << number << "</td><td>"
           << escape(text("type")) << "</td><td>"
           << escape((side == "white"   ? "White"
                      : side == "black" ? "Black"
                                        : side) +
                     text("board"))
           << "</td><td>" << seconds(number_at("t")) << "&ndash;" << seconds(number_at("t_end"))
           << "</td><td>" << escape(text("ply")) << "</td><td>" << escape(text("detail"))
           << "</td><td>";
      if (incident.contains("frames") && incident["frames"].is_array()) {
        for (const nlohmann::json& frame : incident["frames"]) {
          if (!frame.is_string()) continue;
          const std::string name = escape(frame.get<std::string>());
          html << "<a href=\"" << name << "\"><img src=\"" << name << "\" alt=\"" << name
               << "\"></a>";
        }
      }
      html << "</td></tr>\n";
    }
    html << "</table>\n";
  }
  html << "<h2>Game</h2>\n<pre>" << escape(game) << "</pre>\n</body></html>\n";

  const fs::path out = dir / "review.html";
  const fs::path temporary = out.string() + ".tmp";
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    file << html.str();
    if (!file) throw RecorderError(temporary.string() + ": cannot write");
  }
  std::error_code error;
  fs::rename(temporary, out, error);
  if (error) throw RecorderError(out.string() + ": cannot replace: " + error.message());
}

}  // namespace bugcam::recorder
