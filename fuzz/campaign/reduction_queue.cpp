// The shared queue of findings to reduce.
#include "fuzz/campaign/reduction_queue.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "core/error.h"

namespace uf {

ReductionQueue::ReductionQueue(int workers) : workers_(workers) {
  if (workers < 1 || workers > kMaxWorkers) throw UserError("--jobs must be 1 to " + std::to_string(kMaxWorkers));
  std::optional<SharedMemory> m = SharedMemory::map(sizeof(Shared));
  if (!m) throw UserError("cannot map the campaign's shared reduction queue");
  memory_ = std::move(*m);
  shared_ = new (memory_.data()) Shared;  // zero-filled by mmap: every slot empty
  for (int w = 0; w < workers; ++w) shared_->generating[w].store(1);
}

bool ReductionQueue::push(const std::string& name, Kind kind) {
  if (name.size() >= kNameMax) return false;
  const uint32_t i = shared_->reserved.fetch_add(1);
  if (i >= kCapacity) return false;
  Slot& slot = shared_->slots[i];
  std::memcpy(slot.name, name.c_str(), name.size() + 1);
  shared_->outstanding.fetch_add(1);
  State state = kStalled;
  switch (kind) {
    case Kind::found: state = kQueued; break;
    case Kind::found_again: state = kQueuedAgain; break;
    case Kind::found_slow: state = kQueuedSlow; break;
    case Kind::resume: state = kResumable; break;
    case Kind::stalled: state = kStalled; break;
  }
  slot.state.store(state, std::memory_order_release);  // the name is visible before the slot is
  return true;
}

std::optional<ReductionQueue::Claim> ReductionQueue::claim(Take take) {
  if (std::optional<Claim> c = claim_in(kQueued)) return c;
  if (std::optional<Claim> c = claim_in(kResumable)) return c;
  if (std::optional<Claim> c = claim_in(kQueuedAgain)) return c;
  if (std::optional<Claim> c = claim_in(kQueuedSlow)) return c;
  return take == Take::any ? claim_in(kStalled) : std::nullopt;
}

std::optional<ReductionQueue::Claim> ReductionQueue::claim_in(State state) {
  const uint32_t n = std::min<uint32_t>(shared_->reserved.load(), kCapacity);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t expected = state;
    if (shared_->slots[i].state.compare_exchange_strong(expected, kClaimed, std::memory_order_acquire))
      return Claim(*this, shared_->slots[i].name);
  }
  return std::nullopt;
}

int ReductionQueue::outstanding() const { return shared_->outstanding.load(); }

int ReductionQueue::waiting_again() const {
  const uint32_t n = std::min<uint32_t>(shared_->reserved.load(), kCapacity);
  int again = 0;
  for (uint32_t i = 0; i < n; ++i) again += shared_->slots[i].state.load() == kQueuedAgain;
  return again;
}

void ReductionQueue::stop_generating(int worker) { shared_->generating[worker].store(0); }

bool ReductionQueue::generating() const {
  for (int w = 0; w < workers_; ++w)
    if (shared_->generating[w].load() != 0) return true;
  return false;
}

}  // namespace uf
