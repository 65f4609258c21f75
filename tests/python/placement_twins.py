"""Python placement policies for the tests: first-fit written again in Python (the twin of the
C++ first-fit, sim/placement/placement.cc), and policies that answer wrongly."""


def _by_node(candidates):
    """The candidates per node, in index order, and the nodes in index order."""
    nodes = {}
    for c in candidates:
        nodes.setdefault(c.node, []).append(c)
    return nodes


def _take_most_first(nodes, order, n):
    """n GPUs from `order`'s nodes, the nodes with the most candidates first (ties by index),
    each node's lowest-index candidates first."""
    ranked = sorted(order, key=lambda node: (-len(nodes[node]), node))
    picked = []
    for node in ranked:
        take = min(n - len(picked), len(nodes[node]))
        picked += [c.gpu for c in nodes[node][:take]]
        if len(picked) == n:
            break
    return picked


class FirstFit:
    """The lowest-index node that holds the whole gang; else the lowest-index rack that does,
    its nodes with the most usable GPUs first; else the whole cluster the same way."""

    def place(self, job, candidates):
        n = job.gpus
        if len(candidates) < n:
            return None
        nodes = _by_node(candidates)
        for node in sorted(nodes):
            if len(nodes[node]) >= n:
                return [c.gpu for c in nodes[node][:n]]
        racks = {}
        for node, listed in nodes.items():
            racks.setdefault(listed[0].rack, []).append(node)
        for rack in sorted(racks):
            if sum(len(nodes[node]) for node in racks[rack]) >= n:
                return _take_most_first(nodes, racks[rack], n)
        return _take_most_first(nodes, list(nodes), n)


class PicksAnUnlistedGpu:
    def place(self, job, candidates):
        listed = {c.gpu for c in candidates}
        return [max(listed) + 1000] + [c.gpu for c in candidates[: job.gpus - 1]]


class PicksNotAnIndex:
    def place(self, job, candidates):
        return ["0"] * job.gpus


class PicksNumpyIndices:
    """The lowest-index GPUs, as numpy integers (they define __index__)."""

    def place(self, job, candidates):
        import numpy
        return numpy.array([c.gpu for c in candidates[: job.gpus]], dtype=numpy.int64)


class PicksTooFew:
    def place(self, job, candidates):
        return [] if job.gpus > 0 else None


class Raises:
    def place(self, job, candidates):
        raise ZeroDivisionError("the policy's own bug")


class CountsDecisions:
    """Leaves every job queued the first time it is asked about it, then takes the first GPUs."""

    def __init__(self):
        self.asked = set()

    def place(self, job, candidates):
        if job.id not in self.asked:
            self.asked.add(job.id)
            return None
        return [c.gpu for c in candidates[: job.gpus]]
