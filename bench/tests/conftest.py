"""Puts bench/ on sys.path so tests import the harness package; gives the fixtures folder."""
import os
import sys

import pytest

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BENCH_DIR)

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


@pytest.fixture
def fixture_text():
    def read(name: str) -> str:
        with open(os.path.join(FIXTURES, name)) as f:
            return f.read()
    return read
