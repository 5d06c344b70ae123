"""FastAPI vs Slipstream differential suite (see test_differential.py)."""
