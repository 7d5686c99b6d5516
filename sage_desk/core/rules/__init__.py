"""The deterministic rule engine: what the agent did, read against the SOP graph, as verdicts per rule family."""
