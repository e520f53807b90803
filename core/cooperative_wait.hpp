#pragma once
// Waiting on a SimGrid condition variable so that the actor can be killed while it waits.
// SimGrid unwinds a killed actor with an exception; a std::unique_lock would then unlock the
// mutex from its destructor — a simcall during that unwinding, which aborts the process. So the
// mutex is locked and unlocked by hand, and a killed waiter leaves it locked: the run is over.
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <mutex>
#include <new>

namespace echo::core {

// Blocks until done() holds; done() is checked under the mutex, after every wake-up.
template <typename Done>
void wait_until_done(simgrid::s4u::ConditionVariable& cv, const simgrid::s4u::MutexPtr& mutex, Done done) {
  mutex->lock();
  while (!done())
    cv.wait(mutex);
  mutex->unlock();
}

// With `mutex` locked: blocks until notified or until simulated time `until_s`; returns locked.
// SimGrid's timed wait takes a std::unique_lock, so one is built in storage that is never
// destroyed (a destructor would unlock while a killed actor unwinds).
inline void wait_locked_until(simgrid::s4u::ConditionVariable& cv, const simgrid::s4u::MutexPtr& mutex, double until_s) {
  alignas(std::unique_lock<simgrid::s4u::Mutex>) unsigned char storage[sizeof(std::unique_lock<simgrid::s4u::Mutex>)];
  auto* lock = new (storage) std::unique_lock<simgrid::s4u::Mutex>(*mutex, std::adopt_lock);
  cv.wait_until(*lock, until_s);
  lock->release();  // still locked; the caller owns the mutex again
}

// Blocks until notified or until simulated time `until_s`.
inline void wait_until_time(simgrid::s4u::ConditionVariable& cv, const simgrid::s4u::MutexPtr& mutex, double until_s) {
  mutex->lock();
  wait_locked_until(cv, mutex, until_s);
  mutex->unlock();
}

} // namespace echo::core
