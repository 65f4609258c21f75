#include "analysis/fleet/endpoint_groups.h"

#include <bit>
#include <limits>
#include <stdexcept>
#include <unordered_map>

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

}  // namespace

GroupSearchResult fewest_groups(int n, GroupOracle& oracle) {
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
  return r;
}

}  // namespace gpumux
