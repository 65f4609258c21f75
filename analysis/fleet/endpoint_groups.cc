#include "analysis/fleet/endpoint_groups.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace gpumux {

bool GroupOracle::works(EndpointMask mask) {
  if (const auto it = known_.find(mask); it != known_.end()) return it->second;
  bool ok = true;
  if (std::popcount(mask) > 1) {
    for (EndpointMask rest = mask; rest != 0 && ok; rest &= rest - 1) {
      ok = works(mask & ~(rest & -rest));
    }
  }
  if (ok) {
    ++asked_;
    ok = works_(mask);
  }
  known_.emplace(mask, ok);
  return ok;
}

std::vector<int> mask_members(EndpointMask mask) {
  std::vector<int> out;
  for (; mask != 0; mask &= mask - 1) out.push_back(std::countr_zero(mask));
  return out;
}

namespace {

// The fewest groups covering `left` exactly, each working (memoised); INT_MAX when none.
class ExactCover {
 public:
  explicit ExactCover(GroupOracle& oracle) : oracle_(oracle) {}

  int fewest(EndpointMask left) {
    if (left == 0) return 0;
    if (const auto it = best_.find(left); it != best_.end()) return it->second.count;
    const EndpointMask low = left & -left;
    const EndpointMask others = left & ~low;
    Best best{std::numeric_limits<int>::max(), 0};
    // Every subset of the others, largest first by enumeration from `others` downwards.
    for (EndpointMask s = others;; s = (s - 1) & others) {
      const EndpointMask group = s | low;
      if (oracle_.works(group)) {
        const int rest = fewest(left & ~group);
        if (rest != std::numeric_limits<int>::max() && rest + 1 < best.count) {
          best = {rest + 1, group};
        }
      }
      if (s == 0) break;
    }
    best_.emplace(left, best);
    return best.count;
  }

  std::vector<EndpointMask> groups(EndpointMask left) const {
    std::vector<EndpointMask> out;
    while (left != 0) {
      const Best& b = best_.at(left);
      out.push_back(b.group);
      left &= ~b.group;
    }
    return out;
  }

 private:
  struct Best {
    int count;
    EndpointMask group;
  };
  GroupOracle& oracle_;
  std::unordered_map<EndpointMask, Best> best_;
};

// Every working group among `placeable`, size by size: a group one endpoint larger than a
// working one (the new endpoint above its highest) is asked only when each of its parts one
// endpoint smaller is listed as working. False when a budget ran out (`why` says which).
bool list_working_groups(EndpointMask placeable, GroupOracle& oracle,
                         const ExactSearchBudget& budget, std::vector<EndpointMask>& working,
                         std::string& why) {
  const int asked_before = oracle.asked();
  std::vector<EndpointMask> level;
  for (const int i : mask_members(placeable)) level.push_back(EndpointMask{1} << i);
  working = level;
  std::unordered_set<EndpointMask> listed(level.begin(), level.end());
  while (!level.empty()) {
    std::vector<EndpointMask> next;
    for (const EndpointMask g : level) {
      const int top = static_cast<int>(std::bit_width(g)) - 1;
      for (EndpointMask rest = placeable & ~((EndpointMask{2} << top) - 1); rest != 0;
           rest &= rest - 1) {
        const EndpointMask candidate = g | (rest & -rest);
        bool parts_work = true;
        for (EndpointMask m = g; m != 0 && parts_work; m &= m - 1) {
          parts_work = listed.count(candidate & ~(m & -m)) > 0;
        }
        if (!parts_work) continue;
        if (oracle.asked() - asked_before >= budget.questions) {
          why = "more than " + std::to_string(budget.questions) + " groups to ask";
          return false;
        }
        if (!oracle.works(candidate)) continue;
        next.push_back(candidate);
        if (static_cast<int>(working.size() + next.size()) > budget.working_groups) {
          why = "more than " + std::to_string(budget.working_groups) + " working groups";
          return false;
        }
      }
    }
    listed.insert(next.begin(), next.end());
    working.insert(working.end(), next.begin(), next.end());
    level = std::move(next);
  }
  return true;
}

// Branch and bound over the working groups (a list closed under taking parts): a cover of
// `all` with fewer groups than `best` holds, into `best`. The endpoint left that the fewest
// working groups hold (the lowest such) is placed in each group that holds it, lies within what
// is left and is largest so (any smaller one does no better: its other members' groups could
// give them up); a state already reached with no more groups is not searched again. Bound: a
// group of s endpoints has no member whose largest working group is smaller than s, so the
// groups still needed are at least the sum over the endpoints left of 1 / (the size of the
// largest working group holding each).
class CoverSearch {
 public:
  CoverSearch(const std::vector<EndpointMask>& working, int endpoints, long step_budget)
      : step_budget_(step_budget),
        holding_(static_cast<std::size_t>(endpoints)),
        share_(static_cast<std::size_t>(endpoints), 1.0) {
    std::vector<int> largest(static_cast<std::size_t>(endpoints), 1);
    for (const EndpointMask g : working) {
      for (const int i : mask_members(g)) {
        holding_[static_cast<std::size_t>(i)].push_back(g);
        largest[static_cast<std::size_t>(i)] =
            std::max(largest[static_cast<std::size_t>(i)], std::popcount(g));
      }
    }
    for (std::size_t i = 0; i < largest.size(); ++i) share_[i] = 1.0 / largest[i];
    // Larger groups first, then by mask: the order the branches are tried in.
    for (auto& list : holding_) {
      std::sort(list.begin(), list.end(), [](EndpointMask x, EndpointMask y) {
        const int px = std::popcount(x), py = std::popcount(y);
        return px != py ? px > py : x < y;
      });
    }
  }

