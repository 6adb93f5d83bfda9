// A headless Chromium for tests, driven over the DevTools protocol on `--remote-debugging-pipe` (no
// port, no driver library): messages are JSON terminated by a NUL byte, commands on the browser's fd 3,
// answers and events on its fd 4. Enough to load a page, evaluate JavaScript, collect console errors
// and take a screenshot.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace uf::testing {

// The chromium binary: $UOPFUZZ_CHROMIUM, else `chromium` or `chromium-browser` in PATH; nullopt if none.
std::optional<std::string> find_chromium();

class Browser {
 public:
  // Starts `chromium` headless with a fresh profile under `profile_dir` and opens one page of the given
  // size. Throws std::runtime_error when it cannot.
  Browser(const std::string& chromium, const std::filesystem::path& profile_dir, int width, int height);
  ~Browser();
  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  // Navigates and waits for the load event.
  void open(const std::string& url);
  // Evaluates `expression` in the page (promises awaited) and returns its value; throws on an exception.
  nlohmann::json eval(const std::string& expression);
  void resize(int width, int height);
  // A PNG of the page from the top, at most `max_height` CSS pixels tall.
  std::string screenshot(int max_height);
  // Console errors, uncaught exceptions and error log entries (failed loads) seen so far.
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  nlohmann::json call(const std::string& method, nlohmann::json params = nlohmann::json::object(), bool session = true);
  nlohmann::json next_message(double timeout_s);
  void on_event(const nlohmann::json& m);

  pid_t pid_ = -1;
  int to_browser_ = -1, from_browser_ = -1;
  std::string buffer_, session_;
  int next_id_ = 1;
  bool loaded_ = false;
  std::vector<std::string> errors_;
};

}  // namespace uf::testing
