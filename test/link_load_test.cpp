// LinkLoad (core/network/link_load.hpp): which calls a step on a link can meet. The answers must
// not depend on how many bookings a link holds or when ended ones are forgotten.
#include "core/network/link_load.hpp"
#include "support/approx.hpp"

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
}

TEST_CASE("a step moves at half its rate while one other call is booked on its link, at full rate after") {
  LinkLoad load = with_nothing_pending();
  const LinkLoad::LinkId link = LinkLoad::nic(0, 0);
  load.book(link, 1, 0.0, 2.0, 0.0);
  const LinkLoad::LinkId links[] = {link};
  // 1 s of work from 1.0: half of it by 2.0, the rest alone: 2.5.
  CHECK(load.shared_end(links, links + 1, 2, 1.0, 1.0) == echo::test::Approx(2.5));
  CHECK(load.shared_end(links, links + 1, 2, 2.0, 1.0) == echo::test::Approx(3.0));  // after the booking: alone
  CHECK(load.shared_end(links, links + 1, 1, 1.0, 1.0) == echo::test::Approx(2.0));  // its own bookings never count
  // Two more steps starting with it (timed together) share the link for the whole way.
  CHECK(load.shared_end(links, links + 1, 2, 2.0, 1.0, 2) == echo::test::Approx(5.0));
  // On a link nobody else uses, and over several links: the busiest one sets the rate.
  const LinkLoad::LinkId other[] = {LinkLoad::nic(0, 1)};
  CHECK(load.shared_end(other, other + 1, 2, 1.0, 1.0) == echo::test::Approx(2.0));
  const LinkLoad::LinkId both[] = {LinkLoad::nic(0, 1), link};
  CHECK(load.shared_end(both, both + 2, 2, 1.0, 1.0) == echo::test::Approx(2.5));
}

TEST_CASE("a step that starts in the gap between another call's steps shares the link with the next one") {
  LinkLoad load = with_nothing_pending();
  const LinkLoad::LinkId link = LinkLoad::intra_link(0);
  // Another ring's steps on the link: [0, 1), [1.1, 2.1), [2.2, 3.2): a hop's latency between them.
  for (int k = 0; k < 3; ++k)
    load.book(link, 7, 1.1 * k, 1.1 * k + 1, 0.0);
  const LinkLoad::LinkId links[] = {link};
  // From 1.0: 0.1 alone, then half rate over [1.1, 2.1) (0.5), then 0.1 alone, then 0.3 of work
  // at half rate from 2.2: 2.8. Counted at its start only, it would have ended at 2.0.
  CHECK(load.shared_end(links, links + 1, 8, 1.0, 1.0) == echo::test::Approx(2.8));
  // A call whose channels overlap on the link counts once.
  load.book(link, 7, 1.1, 2.1, 0.0);
  CHECK(load.shared_end(links, links + 1, 8, 1.0, 1.0) == echo::test::Approx(2.8));
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
  const LinkLoad::LinkId links[] = {link};
  CHECK(load.shared_end(links, links + 1, 8, 10.25, 0.1) == echo::test::Approx(10.45));
  CHECK(load.shared_end(links, links + 1, 8, 10.75, 0.1) == echo::test::Approx(10.85));  // between two of its steps
  // Time moves on and bookings go on: ended ones may be forgotten, later ones still count.
  for (int k = 500; k < 1200; ++k)
    load.book(link, 9, k, k + 0.5, 600.0);
  CHECK(load.contended(link, 8, 650.0));       // call 9 books up to 1199.5
  CHECK_FALSE(load.contended(link, 9, 700.0)); // its own bookings never count
  CHECK(load.shared_end(links, links + 1, 8, 700.25, 0.1) == echo::test::Approx(700.45));
  CHECK(load.shared_end(links, links + 1, 9, 700.25, 0.1) == echo::test::Approx(700.35));
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

TEST_CASE("a capacity link slows a step only when the rates asking for it exceed its capacity") {
  LinkLoad load = with_nothing_pending();
  const LinkLoad::LinkId up = LinkLoad::group_link(0, false);
  CHECK(LinkLoad::is_group_link(up));
  CHECK_FALSE(LinkLoad::is_group_link(LinkLoad::nic(5, 3)));
  CHECK(up != LinkLoad::group_link(0, true));
  CHECK(up != LinkLoad::group_link(1, false));
  load.set_capacity(up, 100.0);
  const LinkLoad::LinkId links[] = {up};
  // Alone, at 60 of 100: its own time.
  const LinkLoad::Demand alone[] = {{60.0, 0.0}};
  CHECK(load.shared_end(links, links + 1, 2, 0.0, 1.0, 0, alone) == echo::test::Approx(1.0));
  // With a batch-mate at 60 too: 120 asked of 100, each at 100 / 120.
  const LinkLoad::Demand pair[] = {{60.0, 60.0}};
  CHECK(load.shared_end(links, links + 1, 2, 0.0, 1.0, 0, pair) == echo::test::Approx(1.2));
  // Another call booked at 100 over [0, 1): counted at the step's start, for its whole way (as
  // DESIGN.md's rule has it), the step at 100 gets half.
  load.book(up, 1, 0.0, 1.0, 0.0, 1, 100.0);
  const LinkLoad::Demand full[] = {{100.0, 0.0}};
  CHECK(load.shared_end(links, links + 1, 2, 0.0, 1.0, 0, full) == echo::test::Approx(2.0));
  // A step starting as that booking ends does not meet it.
  CHECK(load.shared_end(links, links + 1, 2, 1.0, 1.0, 0, full) == echo::test::Approx(2.0));
  // A sliver beside it (a step asking 5 while 100 is booked) slows by a sliver: 105 asked.
  const LinkLoad::Demand sliver[] = {{5.0, 0.0}};
  CHECK(load.shared_end(links, links + 1, 2, 0.0, 0.5, 0, sliver) == echo::test::Approx(0.525));
  // Its own call's bookings ask for the link too (the call's schedule split it between them).
  CHECK(load.shared_end(links, links + 1, 1, 0.0, 1.0, 0, full) == echo::test::Approx(2.0));
  // Without a demand the capacity link counts for nothing.
  CHECK(load.shared_end(links, links + 1, 2, 0.0, 1.0) == echo::test::Approx(1.0));
}

TEST_CASE("a step on a NIC and a capacity link moves at the slower of the two paces") {
  LinkLoad load = with_nothing_pending();
  const LinkLoad::LinkId nic = LinkLoad::nic(0, 0), up = LinkLoad::group_link(0, false);
  load.set_capacity(up, 100.0);
  load.book(nic, 1, 0.0, 4.0, 0.0);  // another call on the NIC: half pace
  const LinkLoad::LinkId links[] = {nic, up};
  const LinkLoad::Demand light[] = {{}, {50.0, 0.0}}, heavy[] = {{}, {50.0, 350.0}};
  CHECK(load.shared_end(links, links + 2, 2, 0.0, 1.0, 0, light) == echo::test::Approx(2.0));  // the NIC's 1/2
  CHECK(load.shared_end(links, links + 2, 2, 0.0, 1.0, 0, heavy) == echo::test::Approx(4.0));  // the up-link's 100/400
}
