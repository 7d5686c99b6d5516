"""The conversation engine: plays conversations, runs them in lanes and processes, replays and stamps runs."""
