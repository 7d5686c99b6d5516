"""Every participant of a conversation: the agent interface, baseline and model agents, simulated customers."""
