// LinkLoad (core/network/link_load.hpp): which calls a step on a link can meet. The answers must
// not depend on how many bookings a link holds or when ended ones are forgotten.
#include "core/network/link_load.hpp"

#include <doctest/doctest.h>

using echo::core::network::LinkLoad;

namespace {

LinkLoad with_nothing_pending() {
  return LinkLoad([](LinkLoad::CallId) { return false; });
}

} // namespace

TEST_CASE("a link is contended by another call's booking that ends after the step starts, never by its own") {
  LinkLoad load = with_nothing_pending();
  const LinkLoad::LinkId link = LinkLoad::nic(0, 0);
  load.book(link, 1, 0.0, 2.0, 0.0);
  CHECK(load.contended(link, 2, 1.0));
  CHECK_FALSE(load.contended(link, 2, 2.0));  // [start, left): free from its end on
  CHECK_FALSE(load.contended(link, 1, 1.0));  // a call does not contend with itself
  CHECK_FALSE(load.contended(LinkLoad::nic(0, 1), 2, 1.0));
  CHECK(load.sharers(link, 2, 1.0) == 1);
  CHECK(load.sharers(link, 2, 2.5) == 0);
}

TEST_CASE("a call that books hundreds of steps ahead on a link contends until its last one ends") {
  LinkLoad load = with_nothing_pending();
  const LinkLoad::LinkId link = LinkLoad::intra_link(3);
  // A ring's steps, booked at once and in the future: [k, k + 0.5) for k = 0 .. 499.
  for (int k = 0; k < 500; ++k)
    load.book(link, 7, k, k + 0.5, 0.0);
  CHECK(load.contended(link, 8, 0.0));
  CHECK(load.contended(link, 8, 499.2));
  CHECK_FALSE(load.contended(link, 8, 499.5));
  CHECK(load.sharers(link, 8, 10.25) == 1);
  CHECK(load.sharers(link, 8, 10.75) == 0);  // between two of its steps
  // Time moves on and bookings go on: ended ones may be forgotten, later ones still count.
  for (int k = 500; k < 1200; ++k)
    load.book(link, 9, k, k + 0.5, 600.0);
  CHECK(load.contended(link, 8, 650.0));       // call 9 books up to 1199.5
  CHECK_FALSE(load.contended(link, 9, 700.0)); // its own bookings never count
  CHECK(load.sharers(link, 8, 700.25) == 1);
  CHECK(load.sharers(link, 9, 700.25) == 0);
}

TEST_CASE("a call's claim contends while it has steps whose time is not known") {
  bool pending = true;
  LinkLoad load([&](LinkLoad::CallId id) { return id == 4 && pending; });
  const LinkLoad::LinkId link = LinkLoad::nic(2, 1);
  load.claim(4, {link});
  CHECK(load.contended(link, 5, 0.0));
  pending = false;
  CHECK_FALSE(load.contended(link, 5, 0.0));
  load.release(4, {link});
  pending = true;
  CHECK_FALSE(load.contended(link, 5, 0.0));
}
