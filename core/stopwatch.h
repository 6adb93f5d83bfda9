// Seconds since construction, on the monotonic clock: a campaign's --time, batch and render timings.
#pragma once
#include <chrono>

namespace uf {

class Stopwatch {
 public:
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace uf
