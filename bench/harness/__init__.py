"""Slipstream's benchmark harness: starts each contender, drives it with wrk/h2load, accounts CPU, writes the ledger."""
