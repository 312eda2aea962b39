"""The agent: sessions, transcripts, permission state, MCP servers, the model client and the turn, behind
`AgentHost` (host.py). Reaches the editor only through the ports in ports.py; never imports `handrail.lsp`,
pygls or lsprotocol."""
