#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""rank_test.py "A1 A2 ..." "B1 B2 ...": the two-sided exact p-value of the
Wilcoxon rank-sum (Mann-Whitney) test that the repetitions of A and of B
come from one distribution, printed with two decimals ("-" with fewer
than two values on a side).

Exact for small samples and with ties: ties get their mean rank, and the
null distribution of A's rank sum is counted over every way of choosing
len(A) of the pooled ranks (subset-sum counting on doubled ranks, so
mean ranks stay integers). sroce-bench's A/B table prints it per row: a
difference whose p is large is within the run's noise.
"""
import sys


def doubled_ranks(values):
    """Twice each value's rank (1-based) among @values, ties averaged."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = i + j + 2  # 2 * mean of ranks i+1 .. j+1
        i = j + 1
    return ranks


def rank_sum_p(a, b):
    ranks = doubled_ranks(a + b)
    n = len(a)
    observed = sum(ranks[:n])
    total = sum(ranks)
    # ways[k][s]: subsets of k pooled ranks with (doubled) sum s
    ways = [dict() for _ in range(n + 1)]
    ways[0][0] = 1
    for r in ranks:
        for k in range(n, 0, -1):
            for s, c in ways[k - 1].items():
                ways[k][s + r] = ways[k].get(s + r, 0) + c
    # Distances from the mean rank sum total * n / N, scaled by N: exact.
    pooled = len(ranks)
    far = abs(pooled * observed - total * n)
    count = sum(c for s, c in ways[n].items()
                if abs(pooled * s - total * n) >= far)
    return count / sum(ways[n].values())


def main():
    try:
        a = [float(x) for x in sys.argv[1].split()]
        b = [float(x) for x in sys.argv[2].split()]
    except (IndexError, ValueError):
        print("-")
        return
    if len(a) < 2 or len(b) < 2:
        print("-")
        return
    print(f"{rank_sum_p(a, b):.2f}")


if __name__ == "__main__":
    main()