  // False when the step budget ran out first (then `best` is the best found).
  bool improve(EndpointMask all, std::vector<EndpointMask>& best) {
    best_ = best;
    current_.clear();
    search(all);
    best = best_;
    return !out_of_steps_;
  }

 private:
  void search(EndpointMask left) {
    if (out_of_steps_) return;
    if (++steps_ > step_budget_) {
      out_of_steps_ = true;
      return;
    }
    const int used = static_cast<int>(current_.size());
    if (left == 0) {
      if (used < static_cast<int>(best_.size())) best_ = current_;
      return;
    }
    double shares = 0.0;
    int pick = -1;
    for (EndpointMask rest = left; rest != 0; rest &= rest - 1) {
      const int i = std::countr_zero(rest);
      shares += share_[static_cast<std::size_t>(i)];
      if (pick < 0 || holding_[static_cast<std::size_t>(i)].size() <
                          holding_[static_cast<std::size_t>(pick)].size()) {
        pick = i;
      }
    }
    const int at_least = used + static_cast<int>(std::ceil(shares - 1e-9));
    if (at_least >= static_cast<int>(best_.size())) return;
    if (const auto it = reached_.find(left); it != reached_.end() && it->second <= used) return;
    reached_[left] = used;
    std::vector<EndpointMask> inside;
    for (const EndpointMask g : holding_[static_cast<std::size_t>(pick)]) {
      if ((g & ~left) != 0) continue;
      // Largest first, so a strict superset already kept rules this one out.
      const bool within_kept =
          std::any_of(inside.begin(), inside.end(), [g](EndpointMask k) { return (g & ~k) == 0; });
      if (!within_kept) inside.push_back(g);
    }
    for (const EndpointMask g : inside) {
      current_.push_back(g);
      search(left & ~g);
      current_.pop_back();
      if (out_of_steps_) return;
    }
  }

  long step_budget_;
  long steps_ = 0;
  bool out_of_steps_ = false;
  std::vector<std::vector<EndpointMask>> holding_;  // per endpoint, the groups holding it
  std::vector<double> share_;  // per endpoint, 1 / the size of its largest working group
  std::unordered_map<EndpointMask, int> reached_;   // state -> fewest groups used to reach it
  std::vector<EndpointMask> current_;
  std::vector<EndpointMask> best_;
};

}  // namespace

GroupSearchResult fewest_groups(int n, GroupOracle& oracle, const ExactSearchBudget& budget) {
  if (n < 1 || n > kMaxEndpoints) throw std::invalid_argument("fewest_groups: n out of range");
  GroupSearchResult r;
  EndpointMask placeable = 0;
  for (int i = 0; i < n; ++i) {
    const EndpointMask one = EndpointMask{1} << i;
    if (oracle.works(one)) {
      placeable |= one;
    } else {
      r.alone_failing |= one;
    }
  }
  r.complete = r.alone_failing == 0;
  if (n <= kExactSearchLimit) {
    ExactCover cover(oracle);
    cover.fewest(placeable);
    r.groups = cover.groups(placeable);
    r.exact = true;
    return r;
  }
  for (const int i : mask_members(placeable)) {
    const EndpointMask one = EndpointMask{1} << i;
    bool joined = false;
    for (EndpointMask& g : r.groups) {
      if (oracle.works(g | one)) {
        g |= one;
        joined = true;
        break;
      }
    }
    if (!joined) r.groups.push_back(one);
  }
  r.first_fit_groups = static_cast<int>(r.groups.size());
  if (r.groups.size() <= 1) {
    r.exact = true;
    return r;
  }
  std::vector<EndpointMask> working;
  const bool listed = list_working_groups(placeable, oracle, budget, working, r.not_exact_because);
  r.working_groups = static_cast<int>(working.size());
  if (!listed) return r;
  CoverSearch search(working, n, budget.cover_steps);
  r.exact = search.improve(placeable, r.groups);
  if (!r.exact) {
    r.not_exact_because = "more than " + std::to_string(budget.cover_steps) + " search steps";
  }
  std::sort(r.groups.begin(), r.groups.end(),
            [](EndpointMask x, EndpointMask y) { return (x & -x) < (y & -y); });
  return r;
}

}  // namespace gpumux
