// The campaign's findings saved as found and not yet reduced, shared by all its workers: a worker
// reduces queued findings (its own and the others') after each batch and once it has nothing left to
// generate, so a late batch with many new buckets is reduced by every worker instead of one after
// another by the worker that found it.
//
// The parent maps it (shared, anonymous) before forking the workers; they share it through lock-free
// atomics and no lock, so a worker killed at any moment leaves it usable (its claimed finding stays as
// found). A finding is named by its
// file in the corpus: whoever claims it reads it back from there.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "codegen/runtime/fd.h"

namespace uf {

class ReductionQueue {
 public:
  static constexpr size_t kCapacity = 4096;  // findings a campaign can queue; beyond, they stay as found
  static constexpr size_t kNameMax = 128;    // corpus file names are at most 73 characters (Corpus::file_name)
  static constexpr int kMaxWorkers = 256;    // fuzz --jobs

  explicit ReductionQueue(int workers);

  // Queues the finding saved as corpus file `name`; false when the queue is full or the name too long
  // (the finding stays saved as found, `meta reduced = no`).
  bool push(const std::string& name);
  // The oldest queued finding, now this caller's to reduce; nullopt when none is queued.
  std::optional<std::string> claim();
  // The claimed reduction ended (or was given up).
  void finish();
  // Findings queued or being reduced.
  int outstanding() const;

  // Worker w will queue nothing more: said by the worker after its last batch, and by the parent when
  // the worker ends (so one that died is not waited for).
  void stop_generating(int worker);
  // Some worker may still queue findings.
  bool generating() const;

 private:
  enum State : uint32_t { kEmpty = 0, kQueued = 1, kClaimed = 2 };
  struct Slot {
    std::atomic<uint32_t> state;
    char name[kNameMax];
  };
  struct Shared {
    std::atomic<uint32_t> reserved;  // slots handed out so far (may pass kCapacity: those pushes failed)
    std::atomic<int32_t> outstanding;
    std::atomic<uint32_t> generating[kMaxWorkers];  // per worker: 1 until it stops generating
    Slot slots[kCapacity];
  };
  static_assert(std::atomic<uint32_t>::is_always_lock_free && std::atomic<int32_t>::is_always_lock_free,
                "shared between processes, the atomics must not hide a lock");

  SharedMemory memory_;
  Shared* shared_;
  int workers_;
};

}  // namespace uf
