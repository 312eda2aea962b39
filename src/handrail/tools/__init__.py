"""The tool protocol and everything that runs tools. Never imports `handrail.server`."""
