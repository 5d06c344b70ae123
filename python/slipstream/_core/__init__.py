"""The package's bottom layer: plain types shared by every other layer (see python/slipstream/README.md)."""
