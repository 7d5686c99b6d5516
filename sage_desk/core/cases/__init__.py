"""Cases: grounded openings with a hidden truth and a pressure, suites per domain, and placing a case on a path."""
