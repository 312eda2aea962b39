"""MCP: tools and resources from MCP servers (the SDK is reached only through `sdk_adapter`, imported lazily)."""
