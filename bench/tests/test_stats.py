"""Median, spread and percentile maths used for every reported figure."""
import pytest
from harness import stats


@pytest.mark.parametrize("values, expected", [([3.0], 3.0), ([1.0, 9.0, 5.0], 5.0), ([4.0, 1.0, 2.0, 3.0], 2.5)])
def test_median(values, expected):
    assert stats.median(values) == expected


def test_spread_and_relative_spread():
    assert stats.spread([5.0, 1.0, 3.0]) == (1.0, 5.0)
    assert stats.relative_spread([90.0, 100.0, 110.0]) == pytest.approx(0.2)
    assert stats.relative_spread([0.0, 0.0]) == 0.0


@pytest.mark.parametrize("pct, expected", [(50.0, 5.0), (90.0, 9.0), (99.0, 10.0), (100.0, 10.0), (1.0, 1.0)])
def test_nearest_rank_percentile(pct, expected):
    assert stats.percentile([float(v) for v in range(1, 11)], pct) == expected


@pytest.mark.parametrize("fn", [stats.median, stats.spread])
def test_empty_input_is_an_error(fn):
    with pytest.raises(ValueError):
        fn([])
