// The campaign's findings saved as found and not yet reduced, shared by all its workers: a worker
// reduces queued findings (its own and the others') after each batch and once it has nothing left to
// generate, so a late batch with many new buckets is reduced by every worker instead of one after
// another by the worker that found it.
//
// The parent maps it (shared, anonymous) before forking the workers; they share it through lock-free
// atomics and no lock, so a worker killed at any moment leaves it usable (its claimed finding stays as
// found). A finding is named by its file in the corpus: whoever claims it reads it back from there.
// A reduction cut by its time limit is queued again to resume from its file, after every new finding of
// a new look: one that made progress after a batch (within the worker's reduction share), one that did
// not (a long round, proving the program 1-minimal) only once no worker generates, when the time left
// is all for reductions. New findings that look like one queued before wait behind the resumes.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "codegen/runtime/fd.h"

namespace uf {

class ReductionQueue {
 public:
  static constexpr size_t kCapacity = 4096;  // findings a campaign can queue; beyond, they stay as found
  static constexpr size_t kNameMax = 128;    // corpus file names are at most 73 characters (Corpus::file_name)
  static constexpr int kMaxWorkers = 256;    // fuzz --jobs

  // A new finding, a new one that looks like one queued before (its signature without dtypes: likely the
  // same root cause, so reduced after the new looks), a new one costly to reduce, a reduction its time
  // limit cut after it made progress, or one cut without progress.
  enum class Kind { found, found_again, found_slow, resume, stalled };
  enum class Take { unstalled, any };  // what a claim takes: found and resume, or stalled reductions too

  // A queued finding, this holder's to reduce until it is destroyed (whatever way the reduction ends).
  class Claim {
   public:
    Claim(ReductionQueue& q, std::string name) : q_(&q), name_(std::move(name)) {}
    Claim(Claim&& o) noexcept : q_(std::exchange(o.q_, nullptr)), name_(std::move(o.name_)) {}
    Claim(const Claim&) = delete;
    Claim& operator=(const Claim&) = delete;
    Claim& operator=(Claim&&) = delete;
    ~Claim() {
      if (q_) q_->shared_->outstanding.fetch_sub(1);
    }
    const std::string& name() const { return name_; }

   private:
    ReductionQueue* q_;
    std::string name_;
  };

  explicit ReductionQueue(int workers);

  // Queues the finding saved as corpus file `name`; false when the queue is full or the name too long
  // (the finding stays saved as it is, `meta reduced = no`).
  bool push(const std::string& name, Kind kind = Kind::found);
  // The oldest queued new finding, else the oldest resume, else the oldest new finding of a look seen
  // before, else the oldest costly new finding, else (Take::any) the oldest stalled reduction; nullopt
  // when none is queued.
  std::optional<Claim> claim(Take take = Take::unstalled);
  // Findings queued (resumes too) or being reduced.
  int outstanding() const;
  // Of them, new findings of a look seen before, still waiting.
  int waiting_again() const;

  // Worker w will queue nothing more: said by the worker after its last batch, and by the parent when
  // the worker ends (so one that died is not waited for).
  void stop_generating(int worker);
  // Some worker may still queue findings.
  bool generating() const;

 private:
  enum State : uint32_t {
    kEmpty = 0, kQueued = 1, kClaimed = 2, kResumable = 3, kStalled = 4, kQueuedSlow = 5, kQueuedAgain = 6
  };
  std::optional<Claim> claim_in(State state);
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
