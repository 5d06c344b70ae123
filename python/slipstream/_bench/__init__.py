"""The load generator behind `slipstream bench`: targets, HTTP/1.1 and HTTP/2 connections, the closed and open
loops, and the HTML report. The command line is slipstream.cli_bench."""
