#include "tests/support/browser.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>

namespace uf::testing {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string base64_decode(const std::string& in) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  int bits = 0, acc = 0;
  for (char c : in) {
    const int v = value(c);
    if (v < 0) continue;  // padding
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> find_chromium() {
  if (const char* env = std::getenv("UOPFUZZ_CHROMIUM"); env && *env) return std::string(env);
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (const char* name : {"chromium", "chromium-browser"}) {
    size_t start = 0;
    while (start <= dirs.size()) {
      const size_t end = dirs.find(':', start);
      const std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
      const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  return std::nullopt;
}

Browser::Browser(const std::string& chromium, const fs::path& profile_dir, int width, int height) {
  int in[2], out[2];  // in: we write, it reads on fd 3; out: it writes on fd 4, we read
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("browser: pipe failed");
  const std::string profile = "--user-data-dir=" + profile_dir.string();
  const std::string size = "--window-size=" + std::to_string(width) + "," + std::to_string(height);
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(in[0], 3);  // dup2 clears close-on-exec on the copies
    ::dup2(out[1], 4);
    const int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      ::dup2(devnull, 1);
      ::dup2(devnull, 2);
    }  // its D-Bus and GPU chatter
    const char* argv[] = {chromium.c_str(),          "--headless",     "--no-sandbox",         "--disable-gpu",
                          "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions", "--remote-debugging-pipe",
                          profile.c_str(),           size.c_str(),     "about:blank",          nullptr};
    ::execv(chromium.c_str(), const_cast<char* const*>(argv));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  to_browser_ = in[1];
  from_browser_ = out[0];
  if (pid_ < 0) throw std::runtime_error("browser: fork failed");
  const std::string target = call("Target.createTarget", {{"url", "about:blank"}}, false).at("targetId");
  session_ = call("Target.attachToTarget", {{"targetId", target}, {"flatten", true}}, false).at("sessionId");
  call("Runtime.enable");
  call("Log.enable");
  call("Page.enable");
  resize(width, height);
}

Browser::~Browser() {
  if (pid_ > 0) {
    try {
      call("Browser.close", json::object(), false);
    } catch (const std::exception&) {}
    int status = 0;
    for (int i = 0; i < 50 && ::waitpid(pid_, &status, WNOHANG) == 0; ++i) ::usleep(100000);
    if (::waitpid(pid_, &status, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
  }
  if (to_browser_ >= 0) ::close(to_browser_);
  if (from_browser_ >= 0) ::close(from_browser_);
}

json Browser::next_message(double timeout_s) {
  const double deadline = now_s() + timeout_s;
  for (;;) {
    if (const size_t nul = buffer_.find('\0'); nul != std::string::npos) {
      json m = json::parse(buffer_.substr(0, nul));
      buffer_.erase(0, nul + 1);
      return m;
    }
    const double left = deadline - now_s();
    if (left <= 0) throw std::runtime_error("browser: no answer in time");
    pollfd p{from_browser_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left * 1000) + 1) <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(from_browser_, buf, sizeof buf);
    if (n <= 0) throw std::runtime_error("browser: chromium closed the pipe (did it start?)");
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

void Browser::on_event(const json& m) {
  const std::string method = m.value("method", "");
  const json& p = m.contains("params") ? m["params"] : json();
  if (method == "Page.loadEventFired")
    loaded_ = true;
  else if (method == "Runtime.consoleAPICalled" && (p.value("type", "") == "error" || p.value("type", "") == "assert"))
    errors_.push_back("console." + p.value("type", "") + ": " + p.value("args", json::array()).dump());
  else if (method == "Runtime.exceptionThrown")
    errors_.push_back("exception: " + p["exceptionDetails"].dump());
  else if (method == "Log.entryAdded" && p["entry"].value("level", "") == "error")
    errors_.push_back("log: " + p["entry"].value("text", "") + " " + p["entry"].value("url", ""));
}

json Browser::call(const std::string& method, json params, bool session) {
  const int id = next_id_++;
  json m = {{"id", id}, {"method", method}, {"params", std::move(params)}};
  if (session) m["sessionId"] = session_;
  const std::string text = m.dump() + std::string(1, '\0');
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(to_browser_, text.data() + done, text.size() - done);
    if (n <= 0) throw std::runtime_error("browser: cannot write to chromium");
    done += static_cast<size_t>(n);
  }
  for (;;) {
    const json r = next_message(60);
    if (!r.contains("id")) {
      on_event(r);
      continue;
    }
    if (r["id"] != id) continue;
    if (r.contains("error")) throw std::runtime_error("browser: " + method + ": " + r["error"].dump());
    return r.value("result", json::object());
  }
}

void Browser::open(const std::string& url) {
  loaded_ = false;
  call("Page.navigate", {{"url", url}});
  const double deadline = now_s() + 60;
  while (!loaded_) {
    if (now_s() > deadline) throw std::runtime_error("browser: " + url + " did not load");
    on_event(next_message(deadline - now_s()));
  }
}

json Browser::eval(const std::string& expression) {
  const json r = call("Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}});
  if (r.contains("exceptionDetails")) throw std::runtime_error("browser: " + expression + ": " + r["exceptionDetails"].dump());
  return r["result"].value("value", json());
}

void Browser::resize(int width, int height) {
  call("Emulation.setDeviceMetricsOverride", {{"width", width}, {"height", height}, {"deviceScaleFactor", 1}, {"mobile", false}});
}

std::string Browser::screenshot(int max_height) {
  const int height = std::min(max_height, eval("document.documentElement.scrollHeight").get<int>());
  const int width = eval("document.documentElement.clientWidth").get<int>();
  const json r =
      call("Page.captureScreenshot", {{"format", "png"},
                                      {"captureBeyondViewport", true},
                                      {"clip", {{"x", 0}, {"y", 0}, {"width", width}, {"height", height}, {"scale", 1}}}});
  return base64_decode(r.at("data").get<std::string>());
}

}  // namespace uf::testing
