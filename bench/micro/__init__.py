"""JSON Schema micro-benchmarks: Slipstream vs valijson (C++), pydantic v2 and jsonschema (Python)."""
