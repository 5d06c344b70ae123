"""The parts of `slipstream.database`: errors, records, the completion dispatcher, connections (sessions)."""
