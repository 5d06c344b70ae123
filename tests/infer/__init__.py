"""Tests of the inference module's model files against independent readers (gguf, tokenizers, sentencepiece)."""
