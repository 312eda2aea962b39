"""handrail: a language server that hosts an AI coding agent inside the editor."""

__version__ = "0.1.0"
