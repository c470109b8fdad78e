//! Agent-side MCP services of STC: the `stc mcp` server and the `stc mcp-proxy` wrapper
#![forbid(unsafe_code)]
