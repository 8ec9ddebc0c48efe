// Helpers shared by the rules test suites: the real games in shared/, and running the real
// bugcam binary.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace bugcam::rules::test {

inline std::string shared_bpgn(const std::string& name) {
  return std::string(BUGCAM_SHARED_DIR) + "/data/bpgn/" + name;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every .bpgn file of shared/data/bpgn, sorted.
inline std::vector<std::string> real_game_files() {
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(BUGCAM_SHARED_DIR) + "/data/bpgn")) {
    if (entry.path().extension() == ".bpgn") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct CommandResult {
  int exit_status = -1;
  std::string output;
  std::vector<std::string> lines;
};

inline std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs the bugcam binary with the arguments; standard error is discarded unless asked for.
inline CommandResult run_bugcam(const std::vector<std::string>& args, bool with_stderr = false) {
  std::string command = shell_quoted(BUGCAM_BINARY);
  for (const std::string& arg : args) command += " " + shell_quoted(arg);
  command += with_stderr ? " 2>&1" : " 2>/dev/null";
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run " << command;
    return result;
  }
  std::array<char, 4096> buffer{};
  while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) {
    result.output.append(buffer.data(), n);
  }
  const int status = pclose(pipe);
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::istringstream lines(result.output);
  for (std::string line; std::getline(lines, line);) result.lines.push_back(line);
  return result;
}

}  // namespace bugcam::rules::test
