"""Explicit counters: what a grower did, for the benchmarks and the chapters to read.

A grower given a ``GrowthCounter`` records its work in it as it goes; nothing needs to
patch a library function to observe it.
"""

from dataclasses import dataclass, field


@dataclass
class GrowthCounter:
    """What a tree's growth cost.

    ``searches``: nodes whose split was searched; ``nodes_per_depth`` and
    ``samples_per_depth``: of those, how many there were at each depth and how many
    samples they held (the samples a level-wise grower passes over); ``histogram_pairs``:
    (sample, feature) pairs added into histograms; ``subtracted_histograms``: histograms
    obtained as a parent's minus a sibling's; ``peak_bytes``: the largest working memory
    a grower held at once for histograms or sorted rows (its own arrays, not the data).
    """

    searches: int = 0
    nodes_per_depth: list = field(default_factory=list)
    samples_per_depth: list = field(default_factory=list)
    histogram_pairs: int = 0
    subtracted_histograms: int = 0
    peak_bytes: int = 0

    def searched(self, depth, nodes, samples):
        """``nodes`` nodes holding ``samples`` samples were searched at ``depth``."""
        while len(self.nodes_per_depth) <= depth:
            self.nodes_per_depth.append(0)
            self.samples_per_depth.append(0)
        self.nodes_per_depth[depth] += int(nodes)
        self.samples_per_depth[depth] += int(samples)
        self.searches += int(nodes)

    def held(self, n_bytes):
        """The grower holds ``n_bytes`` of working memory right now."""
        self.peak_bytes = max(self.peak_bytes, int(n_bytes))

    @property
    def levels(self):
        """Depths at which some node was searched."""
        return len(self.nodes_per_depth)
