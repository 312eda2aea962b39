"""The tool protocol and everything that runs tools. Never imports `handrail.agent` or `handrail.lsp`."""
