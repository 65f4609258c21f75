// Which endpoints share which GPU: the fewest groups that cover a set of endpoints when a group
// works or not as a whole (its endpoints meet their objectives together on one GPU). The search
// knows nothing of GPUs or simulation: it asks a predicate about groups, given as bit masks over
// the endpoints (bit i: endpoint i), and remembers every answer.
//
// Assumption (stated in docs/planning.md "LLM fleets"): taking an endpoint off a GPU never makes
// the ones left worse. So a group is tried only once every group of one endpoint fewer inside
// it worked; a group with a failing part is taken as failing without asking.
//
// Exact search, two ways:
//  - up to kExactSearchLimit endpoints: the fewest groups over every partition, by memoised
//    recursion on the endpoints not yet placed (the lowest one is placed with every subset of the
//    others that works, largest subsets first). Ties go to the partition found first, so the
//    answer depends only on the predicate.
//  - beyond it: first fit in endpoint order (each endpoint joins the first group it works in,
//    else opens one) gives an answer; then every working group is listed, size by size (a group
//    is asked only when each of its parts one endpoint smaller works), and a branch-and-bound
//    search over those groups looks for a cover with fewer groups than first fit found. When
//    both finish within the budget (ExactSearchBudget) the answer is the fewest over every
//    partition, as the small search's is; otherwise it is first fit's (or the best cover found
//    before the budget ran out), not exact, and `not_exact_because` says which budget ran out.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gpumux {

using EndpointMask = std::uint64_t;

inline constexpr int kExactSearchLimit = 12;
inline constexpr int kMaxEndpoints = 64;  // masks are 64 bits

class GroupOracle {
 public:
  // `works(mask)` answers for a non-empty group; called at most once per mask.
  explicit GroupOracle(std::function<bool(EndpointMask)> works) : works_(std::move(works)) {}
  // Whether `mask` works: false without asking when a group of one endpoint fewer inside it
  // fails (the assumption above). Memoised.
  bool works(EndpointMask mask);
  // Groups the predicate was asked about (each a simulation for the planner).
  int asked() const { return asked_; }

 private:
  std::function<bool(EndpointMask)> works_;
  std::map<EndpointMask, bool> known_;
  int asked_ = 0;
};

// How far the search beyond kExactSearchLimit may go before it settles for what it has.
struct ExactSearchBudget {
  int questions = 2000;        // groups asked while listing the working groups
  int working_groups = 20000;  // working groups listed
  long cover_steps = 2000000;  // branch-and-bound steps
};

struct GroupSearchResult {
  std::vector<EndpointMask> groups;  // disjoint, covering every endpoint; by lowest endpoint
  bool exact = false;                // the fewest groups over every partition (exact search)
  int first_fit_groups = 0;          // beyond kExactSearchLimit: what first fit found
  int working_groups = 0;            // beyond kExactSearchLimit: working groups listed
  std::string not_exact_because;     // when !exact beyond the limit: the budget that ran out
  bool complete = true;              // false: some endpoint works in no group, not even alone
  EndpointMask alone_failing = 0;    // the endpoints that fail alone (when !complete)
};

// The fewest groups covering endpoints 0..n-1. Precondition: 1 <= n <= kMaxEndpoints. When an
// endpoint fails alone no cover exists: `complete` is false and `groups` holds the others'.
GroupSearchResult fewest_groups(int n, GroupOracle& oracle, const ExactSearchBudget& budget = {});

// Endpoint indices of a mask, ascending.
std::vector<int> mask_members(EndpointMask mask);

}  // namespace gpumux
