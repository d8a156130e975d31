"""The memory as a service: a REST API (extra `server`), MCP tools (extra `mcp`) and the hub both share."""
