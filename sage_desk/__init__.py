"""SAGE Desk: test LLM customer-service agents against Standard Operating Procedures."""

__version__ = "0.1.0"
